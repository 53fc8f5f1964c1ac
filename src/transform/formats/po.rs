//! gettext catalogs (`.po`, `.pot`), read line by line as `msgfmt` reads them: keyword lines
//! (`msgctxt`, `msgid`, `msgid_plural`, `msgstr`, `msgstr[N]`) followed by a quoted string,
//! continuation lines holding one more quoted string, and `#` comment lines.
//!
//! - Fixed: the keyword that starts a line (gettext's syntax: `msgfmt` stops at an unknown
//!   one); a flags comment `#, fuzzy, python-format` whole (the flags are gettext's
//!   vocabulary, and `msgfmt` skips a fuzzy entry); in the header entry (the `msgstr` of an
//!   empty `msgid` without context), each field's name (`Content-Type:`) and the values of
//!   [`FIXED_HEADER_FIELDS`], which `msgfmt` and Python's `gettext` parse (`charset=`,
//!   `nplurals=`, `plural=`).
//! - String rule: the contents of every other string, escape-aware like a Python string
//!   literal (`"\nname"` holds `name`), so a `msgid` and the code literal it translates are
//!   split into the same runs; translator, extracted and reference comments (`#`, `#.`,
//!   `#:`), whose paths name the tree's files.
//! - Obsolete (`#~`) and previous (`#|`) entries are entries behind a comment marker: their
//!   keyword is Fixed and their strings follow the string rule.
//!
//! Involution: a line's kind comes from its first non-blank bytes (`#` and the byte after
//! it, a quote, or a letter); the header is found from keyword runs and quotes, and a header
//! value's rule from its field name, all of which are `Fixed` and read the same in the view.

use super::{basic_content, is_space, lines, push, trim, Line};
use crate::transform::lexer::{Class, Run};

/// Header fields whose values `msgfmt` or Python's `gettext` parse (matched without case).
pub const FIXED_HEADER_FIELDS: &[&str] = &[
    "content-type",
    "content-transfer-encoding",
    "plural-forms",
    "mime-version",
    "language",
];

/// Where the lexer is in the entry being read.
#[derive(Debug, Default)]
struct Entry {
    /// A `msgctxt` came before this entry's `msgid` (such an entry is never the header).
    context: bool,
    /// The entry's `msgid` is `""` with no continuation so far.
    empty_id: bool,
    /// The last keyword was `msgid` (a continuation line extends it).
    in_id: bool,
    /// The strings being read are the header's `msgstr`.
    header: bool,
}

/// Runs of a gettext catalog, classified. Never fails.
pub fn runs(s: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut entry = Entry::default();
    for Line { text: a, end, .. } in lines(s) {
        if a == end {
            entry = Entry::default();
        } else if s[a] == b'#' {
            comment(s, a, end, &mut out);
        } else if s[a] == b'"' {
            entry.empty_id &= !entry.in_id;
            strings(s, a, end, entry.header, &mut out);
        } else {
            let (keyword, rest) = keyword(s, a, end, &mut out);
            entry.in_id = keyword == b"msgid";
            entry.header = false;
            match keyword {
                b"msgctxt" => entry.context = true,
                b"msgid" => entry.empty_id = !entry.context && trim(&s[rest..end]) == b"\"\"",
                b"msgstr" => entry.header = entry.empty_id,
                _ => {}
            }
            strings(s, rest, end, entry.header, &mut out);
        }
    }
    out
}

/// A `#` line from `a` (its first byte) to `end`.
fn comment(s: &[u8], a: usize, end: usize, out: &mut Vec<Run>) {
    match s.get(a + 1) {
        Some(b',') => push(s, a, end, Class::Fixed, out),
        Some(b'~' | b'|') => {
            let mut k = a + 2;
            while k < end && is_space(s[k]) {
                k += 1;
            }
            // `#~ "..."` continues an obsolete entry; `#~ msgid "..."` starts one.
            if k < end && s[k] != b'"' {
                let (_, rest) = keyword(s, k, end, out);
                k = rest;
            }
            strings(s, k, end, false, out);
        }
        _ => push(s, a, end, Class::Text, out),
    }
}

