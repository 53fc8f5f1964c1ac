//! Regular expressions written as literals in the repository's code.
//!
//! A pattern spells the words of the text it matches (`platform[._](machine|release)`): a
//! string the program matches against it must keep those words, so the policy keeps every
//! token a pattern spells (`FreezeReason::Pattern`), in code names as well as in data
//! (`"platform_machine"`, a key the parsed text is looked up by).
//!
//! Found lexically, like everything the policy reads: the string literals (adjacent ones are
//! one literal, as Python joins them) that are the first argument of a call of a pattern
//! function of `re` or `regex` (`re.compile(r"...")`) in code.

use super::lexer::{Class, Run};

/// Modules whose functions take a pattern first.
const PATTERN_MODULES: &[&str] = &["re", "regex"];

/// Functions of those modules whose first argument is a pattern.
const PATTERN_FUNCTIONS: &[&str] = &[
    "compile",
    "match",
    "search",
    "fullmatch",
    "sub",
    "subn",
    "split",
    "findall",
    "finditer",
];

/// The names a string literal of `src` spells by an alternation beside a fixed part, as a
/// pattern that matches messages does (typeguard's tests give `pytest.raises` the pattern
/// `"... the (Runtime|Static)Protocol protocol ..."`, which spells `RuntimeProtocol` and
/// `StaticProtocol`). Read in string literals only (`runs`, lexed from `src`): a comment
/// (Django's `# ... (WKB|WKT)Reader`) is read by people.
pub fn alternation_names(src: &[u8], runs: &[Run]) -> std::collections::BTreeSet<String> {
    static RE: std::sync::LazyLock<regex::bytes::Regex> = std::sync::LazyLock::new(|| {
        regex::bytes::Regex::new(
            r"\(([A-Za-z0-9_]{1,64}(?:\|[A-Za-z0-9_]{1,64}){1,16})\)([A-Za-z0-9_]{1,64})|([A-Za-z0-9_]{1,64})\(([A-Za-z0-9_]{1,64}(?:\|[A-Za-z0-9_]{1,64}){1,16})\)",
        )
        .expect("a valid pattern")
    });
    let mut out = std::collections::BTreeSet::new();
    if !src.contains(&b'|') {
        return out;
    }
    let in_string = |at: usize| {
        let k = runs.partition_point(|r| r.start <= at);
        k > 0 && runs[k - 1].end > at && runs[k - 1].class == Class::String
    };
    for c in RE.captures_iter(src) {
        let first = c.get(1).or_else(|| c.get(4)).map_or(0, |m| m.start());
        if !in_string(first) {
            continue;
        }
        let text = |i: usize| {
            c.get(i)
                .and_then(|m| std::str::from_utf8(m.as_bytes()).ok())
        };
        let (alternatives, head, tail) = match (text(1), text(2), text(3), text(4)) {
            (Some(alts), Some(tail), _, _) => (alts, "", tail),
            (_, _, Some(head), Some(alts)) => (alts, head, ""),
            _ => continue,
        };
        for alt in alternatives.split('|') {
            out.insert(format!("{head}{alt}{tail}"));
        }
    }
    out
}

/// The string runs of `runs` (lexed from `src`) that sit inside a pattern literal.
pub fn pattern_runs<'r>(src: &[u8], runs: &'r [Run]) -> Vec<&'r Run> {
    let spans = pattern_spans(src, runs);
    if spans.is_empty() {
        return Vec::new();
    }
    runs.iter()
        .filter(|r| r.class == Class::String)
        .filter(|r| spans.iter().any(|&(a, b)| a < r.start && r.end <= b))
        .collect()
}

