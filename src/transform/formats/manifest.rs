//! `MANIFEST.in`: one command per line (`include`, `recursive-include`, `graft`, `prune`,
//! `global-exclude`...), then paths and glob patterns. The command word is setuptools'
//! vocabulary and `Fixed`; the patterns name files of the tree and follow the string rule
//! (their extensions are kept by the tree-extension rule of `spans`); `#` lines are comments.
//!
//! Involution: the command is the first whitespace-separated word of a line, found from
//! whitespace alone.

use super::{is_space, lines, push, Line};
use crate::transform::lexer::{Class, Run};

/// Runs of a `MANIFEST.in`, classified. Never fails.
pub fn runs(s: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    for Line { text: a, end, .. } in lines(s) {
        if a < end && s[a] == b'#' {
            push(s, a, end, Class::Comment, &mut out);
        } else {
            let mut w = a;
            while w < end && !is_space(s[w]) {
                w += 1;
            }
            push(s, a, w, Class::Fixed, &mut out);
            push(s, w, end, Class::String, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_fixed_patterns_follow_the_string_rule() {
        let src = "recursive-include query *.txt\n# query\ngraft docs\n  include query/user.cfg";
        let got: Vec<(String, Class)> = runs(src.as_bytes())
            .into_iter()
            .map(|r| (src[r.start..r.end].to_string(), r.class))
            .collect();
        let f = |w: &str, c| (w.to_string(), c);
        assert_eq!(
            got,
            [
                f("recursive", Class::Fixed),
                f("include", Class::Fixed),
                f("query", Class::String),
                f("txt", Class::String),
                f("query", Class::Comment),
                f("graft", Class::Fixed),
                f("docs", Class::String),
                f("include", Class::Fixed),
                f("query", Class::String),
                f("user", Class::String),
                f("cfg", Class::String),
            ]
        );
    }
}
