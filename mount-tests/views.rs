//! Law 10 through real mounts: one bundle per mount (a remount serves the bundle it saved,
//! whatever was added since; disagreeing options stop it), commands given `--mount`/`--state`
//! render with that view's map, `translate --path` gives exactly the bytes the view serves,
//! `patch` turns the view's `git diff` into the original's and back, and tool output written
//! in the view by real tools (pytest's cache, an egg-info, a hypothesis database) stays in
//! the scratch area.

use std::ffi::OsStr;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::harness::{
    copy_tree, git, hashes, output, run_ok, schrodinger, schrodinger_ok, tool_python, walk, Entry,
    Mount, Repo, BIN,
};

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// The view name of an original path, with the map of the view at `m`.
fn view_name(m: &Mount, orig: &Path, rel: &str) -> String {
    let out = schrodinger_ok(
        &[
            os("translate"),
            os("--mount"),
            m.point.as_os_str(),
            os("--to"),
            os("view"),
            orig.as_os_str(),
        ],
        rel.as_bytes(),
    );
    String::from_utf8(out).unwrap()
}

#[test]
fn one_bundle_per_mount_and_commands_use_it() {
    let test = "one_bundle_per_mount_and_commands_use_it";
    let repo = Repo::sample();
    let Some(m) = repo.mount(test, "mnt", 7) else {
        return;
    };
    let saved = fs::read(m.state.join("bundle.json")).unwrap();
    let pkg = view_name(&m, &repo.orig, "bookmobile");
    let listing: Vec<Vec<u8>> = walk(&m.point, &[]).into_keys().collect();
    // New code written in the view, with words of its own: a rebuilt map would assign other
    // words to the repository's tokens.
    let mut code = String::new();
    for (k, w) in [
        "voyage", "shapes", "toying", "harbor", "lantern", "meadow", "quarry", "ribbon",
    ]
    .iter()
    .enumerate()
    {
        code.push_str(&format!(
            "def {w}_{k}_count(x_{w}):\n    return x_{w}\n\n\nclass {}Keeper:\n    pass\n\n\n",
            w[..1].to_uppercase() + &w[1..]
        ));
    }
    fs::write(m.path(&format!("{pkg}/voyage_toys.py")), &code).unwrap();
    // A command given only ORIGINAL must not answer with other names than the view shows.
    let out = schrodinger(
        &[
            os("translate"),
            os("--seed"),
            os("7"),
            os("--to"),
            os("view"),
            repo.orig.as_os_str(),
        ],
        b"bookmobile",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("--mount") && err.contains("tree changed"),
        "translate with a live view and a changed tree: {err}"
    );
    // --mount and --state give the view's names.
    assert_eq!(view_name(&m, &repo.orig, "bookmobile"), pkg);
    let by_state = schrodinger_ok(
        &[
            os("translate"),
            os("--state"),
            m.state.as_os_str(),
            os("--to"),
            os("original"),
            repo.orig.as_os_str(),
        ],
        pkg.as_bytes(),
    );
    assert_eq!(by_state, b"bookmobile");
    m.unmount();

    // The test means something: a map built now is another one.
    let fresh = repo.dir.path().join("fresh.json");
    run_ok(
        Command::new(BIN)
            .args(["map", "--seed", "7", "--out"])
            .args([fresh.as_os_str(), repo.orig.as_os_str()]),
    );
    let tokens =
        |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap()["tokens"].clone();
    assert_ne!(
        tokens(&fs::read(&fresh).unwrap()),
        tokens(&saved),
        "the new file changed no token assignment; give it more words"
    );

    // A remount with the same state directory serves the same bundle.
    let Some(m) = repo.mount(test, "mnt", 7) else {
        return;
    };
    assert!(
        fs::read(m.state.join("bundle.json")).unwrap() == saved,
        "the remount saved another bundle"
    );
    let now: Vec<Vec<u8>> = walk(&m.point, &[]).into_keys().collect();
    for p in &listing {
        assert!(
            now.contains(p),
            "{} is gone after the remount",
            String::from_utf8_lossy(p)
        );
    }
    let state = m.state.clone();
    let point = m.point.clone();
    m.unmount();
    // Options that disagree with the saved bundle stop the mount.
    let out = output(
        Command::new(BIN)
            .args(["mount", "--seed", "8", "--state"])
            .args([state.as_os_str(), repo.orig.as_os_str(), point.as_os_str()]),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("seed 8"), "{err}");
    let out = output(
        Command::new(BIN)
            .args(["mount", "--levels", "2", "--state"])
            .args([state.as_os_str(), repo.orig.as_os_str(), point.as_os_str()]),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("levels 2"), "{err}");
    // Another checkout at the same path (a new HEAD) is not the tree that view was made for.
    run_ok(git(&repo.orig).args(["add", "-A"]));
    run_ok(git(&repo.orig).args(["commit", "-q", "-m", "next"]));
    let out = output(Command::new(BIN).args(["mount", "--state"]).args([
        state.as_os_str(),
        repo.orig.as_os_str(),
        point.as_os_str(),
    ]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("HEAD is now"),
        "{err}"
    );
}

#[test]
fn translate_path_gives_the_bytes_the_view_serves() {
    let test = "translate_path_gives_the_bytes_the_view_serves";
    let repo = Repo::sample();
    let Some(m) = repo.mount(test, "mnt", 5) else {
        return;
    };
    let check = |rel: &str| {
        let orig = fs::read(repo.orig.join(rel)).unwrap();
        let view_rel = view_name(&m, &repo.orig, rel);
        let served = fs::read(m.path(&view_rel)).unwrap();
        let rendered = schrodinger_ok(
            &[
                os("translate"),
                os("--mount"),
                m.point.as_os_str(),
                os("--to"),
                os("view"),
                os("--path"),
                os(rel),
                repo.orig.as_os_str(),
            ],
            &orig,
        );
        assert!(
            rendered == served,
            "{rel}: translate --path differs from the view"
        );
        // And back: the view's bytes written to that file give the original.
        let back = schrodinger_ok(
            &[
                os("translate"),
                os("--mount"),
                m.point.as_os_str(),
                os("--to"),
                os("original"),
                os("--path"),
                os(&view_rel),
                repo.orig.as_os_str(),
            ],
            &served,
        );
        assert!(back == orig, "{rel}: translate --path --to original");
    };
    let files: Vec<String> = walk(&repo.orig, &[".git"])
        .into_iter()
        .filter(|(_, e)| matches!(e, Entry::File(_)))
        .map(|(k, _)| String::from_utf8(k).unwrap())
        .collect();
    assert!(files.len() > 10);
    for f in &files {
        check(f);
    }
    // A file written through the view has a layout of its own: rendering uses the mount's.
    let desk = view_name(&m, &repo.orig, "bookmobile/desk.py");
    let mut text = fs::read_to_string(m.path(&desk)).unwrap();
    text.push_str("\n\ndef appended_here(x):\n    return x\n");
    fs::write(m.path(&desk), &text).unwrap();
    check("bookmobile/desk.py");
}

/// Make `snap` (a git repository) hold a copy of the view at `point`, then stage it.
fn snapshot(point: &Path, snap: &Path) {
    for e in fs::read_dir(snap).unwrap().flatten() {
        if e.file_name() != ".git" {
            let p = e.path();
            if p.is_dir() {
                fs::remove_dir_all(p).unwrap();
            } else {
                fs::remove_file(p).unwrap();
            }
        }
    }
    copy_tree(point, snap);
    run_ok(git(snap).args(["add", "-A"]));
}

#[test]
fn patch_turns_the_views_diff_into_the_originals() {
    let test = "patch_turns_the_views_diff_into_the_originals";
    let repo = Repo::sample();
    let Some(m) = repo.mount(test, "mnt", 11) else {
        return;
    };
    let snap = repo.dir.path().join("snap");
    fs::create_dir_all(&snap).unwrap();
    run_ok(git(&snap).args(["init", "-q", "-b", "main"]));
    snapshot(&m.point, &snap);
    run_ok(git(&snap).args(["commit", "-q", "-m", "view base"]));

    // An agent's session: sed -i, an appended function, a new module, a move, a removal, a
    // prose edit and a new binary file.
    let v = |rel: &str| view_name(&m, &repo.orig, rel);
    let (desk, ledger, fines, errors) = (
        v("bookmobile/desk.py"),
        v("bookmobile/ledger.py"),
        v("bookmobile/rules/fines.py"),
        v("bookmobile/errors.py"),
    );
    let pkg = v("bookmobile");
    run_ok(
        Command::new("sed")
            .args(["-i", "3s/$/  # checked/"])
            .arg(m.path(&desk)),
    );
    let mut l = fs::read_to_string(m.path(&ledger)).unwrap();
    l.push_str("\n\ndef settle_everything(entries):\n    return [e for e in entries]\n");
    fs::write(m.path(&ledger), l).unwrap();
    fs::write(m.path(&format!("{pkg}/fresh_rules.py")), "LIMIT = 3\n").unwrap();
    run_ok(
        Command::new("mv")
            .arg(m.path(&fines))
            .arg(m.path(&format!("{pkg}/moved_fines.py"))),
    );
    fs::remove_file(m.path(&errors)).unwrap();
    let mut readme = fs::read_to_string(m.path("README.md")).unwrap();
    readme.push_str("\nOne more line.\n");
    fs::write(m.path("README.md"), readme).unwrap();
    fs::write(
        m.path(&format!("{pkg}/data/cover.bin")),
        b"\0\x01\x02cover\xff",
    )
    .unwrap();

    snapshot(&m.point, &snap);
    let view_plain = run_ok(git(&snap).args(["diff", "--cached"]));
    let view_binary = run_ok(git(&snap).args(["diff", "--cached", "--binary"]));
    let point = m.point.clone();
    m.unmount();
    run_ok(git(&repo.orig).args(["add", "-A"]));
    let orig_plain = run_ok(git(&repo.orig).args(["diff", "--cached"]));
    let orig_binary = run_ok(git(&repo.orig).args(["diff", "--cached", "--binary"]));
    run_ok(git(&repo.orig).args(["reset", "-q"]));
    let translate = |to: &str, patch: &str| -> String {
        let out = schrodinger_ok(
            &[
                os("patch"),
                os("--to"),
                os(to),
                os("--mount"),
                point.as_os_str(),
                repo.orig.as_os_str(),
            ],
            patch.as_bytes(),
        );
        String::from_utf8(out).unwrap()
    };
    // The view's diff, translated, is the original's diff, byte for byte.
    assert!(view_plain.contains("rename from") && view_plain.contains("Binary files"));
    assert_eq!(translate("original", &view_plain), orig_plain);
    let model = translate("original", &view_binary);
    assert_eq!(model, orig_binary);

    // git apply of it on a fresh checkout of the original gives the same tree.
    let fresh = repo.dir.path().join("fresh");
    run_ok(
        Command::new("git")
            .arg("clone")
            .arg("-q")
            .arg(&repo.orig)
            .arg(&fresh),
    );
    let model_file = repo.dir.path().join("model.patch");
    fs::write(&model_file, &model).unwrap();
    run_ok(git(&fresh).arg("apply").arg(&model_file));
    assert_eq!(hashes(&fresh), hashes(&repo.orig));

    // The original's diff, translated to the view, translates back to itself and applies in
    // a view of the base (the same state directory: the same bundle), giving the same
    // original.
    let to_view = translate("view", &orig_binary);
    assert_eq!(translate("original", &to_view), orig_binary);
    run_ok(git(&repo.orig).args(["stash", "-q", "-u"]));
    let Some(m) = repo.mount(test, "mnt", 11) else {
        return;
    };
    let p = repo.dir.path().join("to_view.patch");
    fs::write(&p, &to_view).unwrap();
    run_ok(
        Command::new("git")
            .arg("-C")
            .arg(&m.point)
            .arg("apply")
            .arg(&p),
    );
    m.unmount();
    // git apply removes each file and writes it again; the mount takes that as an edit, so
    // the original is the patched release, in its own order.
    run_ok(git(&repo.orig).args(["add", "-A"]));
    assert_eq!(
        run_ok(git(&repo.orig).args(["diff", "--cached", "--binary"])),
        orig_binary
    );
}

#[test]
fn tool_output_of_real_tools_stays_in_scratch() {
    let test = "tool_output_of_real_tools_stays_in_scratch";
    let Some(python) = tool_python(test) else {
        return;
    };
    let repo = Repo::sample();
    let Some(m) = repo.mount(test, "mnt", 3) else {
        return;
    };
    // pytest with its cache on and warnings as errors: the cache is written as a temporary
    // directory, then renamed into place (an EXDEV there was a PytestCacheWarning).
    let out = output(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "cacheprovider"])
            .args([
                "-o",
                "filterwarnings=error",
                "-o",
                "cache_dir=.pytest_cache",
            ])
            .current_dir(&m.point)
            .env_remove("PYTHONDONTWRITEBYTECODE"),
    );
    assert!(
        out.status.success(),
        "pytest in the view failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(m.path(".pytest_cache/v/cache/nodeids").is_file());
    assert!(m
        .state
        .join("scratch/.pytest_cache/v/cache/nodeids")
        .is_file());
    // A second run reads the cache back (--lf): the renamed directory is whole.
    run_ok(
        Command::new(&python)
            .args(["-m", "pytest", "-q", "--lf", "-o", "filterwarnings=error"])
            .current_dir(&m.point),
    );
    // An egg-info made by setuptools, a hypothesis database, coverage data.
    let pkg = view_name(&m, &repo.orig, "bookmobile");
    run_ok(
        Command::new(&python)
            .args(["-c"])
            .arg(format!(
                "from setuptools import setup; setup(name='{pkg}', version='1.0', \
                 py_modules=[], script_args=['-q', 'egg_info'])"
            ))
            .current_dir(&m.point),
    );
    run_ok(
        Command::new(&python)
            .args([
                "-c",
                "import os\nfor d in ('.hypothesis/examples/a1', 'tests/.hypothesis/unicode'):\n    os.makedirs(d)\n    open(os.path.join(d, 'b2'), 'wb').write(b'\\0db')\nopen('.coverage', 'w').write('x')",
            ])
            .current_dir(&m.point),
    );
    for p in [
        format!("{pkg}.egg-info/PKG-INFO"),
        ".hypothesis/examples/a1/b2".into(),
        "tests/.hypothesis/unicode/b2".into(),
        ".coverage".into(),
    ] {
        assert!(m.path(&p).is_file(), "{p} not in the view");
        assert!(
            m.state.join("scratch").join(&p).is_file(),
            "{p} not in scratch"
        );
    }
    // Nothing of it in the original.
    assert_eq!(repo.status(), "", "tool output reached the original");
    // The map is the same as before: a command given only ORIGINAL agrees with the view.
    let out = schrodinger_ok(
        &[
            os("translate"),
            os("--seed"),
            os("3"),
            os("--to"),
            os("view"),
            repo.orig.as_os_str(),
        ],
        b"bookmobile",
    );
    assert_eq!(String::from_utf8(out).unwrap(), pkg);
    m.unmount();
    assert_eq!(repo.status(), "");
}

