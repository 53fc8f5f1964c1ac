//! `schrodinger verify` end to end, through real mounts (and one export): the sample project's
//! 30 unittest tests have the same outcome on the view; a test that fetches a method by a
//! name built at run time fails on the view, verify reports it, `--auto-freeze` finds the
//! names to freeze, and verifying again with that list passes.
//!
//! Mount tests skip loudly without /dev/fuse, and fail instead when CI=true.

use std::path::Path;
use std::process::{Command, Output};

const EXE: &str = env!("CARGO_BIN_EXE_schrodinger");

fn ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

fn can_mount(test: &str) -> bool {
    if Path::new("/dev/fuse").exists() {
        return true;
    }
    if ci() {
        panic!("/dev/fuse is missing but CI=true: {test} must run");
    }
    eprintln!("\n!!!!! {test} SKIPPED: no /dev/fuse (set CI=true to make this fail) !!!!!\n");
    false
}

/// Verify's output, or `None` (skip) when the view could not be mounted outside CI.
fn verify(args: &[&str], test: &str) -> Option<Output> {
    let out = Command::new(EXE).arg("verify").args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && err.contains("making the view failed") && !ci() {
        eprintln!("\n!!!!! {test} SKIPPED: cannot mount: {err} !!!!!\n");
        return None;
    }
    Some(out)
}

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "verify --json printed no JSON ({e}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name == "__pycache__" {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &dst.join(&name));
        } else {
            std::fs::copy(e.path(), dst.join(&name)).unwrap();
        }
    }
}

fn listing(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
            out.push(e.path().display().to_string());
        }
    }
    out.sort();
    out
}

fn sample_copy(dir: &Path) -> std::path::PathBuf {
    let orig = dir.join("bookmobile-repo");
    copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("sample"), &orig);
    orig
}

