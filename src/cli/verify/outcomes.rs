//! Per-test outcomes from a test command's output, and the command changes that produce them.
//!
//! Guarantee: the parsers never panic, whatever the input (they only split text and look up
//! fixed markers); a line they do not recognise is ignored, never guessed at. Each parser is
//! tested on output captured from the real tool (`tests/fixtures/verify/`).
//!
//! How: pytest writes a JUnit XML report (`--junitxml`, `junit_family=xunit1` so each case
//! carries its file), read by a small scanner for the handful of elements pytest emits;
//! unittest and Django's `runtests.py` print `name (dotted.id) ... status` at verbosity 2,
//! followed by `FAIL:`/`ERROR:` blocks with the tracebacks. Anything else falls back to the
//! exit status as a single pseudo-test.

use std::path::Path;

use serde::Serialize;

/// What happened to one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Passed,
    Failed,
    Error,
    Skipped,
    XFailed,
    XPassed,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Error => "error",
            Outcome::Skipped => "skipped",
            Outcome::XFailed => "xfailed",
            Outcome::XPassed => "xpassed",
        })
    }
}

/// One test's outcome, with the failure text (empty when it passed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestResult {
    pub id: String,
    pub outcome: Outcome,
    pub detail: String,
}

/// How per-test outcomes are collected from a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runner {
    Pytest,
    Unittest,
    Django,
    ExitCode,
}

impl std::fmt::Display for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Runner::Pytest => "pytest",
            Runner::Unittest => "unittest",
            Runner::Django => "django runtests.py",
            Runner::ExitCode => "exit status only",
        })
    }
}

fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// Index of the argument that names the runner (`pytest` after `-m`, the `pytest` program,
/// `unittest` after `-m`, `runtests.py`), with the runner.
fn runner_position(argv: &[String]) -> Option<(usize, Runner)> {
    for (i, a) in argv.iter().enumerate() {
        let prev_m = i > 0 && argv[i - 1] == "-m";
        let b = basename(a);
        if (prev_m || i == 0) && (b == "pytest" || b == "py.test") {
            return Some((i, Runner::Pytest));
        }
        if prev_m && a == "unittest" {
            return Some((i, Runner::Unittest));
        }
        if b == "runtests.py" {
            return Some((i, Runner::Django));
        }
    }
    None
}

/// Which runner a command uses.
pub fn detect(argv: &[String]) -> Runner {
    runner_position(argv).map_or(Runner::ExitCode, |(_, r)| r)
}

/// Whether a runner can be told to run only some tests by id.
pub fn can_select(runner: Runner) -> bool {
    runner != Runner::ExitCode
}

/// Does an argument after the runner name tests (a path, a node id, a dotted label) rather
/// than an option or an option's value?
fn is_selection(arg: &str, prev: Option<&str>, cwd: &Path) -> bool {
    if arg.starts_with('-') {
        return false;
    }
    // The value of an option given as a separate argument (`-k expr`, `--settings x`).
    if let Some(p) = prev {
        if p.starts_with('-') && !p.contains('=') && p != "-v" && p != "-q" && !p.starts_with("-v")
        {
            return false;
        }
    }
    arg.contains("::") || arg.contains('/') || arg.ends_with(".py") || cwd.join(arg).exists() || {
        // A dotted label of identifiers (unittest / Django).
        !arg.is_empty()
            && arg
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    }
}

/// The command to run: `argv` with what the runner needs to report per test (a JUnit file for
/// pytest, verbosity 2 for unittest and Django), and, with `select`, only those test ids
/// instead of the command's own test selection.
pub fn prepare(
    runner: Runner,
    argv: &[String],
    junit: &Path,
    select: Option<&[String]>,
    cwd: &Path,
) -> Vec<String> {
    let Some((pos, _)) = runner_position(argv) else {
        return argv.to_vec();
    };
    let mut out: Vec<String> = argv[..=pos].to_vec();
    let rest = &argv[pos + 1..];
    match runner {
        Runner::Pytest => {
            let mut prev: Option<&str> = None;
            for a in rest {
                if select.is_none() || !is_selection(a, prev, cwd) {
                    out.push(a.clone());
                }
                prev = Some(a);
            }
            out.extend([
                "-p".to_string(),
                "no:cacheprovider".to_string(),
                format!("--junitxml={}", junit.display()),
                "-o".to_string(),
                "junit_family=xunit1".to_string(),
            ]);
        }
        Runner::Unittest => {
            let verbose = rest.iter().any(|a| a == "-v" || a == "--verbose");
            match select {
                // `discover` and its options name tests too: replace them all by the ids.
                Some(_) => out.push("-v".into()),
                None => {
                    out.extend(rest.iter().cloned());
                    if !verbose {
                        out.push("-v".into());
                    }
                }
            }
        }
        Runner::Django => {
            let verbose = rest
                .iter()
                .any(|a| a == "-v" || a.starts_with("--verbosity") || a.starts_with("-v"));
            let mut prev: Option<&str> = None;
            for a in rest {
                if select.is_none() || !is_selection(a, prev, cwd) {
                    out.push(a.clone());
                }
                prev = Some(a);
            }
            if !verbose {
                out.push("--verbosity=2".into());
            }
        }
        Runner::ExitCode => return argv.to_vec(),
    }
    if let Some(ids) = select {
        out.extend(ids.iter().cloned());
    }
    out
}

