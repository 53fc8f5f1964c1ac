//! Names joined from the items of a list: the fixed parts of a family that live in data.
//!
//! ```python
//! dynamic_methods = ['on_enter', 'on_exit']
//! ...
//! for callback in self.state_cls.dynamic_methods:
//!     method = "{0}_{1}".format(callback, state.name)
//!     if hasattr(model, method): ...
//! ```
//!
//! builds `on_enter_B` from a listed item, a separator and a run-time part. The join's
//! string holds only the separator, so the string rule (`families::fragments_in_runs`) sees
//! no fixed part; the fixed parts are the list's items. Each becomes a joined prefix
//! fragment (`on_enter_`), and the family rules then treat `on_enter_B` as they treat
//! `"clean_%s" % name`'s members: the listed words stay, as the list keeps them.
//!
//! Found lexically, per file and without flow: a `for NAME in EXPR:` loop whose variable is
//! the first part of a separator-only join in the loop's body (the lines after it indented
//! deeper: `"{0}_{1}".format(NAME, ...)`,
//! `"{}_{}".format(NAME, ...)`, `"%s_%s" % (NAME, ...)`, `f"{NAME}_{...}"`, `NAME + "_" +
//! ...`), and the names that end `EXPR`'s dotted chains (`dynamic_methods` of
//! `itertools.chain(self.a.dynamic_methods, ...)`). The items are the identifier literals of
//! two letters or more in any assignment to such a name in any file of the repository
//! (`dynamic_methods = State.dynamic_methods + ["on_final"]`); one letter makes no family,
//! as for the string rule. A list the analysis misses keeps its items' names renamable, as
//! before this rule.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::bytes::Regex;

use super::families::Fragment;
use crate::transform::lexer::{scan_python, Class, Event, Run};

/// A `for` loop's variable and what it iterates, on one line.
static LOOP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^[ \t]*(?:async[ \t]+)?for[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+in[ \t]+([^\n#]+?)[ \t]*:")
        .expect("a valid pattern")
});

/// A separator-only join with a first part named by a plain name: an optional leading
/// separator (`l1`..`l5`), the name (`v1`..`v5`) and the separator after it (`s1`..`s5`).
/// This rule takes the joins without a leading separator; `passed_joins` takes them all.
pub(super) static JOIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?x)
          [rRuU]?["'](?P<l1>_?)\{0?\}(?P<s1>[_-])\{1?\}["'] \s*\.\s*format\(\s*(?P<v1>[A-Za-z_][A-Za-z0-9_]*)\s*,
        | [rRuU]?["'](?P<l2>_?)%s(?P<s2>[_-])%s["'] \s*%\s*\(\s*(?P<v2>[A-Za-z_][A-Za-z0-9_]*)\s*,
        | [fF]["'](?P<l3>_?)\{(?P<v3>[A-Za-z_][A-Za-z0-9_]*)\}(?P<s3>[_-])\{
        | (?P<v4>[A-Za-z_][A-Za-z0-9_]*)\s*\+\s*["'](?P<s4>[_-])["']\s*\+
        | ["'](?P<l5>_)["']\s*\+\s*(?P<v5>[A-Za-z_][A-Za-z0-9_]*)\s*\+\s*["'](?P<s5>[_-])["']
        "#,
    )
    .expect("a valid pattern")
});

/// A match of [`JOIN`]: the joined name, the separator before it (empty when none) and the
/// one after it.
pub(super) fn join_parts<'s>(
    c: &regex::bytes::Captures<'s>,
) -> Option<(&'s [u8], &'s [u8], &'s [u8])> {
    let var = ["v1", "v2", "v3", "v4", "v5"]
        .iter()
        .find_map(|g| c.name(g))?;
    let sep = ["s1", "s2", "s3", "s4", "s5"]
        .iter()
        .find_map(|g| c.name(g))?;
    let lead = ["l1", "l2", "l3", "l5"]
        .iter()
        .find_map(|g| c.name(g))
        .map_or(&b""[..], |m| m.as_bytes());
    Some((var.as_bytes(), lead, sep.as_bytes()))
}

/// The last name of each dotted chain of an expression that is not called.
static CHAIN_END: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*")
        .expect("a valid pattern")
});

