//! YAML, read line by line with the parts of the syntax that decide what a run is: mapping
//! keys (`key:` followed by a space or the line end, in block and flow style), quoted scalars
//! (which may span lines), block scalars (`|`, `>`: the more-indented lines after them),
//! comments (`#` after a space), anchors, aliases and tags, flow indicators.
//!
//! - Fixed: keys in a tool's configuration file (see `super::is_tool_config`; the string rule
//!   in data files), anchors, aliases and tags, and a plain scalar that is one of
//!   [`WORDS`] (asked of the run and its image).
//! - String rule: every other scalar, block scalar content; comments are comments.
//!
//! Involution: every decision comes from indentation, quotes, `:`, `#`, `-`, `|`, `>`,
//! `&`, `*`, `!` and flow indicators, except the one [`WORDS`] question, which is asked
//! of the run and its image and changes no state.

use super::{basic_content, is_space, lines, push, Ask, Line};
use crate::transform::lexer::{Class, Run};

/// Plain scalars YAML (1.1 and 1.2) reads as booleans or null (the short ones, `y`, `n`,
/// `on`, `no`, are never mapped; `~` holds no run).
pub const WORDS: &[&str] = &["true", "false", "yes", "no", "on", "off", "null"];

/// Runs of a YAML document, classified. Never fails.
pub fn runs(s: &[u8], ask: &dyn Ask, keys_fixed: bool) -> Vec<Run> {
    let mut y = Y {
        s,
        ask,
        keys_fixed,
        out: Vec::new(),
        flow: 0,
        quote: None,
        block: None,
    };
    for Line { start, end, .. } in lines(s) {
        y.line(start, end);
    }
    y.out
}

struct Y<'s, 'a> {
    s: &'s [u8],
    ask: &'a dyn Ask,
    keys_fixed: bool,
    out: Vec<Run>,
    /// Depth of open flow collections (`{`, `[`), across lines.
    flow: u32,
    /// An open quoted scalar continued on the next line: its quote byte.
    quote: Option<u8>,
    /// Inside a block scalar: the indentation of the line that opened it.
    block: Option<usize>,
}

impl Y<'_, '_> {
    fn line(&mut self, i: usize, end: usize) {
        let s = self.s;
        let mut a = i;
        while a < end && is_space(s[a]) {
            a += 1;
        }
        let indent = a - i;
        if let Some(parent) = self.block {
            if a == end || indent > parent {
                push(s, a, end, Class::String, &mut self.out);
                return;
            }
            self.block = None;
        }
        let mut p = a;
        if let Some(q) = self.quote.take() {
            p = self.quoted_from(q, p, end);
        }
        while p < end {
            p = self.item(p, end, indent);
        }
    }

    /// Scan one item from `p`; returns the index after it.
    fn item(&mut self, p: usize, end: usize, indent: usize) -> usize {
        let s = self.s;
        let c = s[p];
        match c {
            b' ' | b'\t' | b',' => p + 1,
            b'{' | b'[' => {
                self.flow += 1;
                p + 1
            }
            b'}' | b']' => {
                self.flow = self.flow.saturating_sub(1);
                p + 1
            }
            b'-' if p + 1 >= end || is_space(s[p + 1]) => p + 1,
            b'?' if p + 1 >= end || is_space(s[p + 1]) => p + 1,
            b':' if p + 1 >= end || is_space(s[p + 1]) => p + 1,
            // A comment starts after whitespace or at the line start; a `#` glued to what
            // precedes it belongs to a scalar.
            b'#' if p == 0 || matches!(s[p - 1], b' ' | b'\t' | b'\n' | b'\r') => {
                push(s, p, end, Class::Comment, &mut self.out);
                end
            }
            b'&' | b'*' | b'!' => {
                let mut e = p + 1;
                while e < end
                    && !is_space(s[e])
                    && !matches!(s[e], b',' | b'[' | b']' | b'{' | b'}')
                {
                    e += 1;
                }
                push(s, p, e, Class::Fixed, &mut self.out);
                e
            }
            b'|' | b'>' if self.flow == 0 => {
                // A block scalar indicator: modifiers, then nothing but a comment.
                let mut e = p + 1;
                while e < end && (s[e].is_ascii_digit() || matches!(s[e], b'+' | b'-')) {
                    e += 1;
                }
                let mut k = e;
                while k < end && is_space(s[k]) {
                    k += 1;
                }
                if k == end || s[k] == b'#' {
                    self.block = Some(indent);
                    if k < end {
                        push(s, k, end, Class::Comment, &mut self.out);
                    }
                    end
                } else {
                    self.plain(p, end)
                }
            }
            b'"' | b'\'' => {
                let e = self.quoted_from(c, p + 1, end);
                if self.quote.is_none() {
                    // A quoted key: reclassify its runs.
                    let mut k = e;
                    while k < end && is_space(s[k]) {
                        k += 1;
                    }
                    if k < end && s[k] == b':' && (k + 1 >= end || !matches!(s[k + 1], b'/')) {
                        self.key_class(p, e);
                    }
                }
                e
            }
            _ => self.plain(p, end),
        }
    }

