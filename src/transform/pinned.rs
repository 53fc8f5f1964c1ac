//! Python files whose line numbers the tree records, shown in their own order by Level 3.
//!
//! A test that runs a script and compares its traceback with an expected output kept in the
//! tree (loguru's `tests/exceptions/output/*.txt`: `File "tests/exceptions/source/x.py",
//! line 12, in a_decorated`) depends on where each line of the script is. Renaming keeps
//! lines where they are; reordering moves them. So a Python file that some file of the tree
//! names next to a line number keeps its order (its layout is the identity); it is still
//! renamed. Two spellings count: a traceback's `File "PATH", line N` and a compiler-style
//! `PATH:N` (pytest's `path.py:12: in f`, a linter's `path.py:3:1: E101`); colours of a
//! terminal (`\x1b[32m`...) are read past, as in a coloured traceback.
//!
//! A gettext catalog's reference comments (`#: pkg/views.py:42`) are not read: no program
//! compares them (`msgfmt` drops them), and Django's catalogs name 86 of its modules so.
//!
//! A recorded path is matched against the tree by its last components: the file name and
//! its directory (or the whole tree path, for a file at the top), so a path recorded from
//! another working directory or installed elsewhere (`/usr/lib/python/somelib/__init__.py`
//! for the tree's `tests/source/usersite/somelib/__init__.py`) still finds its file; a bare
//! file name matches only when one file of the tree has it (`__init__.py:3` names no file
//! in particular). Pinning more than needed only means less reordering.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use regex::bytes::Regex;

/// The Python files (paths among `python`, relative to the tree) that a file in `files`
/// names with a line number.
pub fn recorded_files<'a>(
    python: &[&'a str],
    files: impl IntoIterator<Item = &'a [u8]>,
) -> BTreeSet<String> {
    static TRACEBACK: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"File "([^"\r\n]{1,4096}?\.pyw?)", line [0-9]"#).expect("a valid pattern")
    });
    static COMPILER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"([A-Za-z0-9_./\\-]{1,4096}?\.pyw?):[0-9]").expect("a valid pattern")
    });
    let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
    for p in python {
        by_name.entry(last(p)).or_default().push(p);
    }
    static COLOUR: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\x1b\[[0-9;]{0,32}m").expect("a valid pattern"));
    let mut out = BTreeSet::new();
    for bytes in files {
        if !bytes.windows(3).any(|w| w == b".py") {
            continue;
        }
        let plain;
        let bytes = if bytes.contains(&0x1b) {
            plain = COLOUR.replace_all(bytes, &b""[..]);
            plain.as_ref()
        } else {
            bytes
        };
        let found = TRACEBACK
            .captures_iter(bytes)
            .chain(COMPILER.captures_iter(bytes));
        for c in found.filter(|c| !in_reference_comment(bytes, c.get(0).map_or(0, |m| m.start()))) {
            let Some(Ok(recorded)) = c.get(1).map(|m| std::str::from_utf8(m.as_bytes())) else {
                continue;
            };
            let recorded: Vec<&str> = components(recorded).collect();
            let Some(name) = recorded.last() else {
                continue;
            };
            let candidates = by_name.get(name).map_or(&[][..], Vec::as_slice);
            if recorded.len() == 1 {
                if let [only] = candidates {
                    out.insert(only.to_string());
                }
                continue;
            }
            for p in candidates {
                let tree: Vec<&str> = components(p).collect();
                let common = tree
                    .iter()
                    .rev()
                    .zip(recorded.iter().rev())
                    .take_while(|(a, b)| a == b)
                    .count();
                if common >= 2 || common == tree.len() {
                    out.insert(p.to_string());
                }
            }
        }
    }
    out
}

/// Whether the match at `at` is on a gettext reference line (`#: ...`).
fn in_reference_comment(bytes: &[u8], at: usize) -> bool {
    let start = bytes[..at.min(bytes.len())]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    bytes[start..].starts_with(b"#:")
}

fn components(p: &str) -> impl Iterator<Item = &str> {
    p.split(['/', '\\']).filter(|c| !c.is_empty() && *c != ".")
}

fn last(p: &str) -> &str {
    components(p).last().unwrap_or(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &[&str] = &[
        "tests/exceptions/source/backtrace/chained.py",
        "tests/exceptions/source/other/chained.py",
        "pkg/__init__.py",
        "pkg/sub/__init__.py",
        "pkg/core.py",
        "setup.py",
    ];

    fn pinned(texts: &[&str]) -> Vec<String> {
        recorded_files(TREE, texts.iter().map(|t| t.as_bytes()))
            .into_iter()
            .collect()
    }

    #[test]
    fn tracebacks_pin_the_file_they_name_by_its_last_components() {
        let tb = "Traceback (most recent call last):\n  File \"tests/exceptions/source/backtrace/chained.py\", line 12, in a\n    1 / 0\n";
        assert_eq!(
            pinned(&[tb]),
            vec!["tests/exceptions/source/backtrace/chained.py"]
        );
        // Recorded from another directory, or absolute.
        let abs = "  File \"/home/u/proj/tests/exceptions/source/other/chained.py\", line 3, in <module>\n";
        assert_eq!(
            pinned(&[abs]),
            vec!["tests/exceptions/source/other/chained.py"]
        );
        let elsewhere = "  File \"/usr/lib/python/sub/__init__.py\", line 3, in f\n";
        assert_eq!(pinned(&[elsewhere]), vec!["pkg/sub/__init__.py"]);
        let rel = "  File \"source/backtrace/chained.py\", line 3, in <module>\n";
        assert_eq!(
            pinned(&[rel]),
            vec!["tests/exceptions/source/backtrace/chained.py"]
        );
    }

    #[test]
    fn coloured_tracebacks_count() {
        let tb = "  File \"\x1b[32mpkg/\x1b[0m\x1b[32m\x1b[1mcore.py\x1b[0m\", line \x1b[33m14\x1b[0m, in f\n";
        assert_eq!(pinned(&[tb]), vec!["pkg/core.py"]);
    }

    #[test]
    fn compiler_style_positions_count_and_bare_names_must_be_unique() {
        assert_eq!(pinned(&["pkg/core.py:14: in f\n"]), vec!["pkg/core.py"]);
        assert_eq!(pinned(&["core.py:3:1: E101\n"]), vec!["pkg/core.py"]);
        // Two files are called chained.py and two __init__.py: a bare name picks none.
        assert!(pinned(&["chained.py:3\n", "__init__.py:1\n"]).is_empty());
        // A path without a line number, or a number that is no line, pins nothing.
        assert!(pinned(&["see pkg/core.py for details\n", "pkg/core.py: ok\n"]).is_empty());
        assert!(pinned(&["File \"pkg/core.py\", in f\n"]).is_empty());
    }

    #[test]
    fn gettext_references_pin_nothing() {
        let po = "#: pkg/core.py:14 pkg/core.py:20\nmsgid \"Hello\"\nmsgstr \"Hallo\"\n";
        assert!(pinned(&[po]).is_empty());
    }

    #[test]
    fn odd_bytes_never_panic() {
        let junk: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        let mut with_py = junk.clone();
        with_py.extend_from_slice(b"\xff.py:1 File \"\xfe.py\", line 2 /.py:3 \\\\.py:4");
        let got = recorded_files(TREE, [junk.as_slice(), with_py.as_slice(), b"".as_slice()]);
        assert!(got.is_empty(), "{got:?}");
    }
}