/// The lists a file joins items of into names: (the list's name, the separator).
pub fn joined_lists(src: &[u8]) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    if !JOIN.is_match(src) {
        return out;
    }
    for c in LOOP.captures_iter(src) {
        let (Some(whole), var) = (c.get(0), &c[1]) else {
            continue;
        };
        // The join must be in the loop's body: the lines after it indented deeper.
        let line_start = src[..whole.start()]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |k| k + 1);
        let indent = indentation(&src[line_start..]);
        let body_start = whole.end();
        let body_end = body_end(src, body_start, indent);
        for j in JOIN.captures_iter(&src[body_start..body_end]) {
            let Some((v, lead, sep)) = join_parts(&j) else {
                continue;
            };
            if v != var || !lead.is_empty() {
                continue;
            }
            for list in chain_ends(&c[2]) {
                if let (Ok(l), Ok(s)) = (std::str::from_utf8(list), std::str::from_utf8(sep)) {
                    out.insert((l.to_string(), s.to_string()));
                }
            }
        }
    }
    out
}

/// The width of a line's leading spaces and tabs.
pub(super) fn indentation(line: &[u8]) -> usize {
    line.iter()
        .take_while(|b| matches!(b, b' ' | b'\t'))
        .count()
}

/// Where the body of a block whose header line is indented by `indent` ends: at the first
/// later line with text that is indented no deeper (blank lines and comments aside).
pub(super) fn body_end(src: &[u8], from: usize, indent: usize) -> usize {
    let mut at = match src[from..].iter().position(|&b| b == b'\n') {
        Some(k) => from + k + 1,
        None => return src.len(),
    };
    while at < src.len() {
        let line_end = src[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(src.len(), |k| at + k);
        let line = &src[at..line_end];
        let width = indentation(line);
        let text = &line[width..];
        let blank = text.is_empty() || text[0] == b'#' || text == b"\r";
        if !blank && width <= indent {
            return at;
        }
        at = line_end + 1;
    }
    src.len()
}

/// The names that end the dotted chains of `expr` and are not called (`b` of `a.b`, not
/// `chain` of `chain(...)`).
fn chain_ends(expr: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    for m in CHAIN_END.find_iter(expr) {
        let called = expr[m.end()..]
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|&b| b == b'(');
        // A keyword (`x if c else y`) or an attribute of a literal ends no list's name.
        let before = m.start().checked_sub(1).map(|i| expr[i]);
        if called || matches!(before, Some(b'"' | b'\'' | b'.')) {
            continue;
        }
        let chain = m.as_bytes();
        let last = chain
            .rsplit(|&b| b == b'.')
            .next()
            .unwrap_or(chain)
            .trim_ascii();
        if !matches!(
            last,
            b"if" | b"else" | b"and" | b"or" | b"not" | b"in" | b"is"
        ) {
            out.push(last);
        }
    }
    out
}

/// The identifier literals assigned to `name` in `src` (`name = [...]`, `X.name = ... +
/// [...]`, `name: T = ...`, over the lines its brackets span), read from the lexer's runs:
/// the name must be code, and an item is a string run that fills its literal.
pub fn listed_items(src: &[u8], name: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let needle = name.as_bytes();
    // Most files never spell the name; only those that do are lexed.
    if needle.is_empty() || !src.windows(needle.len()).any(|w| w == needle) {
        return out;
    }
    let mut events = Vec::new();
    scan_python(src, |e| events.push(e));
    let mut i = 0;
    while i < events.len() {
        let at = i;
        i += 1;
        let Event::Run(r) = events[at] else {
            continue;
        };
        if r.class != Class::Code || &src[r.start..r.end] != needle {
            continue;
        }
        let Some(value) = assignment_value(src, &events, i) else {
            continue;
        };
        i = value;
        let mut end = StatementEnd::default();
        while i < events.len() {
            match events[i] {
                Event::Punct(p) if end.ends(src[p]) => break,
                Event::Punct(_) => {}
                Event::Run(r) => {
                    if let Some(item) = whole_literal(src, r).filter(|w| two_letters(w)) {
                        out.insert(item.to_string());
                    }
                }
            }
            i += 1;
        }
    }
    out
}

