//! `translate --statement` on the sample: each kind of text by its rule, the report of the
//! names mentioned, and `--paraphrase-cmd` accepting a faithful rewording and refusing the
//! three kinds of damage.

use std::ffi::OsStr;

use crate::harness::{schrodinger, schrodinger_ok, Repo};

const STATEMENT: &str = "\
# `CirculationDesk.checkout_copy()` ignores the lending policy

In bookmobile/desk.py, `checkout_copy` lends a copy that `lending_policy` forbids.
See https://github.com/bookmobile/desk for the policy and run
tests/test_desk.py::test_copy_on_loan_cannot_be_lent_twice.

```python
desk = CirculationDesk(shelf_catalog)
desk.checkout_copy(card_number, \"QA-1\", on_day=3)
```
";

fn args<'a>(bundle: &'a OsStr, orig: &'a OsStr, to: &'a str, extra: &[&'a str]) -> Vec<&'a OsStr> {
    let mut v: Vec<&OsStr> = vec!["translate".as_ref(), "--bundle".as_ref(), bundle];
    v.extend(["--to".as_ref(), OsStr::new(to), "--statement".as_ref()]);
    v.extend(extra.iter().map(|s| OsStr::new(*s)));
    v.push(orig);
    v
}

#[test]
fn a_statement_is_rendered_by_kind_and_reported() {
    let repo = Repo::sample();
    let bundle = repo.bundle(9);
    let report = repo.dir.path().join("names.json");
    let r = report.to_str().unwrap();
    let out = schrodinger_ok(
        &args(
            bundle.as_os_str(),
            repo.orig.as_os_str(),
            "view",
            &["--report", r],
        ),
        STATEMENT.as_bytes(),
    );
    let view = String::from_utf8(out).unwrap();
    // Outside the URL, no original name is left.
    let no_url = view.replace("https://github.com/bookmobile/desk", "");
    for name in [
        "CirculationDesk",
        "checkout_copy",
        "lending_policy",
        "bookmobile",
        "desk.py",
        "lent_twice",
    ] {
        assert!(!no_url.contains(name), "{name} left in:\n{view}");
    }
    // The path as the view shows it, the URL on a real host untouched.
    let desk = repo.view_path(9, "bookmobile/desk.py");
    assert!(view.contains(&format!("In {desk}, ")), "{view}");
    assert!(
        view.contains("https://github.com/bookmobile/desk"),
        "{view}"
    );
    // The report names each mention and its rule.
    let names: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    let class = names
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "CirculationDesk" && m["rule"] == "code")
        .unwrap_or_else(|| panic!("no code mention of the class: {names}"));
    assert_eq!(class["renamed"], true);
    assert_eq!(class["count"], 2);
    // Back to the original: the statement as written.
    let back = schrodinger_ok(
        &args(bundle.as_os_str(), repo.orig.as_os_str(), "original", &[]),
        view.as_bytes(),
    );
    assert_eq!(String::from_utf8(back).unwrap(), STATEMENT);
}

#[test]
fn a_paraphrase_is_checked() {
    let repo = Repo::sample();
    let bundle = repo.bundle(9);
    let (b, o) = (bundle.as_os_str(), repo.orig.as_os_str());
    let plain = String::from_utf8(schrodinger_ok(
        &args(b, o, "view", &[]),
        STATEMENT.as_bytes(),
    ))
    .unwrap();
    // A rewording that keeps every name and the code block is accepted as it comes back.
    let ok = schrodinger_ok(
        &args(
            b,
            o,
            "view",
            &["--paraphrase-cmd", "sed 's/ignores/does not respect/'"],
        ),
        STATEMENT.as_bytes(),
    );
    assert_eq!(
        String::from_utf8(ok).unwrap(),
        plain.replace("ignores", "does not respect")
    );
    // A dropped name, an original name put back, a changed code block: refused, each said.
    for (cmd, says) in [
        ("sed '/^In /d'", "is missing"),
        (
            "cat; echo 'Fix CirculationDesk.'",
            "is a name of the original",
        ),
        ("sed 's/QA-1/QA-2/'", "code blocks changed"),
    ] {
        let out = schrodinger(
            &args(b, o, "view", &["--paraphrase-cmd", cmd]),
            STATEMENT.as_bytes(),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{cmd}: accepted");
        assert!(err.contains(says), "{cmd}: {err}");
        assert!(out.stdout.is_empty(), "{cmd}: printed a refused paraphrase");
    }
}
