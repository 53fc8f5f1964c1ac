//! Installs in view names: an environment that has the original installed editable (as a
//! SWE-bench image has it) is re-pointed to the view with `schrodinger repoint`, after which
//! the original package is gone from it, the view's package imports from anywhere, its console
//! script runs under its view name, and nothing the agent can read in the environment names the
//! original package or path.

use std::fs;
use std::path::Path;
use std::process::Command;

use crate::harness::{git, output, run_ok, Repo, BIN};

pub(crate) const PYPROJECT: &str = r#"[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "bookmobile"
version = "1.0"
description = "A small circulation system for a travelling library"
requires-python = ">=3.8"

[project.scripts]
bookmobile-audit = "bookmobile.audit:main"

[tool.setuptools.packages.find]
include = ["bookmobile*"]

[tool.setuptools.package-data]
bookmobile = ["data/*.json"]
"#;

/// A venv with setuptools and wheel (for editable builds without build isolation).
pub(crate) fn venv(dir: &Path) -> std::path::PathBuf {
    run_ok(Command::new("python3").args(["-m", "venv"]).arg(dir));
    let py = dir.join("bin/python");
    run_ok(
        Command::new(&py)
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args(["setuptools>=64", "wheel"]),
    );
    py
}

/// `pip install -e DIR` without dependencies or build isolation, as a SWE-bench image has
/// its project installed.
pub(crate) fn install_editable(py: &Path, dir: &Path) {
    run_ok(
        Command::new(py)
            .args([
                "-m",
                "pip",
                "install",
                "-q",
                "--no-deps",
                "--no-build-isolation",
                "-e",
            ])
            .arg(dir),
    );
}

fn py_ok(py: &Path, code: &str) -> String {
    run_ok(Command::new(py).args(["-c", code]).current_dir("/"))
}

#[test]
fn repoint_moves_an_editable_install_to_the_view() {
    let test = "repoint_moves_an_editable_install_to_the_view";
    let seed = 31;
    let repo = Repo::sample();
    fs::write(repo.orig.join("pyproject.toml"), PYPROJECT).unwrap();
    let audit = repo.orig.join("bookmobile/audit.py");
    let mut text = fs::read_to_string(&audit).unwrap();
    text.push_str("\n\ndef main():\n    print(\"audit ok\")\n");
    fs::write(&audit, text).unwrap();
    run_ok(git(&repo.orig).args(["add", "-A"]));
    run_ok(git(&repo.orig).args(["commit", "-q", "-m", "packaging"]));
    let env = repo.dir.path().join("venv");
    let py = venv(&env);
    install_editable(&py, &repo.orig);
    py_ok(&py, "import bookmobile");
    let site = py_ok(
        &py,
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
    );
    let grep = |site: &str| {
        output(
            Command::new("grep")
                .args(["-rlw", "-e", "bookmobile", "-e"])
                .arg(repo.orig.to_str().unwrap())
                .arg(site.trim()),
        )
    };
    assert_eq!(grep(&site).status.code(), Some(0), "the check can fail");
    let view_pkg = repo.view_path(seed, "bookmobile");
    assert_ne!(view_pkg, "bookmobile", "the test needs a renamed package");
    let view_script = repo.translate(seed, "view", "bookmobile-audit");
    assert_ne!(view_script, "bookmobile-audit");

    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let out = output(
        Command::new(BIN)
            .args(["repoint", "--python"])
            .arg(&py)
            .arg(&repo.orig)
            .arg(&m.point),
    );
    assert!(
        out.status.success(),
        "repoint failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let here = py_ok(
        &py,
        &format!("import {view_pkg}; print({view_pkg}.__file__)"),
    );
    assert!(here.starts_with(m.point.to_str().unwrap()), "{here}");
    let gone = output(
        Command::new(&py)
            .args(["-c", "import bookmobile"])
            .current_dir("/"),
    );
    assert!(!gone.status.success(), "the original package still imports");
    let script = env.join("bin").join(&view_script);
    assert_eq!(run_ok(&mut Command::new(&script)), "audit ok\n");
    assert!(!env.join("bin/bookmobile-audit").exists());
    let list = run_ok(Command::new(&py).args(["-m", "pip", "list", "--disable-pip-version-check"]));
    assert!(!list.contains("bookmobile"), "{list}");
    let path = py_ok(&py, "import sys; print(sys.path)");
    assert!(!path.contains(repo.orig.to_str().unwrap()), "{path}");
    // Nothing in site-packages names the original package or path.
    let grep = grep(&site);
    assert_eq!(
        grep.status.code(),
        Some(1),
        "site-packages still names the original: {}",
        String::from_utf8_lossy(&grep.stdout)
    );
    m.unmount();
    assert_eq!(
        repo.status(),
        "",
        "installing the view left nothing in the original"
    );
}

/// `verify` in an environment that has the original installed editable from a `src/` layout
/// (as SWE-bench images have flask): the view's tests import the view's package, which only the
/// view provides, so verify puts the view's import root first on the view side's PYTHONPATH.
#[test]
fn verify_works_with_the_original_installed_editable() {
    let test = "verify_works_with_the_original_installed_editable";
    let repo = Repo::sample();
    let o = &repo.orig;
    fs::create_dir_all(o.join("src")).unwrap();
    fs::rename(o.join("bookmobile"), o.join("src/bookmobile")).unwrap();
    fs::write(
        o.join("pyproject.toml"),
        PYPROJECT.replace(
            "include = [\"bookmobile*\"]",
            "where = [\"src\"]\ninclude = [\"bookmobile*\"]",
        ),
    )
    .unwrap();
    let audit = o.join("src/bookmobile/audit.py");
    let mut text = fs::read_to_string(&audit).unwrap();
    text.push_str("\n\ndef main():\n    print(\"audit ok\")\n");
    fs::write(&audit, text).unwrap();
    run_ok(git(o).args(["add", "-A"]));
    run_ok(git(o).args(["commit", "-q", "-m", "src layout"]));
    let env = repo.dir.path().join("venv");
    let py = venv(&env);
    install_editable(&py, o);
    if !crate::harness::can_mount(test) {
        return;
    }
    let out = output(
        Command::new(BIN)
            .args(["verify", "--seed", "32", "--json", "--python"])
            .arg(&py)
            .arg(o)
            .arg("--")
            .arg(&py)
            .args(["-m", "unittest", "discover", "-v", "-s", "tests", "-t", "."]),
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "verify gave no report ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        out.status.success(),
        "verify failed: {report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let same = report["same"].as_u64().unwrap_or(0);
    assert!(same > 20, "too few tests compared: {report}");
    assert_eq!(
        report["different"].as_array().map(Vec::len),
        Some(0),
        "{report}"
    );
}