/// The index of the event after the `=` that assigns to the run just before `from`
/// (`name = ...`, `name: T = ...`), or `None` when the name is not assigned there (`==`,
/// `+=`, a call, the end of the line).
fn assignment_value(src: &[u8], events: &[Event], from: usize) -> Option<usize> {
    let mut i = from;
    let mut annotated = false;
    while let Some(&e) = events.get(i) {
        i += 1;
        match e {
            Event::Punct(p) if src[p] == b'=' => {
                return (src.get(p + 1) != Some(&b'=')).then_some(i);
            }
            Event::Punct(p) if src[p] == b':' && !annotated => annotated = true,
            Event::Punct(p) if matches!(src[p], b'\n' | b'\r') => return None,
            // Only an annotation stands between a name and its `=`.
            _ if annotated => {}
            _ => return None,
        }
    }
    None
}

/// The text of a string run that is its literal's whole text (`'on_enter'`, not `'on
/// enter'`'s runs).
fn whole_literal(src: &[u8], r: Run) -> Option<&str> {
    let quote = *src.get(r.start.checked_sub(1)?)?;
    let whole =
        r.class == Class::String && matches!(quote, b'"' | b'\'') && src.get(r.end) == Some(&quote);
    whole
        .then(|| std::str::from_utf8(&src[r.start..r.end]).ok())
        .flatten()
}

/// One letter makes no family (`"%s_%s" % (x, i)` over `'A', 'B'` would take every name
/// starting `A_`), as for the string rule.
pub(super) fn two_letters(item: &str) -> bool {
    item.bytes().filter(u8::is_ascii_alphabetic).count() >= 2
}

/// Where an assigned value ends, one code punctuation byte at a time: a newline or `;`
/// outside brackets, unless a backslash continues the line.
#[derive(Default)]
struct StatementEnd {
    depth: usize,
    continued: bool,
}

impl StatementEnd {
    fn ends(&mut self, b: u8) -> bool {
        let continued = std::mem::take(&mut self.continued);
        match b {
            b'(' | b'[' | b'{' => self.depth += 1,
            b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
            b';' => return self.depth == 0,
            b'\\' => self.continued = true,
            // `\r\n` ends a line once: the `\r` keeps a continuation for the `\n`.
            b'\r' => {
                self.continued = continued;
                return self.depth == 0 && !continued;
            }
            b'\n' => return self.depth == 0 && !continued,
            _ => {}
        }
        false
    }
}

