//! Python files that nothing runs as a module, shown in their own order by Level 3.
//!
//! Level 3 may move definitions because Python binds them alike in any order that keeps
//! their dependencies (law 6). That holds only for a file Python runs. A `.py` file that the
//! tree only reads as text has no such meaning: its bytes are the data. A formatter's cases
//! keep an input and its expected `# output` in one file, two runs of definitions that each
//! get their own order, so the formatted input no longer equals the output; a linter's
//! fixtures record where each line is. Renaming stays: it changes every reader's copy alike.
//!
//! A `.py` or `.pyw` file counts as run when any of these holds, else it is shown as it is
//! ordered:
//! - its directory is a package (holds `__init__.py`): it is importable under the package,
//!   by name or by a string the analysis cannot follow (Django's apps and migrations);
//! - pytest collects it by its name (`test_*.py`, `*_test.py`, `conftest.py`);
//! - an import statement of the tree names its stem, as a module path component or an
//!   imported name: a plain directory on `sys.path`, a namespace package, a test helper
//!   beside its tests.
//!
//! Judging a run file as text only means it is reordered less (safe, a little weaker); the
//! mistake the rule removes is the other one. Stubs (`.pyi`) are not judged here: type
//! checkers read them in any order.

use std::collections::BTreeSet;

use super::policy::Import;

/// The paths among `python` (relative to the tree, `/`-separated) that nothing runs as a
/// module; `imports[k]` are the import statements of `python[k]`.
pub fn text_files(python: &[&str], imports: &[Vec<Import>]) -> BTreeSet<String> {
    let packages: BTreeSet<&str> = python
        .iter()
        .filter_map(|p| split(p))
        .filter(|(_, name)| *name == "__init__.py")
        .map(|(dir, _)| dir)
        .collect();
    let imported: BTreeSet<&str> = imports
        .iter()
        .flatten()
        .flat_map(|i| i.module.iter().chain(i.names.iter()))
        .map(String::as_str)
        .collect();
    python
        .iter()
        .filter(|p| {
            let Some((dir, name)) = split(p) else {
                return false;
            };
            let Some(stem) = name
                .strip_suffix(".py")
                .or_else(|| name.strip_suffix(".pyw"))
            else {
                return false;
            };
            !packages.contains(dir) && !collected(stem) && !imported.contains(stem)
        })
        .map(|p| p.to_string())
        .collect()
}

/// pytest's default `python_files` (and its `conftest.py`), by stem.
fn collected(stem: &str) -> bool {
    stem == "conftest" || stem.starts_with("test_") || stem.ends_with("_test")
}

/// A path's directory ("" at the top) and file name.
fn split(p: &str) -> Option<(&str, &str)> {
    match p.rsplit_once('/') {
        Some((dir, name)) if !name.is_empty() => Some((dir, name)),
        Some(_) => None,
        None if !p.is_empty() => Some(("", p)),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::policy::imports;

    fn text(files: &[(&str, &str)]) -> Vec<String> {
        let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        let imps: Vec<Vec<Import>> = files.iter().map(|(_, s)| imports(s.as_bytes())).collect();
        text_files(&paths, &imps).into_iter().collect()
    }

    #[test]
    fn data_files_outside_packages_that_nothing_imports_are_text() {
        let got = text(&[
            ("src/fmt/__init__.py", ""),
            ("src/fmt/core.py", "def f(): pass\n"),
            ("tests/__init__.py", ""),
            ("tests/test_format.py", "from tests.util import read_data\n"),
            ("tests/util.py", "def read_data(name): ...\n"),
            (
                "tests/data/cases/comments.py",
                "def b(): ...\ndef a(): ...\n# output\n",
            ),
            ("tests/data/miscellaneous/force_pyi.py", "class A: ...\n"),
        ]);
        assert_eq!(
            got,
            vec![
                "tests/data/cases/comments.py",
                "tests/data/miscellaneous/force_pyi.py"
            ]
        );
    }

    #[test]
    fn modules_tests_and_imported_helpers_are_run() {
        let got = text(&[
            // A single-module project at the top, imported by its tests.
            ("six.py", "def b(): ...\n"),
            ("test_six.py", "import six\n"),
            // Tests without packages: pytest collects by name, helpers are imported.
            ("tests/conftest.py", ""),
            ("tests/check_test.py", "from helpers import make\n"),
            ("tests/helpers.py", "def make(): ...\n"),
            // A namespace package (no `__init__.py`) imported by a module path.
            ("src/ns/plugin.py", "def p(): ...\n"),
            ("src/app.py", "from ns.plugin import p\nimport app\n"),
            // `setup` is an imported name: the stem counts as imported (generous to "run").
            ("setup.py", "from setuptools import setup\nsetup()\n"),
            // Never imported, outside any package: text.
            ("tools/release.py", "import subprocess\n"),
            ("examples/demo.pyw", ""),
            // Stubs are not judged.
            ("stubs/thing.pyi", "def f() -> int: ...\n"),
        ]);
        assert_eq!(got, vec!["examples/demo.pyw", "tools/release.py"]);
    }

    #[test]
    fn odd_paths_never_panic() {
        let files = ["", "/", "a/", ".py", "/.py", "dir/.py", "__init__.py"];
        let got = text_files(&files, &vec![Vec::new(); files.len()]);
        // `__init__.py` at the top makes the top a package.
        assert_eq!(got, ["dir/.py"].map(String::from).into());
    }
}
