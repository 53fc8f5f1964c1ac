//! A checkout with real history, as SWE-bench images have it: a PyPI project's sdist committed
//! at two versions, then a local edit. The harness sequences and an install run in the view,
//! and no git output, `.git` file, pip output or `sys.path` shows an original owned name or the
//! original's path.

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use crate::harness::{
    assert_no_original, git, output, run_ok, sdist, sh_ok, unpack, walk, Entry, Repo,
};

#[test]
fn real_history_harness_and_install() {
    let test = "real_history_harness_and_install";
    let seed = 41;
    let (Some(old), Some(new)) = (sdist(test, "six", "1.15.0"), sdist(test, "six", "1.16.0"))
    else {
        return;
    };
    let repo = Repo::sample();
    // Replace the sample with the project's history.
    let o = &repo.orig;
    for e in fs::read_dir(o).unwrap().flatten() {
        if e.file_name() != ".git" {
            let p = e.path();
            if p.is_dir() {
                fs::remove_dir_all(p).unwrap();
            } else {
                fs::remove_file(p).unwrap();
            }
        }
    }
    unpack(&old, o);
    run_ok(git(o).args(["add", "-A"]));
    run_ok(git(o).args(["commit", "-q", "-m", "six 1.15.0: MovedModule and add_move"]));
    let first = run_ok(git(o).args(["rev-parse", "HEAD"]))
        .trim()
        .to_string();
    for e in fs::read_dir(o).unwrap().flatten() {
        if e.file_name() != ".git" {
            let p = e.path();
            if p.is_dir() {
                fs::remove_dir_all(p).unwrap();
            } else {
                fs::remove_file(p).unwrap();
            }
        }
    }
    unpack(&new, o);
    run_ok(git(o).args(["add", "-A"]));
    run_ok(git(o).args(["commit", "-q", "-m", "six 1.16.0"]));
    let base = run_ok(git(o).args(["rev-parse", "HEAD"]))
        .trim()
        .to_string();
    let mut text = fs::read_to_string(o.join("six.py")).unwrap();
    text.push_str("\n# local edit of add_move\n");
    fs::write(o.join("six.py"), text).unwrap();

    let names: BTreeSet<String> = repo.never_shown(seed);
    // Which names stay depends on the environment (packages that use the project freeze what
    // they call it by); enough of them must be renamed for the test to mean anything.
    assert!(names.len() > 30, "too few renamed names: {names:?}");
    let orig_path = o.to_path_buf();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let v = &m.point;
    let mut outputs = vec![
        sh_ok(v, "git status"),
        sh_ok(v, "git log --all --stat"),
        sh_ok(v, "git show HEAD --stat"),
        sh_ok(v, "git diff"),
        sh_ok(v, &format!("git diff {base}")),
    ];
    // The earlier version's commit is not in the view.
    let gone = output(
        Command::new("git")
            .args(["cat-file", "-t", &first])
            .current_dir(v),
    );
    assert!(!gone.status.success());
    // SWE-agent's reset, an edit, and its submit (see git.rs for the sources).
    outputs.push(sh_ok(
        v,
        &format!("git fetch && git status && git restore . && git reset --hard && git checkout {base} && git clean -fdq"),
    ));
    outputs.push(sh_ok(
        v,
        "printf '\\nAGENT = 1\\n' >> README.rst && git add -A && git diff --cached",
    ));
    // An install from the view, into a fresh venv.
    let env = repo.dir.path().join("venv");
    run_ok(Command::new("python3").args(["-m", "venv"]).arg(&env));
    let py = env.join("bin/python");
    outputs.push(sh_ok(
        v,
        &format!(
            "{} -m pip install -q setuptools wheel && {} -m pip install --no-build-isolation -e .",
            py.display(),
            py.display()
        ),
    ));
    outputs.push(sh_ok(
        std::path::Path::new("/"),
        &format!("{} -c 'import sys; print(sys.path)'", py.display()),
    ));
    for (i, out) in outputs.iter().enumerate() {
        assert_no_original(&format!("command {i}"), out.as_bytes(), &names, &orig_path);
    }
    for (k, e) in walk(&m.path(".git"), &[]) {
        if let Entry::File(c) = e {
            if !k.ends_with(b".pack") && !k.ends_with(b".idx") {
                assert_no_original(&String::from_utf8_lossy(&k), &c, &names, &orig_path);
            }
        }
    }
    let objects = run_ok(
        Command::new("git")
            .args(["cat-file", "--batch-all-objects", "--batch"])
            .current_dir(v),
    );
    assert_no_original("the objects", objects.as_bytes(), &names, &orig_path);
    m.unmount();
    // The reset undid the local edit in the original; the agent's edit is there instead.
    let d = run_ok(git(o).args(["diff", "--stat"]));
    assert!(d.contains("README.rst") && !d.contains("six.py"), "{d}");
}