/// `verify --mount` runs the tests on that view's map (bundle and layouts), exported here so
/// that `export --state` is exercised too; given only ORIGINAL while the view is live and the
/// tree has changed, verify stops instead of building another map.
#[test]
fn verify_uses_the_map_of_a_mounted_view() {
    let test = "verify_uses_the_map_of_a_mounted_view";
    let repo = Repo::sample();
    let Some(m) = repo.mount(test, "mnt", 7) else {
        return;
    };
    let pkg = view_name(&m, &repo.orig, "bookmobile");
    fs::write(
        m.path(&format!("{pkg}/added_later.py")),
        "def added_helper_total(values):\n    return sum(values)\n",
    )
    .unwrap();
    let verify = |extra: &[&str]| {
        output(
            Command::new(BIN)
                .arg("verify")
                .args(extra)
                .args(["--export", "--json"])
                .arg(&repo.orig)
                .args(["--", "python3", "-m", "unittest", "-v"]),
        )
    };
    let out = verify(&["--seed", "7"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("--mount"), "{err}");
    let point = m.point.to_str().unwrap().to_string();
    let out = verify(&["--mount", &point]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    assert!(out.status.success(), "{r:#}");
    assert_eq!(r["seed"], 7);
    assert_eq!(r["same"], 30, "{r:#}");
    m.unmount();
}
