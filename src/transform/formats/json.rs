//! JSON. Bare words (`true`, `false`, `null`: the only ones JSON has) are `Fixed`; a string
//! followed by `:` is an object key, `Fixed` in a tool's configuration file and the string
//! rule in a data file (see `super::is_tool_config`); other strings follow the string rule.
//!
//! Involution: strings, keys and bare words are found from quotes, backslashes, `:` and
//! whitespace only.

use super::{basic_content, push};
use crate::transform::lexer::{is_word_at, word_end, Class, Run};

/// Runs of a JSON document, classified. Never fails.
pub fn runs(s: &[u8], keys_fixed: bool) -> Vec<Run> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        if c == b'"' {
            let a = i + 1;
            let mut j = a;
            while j < s.len() && s[j] != b'"' && s[j] != b'\n' {
                j += if s[j] == b'\\' { 2 } else { 1 };
            }
            let b = j.min(s.len());
            let mut k = (b + 1).min(s.len());
            while k < s.len() && s[k].is_ascii_whitespace() {
                k += 1;
            }
            let key = k < s.len() && s[k] == b':';
            let class = if key && keys_fixed {
                Class::Fixed
            } else {
                Class::String
            };
            basic_content(s, a, b, class, &mut out);
            i = (b + 1).min(s.len());
        } else if is_word_at(s, i) {
            let e = word_end(s, i);
            push(s, i, e, Class::Fixed, &mut out);
            i = e;
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_bare_words_and_strings() {
        let src = r#"{"query_key": ["query", true, null], "user": {"a\nquery": 1.5e3}}"#;
        let got = |fixed| -> Vec<(String, Class)> {
            runs(src.as_bytes(), fixed)
                .into_iter()
                .map(|r| (src[r.start..r.end].to_string(), r.class))
                .collect()
        };
        let s = |w: &str, c| (w.to_string(), c);
        assert_eq!(
            got(true),
            [
                s("query_key", Class::Fixed),
                s("query", Class::String),
                s("true", Class::Fixed),
                s("null", Class::Fixed),
                s("user", Class::Fixed),
                s("a", Class::Fixed),
                s("query", Class::Fixed),
            ]
        );
        assert_eq!(got(false)[0], s("query_key", Class::String));
        assert_eq!(got(false)[2], s("true", Class::Fixed));
    }
}
