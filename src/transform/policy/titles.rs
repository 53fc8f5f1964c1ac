//! Names the program turns into labels with `.replace("_", " ").title()`.
//!
//! wtforms labels a field it binds as `"foo_bar"` with `name.replace("_", " ").title()`, and
//! its test expects `"Foo Bar"`; colander titles a schema node `thing_a` as `"Thing A"`.
//! The label literal keeps its words in the view (capitalised words in strings are data), so
//! a name renamed word by word (`tie_lie`) no longer turns into it.
//!
//! Guarantee: when some Python file of the tree makes such a label, a run with an underscore
//! whose label (each `_` a space, then Python's `str.title` over ASCII) is a whole string
//! literal of the same file is kept. Runs in a tree that makes no label are never touched,
//! nor runs whose label no literal of their file spells (a title-case phrase elsewhere is
//! data of its own: Django's tests spell `"John Smith"` and `"Internal Server Error"` in
//! files far from any name `john_smith`; with literals of the whole tree, 51 names of
//! Django were kept).
//!
//! Only title case: labels made with `.capitalize()` (`"First name"`) are the ones
//! `rename::labels` renames where they are written as labels. Keeping every name whose
//! capitalised phrase is a literal somewhere kept 94 more names in Django (whose forms'
//! `pretty_name` capitalises), against 2 in colander and 1 in wtforms for title case.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::bytes::Regex;

/// Whether the file replaces `_` by a space and then titles the result.
pub(super) fn makes_titles(src: &[u8]) -> bool {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\.replace\(\s*(?:'_'|"_")\s*,\s*(?:' '|" ")\s*\)\s*\.title\(\)"#)
            .expect("a valid pattern")
    });
    src.windows(9).any(|w| w == b".replace(") && RE.is_match(src)
}

/// The whole string literals of a file that could be labels: ASCII letters, digits and
/// single spaces, with at least one space (`"Foo Bar"`, `"Thing A"`).
fn label_literals(src: &[u8]) -> HashSet<&str> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?:'([A-Za-z0-9]+(?: [A-Za-z0-9]+)+)'|"([A-Za-z0-9]+(?: [A-Za-z0-9]+)+)")"#)
            .expect("a valid pattern")
    });
    RE.captures_iter(src)
        .filter_map(|c| {
            c.get(1)
                .or_else(|| c.get(2))
                .and_then(|m| std::str::from_utf8(m.as_bytes()).ok())
        })
        .collect()
}

/// The runs with an underscore in a file (names or words of strings) whose title is a
/// whole string literal of that file.
pub(super) fn titled_runs(src: &[u8]) -> Vec<&str> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*\b").expect("a valid pattern")
    });
    let literals = label_literals(src);
    if literals.is_empty() {
        return Vec::new();
    }
    RE.find_iter(src)
        .filter_map(|m| std::str::from_utf8(m.as_bytes()).ok())
        .filter(|r| title_is_literal(r, &literals))
        .collect()
}

/// Python's `str.title` over ASCII: a letter after a letter is lower case, any other upper.
fn title(s: &str) -> String {
    let mut after_letter = false;
    s.chars()
        .map(|c| {
            let out = if !c.is_ascii_alphabetic() {
                c
            } else if after_letter {
                c.to_ascii_lowercase()
            } else {
                c.to_ascii_uppercase()
            };
            after_letter = c.is_ascii_alphabetic();
            out
        })
        .collect()
}

/// Whether `run`, titled the way the tree titles names, is one of the literals `literals`.
fn title_is_literal(run: &str, literals: &HashSet<&str>) -> bool {
    if literals.is_empty() || !run.contains('_') || !run.is_ascii() {
        return false;
    }
    let spaced = run.replace('_', " ");
    if spaced.starts_with(' ') || spaced.ends_with(' ') || spaced.contains("  ") {
        return false;
    }
    literals.contains(title(&spaced).as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_label_literals_are_found() {
        assert!(makes_titles(
            b"kw['title'] = name.replace('_', ' ').title()"
        ));
        assert!(makes_titles(b"return name.replace(\"_\", \" \").title()"));
        assert!(!makes_titles(b"name.replace('_', ' ').capitalize()"));
        assert!(!makes_titles(b"name.replace('_', '-').title()"));
        assert!(!makes_titles(b"name.replace('_', ' ')"));
        let src = b"a = 'Foo Bar'; b = \"Thing A\"; c = 'one'; d = 'two  spaces'; e = 'x-y z'";
        let found: HashSet<&str> = label_literals(src);
        assert_eq!(found, ["Foo Bar", "Thing A"].into());
        let src = b"bind('foo_bar'); thing_a = 1; other_b = 2\nassert x == 'Foo Bar' != 'Thing A'";
        assert_eq!(titled_runs(src), vec!["foo_bar", "thing_a"]);
    }

    #[test]
    fn titles_follow_python() {
        assert_eq!(title("foo bar2baz"), "Foo Bar2Baz");
        assert_eq!(title("JET SKI"), "Jet Ski");
        let literals: HashSet<&str> = ["Foo Bar", "Jet Ski"].into();
        assert!(title_is_literal("foo_bar", &literals));
        assert!(title_is_literal("JET_SKI", &literals));
        assert!(!title_is_literal("_foo_bar", &literals));
        assert!(!title_is_literal("foo__bar", &literals));
        assert!(!title_is_literal("foobar", &literals));
    }
}
