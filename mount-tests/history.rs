//! A checkout with real history, as SWE-bench images have it: a PyPI project's sdist committed
//! at two versions, then a local edit. The harness sequences and an install run in the view,
//! and no git output, `.git` file, pip output or `sys.path` shows an original owned name or the
//! original's path.

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use crate::harness::{git, output, run_ok, sdist, unpack, walk, Entry, Repo};

/// No original owned name (outside URLs and e-mail addresses, which the view keeps whole by
/// design: docs/design-notes.md, "URLs, addresses...") and not the original's path.
fn check(what: &str, text: &[u8], names: &BTreeSet<String>, orig: &str) {
    let s = String::from_utf8_lossy(text);
    assert!(!s.contains(orig), "{what} shows the original's path");
    for word in s.split(|c: char| c.is_whitespace() || "<>()[]\"'`".contains(c)) {
        if word.contains("://") || word.contains('@') {
            continue;
        }
        for run in word.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            assert!(
                !names.contains(run),
                "{what} shows the original name `{run}`: {word}"
            );
        }
    }
}

fn sh(dir: &std::path::Path, script: &str) -> String {
    let out = output(
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "agent")
            .env("GIT_AUTHOR_EMAIL", "agent@localhost")
            .env("GIT_COMMITTER_NAME", "agent")
            .env("GIT_COMMITTER_EMAIL", "agent@localhost")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
    );
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "`{script}` failed:\n{text}");
    text
}

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

    let names: BTreeSet<String> = repo.bundle_json(seed)["owned_runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    // Which names stay depends on the environment (packages that use the project freeze what
    // they call it by); enough of them must be renamed for the test to mean anything.
    assert!(names.len() > 30, "too few renamed names: {names:?}");
    let orig_path = o.to_str().unwrap().to_string();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let v = &m.point;
    let mut outputs = vec![
        sh(v, "git status"),
        sh(v, "git log --all --stat"),
        sh(v, "git show HEAD --stat"),
        sh(v, "git diff"),
        sh(v, &format!("git diff {base}")),
    ];
    // The earlier version's commit is not in the view.
    let gone = output(
        Command::new("git")
            .args(["cat-file", "-t", &first])
            .current_dir(v),
    );
    assert!(!gone.status.success());
    // SWE-agent's reset, an edit, and its submit (see git.rs for the sources).
    outputs.push(sh(
        v,
        &format!("git fetch && git status && git restore . && git reset --hard && git checkout {base} && git clean -fdq"),
    ));
    outputs.push(sh(
        v,
        "printf '\\nAGENT = 1\\n' >> README.rst && git add -A && git diff --cached",
    ));
    // An install from the view, into a fresh venv.
    let env = repo.dir.path().join("venv");
    run_ok(Command::new("python3").args(["-m", "venv"]).arg(&env));
    let py = env.join("bin/python");
    outputs.push(sh(
        v,
        &format!(
            "{} -m pip install -q setuptools wheel && {} -m pip install --no-build-isolation -e .",
            py.display(),
            py.display()
        ),
    ));
    outputs.push(sh(
        std::path::Path::new("/"),
        &format!("{} -c 'import sys; print(sys.path)'", py.display()),
    ));
    for (i, out) in outputs.iter().enumerate() {
        check(&format!("command {i}"), out.as_bytes(), &names, &orig_path);
    }
    for (k, e) in walk(&m.path(".git"), &[]) {
        if let Entry::File(c) = e {
            if !k.ends_with(b".pack") && !k.ends_with(b".idx") {
                check(&String::from_utf8_lossy(&k), &c, &names, &orig_path);
            }
        }
    }
    let objects = run_ok(
        Command::new("git")
            .args(["cat-file", "--batch-all-objects", "--batch"])
            .current_dir(v),
    );
    check("the objects", objects.as_bytes(), &names, &orig_path);
    m.unmount();
    // The reset undid the local edit in the original; the agent's edit is there instead.
    let d = run_ok(git(o).args(["diff", "--stat"]));
    assert!(d.contains("README.rst") && !d.contains("six.py"), "{d}");
}