fn check_sample(mode: &[&str], test: &str) {
    let dir = tempfile::tempdir().unwrap();
    let orig = sample_copy(dir.path());
    let before = listing(&orig);
    let o = orig.to_str().unwrap();
    let mut args = vec!["--seed", "7", "--levels", "2", "--json"];
    args.extend_from_slice(mode);
    args.extend_from_slice(&[o, "--", "python3", "-m", "unittest", "-v"]);
    let Some(out) = verify(&args, test) else {
        return;
    };
    let r = json(&out);
    assert!(
        out.status.success(),
        "verify failed: {r:#}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(r["runner"], "unittest");
    assert_eq!(r["same"], 30, "{r:#}");
    assert_eq!(r["original_tests"], 30);
    assert_eq!(r["view_tests"], 30);
    assert_eq!(r["different"].as_array().unwrap().len(), 0);
    assert_eq!(r["ok"], true);
    assert_eq!(listing(&orig), before, "verify wrote into ORIGINAL");
}

#[test]
fn sample_has_the_same_outcomes_on_a_mounted_view() {
    if can_mount("verify_mount::sample") {
        check_sample(&[], "verify_mount::sample");
    }
}

#[test]
fn sample_has_the_same_outcomes_on_an_exported_view() {
    check_sample(&["--export"], "verify_mount::sample_export");
}

/// A repository whose test builds a method name from string fragments the policy cannot see.
fn unsafe_repo(root: &Path) {
    std::fs::create_dir_all(root.join("shop")).unwrap();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(
        root.join("shop/__init__.py"),
        "class Basket:\n    def __init__(self, prices):\n        self.prices = list(prices)\n\n\
         \x20   def compute_total(self):\n        return sum(self.prices)\n\n\
         \x20   def count_items(self):\n        return len(self.prices)\n",
    )
    .unwrap();
    std::fs::write(root.join("tests/__init__.py"), "").unwrap();
    std::fs::write(
        root.join("tests/test_basket.py"),
        "import unittest\n\nfrom shop import Basket\n\n\n\
         class BasketTests(unittest.TestCase):\n\
         \x20   def test_count(self):\n\
         \x20       self.assertEqual(Basket([1, 2]).count_items(), 2)\n\n\
         \x20   def test_dynamic_total(self):\n\
         \x20       basket = Basket([2, 3])\n\
         \x20       name = \"\".join([\"comp\", \"ute_total\"])\n\
         \x20       self.assertEqual(getattr(basket, name)(), 5)\n",
    )
    .unwrap();
}

#[test]
fn unsafe_name_is_reported_and_auto_frozen() {
    let test = "verify_mount::unsafe_name";
    if !can_mount(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("shop-repo");
    unsafe_repo(&orig);
    let freeze = dir.path().join("freeze.txt");
    let o = orig.to_str().unwrap();
    let f = freeze.to_str().unwrap();
    let Some(out) = verify(
        &[
            "--seed",
            "7",
            "--json",
            "--auto-freeze",
            f,
            o,
            "--",
            "python3",
            "-m",
            "unittest",
        ],
        test,
    ) else {
        return;
    };
    let r = json(&out);
    assert!(!out.status.success(), "verify must fail: {r:#}");
    assert_eq!(r["same"], 1, "{r:#}");
    let diff = r["different"].as_array().unwrap();
    assert_eq!(diff.len(), 1, "{r:#}");
    assert_eq!(
        diff[0]["id"],
        "tests.test_basket.BasketTests.test_dynamic_total"
    );
    assert_eq!(diff[0]["original"], "passed");
    assert_eq!(diff[0]["view"], "error");
    assert!(diff[0]["view_detail"]
        .as_str()
        .unwrap()
        .contains("AttributeError"));
    let af = &r["auto_freeze"];
    assert_eq!(af["found"], true, "{r:#}");

    // The list names compute_total, or tokens of it, each with its motivating test.
    let text = std::fs::read_to_string(&freeze).unwrap();
    let names: Vec<&str> = text
        .lines()
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert!(!names.is_empty(), "{text}");
    for n in &names {
        assert!(
            ["compute_total", "compute", "total"].contains(n),
            "unexpected name {n} in\n{text}"
        );
    }
    assert!(text.contains("# motivated by: tests.test_basket.BasketTests.test_dynamic_total"));

    // Verifying again with that freeze list passes.
    let out = verify(
        &[
            "--seed", "7", "--json", "--freeze", f, o, "--", "python3", "-m", "unittest",
        ],
        test,
    )
    .unwrap();
    let r = json(&out);
    assert!(out.status.success(), "{r:#}");
    assert_eq!(r["same"], 2, "{r:#}");
}

/// A test that reads a function's source text: a Level 4 rewrite of that function (and of
/// no other) changes its outcome, and `--auto-skip-rewrites` finds exactly that function.
#[test]
fn a_rewrite_a_test_reads_is_found_and_dropped() {
    let test = "verify_mount::auto_skip_rewrites";
    if !can_mount(test) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("calc-repo");
    std::fs::create_dir_all(orig.join("calc")).unwrap();
    std::fs::create_dir_all(orig.join("tests")).unwrap();
    std::fs::write(
        orig.join("calc/__init__.py"),
        "def is_one(x):\n    return x == 1\n\n\ndef is_two(x):\n    return x == 2\n\n\n\
         def is_three(x):\n    return x == 3\n",
    )
    .unwrap();
    std::fs::write(orig.join("tests/__init__.py"), "").unwrap();
    std::fs::write(
        orig.join("tests/test_calc.py"),
        "import inspect\nimport unittest\n\nimport calc\n\n\n\
         class CalcTests(unittest.TestCase):\n\
         \x20   def test_values(self):\n\
         \x20       self.assertTrue(calc.is_one(1) and calc.is_two(2) and calc.is_three(3))\n\n\
         \x20   def test_source(self):\n\
         \x20       self.assertIn(\"x == 2\", inspect.getsource(calc.is_two))\n",
    )
    .unwrap();
    let skip = dir.path().join("skip.txt");
    let (o, s) = (orig.to_str().unwrap(), skip.to_str().unwrap());
    let opts = [
        "--seed",
        "7",
        "--levels",
        "2,3,4",
        "--rewrite-share",
        "100",
        "--rewrite-rules",
        "swap_equality",
    ];
    let mut args: Vec<&str> = opts.to_vec();
    args.extend([
        "--json",
        "--auto-skip-rewrites",
        s,
        o,
        "--",
        "python3",
        "-m",
        "unittest",
    ]);
    let Some(out) = verify(&args, test) else {
        return;
    };
    let r = json(&out);
    assert!(!out.status.success(), "verify must fail: {r:#}");
    assert_eq!(r["same"], 1, "{r:#}");
    assert_eq!(
        r["different"][0]["id"],
        "tests.test_calc.CalcTests.test_source"
    );
    assert_eq!(r["auto_skip"]["found"], true, "{r:#}");
    assert_eq!(r["auto_skip"]["candidates"], 3, "{r:#}");
    let text = std::fs::read_to_string(&skip).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines, ["calc/__init__.py::is_two"], "{text}");

    // With that skip file the view gives the same outcomes.
    let mut args: Vec<&str> = opts.to_vec();
    args.extend([
        "--json",
        "--rewrite-skip",
        s,
        o,
        "--",
        "python3",
        "-m",
        "unittest",
    ]);
    let out = verify(&args, test).unwrap();
    let r = json(&out);
    assert!(out.status.success(), "{r:#}");
    assert_eq!(r["same"], 2, "{r:#}");
}