/// Results of one run of the command under a runner. `None` when the output held no test.
pub fn parse(runner: Runner, output: &str, junit: Option<&str>) -> Option<Vec<TestResult>> {
    let r = match runner {
        Runner::Pytest => parse_junit(junit?),
        Runner::Unittest | Runner::Django => parse_unittest(output),
        Runner::ExitCode => return None,
    };
    (!r.is_empty()).then_some(r)
}

/// The id of the pseudo-test that stands for a whole command.
pub const EXIT_STATUS_ID: &str = "(exit status)";

/// The single pseudo-test of a command whose tests cannot be told apart.
pub fn exit_code_result(success: bool, output: &str) -> TestResult {
    let tail: Vec<&str> = output.lines().rev().take(20).collect();
    TestResult {
        id: EXIT_STATUS_ID.to_string(),
        outcome: if success {
            Outcome::Passed
        } else {
            Outcome::Failed
        },
        detail: if success {
            String::new()
        } else {
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        },
    }
}

// ---------------------------------------------------------------- unittest / Django

/// `name (dotted)` at the start of a line: the test id, per Python's formats (3.11+:
/// `test_x (pkg.mod.Class.test_x)`; earlier: `test_x (pkg.mod.Class)`).
fn unittest_header(line: &str) -> Option<(String, &str)> {
    let sp = line.find(" (")?;
    let name = &line[..sp];
    if name.is_empty() || name.contains(' ') {
        return None;
    }
    let rest = &line[sp + 2..];
    let close = rest.find(')')?;
    let dotted = &rest[..close];
    if dotted.is_empty() || dotted.contains(' ') {
        return None;
    }
    let mut id = if dotted == name || dotted.ends_with(&format!(".{name}")) {
        dotted.to_string()
    } else {
        format!("{dotted}.{name}")
    };
    if let Some(s) = id.strip_prefix("unittest.loader._FailedTest.") {
        id = s.to_string();
    }
    Some((id, &rest[close + 1..]))
}

fn unittest_status(s: &str) -> Option<Outcome> {
    let s = s.trim();
    Some(match s {
        "ok" => Outcome::Passed,
        "FAIL" => Outcome::Failed,
        "ERROR" => Outcome::Error,
        "expected failure" => Outcome::XFailed,
        "unexpected success" => Outcome::XPassed,
        _ if s.starts_with("skipped") => Outcome::Skipped,
        _ => return None,
    })
}

fn is_rule(line: &str, c: char) -> bool {
    line.len() >= 20 && line.chars().all(|x| x == c)
}

