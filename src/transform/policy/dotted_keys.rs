//! Names the program turns into dotted keys with `.replace("_", ".")`.
//!
//! bottle's tests pass `wsgi_url_scheme="https"` as a keyword and rebuild the WSGI key with
//! `key.replace("_", ".", 1)`, which must give `"wsgi.url_scheme"`, the key the code reads
//! from the environ. That literal keeps its pieces (`url_scheme` is an outside name), so a
//! keyword renamed word by word (`wsgi_vex_scheme`) no longer turns into it.
//!
//! Guarantee: when some Python file of the tree replaces `_` by `.`, an owned run whose
//! dotted twin (the first `_` replaced, or every one) is a whole dotted string literal of the
//! tree with a piece the view keeps is kept too. Runs in a tree without the replacement are
//! never touched, nor runs whose dotted twin no literal spells.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::bytes::Regex;

use super::{freeze_reason, Findings, FreezeReason, PolicyInput};

/// Whether the file replaces `_` by `.` in a string (`key.replace('_', '.', 1)`).
pub(super) fn replaces_underscore_with_dot(src: &[u8]) -> bool {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"\.replace\(\s*(?:'_'|"_")\s*,\s*(?:'\.'|"\.")"#).expect("a valid pattern")
    });
    src.windows(9).any(|w| w == b".replace(") && RE.is_match(src)
}

/// The whole string literals of a file that are dotted names (`"wsgi.url_scheme"`).
pub(super) fn dotted_literals(src: &[u8]) -> impl Iterator<Item = &str> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r#"(?:'([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)'|"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")"#,
        )
        .expect("a valid pattern")
    });
    RE.captures_iter(src).filter_map(|c| {
        c.get(1)
            .or_else(|| c.get(2))
            .and_then(|m| std::str::from_utf8(m.as_bytes()).ok())
    })
}

/// Whether `run` turns into a dotted literal of `dotted` one of whose pieces the view keeps.
pub(super) fn dotted_twin_of_frozen(
    run: &str,
    dotted: &HashSet<&str>,
    input: &PolicyInput<'_>,
    f: &Findings,
) -> bool {
    if dotted.is_empty() || !run.contains('_') {
        return false;
    }
    let first = run.replacen('_', ".", 1);
    let every = run.replace('_', ".");
    [first, every].iter().any(|twin| {
        dotted.contains(twin.as_str())
            && twin.split('.').all(|p| !p.is_empty())
            && twin
                .split('.')
                .any(|p| freeze_reason(p, input, f).is_some_and(|r| r != FreezeReason::Short))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_replacement_and_dotted_literals_are_found() {
        assert!(replaces_underscore_with_dot(
            b"args[key.replace('_', '.', 1)] = v"
        ));
        assert!(replaces_underscore_with_dot(b"k.replace(\"_\", \".\")"));
        assert!(!replaces_underscore_with_dot(b"k.replace('_', '-')"));
        assert!(!replaces_underscore_with_dot(b"k.replace('.', '_')"));
        let src = b"env = {'wsgi.url_scheme': 'https', \"a.b.c\": 1, 'not dotted': 2, 'x.': 3}";
        let found: Vec<&str> = dotted_literals(src).collect();
        assert_eq!(found, vec!["wsgi.url_scheme", "a.b.c"]);
    }
}