/// The keyword at `a` (up to a blank, a quote or `[`, so `msgstr[1]` is `msgstr`) pushed
/// `Fixed` with any `[N]` index, as the known keyword it is (or empty), and the index after
/// it.
fn keyword(s: &[u8], a: usize, end: usize, out: &mut Vec<Run>) -> (&'static [u8], usize) {
    let mut k = a;
    while k < end && !is_space(s[k]) && s[k] != b'"' && s[k] != b'[' {
        k += 1;
    }
    let word = &s[a..k];
    while k < end && s[k] != b'"' && !is_space(s[k]) {
        k += 1;
    }
    push(s, a, k, Class::Fixed, out);
    let known: &[&'static [u8]] = &[b"msgctxt", b"msgid_plural", b"msgid", b"msgstr"];
    let kind = known.iter().copied().find(|kw| word == *kw).unwrap_or(b"");
    (kind, k)
}

/// The quoted strings in `s[a..end]`: contents by the string rule (or, in the header, by
/// field), everything between them Fixed.
fn strings(s: &[u8], a: usize, end: usize, header: bool, out: &mut Vec<Run>) {
    let mut i = a;
    while i < end {
        if s[i] != b'"' {
            let j = s[i..end]
                .iter()
                .position(|&b| b == b'"')
                .map_or(end, |p| i + p);
            push(s, i, j, Class::Fixed, out);
            i = j;
            continue;
        }
        let open = i + 1;
        let mut j = open;
        while j < end && s[j] != b'"' {
            j += if s[j] == b'\\' { 2 } else { 1 };
        }
        let close = j.min(end);
        if header {
            header_field(s, open, close, out);
        } else {
            basic_content(s, open, close, Class::Text, out);
        }
        i = close + 1;
    }
}

/// One header string (`Content-Type: text/plain; charset=UTF-8\n`): the field's name is
/// Fixed, its value Fixed for [`FIXED_HEADER_FIELDS`] and by the string rule otherwise.
fn header_field(s: &[u8], a: usize, b: usize, out: &mut Vec<Run>) {
    let Some(colon) = s[a..b].iter().position(|&c| c == b':').map(|p| a + p) else {
        basic_content(s, a, b, Class::Text, out);
        return;
    };
    push(s, a, colon, Class::Fixed, out);
    let name = trim(&s[a..colon]).to_ascii_lowercase();
    let fixed = FIXED_HEADER_FIELDS
        .iter()
        .any(|f| f.as_bytes() == name.as_slice());
    if fixed {
        push(s, colon, b, Class::Fixed, out);
    } else {
        basic_content(s, colon, b, Class::Text, out);
    }
}

/// The runs of gettext's own vocabulary in a catalog: keywords and flags, the `Fixed` runs
/// before the first quote of their line (header fields and values are the header's, not
/// words code spells).
pub fn vocabulary(s: &[u8]) -> Vec<Run> {
    // Runs hold no quote or line break, so the bytes between runs say whether a quote came
    // before a run on its line: one pass, whatever the length of a line.
    let mut seen = 0;
    let mut quoted = false;
    runs(s)
        .into_iter()
        .filter(|r| {
            for &b in &s[seen..r.start] {
                match b {
                    b'\n' | b'\r' => quoted = false,
                    b'"' => quoted = true,
                    _ => {}
                }
            }
            seen = r.start;
            r.class == Class::Fixed && !quoted
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(src: &str, class: Class) -> Vec<String> {
        runs(src.as_bytes())
            .into_iter()
            .filter(|r| r.class == class)
            .map(|r| src[r.start..r.end].to_string())
            .collect()
    }

    const CATALOG: &str = concat!(
        "# Translation of query_tools.\n",
        "msgid \"\"\n",
        "msgstr \"\"\n",
        "\"Project-Id-Version: query_tools\\n\"\n",
        "\"Content-Type: text/plain; charset=UTF-8\\n\"\n",
        "\"Plural-Forms: nplurals=2; plural=(n != 1);\\n\"\n",
        "\n",
        "#: query_tools/views.py:12\n",
        "#, fuzzy, python-format\n",
        "msgctxt \"month_name\"\n",
        "msgid \"\\nuser_name\"\n",
        "msgid_plural \"user_names\"\n",
        "msgstr[0] \"user_name\"\n",
        "#~ msgid \"old_query\"\n",
        "#| msgstr \"older_query\"\n",
    );

    #[test]
    fn keywords_flags_and_parsed_header_values_are_fixed() {
        assert_eq!(
            of(CATALOG, Class::Fixed),
            [
                "msgid",
                "msgstr",
                "Project",
                "Id",
                "Version",
                "Content",
                "Type",
                "text",
                "plain",
                "charset",
                "UTF",
                // The `n` of each `\n` escape: a Fixed value is kept whole.
                "n",
                "Plural",
                "Forms",
                "nplurals",
                "plural",
                "n",
                "n",
                "fuzzy",
                "python",
                "format",
                "msgctxt",
                "msgid",
                "msgid_plural",
                "msgstr",
                "msgid",
                "msgstr",
            ]
        );
    }

    #[test]
    fn messages_comments_and_other_header_values_follow_the_string_rule() {
        assert_eq!(
            of(CATALOG, Class::Text),
            [
                "Translation",
                "of",
                "query_tools",
                "query_tools",
                "query_tools",
                "views",
                "py",
                "month_name",
                "user_name",
                "user_names",
                "user_name",
                "old_query",
                "older_query",
            ]
        );
    }

    #[test]
    fn a_msgid_with_context_or_content_is_not_the_header() {
        let src = "msgctxt \"c\"\nmsgid \"\"\nmsgstr \"\"\n\"Language: query\\n\"\n\nmsgid \"\"\n\"query\"\nmsgstr \"\"\n\"Language: query\\n\"\n";
        assert_eq!(
            of(src, Class::Text),
            ["c", "Language", "query", "query", "Language", "query"]
        );
    }

    #[test]
    fn vocabulary_is_keywords_and_flags_not_header_fields() {
        let words: Vec<&str> = vocabulary(CATALOG.as_bytes())
            .into_iter()
            .map(|r| &CATALOG[r.start..r.end])
            .collect();
        assert_eq!(
            words,
            [
                "msgid",
                "msgstr",
                "fuzzy",
                "python",
                "format",
                "msgctxt",
                "msgid",
                "msgid_plural",
                "msgstr",
                "msgid",
                "msgstr",
            ]
        );
        let inline = "msgid \"\"\nmsgstr \"Language: de\\n\"\n";
        let words: Vec<&str> = vocabulary(inline.as_bytes())
            .into_iter()
            .map(|r| &inline[r.start..r.end])
            .collect();
        assert_eq!(words, ["msgid", "msgstr"]);
    }

    #[test]
    fn catalogs_are_known_by_name_also_under_a_suffix() {
        use super::super::{format_of, Format};
        for name in [
            "de/django.po",
            "messages.pot",
            "de/django.po.tmp",
            "x.pot.in",
        ] {
            assert_eq!(format_of(name.as_bytes()), Format::Po, "{name}");
        }
        for name in ["po.txt", "report.potato", "po/readme"] {
            assert_ne!(format_of(name.as_bytes()), Format::Po, "{name}");
        }
    }

    #[test]
    fn broken_input_is_lexed_whole() {
        for src in [
            "msgid \"open",
            "\"\\",
            "#~",
            "msgstr[",
            "#|  ",
            "msgid \"\"\nmsgstr \"a:\\",
        ] {
            let _ = runs(src.as_bytes());
        }
    }
}