/// Parse `unittest -v` (or Django `-v 2`) output.
pub fn parse_unittest(text: &str) -> Vec<TestResult> {
    let lines: Vec<&str> = text.lines().collect();
    let mut results: Vec<TestResult> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut pending: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        // Failure blocks: a rule of '=', `KIND: header`, a rule of '-', the traceback.
        if is_rule(line, '=') {
            if let Some(kind_line) = lines.get(i + 1) {
                let (kind, header) = match kind_line.split_once(": ") {
                    Some((k, h)) if k == "FAIL" || k == "ERROR" || k == "UNEXPECTED SUCCESS" => {
                        (k, h)
                    }
                    _ => {
                        i += 1;
                        continue;
                    }
                };
                let mut j = i + 2;
                if lines.get(j).is_some_and(|l| is_rule(l, '-')) {
                    j += 1;
                }
                let start = j;
                while j < lines.len()
                    && !is_rule(lines[j], '=')
                    && !(is_rule(lines[j], '-')
                        && lines.get(j + 1).is_some_and(|l| l.starts_with("Ran ")))
                {
                    j += 1;
                }
                let detail = lines[start..j].join("\n").trim_end().to_string();
                if let Some((id, _)) = unittest_header(header) {
                    let outcome = if kind == "FAIL" {
                        Outcome::Failed
                    } else {
                        Outcome::Error
                    };
                    match index.get(&id) {
                        Some(&k) => {
                            let r: &mut TestResult = &mut results[k];
                            if !r.detail.is_empty() {
                                r.detail.push_str("\n\n");
                            }
                            r.detail.push_str(&detail);
                            // A failing subtest makes a test that printed `ok` fail.
                            if r.outcome == Outcome::Passed {
                                r.outcome = outcome;
                            }
                        }
                        None => {
                            index.insert(id.clone(), results.len());
                            results.push(TestResult {
                                id,
                                outcome,
                                detail,
                            });
                        }
                    }
                }
                i = j;
                continue;
            }
        }
        if let Some((id, rest)) = unittest_header(line) {
            pending = Some(id);
            // Status on the same line, or after a docstring line / the test's own output.
            if let Some(st) = rest.split(" ... ").nth(1).and_then(unittest_status) {
                record(&mut results, &mut index, pending.take(), st);
            }
        } else if pending.is_some() {
            if let Some((_, st)) = line.rsplit_once(" ... ") {
                if let Some(st) = unittest_status(st) {
                    record(&mut results, &mut index, pending.take(), st);
                }
            } else if let Some(st) = unittest_status(line) {
                record(&mut results, &mut index, pending.take(), st);
            }
        }
        i += 1;
    }
    results
}

fn record(
    results: &mut Vec<TestResult>,
    index: &mut std::collections::HashMap<String, usize>,
    id: Option<String>,
    outcome: Outcome,
) {
    let Some(id) = id else { return };
    if index.contains_key(&id) {
        return;
    }
    index.insert(id.clone(), results.len());
    results.push(TestResult {
        id,
        outcome,
        detail: String::new(),
    });
}

// ---------------------------------------------------------------- pytest JUnit XML

fn unescape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let Some(end) = rest.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let ent = &rest[1..end];
        let ch = match ent {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => {
                let num = if let Some(h) = ent.strip_prefix("#x") {
                    u32::from_str_radix(h, 16).ok()
                } else if let Some(d) = ent.strip_prefix('#') {
                    d.parse().ok()
                } else {
                    None
                };
                num.and_then(char::from_u32)
            }
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Attributes of a start tag's inside (`name="v" other="w"`).
fn attrs(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = tag;
    while let Some(eq) = rest.find("=\"") {
        let key = rest[..eq]
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .unwrap_or("")
            .to_string();
        let after = &rest[eq + 2..];
        let Some(close) = after.find('"') else { break };
        out.push((key, unescape_xml(&after[..close])));
        rest = &after[close + 1..];
    }
    out
}

fn attr<'a>(a: &'a [(String, String)], key: &str) -> &'a str {
    a.iter()
        .find(|(k, _)| k == key)
        .map_or("", |(_, v)| v.as_str())
}

/// The pytest node id of a JUnit (xunit1) test case.
fn node_id(file: &str, classname: &str, name: &str) -> String {
    if file.is_empty() {
        return if classname.is_empty() {
            name.to_string()
        } else {
            format!("{classname}::{name}")
        };
    }
    if classname.is_empty() {
        // A collection error: the case names the module.
        return file.to_string();
    }
    let module = file.strip_suffix(".py").unwrap_or(file).replace('/', ".");
    let inner = if classname == module {
        String::new()
    } else if let Some(rest) = classname.strip_prefix(&format!("{module}.")) {
        rest.replace('.', "::")
    } else {
        // The class path does not extend the file's module (rootdir differences): keep the
        // last component, which is the class.
        classname.rsplit('.').next().unwrap_or("").to_string()
    };
    if inner.is_empty() {
        format!("{file}::{name}")
    } else {
        format!("{file}::{inner}::{name}")
    }
}

