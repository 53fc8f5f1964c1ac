//! Markdown and reStructuredText: prose with the string rule, except their markup words.
//!
//! - Markdown: the info string of a fenced code block (```` ```python ````) and HTML tag
//!   names (`<details>`) are `Fixed`. Link targets are URLs (kept by `spans`) or paths
//!   (the string rule, like file names).
//! - reST: role names (`:func:`, `:py:class:` before a backtick), directive names
//!   (`.. code-block::`, `.. automodule::`) and the first word of a field marker (`:param x:`,
//!   a directive option `:members:`) are `Fixed`; role contents and directive arguments name
//!   the project's objects and follow the string rule.
//!
//! Code inside fenced blocks, `::` literal blocks and inline code follows the string rule,
//! like the prose around it: a code identifier of the repository (or a compound holding a
//! renamed word) changes there as it does in code, a plain word stays. The Python lexer's
//! code rule would rename more, but a block's language is only a hint, and prose rules keep
//! the file readable either way.
//!
//! Involution: fences, `<`, `:`, backticks and `..` are punctuation; the letters of a fence's
//! info string are never looked at.

use super::{is_space, lines, push, Line};
use crate::transform::lexer::{Class, Run};

fn mark(out: &mut [Run], from: usize, a: usize, b: usize) {
    for r in &mut out[from..] {
        if r.start >= a && r.end <= b {
            r.class = Class::Fixed;
        }
    }
}

/// Runs of a Markdown file, classified. Never fails.
pub fn markdown_runs(s: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    // An open fence: its byte and length.
    let mut fence: Option<(u8, usize)> = None;
    for Line {
        start: i,
        text: a,
        end,
    } in lines(s)
    {
        let run_len = |c: u8| s[a..end].iter().take_while(|&&x| x == c).count();
        match fence {
            Some((c, n)) => {
                let k = run_len(c);
                if k >= n && s[a + k..end].iter().all(|&x| is_space(x)) {
                    fence = None;
                } else {
                    push(s, i, end, Class::Text, &mut out);
                }
            }
            None => {
                let (c, k) = if a < end && (s[a] == b'`' || s[a] == b'~') {
                    (s[a], run_len(s[a]))
                } else {
                    (0, 0)
                };
                if k >= 3 {
                    fence = Some((c, k));
                    push(s, a + k, end, Class::Fixed, &mut out);
                } else {
                    let from = out.len();
                    push(s, i, end, Class::Text, &mut out);
                    for r in &mut out[from..] {
                        let before = |k: usize| r.start.checked_sub(k).map(|p| s[p]);
                        if before(1) == Some(b'<')
                            || (before(1) == Some(b'/') && before(2) == Some(b'<'))
                        {
                            r.class = Class::Fixed;
                        }
                    }
                }
            }
        }
    }
    out
}

fn is_role_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b':' | b'-')
}

/// Runs of a reStructuredText file, classified. Never fails.
pub fn rst_runs(s: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    for Line {
        start: i,
        text: a,
        end,
    } in lines(s)
    {
        let from = out.len();
        push(s, i, end, Class::Text, &mut out);
        let line = &s[a..end];
        // `.. name::` and `.. |sub| name::`
        if line.starts_with(b".. ") {
            let mut n = a + 3;
            if s.get(n) == Some(&b'|') {
                if let Some(p) = s[n + 1..end].iter().position(|&x| x == b'|') {
                    n = n + 1 + p + 1;
                    while n < end && is_space(s[n]) {
                        n += 1;
                    }
                }
            }
            let mut e = n;
            while e < end && is_role_byte(s[e]) && !(s[e] == b':' && s.get(e + 1) == Some(&b':')) {
                e += 1;
            }
            if e > n && s.get(e) == Some(&b':') && s.get(e + 1) == Some(&b':') {
                mark(&mut out, from, n, e);
            }
        }
        // `:field: ...` (not a role: no backtick after the closing colon).
        if line.first() == Some(&b':') {
            if let Some(p) = line[1..].iter().position(|&x| x == b':') {
                let close = a + 1 + p;
                let after = s.get(close + 1).copied();
                if after != Some(b'`') && p > 0 {
                    if let Some(k) = (from..out.len()).find(|&k| out[k].start > a) {
                        if out[k].end <= close {
                            out[k].class = Class::Fixed;
                        }
                    }
                }
            }
        }
        // Roles: `:name:` right before a backtick.
        for k in a..end {
            if s[k] == b'`' && k > a && s[k - 1] == b':' {
                let mut st = k - 1;
                while st > i && is_role_byte(s[st - 1]) {
                    st -= 1;
                }
                // The role starts at its first colon.
                while st < k - 1 && s[st] != b':' {
                    st += 1;
                }
                if st < k - 1 {
                    mark(&mut out, from, st, k);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(runs: Vec<Run>, src: &str) -> Vec<String> {
        runs.into_iter()
            .filter(|r| r.class == Class::Fixed)
            .map(|r| src[r.start..r.end].to_string())
            .collect()
    }

    #[test]
    fn markdown_fences_and_tags() {
        let src = "# Query\n```python\nquery = 1\n```\n<details><summary>query</summary>\n~~~~ query\nx\n~~~~\n";
        assert_eq!(
            fixed(markdown_runs(src.as_bytes()), src),
            ["python", "details", "summary", "summary", "query"]
        );
    }

    #[test]
    fn rst_roles_directives_fields() {
        let src = ".. automodule:: query.user\n   :members: query\nSee :py:func:`query.user` and :class:`Query`.\n.. |q| replace:: query\n:param query: the query\n";
        assert_eq!(
            fixed(rst_runs(src.as_bytes()), src),
            [
                "automodule",
                "members",
                "py",
                "func",
                "class",
                "replace",
                "param"
            ]
        );
    }
}