    /// Content of a quoted scalar from `p` (after the opening quote) to its closing quote or
    /// the line end (then it continues on the next line); returns the index after it.
    fn quoted_from(&mut self, q: u8, p: usize, end: usize) -> usize {
        let s = self.s;
        let mut j = p;
        loop {
            if j >= end {
                self.content(q, p, end);
                self.quote = Some(q);
                return end;
            }
            if q == b'"' && s[j] == b'\\' {
                j += 2;
                continue;
            }
            if s[j] == q {
                if q == b'\'' && j + 1 < end && s[j + 1] == b'\'' {
                    j += 2;
                    continue;
                }
                self.content(q, p, j);
                return j + 1;
            }
            j += 1;
        }
    }

    fn content(&mut self, q: u8, a: usize, b: usize) {
        let b = b.min(self.s.len());
        if q == b'"' {
            basic_content(self.s, a, b, Class::String, &mut self.out);
        } else {
            push(self.s, a, b, Class::String, &mut self.out);
        }
    }

    /// Runs between `a` and `b` (already pushed) become key runs.
    fn key_class(&mut self, a: usize, b: usize) {
        let class = if self.keys_fixed {
            Class::Fixed
        } else {
            Class::String
        };
        for r in self.out.iter_mut().rev() {
            if r.start < a {
                break;
            }
            if r.end <= b {
                r.class = class;
            }
        }
    }

    /// A plain scalar from `p`: up to `: `, ` #`, the line end, or (in flow style) a flow
    /// indicator. A key when it ends at `:`.
    fn plain(&mut self, p: usize, end: usize) -> usize {
        let s = self.s;
        let mut e = p;
        let mut key = false;
        while e < end {
            let c = s[e];
            if c == b':'
                && (e + 1 >= end
                    || is_space(s[e + 1])
                    || (self.flow > 0 && matches!(s[e + 1], b',' | b']' | b'}')))
            {
                key = true;
                break;
            }
            if c == b'#' && e > p && is_space(s[e - 1]) {
                break;
            }
            if self.flow > 0 && matches!(c, b',' | b'[' | b']' | b'{' | b'}') {
                break;
            }
            e += 1;
        }
        let start = self.out.len();
        let class = if key && self.keys_fixed {
            Class::Fixed
        } else {
            Class::String
        };
        push(s, p, e, class, &mut self.out);
        if !key && self.out.len() == start + 1 {
            let r = self.out[start];
            let mut t = e;
            while t > p && is_space(s[t - 1]) {
                t -= 1;
            }
            if r.start == p && r.end == t {
                let w = std::str::from_utf8(&s[r.start..r.end]).unwrap_or("");
                if self.ask.is_one_of(w, WORDS) {
                    self.out[start].class = Class::Fixed;
                }
            }
        }
        if key {
            e + 1
        } else {
            e.max(p + 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::formats::Plain;

    fn of(src: &str, keys_fixed: bool, class: Class) -> Vec<String> {
        runs(src.as_bytes(), &Plain::default(), keys_fixed)
            .into_iter()
            .filter(|r| r.class == class)
            .map(|r| src[r.start..r.end].to_string())
            .collect()
    }

    #[test]
    fn keys_words_and_scalars() {
        let src = "on:\n  push:\n    branches: [main, query]\njobs:\n  test: &base\n    run: pytest query_set  # run query\n    flag: true\n    other: *base\n    'quoted key': \"query\"\n";
        assert_eq!(
            of(src, true, Class::Fixed),
            [
                "on", "push", "branches", "jobs", "test", "base", "run", "flag", "true", "other",
                "base", "quoted", "key"
            ]
        );
        assert_eq!(
            of(src, true, Class::String),
            ["main", "query", "pytest", "query_set", "query"]
        );
        assert_eq!(of(src, true, Class::Comment), ["run", "query"]);
        // In a data file keys follow the string rule; syntax words still stay.
        assert_eq!(of(src, false, Class::Fixed), ["base", "true", "base"]);
    }

    #[test]
    fn block_scalars_and_multiline_quotes() {
        let src =
            "script: |\n  query: not a key\n  # not a comment\nname: 'open\n  query' \nnext: x\n";
        assert_eq!(of(src, true, Class::Fixed), ["script", "name", "next"]);
        assert_eq!(
            of(src, true, Class::String),
            ["query", "not", "a", "key", "not", "a", "comment", "open", "query", "x"]
        );
    }
}