/// The joined prefix fragments of the items of the lists in `joined`, each item read from
/// every file through `items_of(list)`.
pub fn fragments(
    joined: &BTreeSet<(String, String)>,
    mut items_of: impl FnMut(&str) -> BTreeSet<String>,
) -> Vec<Fragment> {
    let mut out = Vec::new();
    for (list, sep) in joined {
        for item in items_of(list) {
            out.push(Fragment::joined_prefix(format!("{item}{sep}")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(src: &str) -> Vec<(String, String)> {
        joined_lists(src.as_bytes()).into_iter().collect()
    }

    /// The items `listed_items` reads for `name` in `src`, in order.
    fn items(src: &str, name: &str) -> Vec<String> {
        listed_items(src.as_bytes(), name).into_iter().collect()
    }

    fn pair(l: &str, s: &str) -> (String, String) {
        (l.to_string(), s.to_string())
    }

    #[test]
    fn a_loop_variable_joined_first_names_its_list() {
        let src = "for callback in self.state_cls.dynamic_methods:\n    method = \"{0}_{1}\".format(callback, state.name)\n";
        assert_eq!(lists(src), [pair("dynamic_methods", "_")]);
        let src =
            "for p in itertools.chain(self.a.hooks, self.b.more):\n    n = '%s_%s' % (p, x)\n";
        assert_eq!(lists(src), [pair("hooks", "_"), pair("more", "_")]);
        let src = "for p in PREFIXES:\n    n = f\"{p}_{name}\"\n";
        assert_eq!(lists(src), [pair("PREFIXES", "_")]);
        let src = "for p in PREFIXES:\n    n = p + \"_\" + name\n";
        assert_eq!(lists(src), [pair("PREFIXES", "_")]);
    }

    #[test]
    fn a_loop_without_such_a_join_names_nothing() {
        // Joined second, or with a fixed word: the fixed part is then in the string.
        assert!(lists("for c in self.items:\n    n = '{0}_{1}'.format(x, c)\n").is_empty());
        assert!(lists("for c in self.items:\n    n = 'on_%s' % c\n").is_empty());
        assert!(lists("for c in self.items:\n    print(c)\n").is_empty());
    }

    #[test]
    fn the_join_must_be_in_the_loop_body() {
        let src = "for x in self.generators:\n    pass\ny = '%s_%s' % (x, alpha)\n";
        assert!(lists(src).is_empty());
        let src = "def f():\n    for x in self.generators:\n\n        # note\n        y = '%s_%s' % (x, a)\n    z = 1\n";
        assert_eq!(lists(src), [pair("generators", "_")]);
    }

    #[test]
    fn one_letter_items_make_no_family() {
        let src = "names = ['A', 'B', 'on_x']\n";
        assert_eq!(items(src, "names"), ["on_x"]);
    }

    #[test]
    fn items_are_read_from_every_assignment() {
        let src = "class State:\n    dynamic_methods = ['on_enter', 'on_exit']\n";
        assert_eq!(items(src, "dynamic_methods"), ["on_enter", "on_exit"]);
        let src = "class N(State):\n    dynamic_methods = State.dynamic_methods + [\n        \"on_final\",  # ]\n    ]\nother = ['x']\n";
        assert_eq!(items(src, "dynamic_methods"), ["on_final"]);
        // A comparison or another name assigns nothing.
        let src = "if dynamic_methods == ['a']:\n    my_dynamic_methods = ['b']\n";
        assert!(items(src, "dynamic_methods").is_empty());
    }

    #[test]
    fn items_are_read_from_code_alone() {
        // The name in a docstring or a comment assigns nothing; a backslash or an open
        // bracket carries the value over its line end, `\r\n` included.
        let src = "'''dynamic_methods = ['doc']'''\n# dynamic_methods = ['note']\n";
        assert!(items(src, "dynamic_methods").is_empty());
        let src = "names: list = \\\r\n    ['on_a'] + [\r\n 'on_b']\r\nx = ['on_c']\r\n";
        assert_eq!(items(src, "names"), ["on_a", "on_b"]);
        // A literal with more than one word is not an item.
        let src = "names = ['on a', \"on_b c\", 'on_d']\n";
        assert_eq!(items(src, "names"), ["on_d"]);
    }

    #[test]
    fn each_item_is_a_joined_prefix() {
        let joined = BTreeSet::from([pair("dynamic_methods", "_")]);
        let fr = fragments(&joined, |_| BTreeSet::from(["on_enter".to_string()]));
        assert_eq!(fr.len(), 1);
        assert_eq!(fr[0].text, "on_enter_");
        assert!(fr[0].prefix && fr[0].joined);
    }
}
