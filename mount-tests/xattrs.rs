//! Extended attributes through the view (`fs::xattrs`): `user.` attributes behave as on the
//! original's file system and land on the original file; the host's namespaces stay out.

use std::fs;
use std::path::Path;

use crate::harness::{python3, run_ok, Repo};

/// Sets, reads, lists, replaces and removes `user.` attributes of `path`, printing one line
/// per step (a value, a listing or an errno), so a run on a native file and one in the view
/// can be compared line by line. A write and a truncate keep the attributes, as they do in
/// place natively (the view's write-back replaces the original file by a rename).
const STEPS: &str = r##"
import os, sys
p = sys.argv[1]
def step(name, f):
    try:
        r = f()
        print(name, "ok", r if r is not None else "")
    except OSError as e:
        print(name, "errno", e.errno)
step("set", lambda: os.setxattr(p, "user.crtime", b"946681200"))
step("get", lambda: os.getxattr(p, "user.crtime"))
step("list", lambda: sorted(os.listxattr(p)))
step("create-again", lambda: os.setxattr(p, "user.crtime", b"1", os.XATTR_CREATE))
step("replace-missing", lambda: os.setxattr(p, "user.none", b"1", os.XATTR_REPLACE))
step("get-missing", lambda: os.getxattr(p, "user.none"))
step("replace", lambda: os.setxattr(p, "user.crtime", b"x" * 3000, os.XATTR_REPLACE))
step("get-long", lambda: len(os.getxattr(p, "user.crtime")))
step("remove", lambda: os.removexattr(p, "user.crtime"))
step("list-after", lambda: sorted(os.listxattr(p)))
step("remove-missing", lambda: os.removexattr(p, "user.crtime"))
step("keep", lambda: os.setxattr(p, "user.kept", b"\x00\xffbytes"))
step("append", lambda: open(p, "a").write("# more\n"))
step("kept-after-write", lambda: os.getxattr(p, "user.kept"))
step("truncate", lambda: os.truncate(p, 3))
step("kept-after-truncate", lambda: os.getxattr(p, "user.kept"))
"##;

fn steps(path: &Path) -> String {
    run_ok(python3().arg("-c").arg(STEPS).arg(path))
}

/// loguru keeps a log file's creation time in `user.loguru_crtime` and skips two tests
/// where it cannot (the corpus's mounted run, docs/corpus.md run 49). In the view, each
/// step gives what it gives on a native file of the same file system; a value set in the
/// view is the original file's; `trusted.` attributes of the original are neither listed
/// nor read, and none can be set.
#[test]
fn user_attributes_pass_through_and_host_namespaces_stay_out() {
    let test = "user_attributes_pass_through_and_host_namespaces_stay_out";
    let seed = 5;
    let repo = Repo::sample();
    let native = repo.dir.path().join("native.py");
    fs::write(&native, "x = 1\n").unwrap();
    let expected = steps(&native);
    let rel = "bookmobile/ledger.py";
    let orig_file = repo.orig.join(rel);
    // An attribute of the host's, as root may set one.
    let host = run_ok(python3().arg("-c").arg(
        "import os,sys\ntry:\n os.setxattr(sys.argv[1],'trusted.host',b'h'); print('set')\nexcept OSError as e: print(e.errno)",
    ).arg(&orig_file));
    let view_rel = repo.view_path(seed, rel);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let got = steps(&m.path(&view_rel));
    let host_in_view = run_ok(
        python3()
            .arg("-c")
            .arg(
                "import os,sys\np=sys.argv[1]\nprint(sorted(os.listxattr(p)))\n\
                 for n in ('trusted.host','security.capability'):\n\
                 \ttry: os.getxattr(p,n); print(n,'read')\n\
                 \texcept OSError as e: print(n,e.errno)\n\
                 try: os.setxattr(p,'trusted.new',b'1'); print('set')\n\
                 except OSError as e: print('set',e.errno)",
            )
            .arg(m.path(&view_rel)),
    );
    m.unmount();
    assert_eq!(
        got, expected,
        "the view answers each step as the native file system"
    );
    let supported = expected.starts_with("set ok");
    if supported {
        assert!(got.contains("get ok b'946681200'"), "{got}");
        let kept = run_ok(
            python3()
                .arg("-c")
                .arg("import os,sys; print(os.getxattr(sys.argv[1], 'user.kept'))")
                .arg(&orig_file),
        );
        assert_eq!(
            kept.trim(),
            r"b'\x00\xffbytes'",
            "set in the view, stored on the original"
        );
    } else {
        eprintln!("{test}: this file system has no user attributes; compared errors only");
    }
    let listed = host_in_view.lines().next().unwrap_or_default();
    assert!(
        !listed.contains("trusted"),
        "host attribute listed: {host_in_view}"
    );
    if host.trim() == "set" {
        assert!(
            host_in_view.contains(&format!("trusted.host {}", libc::ENODATA)),
            "{host_in_view}"
        );
    }
    assert!(
        host_in_view.contains(&format!("security.capability {}", libc::ENODATA)),
        "{host_in_view}"
    );
    assert!(
        host_in_view.contains(&format!("set {}", libc::EOPNOTSUPP)),
        "{host_in_view}"
    );
}