/// Parse a pytest JUnit XML report (xunit1 or xunit2).
pub fn parse_junit(xml: &str) -> Vec<TestResult> {
    let mut out: Vec<TestResult> = Vec::new();
    let mut rest = xml;
    while let Some(p) = rest.find("<testcase") {
        rest = &rest[p + "<testcase".len()..];
        let Some(gt) = rest.find('>') else { break };
        let head = &rest[..gt];
        let self_closing = head.ends_with('/');
        let a = attrs(head);
        let id = node_id(attr(&a, "file"), attr(&a, "classname"), attr(&a, "name"));
        rest = &rest[gt + 1..];
        let body = if self_closing {
            ""
        } else {
            let end = rest.find("</testcase>").unwrap_or(rest.len());
            let b = &rest[..end];
            rest = &rest[end..];
            b
        };
        let mut outcome = Outcome::Passed;
        let mut detail = String::new();
        for (tag, kind) in [
            ("<failure", Outcome::Failed),
            ("<error", Outcome::Error),
            ("<skipped", Outcome::Skipped),
        ] {
            let Some(q) = body.find(tag) else { continue };
            let el = &body[q + tag.len()..];
            let Some(gt) = el.find('>') else { continue };
            let head = &el[..gt];
            let ea = attrs(head);
            let text = if head.ends_with('/') {
                ""
            } else {
                let close = format!("</{}>", &tag[1..]);
                let t = &el[gt + 1..];
                &t[..t.find(&close).unwrap_or(t.len())]
            };
            let kind = if kind == Outcome::Skipped && attr(&ea, "type") == "pytest.xfail" {
                Outcome::XFailed
            } else {
                kind
            };
            // pytest reports an error in teardown after a failure as two elements; the first
            // decides the outcome, both texts are kept.
            if outcome == Outcome::Passed {
                outcome = kind;
            }
            let msg = attr(&ea, "message");
            let text = unescape_xml(text);
            if !detail.is_empty() {
                detail.push_str("\n\n");
            }
            if text.trim().is_empty() {
                detail.push_str(msg);
            } else {
                detail.push_str(text.trim_end());
            }
        }
        if out.iter().any(|r| r.id == id) {
            continue;
        }
        out.push(TestResult {
            id,
            outcome,
            detail,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/verify");

    fn fixture(name: &str) -> String {
        std::fs::read_to_string(format!("{FIX}/{name}")).unwrap()
    }

    fn find<'a>(r: &'a [TestResult], id: &str) -> &'a TestResult {
        r.iter()
            .find(|t| t.id == id)
            .unwrap_or_else(|| panic!("{id} missing from {r:#?}"))
    }

    #[test]
    fn unittest_verbose_output() {
        let text = fixture("unittest_v.stderr");
        let r = parse_unittest(&text);
        assert_eq!(r.len(), 6, "{r:#?}");
        let p = "tests.test_basket.BasketTests.";
        assert_eq!(
            find(&r, &format!("{p}test_dynamic")).outcome,
            Outcome::Passed
        );
        assert_eq!(find(&r, &format!("{p}test_total")).outcome, Outcome::Passed);
        let e = find(&r, &format!("{p}test_error"));
        assert_eq!(e.outcome, Outcome::Error);
        assert!(
            e.detail.contains("KeyError: 'missing_price'"),
            "{}",
            e.detail
        );
        assert!(!e.detail.contains("AssertionError"), "{}", e.detail);
        let f = find(&r, &format!("{p}test_wrong_total"));
        assert_eq!(f.outcome, Outcome::Failed);
        assert!(f.detail.starts_with("Traceback"), "{}", f.detail);
        assert!(f.detail.ends_with("AssertionError: 3 != 4"), "{}", f.detail);
        assert_eq!(
            find(&r, &format!("{p}test_skipped")).outcome,
            Outcome::Skipped
        );
        assert_eq!(
            find(&r, &format!("{p}test_expected_failure")).outcome,
            Outcome::XFailed
        );
    }

    #[test]
    fn unittest_import_error_is_a_test() {
        let r = parse_unittest(&fixture("unittest_import_error.stderr"));
        assert_eq!(r.len(), 2, "{r:#?}");
        let b = find(&r, "tests.test_broken");
        assert_eq!(b.outcome, Outcome::Error);
        assert!(b.detail.contains("No module named 'no_such_module'"));
        assert_eq!(find(&r, "tests.test_ok.T.test_ok").outcome, Outcome::Passed);
    }

    #[test]
    fn unittest_header_formats() {
        // Python 3.11+ (captured above) and the earlier `name (module.Class)` form, which
        // Django's runner prints on those versions (this line is written from that format).
        assert_eq!(
            unittest_header("test_a (pkg.mod.C.test_a) ... ok").map(|x| x.0),
            Some("pkg.mod.C.test_a".to_string())
        );
        assert_eq!(
            unittest_header("test_a (pkg.mod.C) ... ok").map(|x| x.0),
            Some("pkg.mod.C.test_a".to_string())
        );
        assert!(unittest_header("Ran 6 tests in 0.001s").is_none());
        assert!(parse_unittest("garbage ( ... \n====\n").is_empty());
    }

    #[test]
    fn pytest_junit_report() {
        let r = parse_junit(&fixture("pytest_xunit1.xml"));
        assert_eq!(r.len(), 7, "{r:#?}");
        let p = "tests/test_basket.py::BasketTests::";
        assert_eq!(
            find(&r, &format!("{p}test_dynamic")).outcome,
            Outcome::Passed
        );
        let f = find(&r, &format!("{p}test_wrong_total"));
        assert_eq!(f.outcome, Outcome::Failed);
        assert!(
            f.detail.contains("E       AssertionError: 3 != 4"),
            "{}",
            f.detail
        );
        assert!(f.detail.contains("> "), "entities unescaped: {}", f.detail);
        assert_eq!(find(&r, &format!("{p}test_error")).outcome, Outcome::Failed);
        assert_eq!(
            find(&r, &format!("{p}test_skipped")).outcome,
            Outcome::Skipped
        );
        assert_eq!(
            find(&r, &format!("{p}test_expected_failure")).outcome,
            Outcome::XFailed
        );
        assert_eq!(
            find(&r, "tests/test_basket.py::test_plain_function").outcome,
            Outcome::Passed
        );
    }

    #[test]
    fn pytest_collection_error() {
        let r = parse_junit(&fixture("pytest_collect_error.xml"));
        assert_eq!(r.len(), 1, "{r:#?}");
        assert_eq!(r[0].id, "tests/test_broken.py");
        assert_eq!(r[0].outcome, Outcome::Error);
        assert!(r[0].detail.contains("No module named 'no_such_module'"));
    }

    #[test]
    fn junit_garbage_does_not_panic() {
        for s in [
            "<testcase",
            "<testcase name=\"x",
            "<testcase a=\"&#xZZ;\"><failure",
            "&&&;",
        ] {
            let _ = parse_junit(s);
        }
        assert_eq!(unescape_xml("a&lt;b&#65;&#x42;&bogus;"), "a<bAB&bogus;");
    }

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn detects_runners() {
        assert_eq!(
            detect(&v(&["python", "-m", "pytest", "-q"])),
            Runner::Pytest
        );
        assert_eq!(detect(&v(&["/usr/bin/pytest"])), Runner::Pytest);
        assert_eq!(
            detect(&v(&["python3", "-m", "unittest", "-v"])),
            Runner::Unittest
        );
        assert_eq!(
            detect(&v(&["python", "tests/runtests.py", "admin_views"])),
            Runner::Django
        );
        assert_eq!(detect(&v(&["make", "test"])), Runner::ExitCode);
    }

    #[test]
    fn prepares_commands() {
        let cwd = Path::new("/nonexistent");
        let j = Path::new("/tmp/r.xml");
        let c = prepare(
            Runner::Pytest,
            &v(&["python", "-m", "pytest", "-q", "-k", "total", "tests/"]),
            j,
            Some(&v(&["tests/a.py::t"])),
            cwd,
        );
        assert_eq!(
            c,
            v(&[
                "python",
                "-m",
                "pytest",
                "-q",
                "-k",
                "total",
                "-p",
                "no:cacheprovider",
                "--junitxml=/tmp/r.xml",
                "-o",
                "junit_family=xunit1",
                "tests/a.py::t"
            ])
        );
        let c = prepare(
            Runner::Unittest,
            &v(&["python3", "-m", "unittest"]),
            j,
            None,
            cwd,
        );
        assert_eq!(c, v(&["python3", "-m", "unittest", "-v"]));
        let c = prepare(
            Runner::Unittest,
            &v(&["python3", "-m", "unittest", "discover", "-s", "tests"]),
            j,
            Some(&v(&["tests.t.C.test_a"])),
            cwd,
        );
        assert_eq!(
            c,
            v(&["python3", "-m", "unittest", "-v", "tests.t.C.test_a"])
        );
    }
}
