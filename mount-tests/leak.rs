//! Law 7 (no leak) through real tools: `ls -R`, `find`, `grep -rnw`.

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use crate::harness::{never_shown, output, python3, run_ok, show, walk, Repo};

/// Every original path component that the bundle renames is absent from the view's listing,
/// and the view's listing is exactly the translated list of original paths.
#[test]
fn listing_shows_no_renamed_original_component() {
    let test = "listing_shows_no_renamed_original_component";
    let seed = 11;
    let repo = Repo::sample();
    let orig_paths: Vec<String> = walk(&repo.orig, &[".git"])
        .keys()
        .map(|k| show(k))
        .collect();
    let translated = repo.translate(seed, "view", &orig_paths.join("\n"));
    let view_paths: Vec<&str> = translated.lines().collect();
    assert_eq!(view_paths.len(), orig_paths.len());

    // Components that translate to themselves are frozen; the others must not be seen.
    let mut renamed = BTreeSet::new();
    for (o, v) in orig_paths.iter().zip(&view_paths) {
        for (oc, vc) in o.split('/').zip(v.split('/')) {
            if oc != vc {
                renamed.insert(oc.to_string());
            }
        }
    }
    assert!(
        renamed.contains("bookmobile"),
        "the package directory should be renamed by seed {seed}: {renamed:?}"
    );

    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    // The view's `.git` is the shadow repository, whose contents `git.rs` checks.
    let find = run_ok(
        Command::new("find")
            .args([".", "-path", "./.git", "-prune", "-o", "-print"])
            .current_dir(&m.point),
    );
    let ls = run_ok(
        Command::new("ls")
            .args(["-R", "-a", "-I", ".git"])
            .current_dir(&m.point),
    );
    let mut seen_paths = BTreeSet::new();
    for line in find.lines() {
        let p = line.strip_prefix("./").unwrap_or(line);
        if p != "." {
            seen_paths.insert(p.to_string());
        }
        for c in p.split('/') {
            assert!(
                !renamed.contains(c),
                "find shows the original name `{c}` in `{line}`"
            );
        }
    }
    for line in ls.lines() {
        for c in line
            .trim_end_matches(':')
            .split(|ch: char| ch == '/' || ch.is_whitespace())
        {
            assert!(
                !renamed.contains(c),
                "ls -R shows the original name `{c}` in `{line}`"
            );
        }
    }
    let expected: BTreeSet<String> = view_paths.iter().map(|s| s.to_string()).collect();
    assert_eq!(
        seen_paths, expected,
        "the view's listing is not the translated original listing"
    );
    m.unmount();
}

/// No owned run the bundle renames is found by `grep -rnw` anywhere in the view (names and
/// contents), and the view hides `.git` and byte-code caches that exist in the original.
#[test]
fn grep_finds_no_owned_name_and_hides_caches() {
    let test = "grep_finds_no_owned_name_and_hides_caches";
    let seed = 12;
    let repo = Repo::sample();
    let bundle = repo.bundle_json(seed);
    let owned: Vec<String> = never_shown(&bundle).into_iter().collect();
    assert!(owned.len() > 50, "too few owned runs: {owned:?}");
    assert!(owned.iter().any(|r| r == "LoanLedger"), "{owned:?}");
    let patterns = repo.dir.path().join("owned.txt");
    fs::write(&patterns, owned.join("\n") + "\n").unwrap();

    // The original has byte-code caches (tests run there) that the view must hide.
    let out = output(
        python3()
            .args(["-m", "unittest", "-q"])
            .current_dir(&repo.orig),
    );
    assert!(out.status.success(), "{out:?}");
    assert!(repo.orig.join("bookmobile/__pycache__").is_dir());

    // The check can fail: the same grep finds the names in the original.
    let grep = |dir: &std::path::Path| {
        output(
            Command::new("grep")
                .args(["-rnwF", "-f"])
                .arg(&patterns)
                .arg(".")
                .current_dir(dir),
        )
    };
    let in_orig = grep(&repo.orig);
    assert_eq!(
        in_orig.status.code(),
        Some(0),
        "grep finds owned names in the original"
    );

    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let in_view = grep(&m.point);
    assert_eq!(
        in_view.status.code(),
        Some(1),
        "grep -rnw finds original owned names in the view (or failed):\n{}{}",
        String::from_utf8_lossy(&in_view.stdout),
        String::from_utf8_lossy(&in_view.stderr)
    );
    // File names too (grep only looks at contents).
    let names = run_ok(Command::new("find").arg(".").current_dir(&m.point));
    let owned_set: BTreeSet<&str> = owned.iter().map(String::as_str).collect();
    for line in names.lines() {
        for run in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            assert!(
                !owned_set.contains(run),
                "the view's listing shows the owned name `{run}`: {line}"
            );
        }
    }

    let hidden = run_ok(
        Command::new("find")
            .args([
                ".",
                "-path",
                "./.git",
                "-prune",
                "-o",
                "(",
                "-name",
                ".git",
                "-o",
                "-name",
                "__pycache__",
                "-o",
                "-name",
                "*.pyc",
                ")",
                "-print",
            ])
            .current_dir(&m.point),
    );
    assert_eq!(hidden, "", "the view shows hidden things");
    // The `.git` the view shows is its own shadow repository, not the original's.
    let view_head = run_ok(
        Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(&m.point),
    );
    let orig_head = run_ok(crate::harness::git(&repo.orig).args(["rev-parse", "HEAD"]));
    assert_ne!(
        view_head, orig_head,
        "the view's HEAD is the original's commit"
    );
    m.unmount();
}