/// Byte ranges (quotes included) of the pattern literals in `src`.
fn pattern_spans(src: &[u8], runs: &[Run]) -> Vec<(usize, usize)> {
    let text = |r: &Run| &src[r.start..r.end];
    let mut out = Vec::new();
    for w in runs.windows(2) {
        let (m, f) = (&w[0], &w[1]);
        if m.class != Class::Code || f.class != Class::Code {
            continue;
        }
        let module_ok = PATTERN_MODULES.iter().any(|x| x.as_bytes() == text(m));
        let function_ok = PATTERN_FUNCTIONS.iter().any(|x| x.as_bytes() == text(f));
        // `re.compile` itself, not `obj.re.compile` nor `re .compile`.
        let dotted = &src[m.end..f.start] == b"." && (m.start == 0 || src[m.start - 1] != b'.');
        if !(module_ok && function_ok && dotted) {
            continue;
        }
        let mut i = skip_space(src, f.end);
        if src.get(i) != Some(&b'(') {
            continue;
        }
        i += 1;
        // One or more adjacent literals form the pattern.
        while let Some(q) = literal_start(src, skip_space(src, i)) {
            let end = literal_end(src, q);
            out.push((q, end));
            i = end;
        }
    }
    out
}

/// Skip spaces, line ends and comments (a call's arguments may span lines).
fn skip_space(src: &[u8], mut i: usize) -> usize {
    while let Some(&b) = src.get(i) {
        match b {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' => i += 1,
            b'\\' if matches!(src.get(i + 1), Some(b'\n' | b'\r')) => i += 2,
            b'#' => {
                while src.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
            }
            _ => break,
        }
    }
    i
}

/// The index of the opening quote of a literal starting at `i` (after a prefix of at most
/// two letters), if one starts there.
fn literal_start(src: &[u8], i: usize) -> Option<usize> {
    let mut q = i;
    while q < src.len() && q - i < 2 && b"rRbBuUfF".contains(&src[q]) {
        q += 1;
    }
    matches!(src.get(q), Some(b'"' | b'\'')).then_some(q)
}

/// The index after the literal whose opening quote is at `q` (or the end of the line or
/// input, for an unterminated one).
fn literal_end(src: &[u8], q: usize) -> usize {
    let quote = src[q];
    let triple = src.get(q + 1) == Some(&quote) && src.get(q + 2) == Some(&quote);
    let mut j = if triple { q + 3 } else { q + 1 };
    while j < src.len() {
        let b = src[j];
        if b == b'\\' {
            j += 2;
            continue;
        }
        if b == quote {
            if !triple {
                return j + 1;
            }
            if src.get(j + 1) == Some(&quote) && src.get(j + 2) == Some(&quote) {
                return j + 3;
            }
        } else if !triple && matches!(b, b'\n' | b'\r') {
            return j;
        }
        j += 1;
    }
    src.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::lexer;

    fn words(src: &[u8]) -> Vec<String> {
        let runs = lexer::python_runs(src);
        pattern_runs(src, &runs)
            .into_iter()
            .map(|r| String::from_utf8_lossy(&src[r.start..r.end]).into_owned())
            .collect()
    }

    #[test]
    fn the_literal_a_pattern_function_takes_is_a_pattern() {
        let src = br#"
VARIABLE = re.compile(
    r"""
    \b(
        platform[._](version|machine)  # the marker names
        | implementation_name
    )\b
    """,
    re.VERBOSE,
)
ok = re.match(r"(?P<year>\d+)-" "month", text)
"#;
        assert_eq!(
            words(src),
            // `_` of `[._]` and `P` of `(?P<` are runs too; they are too short to rename.
            [
                "platform",
                "_",
                "version",
                "machine",
                "the",
                "marker",
                "names",
                "implementation_name",
                "P",
                "year",
                "month"
            ]
        );
    }

    #[test]
    fn other_strings_are_not_patterns() {
        // A variable, another module's `compile`, a literal that is not the first argument,
        // and a call written in a string are no pattern literals.
        let src = br#"
re.compile(PATTERN, "flags_word")
ast.compile("source_word")
obj.re.compile("attr_word")
s = "re.compile('inside_word')"
"#;
        assert!(words(src).is_empty(), "{:?}", words(src));
    }

    #[test]
    fn unterminated_literals_end_at_the_input() {
        for src in [
            &b"re.compile('abc"[..],
            b"re.compile(\"\"\"abc",
            b"re.compile(",
            b"re.sub",
        ] {
            let runs = lexer::python_runs(src);
            let _ = pattern_runs(src, &runs);
        }
        assert_eq!(words(b"re.compile('abc\nxyz = 1"), ["abc"]);
    }
}
