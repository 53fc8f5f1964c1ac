//! Data written into Python source in an encoding that hides the names it holds.
//!
//! Tests keep data in the encoded form a program meets it in, and the program decodes it and
//! reads names out of it:
//! - a pickle names the module and class of every object it holds (`cpytz\n_p\n`, the
//!   GLOBAL opcode), and `pickle.loads` imports them by those names (pytz's old pickles as
//!   protocol-0 text, pygtrie's as base64 over adjacent literals);
//! - base64 text of JSON or other text (pyjwt's tokens, `header.payload.signature`, each
//!   part base64url of a JSON object whose `"typ": "JWT"` a test compares with its literal
//!   `"JWT"`).
//!
//! The view cannot change names inside such data (the encoding hides them, and a pickle's
//! framing counts bytes), so they are treated as a binary file's stored names are: frozen
//! (`policy`, `FreezeReason::Binary`).
//!
//! Guarantee: every piece this finds is returned as bytes in which its names appear as a
//! binary file would hold them; finding more than there is only freezes more. Found:
//! - protocol-0 GLOBALs written with `\n` escapes inside a literal (`"cpytz\n_p\n..."`),
//!   after a quote, a `(`, or another escape;
//! - base64 text (either alphabet, padded or not) in one literal or several adjacent ones
//!   (only whitespace between them), cut at `.` as tokens are, each part of at least
//!   `MIN_BASE64` characters, that decodes to a pickle (protocol 2 or later, `\x80` and the
//!   protocol byte; or protocol 0 or 1 opening with a GLOBAL) or to printable UTF-8 text.

use std::sync::LazyLock;

use base64::Engine;
use regex::bytes::Regex;

/// Shorter base64 text is left alone: no pickle of an object fits in it.
const MIN_BASE64: usize = 16;

/// A GLOBAL opcode written with escapes in a string literal of the source.
static ESCAPED_GLOBAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:['"(]|\\n|\\x[0-9A-Fa-f]{2})c([A-Za-z_][A-Za-z0-9_.]*)\\n([A-Za-z_][A-Za-z0-9_]*)\\n"#)
        .expect("a valid pattern")
});

/// Adjacent string literals holding only characters of base64 (either alphabet) and `.`.
static BASE64_LITERALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:[bBuU]?(?:'[A-Za-z0-9+/=_.-]+'|"[A-Za-z0-9+/=_.-]+")\s*)+"#)
        .expect("a valid pattern")
});

static LITERAL_BODY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"['"]([A-Za-z0-9+/=_.-]+)['"]"#).expect("a valid pattern"));

/// The encoded data written into `src`, decoded: the bytes a binary file holding it would
/// have.
pub fn hidden_data(src: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for c in ESCAPED_GLOBAL.captures_iter(src) {
        let mut global = b"c".to_vec();
        global.extend_from_slice(&c[1]);
        global.push(b'\n');
        global.extend_from_slice(&c[2]);
        global.push(b'\n');
        out.push(global);
    }
    for m in BASE64_LITERALS.find_iter(src) {
        let text: Vec<u8> = LITERAL_BODY
            .captures_iter(m.as_bytes())
            .flat_map(|c| c[1].to_vec())
            .collect();
        for part in text.split(|&b| b == b'.') {
            if part.len() < MIN_BASE64 {
                continue;
            }
            match decode(part) {
                Some(data) if is_pickle(&data) || is_text(&data) => out.push(data),
                _ => {}
            }
        }
    }
    out
}

/// Base64 in either alphabet, with or without padding.
fn decode(part: &[u8]) -> Option<Vec<u8>> {
    let standard: Vec<u8> = part
        .iter()
        .filter(|&&b| b != b'=')
        .map(|&b| match b {
            b'-' => b'+',
            b'_' => b'/',
            b => b,
        })
        .collect();
    base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(standard)
        .ok()
}

/// Whether decoded bytes are text: UTF-8 with no control byte but whitespace. Base64 that
/// decodes so is almost never an accident (a word of letters decodes to bytes above 0x7f).
fn is_text(b: &[u8]) -> bool {
    std::str::from_utf8(b).is_ok_and(|t| {
        t.chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
    })
}

/// Whether decoded bytes begin as a pickle does.
fn is_pickle(b: &[u8]) -> bool {
    match b {
        [0x80, proto, ..] => (2..=5).contains(proto),
        [b'c', rest @ ..] => {
            // Protocol 0 or 1 opening with a GLOBAL: a module line and a name line.
            let mut lines = rest.splitn(3, |&c| c == b'\n');
            let ident = |l: &[u8]| {
                !l.is_empty()
                    && !l[0].is_ascii_digit()
                    && l.iter()
                        .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
            };
            matches!((lines.next(), lines.next(), lines.next()), (Some(m), Some(n), Some(_)) if ident(m) && ident(n))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(blobs: &[Vec<u8>], needle: &str) -> bool {
        blobs
            .iter()
            .any(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
    }

    #[test]
    fn protocol_zero_text_in_a_literal() {
        // pytz's test of pickles made by an old release.
        let src = br#"east1 = pickle.loads(
    _byte_string(
        "cpytz\n_p\np1\n(S'US/Eastern'\np2\nI-18000\n"
        "I0\nS'EST'\np3\ntRp4\n."
    )
)
"#;
        let found = hidden_data(src);
        assert_eq!(found, vec![b"cpytz\n_p\n".to_vec()]);
    }

    #[test]
    fn base64_over_adjacent_literals() {
        // Made with `base64.b64encode(pickle.dumps(pkg.Trie(), 0))` and
        // `pickle.dumps(pkg.Trie(), 3)`, with a class `Trie` in a module `pkg`, then cut
        // into literals at arbitrary places, as pygtrie's tests are.
        let proto0 = "Y2NvcHlfcmVnCl9yZWNvbnN0cnVjdG9yCnAwCihjcGtnClRyaWUKcDEKY19fYnVpbHRpbl9fCm9iamVjdApwMgpOdHAzClJwNAou";
        let proto3 = "gANjcGtnClRyaWUKcQApgXEBLg==";
        let (a, b) = proto0.split_at(30);
        let src = format!("P0 = (\n    '{a}'\n    '{b}')\nP3 = ('{proto3}')\nX = 'notbase64!'\n");
        let found = hidden_data(src.as_bytes());
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(has(&found, "cpkg\nTrie\n"));
    }

    #[test]
    fn base64_text_and_tokens_of_base64_parts() {
        // A JSON web token as pyjwt's tests write it: header, payload and signature over
        // adjacent literals. The header and the payload decode to JSON (checked with
        // Python's `base64.urlsafe_b64decode`); the signature to random bytes.
        let src = br#"example_jwt = (
    b"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    b".eyJoZWxsbyI6IndvcmxkIn0"
    b".tvagLDLoaiJKxOKqpBXSEGy7SYSifZhjntgm9ctpyj8"
)
"#;
        let found = hidden_data(src);
        assert_eq!(
            found,
            vec![
                br#"{"alg":"HS256","typ":"JWT"}"#.to_vec(),
                br#"{"hello":"world"}"#.to_vec()
            ]
        );
    }

    #[test]
    fn names_short_literals_and_text_are_not_encoded_data() {
        // A long name is base64 too, of bytes that are no text; a short literal; words
        // separated by escaped newlines.
        let src = br#"A = 'configuration_manager_settings'
B = 'abcd'
C = "one\ntwo\nthree"
"#;
        assert!(hidden_data(src).is_empty());
    }
}