/// Failing commands in the view: the messages the agent sees (tools' errors built from the
/// filesystem's errnos, Python tracebacks quoting view files) hold no original owned name.
/// The same commands on the original do show owned names, so the check can fail.
#[test]
fn error_messages_show_no_owned_name() {
    let test = "error_messages_show_no_owned_name";
    let seed = 13;
    let repo = Repo::sample();
    let bundle = repo.bundle_json(seed);
    let owned: BTreeSet<String> = never_shown(&bundle);
    // A script of failing commands, written in original names and run on each side in that
    // side's names.
    let script = "cat bookmobile/ledger_missing.py\n\
                  mkdir bookmobile\n\
                  rmdir bookmobile\n\
                  ls bookmobile/rules/missing_rule\n\
                  cat .git/HEAD\n\
                  printf 'def close_loan(:\\n' > bookmobile/broken_ledger.py\n\
                  python3 bookmobile/broken_ledger.py\n\
                  python3 -c 'import bookmobile.ledger as m, datetime\n\
                  m.LoanLedger().close_loan(\"QA-1\", datetime.date.today())'\n\
                  python3 -c 'import bookmobile.missing_module'\n\
                  true\n";
    let run = |dir: &std::path::Path, text: &str| -> String {
        let out = output(Command::new("sh").arg("-c").arg(text).current_dir(dir));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let leaks = |stderr: &str| -> BTreeSet<String> {
        stderr
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| owned.contains(*w))
            .map(str::to_string)
            .collect()
    };
    let view_script = repo.translate(seed, "view", script);
    let in_orig = run(&repo.orig, script);
    let orig_leaks = leaks(&in_orig);
    for name in [
        "bookmobile",
        "ledger",
        "close_loan",
        "loan_record",
        "shelf_code",
    ] {
        assert!(
            orig_leaks.contains(name),
            "the original's messages lack `{name}`, so the check proves nothing:\n{in_orig}"
        );
    }
    let _ = fs::remove_file(repo.orig.join("bookmobile/broken_ledger.py"));

    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let in_view = run(&m.point, &view_script);
    for kind in [
        "No such file or directory",
        "File exists",
        "Directory not empty",
        "SyntaxError",
        "KeyError",
        "ModuleNotFoundError",
    ] {
        assert!(
            in_view.contains(kind),
            "the view's messages lack `{kind}`:\n{in_view}"
        );
    }
    let found = leaks(&in_view);
    assert!(
        found.is_empty(),
        "original owned names {found:?} in the view's error messages:\n{in_view}"
    );
}

/// Symlinks: an absolute target inside the original shows as the same place inside the view,
/// a relative one is translated by component; `lstat` sizes match the targets served, reading
/// through either link gives the view's bytes, and git sees the links as committed.
#[test]
fn symlinks_point_into_the_view() {
    let test = "symlinks_point_into_the_view";
    let seed = 14;
    let repo = Repo::sample();
    let abs_target = repo.orig.join("bookmobile/ledger.py");
    std::os::unix::fs::symlink(&abs_target, repo.orig.join("ledger_abs")).unwrap();
    std::os::unix::fs::symlink("bookmobile/ledger.py", repo.orig.join("ledger_rel")).unwrap();
    run_ok(crate::harness::git(&repo.orig).args(["add", "-A"]));
    run_ok(crate::harness::git(&repo.orig).args(["commit", "-q", "-m", "links"]));
    let view_abs = repo.view_path(seed, "ledger_abs");
    let view_rel = repo.view_path(seed, "ledger_rel");
    let view_ledger = repo.view_path(seed, "bookmobile/ledger.py");
    assert_ne!(
        view_ledger, "bookmobile/ledger.py",
        "the test needs renamed names"
    );
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let abs = fs::read_link(m.path(&view_abs)).unwrap();
    assert_eq!(abs, m.point.join(&view_ledger));
    let rel = fs::read_link(m.path(&view_rel)).unwrap();
    assert_eq!(rel, std::path::Path::new(&view_ledger));
    for link in [&view_abs, &view_rel] {
        let target = fs::read_link(m.path(link)).unwrap();
        let size = fs::symlink_metadata(m.path(link)).unwrap().len();
        assert_eq!(
            size,
            target.as_os_str().len() as u64,
            "lstat size of {link}"
        );
        assert_eq!(
            fs::read(m.path(link)).unwrap(),
            fs::read(m.path(&view_ledger)).unwrap()
        );
    }
    let status = run_ok(
        Command::new("git")
            .args(["status", "--porcelain"])
            .current_dir(&m.point),
    );
    assert_eq!(status, "", "the committed links are unchanged in the view");
    m.unmount();
}
