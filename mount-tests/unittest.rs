//! Law 5 on the sample: `python3 -m unittest -v` in the view gives the same results, test by
//! test (view ids translated back), as in the original.

use std::collections::BTreeMap;
use std::process::Command;

use crate::harness::{output, python3, run_ok, Repo};

/// What one `python3 -m unittest -v` run reported.
#[derive(Debug)]
struct Report {
    ran: String,
    status: String,
    /// test id -> outcome (`ok`, `FAIL`, `ERROR`, `skipped ...`, ...).
    tests: BTreeMap<String, String>,
}

fn parse(stderr: &str) -> Report {
    let mut tests = BTreeMap::new();
    let mut prev = "";
    let id_of = |line: &str| -> Option<String> {
        // "test_name (module.Class.test_name)" possibly followed by " ... outcome".
        let open = line.find(" (")?;
        let close = line[open..].find(')')? + open;
        Some(line[open + 2..close].to_string())
    };
    for line in stderr.lines() {
        if let Some(pos) = line.rfind(" ... ") {
            let outcome = line[pos + 5..].trim().to_string();
            let id = id_of(line)
                .or_else(|| id_of(prev))
                .unwrap_or_else(|| panic!("no test id for `{line}`"));
            assert!(tests.insert(id.clone(), outcome).is_none(), "{id} twice");
        }
        prev = line;
    }
    let ran = stderr
        .lines()
        .find(|l| l.starts_with("Ran "))
        .unwrap_or_else(|| panic!("no `Ran N tests` line in:\n{stderr}"))
        .split(" in ")
        .next()
        .unwrap()
        .to_string();
    let status = stderr
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default()
        .to_string();
    Report { ran, status, tests }
}

fn unittest(dir: &std::path::Path) -> String {
    let out = output(python3().args(["-m", "unittest", "-v"]).current_dir(dir));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn unittest_same_results_in_view() {
    let test = "unittest_same_results_in_view";
    let seed = 13;
    let repo = Repo::sample();
    repo.bundle(seed);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let view_out = unittest(&m.point);
    // Byte-code written in the view goes to the state dir, never into the original.
    let pyc = run_ok(
        Command::new("find")
            .args([".", "-name", "__pycache__"])
            .current_dir(&repo.orig),
    );
    assert_eq!(
        pyc, "",
        "running the view's tests wrote caches into the original"
    );
    // Python asks every file it opens whether it is a terminal; an unanswered ioctl would
    // log a warning per file (the log grows with every test run).
    let log = m.log();
    assert!(
        !log.contains("Not Implemented"),
        "requests left to fuser's default handler while running the tests:\n{}",
        log.lines()
            .filter(|l| l.contains("Not Implemented"))
            .take(5)
            .collect::<Vec<_>>()
            .join("\n")
    );
    m.unmount();
    let orig_out = unittest(&repo.orig);

    let view = parse(&view_out);
    let orig = parse(&orig_out);
    assert!(!orig.tests.is_empty(), "no tests found in:\n{orig_out}");
    assert_eq!(
        view.ran, orig.ran,
        "view:\n{view_out}\noriginal:\n{orig_out}"
    );
    assert_eq!(
        view.status, orig.status,
        "view:\n{view_out}\noriginal:\n{orig_out}"
    );
    assert_eq!(
        orig.status, "OK",
        "the sample's own tests fail:\n{orig_out}"
    );

    let view_ids: Vec<&str> = view.tests.keys().map(String::as_str).collect();
    let back = repo.translate(seed, "original", &view_ids.join("\n"));
    let back: Vec<&str> = back.lines().collect();
    assert_eq!(back.len(), view_ids.len());
    assert!(
        view_ids.iter().zip(&back).any(|(v, o)| v != o),
        "no test id was renamed in the view: {view_ids:?}"
    );
    let translated: BTreeMap<String, String> = back
        .iter()
        .zip(view.tests.values())
        .map(|(id, outcome)| (id.to_string(), outcome.clone()))
        .collect();
    assert_eq!(translated, orig.tests, "per-test results differ");
}
