//! The three start-up failures seen on real projects, each in a small repository written for
//! the test: the same command runs on the original and in the view and gives the same result.
//! Each test also checks that the name at stake really is renamed in the view, so that it
//! cannot pass by renaming nothing.

use std::process::Command;

use crate::harness::{output, tool_python, Repo};

/// Run `program args` in `dir` with PYTHONPATH=dir; (exit code, stdout).
fn run_in(dir: &std::path::Path, program: &std::path::Path, args: &[&str]) -> (i32, String) {
    let out = output(
        Command::new(program)
            .args(args)
            .current_dir(dir)
            .env("PYTHONPATH", dir)
            .env("PYTHONDONTWRITEBYTECODE", "1"),
    );
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// A repository that uses `true` as a code name (as a symbolic-math library does) and has a
/// pyproject.toml with TOML's `true`: pytest must still read its configuration in the view.
#[test]
fn startup_true_as_a_code_name() {
    let test = "startup_true_as_a_code_name";
    let Some(python) = tool_python(test) else {
        return;
    };
    let seed = 51;
    let repo = Repo::with_files(&[
        (
            "shelf_logic/__init__.py",
            "from .truth import true, lend_copy\n",
        ),
        (
            "shelf_logic/truth.py",
            "class Truth:\n    def __bool__(self):\n        return True\n\n\ntrue = Truth()\n\n\ndef lend_copy(x):\n    return x if true else None\n",
        ),
        (
            "pyproject.toml",
            "[tool.pytest.ini_options]\nxfail_strict = true\ntestpaths = [\"tests\"]\naddopts = \"-p no:cacheprovider\"\n",
        ),
        (
            "tests/test_truth.py",
            "import pytest\nfrom shelf_logic.truth import true, lend_copy\n\n\ndef test_lend():\n    assert lend_copy(3) == 3\n\n\n@pytest.mark.xfail(reason='strict')\ndef test_strict():\n    assert not true\n",
        ),
    ]);
    let true_view = repo.translate(seed, "view", "true = Truth()");
    assert_ne!(true_view, "true = Truth()", "the test needs `true` renamed");
    let (code_o, out_o) = run_in(&repo.orig, &python, &["-m", "pytest", "-q"]);
    assert_eq!(code_o, 0, "{out_o}");
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let pyproject = std::fs::read_to_string(m.path("pyproject.toml")).unwrap();
    assert!(pyproject.contains("xfail_strict = true"), "{pyproject}");
    let (code_v, out_v) = run_in(&m.point, &python, &["-m", "pytest", "-q"]);
    assert_eq!(code_v, 0, "pytest in the view:\n{out_v}");
    assert!(out_v.contains("1 passed, 1 xfailed"), "{out_v}");
    m.unmount();
}

/// A repository whose code reads data files listed by path in a text file, where the files'
/// extension `.toml` is also a token of the project's own name.
#[test]
fn startup_data_files_listed_by_path() {
    let test = "startup_data_files_listed_by_path";
    let seed = 52;
    let repo = Repo::with_files(&[
        (
            "toml_shelf/__init__.py",
            "import pathlib\n\nHERE = pathlib.Path(__file__).parent / 'data'\n\n\ndef listed_files():\n    return (HERE / 'listing.txt').read_text().split()\n\n\ndef load_toml(stem):\n    return (HERE / (stem + '.toml')).read_text()\n\n\ndef by_kind():\n    return {p.suffix[1:]: p.name for p in HERE.iterdir() if p.suffix == '.toml'}\n",
        ),
        ("toml_shelf/data/books.toml", "title = \"x\"\n"),
        ("toml_shelf/data/listing.txt", "books.toml\n"),
        (
            "check.py",
            "import toml_shelf as s\nfor f in s.listed_files():\n    assert (s.HERE / f).is_file(), f\nassert s.load_toml('books').startswith('title')\nassert s.by_kind()['toml'] == 'books.toml'\nprint('ok')\n",
        ),
    ]);
    let pkg_view = repo.view_path(seed, "toml_shelf");
    assert_ne!(pkg_view, "toml_shelf", "the test needs the package renamed");
    let py = std::path::Path::new("python3");
    let (code_o, out_o) = run_in(&repo.orig, py, &["check.py"]);
    assert_eq!((code_o, out_o.as_str()), (0, "ok\n"));
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let check = repo.view_path(seed, "check.py");
    let (code_v, out_v) = run_in(&m.point, py, &[&check]);
    assert_eq!((code_v, out_v.as_str()), (0, "ok\n"), "in the view");
    m.unmount();
}

/// A repository that passes its own parameter on as a keyword argument of a function
/// implemented in C (`sqlite3.Connection.create_function(..., deterministic=...)`, which a
/// test runner needs to open its database).
#[test]
fn startup_keyword_of_a_c_function() {
    let test = "startup_keyword_of_a_c_function";
    let seed = 53;
    let repo = Repo::with_files(&[
        (
            "ledger_db/__init__.py",
            "import sqlite3\n\n\ndef open_ledger(deterministic=True, twice_name='twice'):\n    con = sqlite3.connect(':memory:')\n    con.create_function(twice_name, 1, lambda x: 2 * x, deterministic=deterministic)\n    return con.execute('select twice(21)').fetchone()[0]\n",
        ),
        ("check.py", "import ledger_db\nprint(ledger_db.open_ledger())\n"),
    ]);
    let names = repo.bundle_json(seed);
    let owned: Vec<&str> = names["owned_runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    assert!(
        owned.contains(&"open_ledger"),
        "the test needs renamed names"
    );
    assert!(
        !owned.contains(&"deterministic"),
        "a keyword of a C function must stay"
    );
    let py = std::path::Path::new("python3");
    let (code_o, out_o) = run_in(&repo.orig, py, &["check.py"]);
    assert_eq!((code_o, out_o.as_str()), (0, "42\n"));
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let check = repo.view_path(seed, "check.py");
    let (code_v, out_v) = run_in(&m.point, py, &[&check]);
    assert_eq!((code_v, out_v.as_str()), (0, "42\n"), "in the view");
    m.unmount();
}
