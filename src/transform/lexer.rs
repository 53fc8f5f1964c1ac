//! A small Python lexer that finds every *run* (`[A-Za-z_][A-Za-z0-9_]*` at a word boundary)
//! and says whether it sits in code, a string, a comment or other text.
//!
//! Guarantee (law 3): the classification never depends on the letters of a run, only on the
//! bytes between runs, on whether a word starts with a digit or holds a non-ASCII byte, and on
//! whether a word is a string prefix (`r`, `b`, `f`, `rb`, ... : at most two letters). Swapping
//! replaces runs by runs of at least three letters per token and never touches prefixes, so the
//! same lexer finds the same runs, with the same classes, in the swapped text. That is what
//! makes the rename an exact involution even on broken files: there is no parse tree and no
//! error recovery, only a deterministic scan that never fails.
//!
//! A *word* is a maximal sequence of `[A-Za-z0-9_]` and non-ASCII bytes. Only words that start
//! with a letter or `_` and are pure ASCII are runs: `89ab4` inside a hex literal, `1e10`, and
//! `café` hold no run. A URL escape whose first digit is decimal (`%40`, `%2F`) ends before
//! the letters glued to it: `"/bar%40baz"` holds `baz` (`after_percent_escape`).

/// Where a run sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Python code, including the replacement fields of f-strings.
    Code,
    /// Inside a string literal (or any run of a non-Python text file).
    String,
    /// Inside a `#` comment.
    Comment,
    /// Any run of a non-Python text file, a path component or free text.
    Text,
    /// Never changes: a format's syntax word (`true`, `null`), a tool's key or markup word
    /// (`[project]`, `:func:`), or a run inside a URL, e-mail address, hostname or version.
    Fixed,
    /// Part of a distribution name (`name = "my-pkg"`, a requirement `my-pkg[extra]>=1`):
    /// the runs joined by `-` or `.` change together, and only when the whole name is one the
    /// repository's code uses (its own name), never piece by piece.
    Dist,
}

/// One run: byte range in the input and its class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub start: usize,
    pub end: usize,
    pub class: Class,
}

/// Whether the byte at `i` belongs to a word: ASCII letters, digits and `_`, and every byte
/// of a non-ASCII character that is not punctuation, a space or a symbol (letters of any
/// script, and bytes that are not valid UTF-8). So `café` is one word (never a run: a run is
/// ASCII) while `six’s` is the run `six`, a curly apostrophe and `s`. The decision reads only
/// bytes that are not part of any run, which swapping never changes (law 3).
pub(crate) fn is_word_at(s: &[u8], i: usize) -> bool {
    let b = s[i];
    if b < 0x80 {
        return (b.is_ascii_alphanumeric() || b == b'_') && !(b == b'm' && ends_colour(s, i));
    }
    // The start of the character this byte belongs to: at most three continuation bytes back.
    let mut start = i;
    while start > 0 && i - start < 3 && s[start] & 0xC0 == 0x80 {
        start -= 1;
    }
    let len = match s[start] {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => return true,
    };
    let Some(bytes) = s.get(start..start + len) else {
        return true;
    };
    if start + len <= i {
        return true;
    }
    match std::str::from_utf8(bytes)
        .ok()
        .and_then(|c| c.chars().next())
    {
        Some(c) => !is_boundary_char(c),
        None => true,
    }
}

/// Whether the `m` at `i` ends a terminal colour (`ESC [ 1 ; 32 m`, or the same with the
/// escape spelled `\033` in source): coloured text (`\x1b[1mname.py\x1b[0m` in a test's
/// expected output) then holds the word `name` after it, instead of the word `1mname`, which
/// is no run. The bytes read are the escape, `[`, digits and `;`: never part of a run, so the
/// answer is the same before and after a swap (law 3). With no digits (`ESC [ m`, a reset),
/// the `m` could also be the first letter of a word right after the `[` (`ESC [ org` swapped
/// to `ESC [ mint`), so there it ends a colour only when no word goes on after it.
fn ends_colour(s: &[u8], i: usize) -> bool {
    let mut j = i;
    while j > 0 && i - j < 32 && (s[j - 1].is_ascii_digit() || s[j - 1] == b';') {
        j -= 1;
    }
    let escape = j >= 2 && s[j - 1] == b'[' && (s[j - 2] == 0x1b || s[..j - 1].ends_with(b"\\033"));
    escape && (j < i || i + 1 >= s.len() || !is_word_at(s, i + 1))
}

/// Non-ASCII characters that separate words: spaces, punctuation and symbols of the Latin-1
/// supplement, general punctuation (curly quotes, dashes, ellipsis), arrows, mathematical and
/// technical symbols, box drawing, and CJK and full-width punctuation.
fn is_boundary_char(c: char) -> bool {
    matches!(c as u32,
        0x80..=0xBF | 0xD7 | 0xF7
        | 0x2000..=0x206F
        | 0x2190..=0x2BFF
        | 0x3000..=0x303F
        | 0xFE30..=0xFE4F
        | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65
    ) || c.is_whitespace()
}

/// End of the word that starts at `i` (exclusive).
pub(crate) fn word_end(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && is_word_at(s, i) {
        i += 1;
    }
    i
}

/// The maximal spans of `s` whose bytes all satisfy `keep`, in order.
pub(crate) fn spans_of<'a>(
    s: &'a [u8],
    keep: impl Fn(u8) -> bool + 'a,
) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < s.len() && !keep(s[i]) {
            i += 1;
        }
        let start = i;
        while i < s.len() && keep(s[i]) {
            i += 1;
        }
        (start < i).then_some(start..i)
    })
}

/// If `i` is the `%` of a URL escape whose first digit is a decimal one (`%40`, `%2F`), the
/// index after its two digits: the letters glued there start a word, so `"/bar%40baz"` holds
/// the run `baz` as `"/bar@baz"` does. An escape that starts with a letter (`%ab`) stays the
/// run it always was. The bytes read are `%` and the two digits, never part of a run, so
/// swapping never changes the decision (law 3). A format's `%20s` or `%08x` gives a run of
/// one letter, too short ever to change.
pub(crate) fn after_percent_escape(s: &[u8], i: usize) -> Option<usize> {
    let escape = s.get(i..i + 3)?;
    (escape[0] == b'%' && escape[1].is_ascii_digit() && escape[2].is_ascii_hexdigit())
        .then_some(i + 3)
}

/// Where scanning goes on after the byte at `i`, which starts no word: past a URL escape
/// whose letters would otherwise be glued to its digits (`after_percent_escape`), else the
/// next byte.
fn past_non_word(s: &[u8], i: usize) -> usize {
    after_percent_escape(s, i).unwrap_or(i + 1)
}

/// Whether `w` (a whole word) is a run: ASCII only and not starting with a digit.
pub(crate) fn is_run(w: &[u8]) -> bool {
    !w.is_empty() && !w[0].is_ascii_digit() && w.iter().all(|b| b.is_ascii())
}

/// Whether `w` (a whole word followed by a quote) is a string prefix, and if so whether it
/// opens a formatted string (whose `{...}` fields hold code).
fn prefix_flags(w: &[u8]) -> Option<bool> {
    if w.len() > 2 {
        return None;
    }
    let lower: Vec<u8> = w.iter().map(|b| b.to_ascii_lowercase()).collect();
    match lower.as_slice() {
        b"r" | b"u" | b"b" | b"br" | b"rb" => Some(false),
        b"f" | b"t" | b"fr" | b"rf" | b"tr" | b"rt" => Some(true),
        _ => None,
    }
}

/// Runs of a non-Python text file (or a name, or free text): every run is in the `Text` class.
pub fn text_runs(s: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    push_runs(s, 0, s.len(), Class::Text, &mut out);
    out
}

/// Push the runs of `s[from..to]` with one class. A word that crosses either end of the range
/// holds no run (it is not at a word boundary inside the range); callers cut at punctuation.
pub(crate) fn push_runs(s: &[u8], from: usize, to: usize, class: Class, out: &mut Vec<Run>) {
    let mut i = from;
    // A range that starts inside a word holds no run there (not at a word boundary).
    if i > 0 && i < to && is_word_at(s, i - 1) {
        while i < to && is_word_at(s, i) {
            i += 1;
        }
    }
    push_runs_from(s, i, to, class, out);
}

/// Like `push_runs`, but `from` starts a word whatever precedes it (after an escape:
/// `"\nname"` holds `name`, as in the Python lexer).
pub(crate) fn push_runs_from(s: &[u8], from: usize, to: usize, class: Class, out: &mut Vec<Run>) {
    let to = to.min(s.len());
    let mut i = from;
    while i < to {
        if is_word_at(s, i) {
            let e = word_end(s, i).min(to);
            if is_run(&s[i..e]) && (e == s.len() || !is_word_at(s, e)) {
                out.push(Run {
                    start: i,
                    end: e,
                    class,
                });
            }
            i = word_end(s, i).max(e);
        } else {
            i = past_non_word(s, i);
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Str {
    quote: u8,
    triple: bool,
    fmt: bool,
}

#[derive(Debug, Clone, Copy)]
enum Frame {
    /// Code; `field_depth` is `Some(bracket depth)` inside an f-string replacement field.
    Code {
        field_depth: Option<u32>,
    },
    Str(Str),
}

/// Runs of Python source, classified. Never fails: broken input is scanned all the same.
pub fn python_runs(s: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    scan_python(s, |e| {
        if let Event::Run(r) = e {
            out.push(r)
        }
    });
    out
}

/// What `scan_python` reports, in source order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A run, classified.
    Run(Run),
    /// The position of a punctuation byte in code (brackets, operators, `,`, `:`, `=`, `.`,
    /// `;`, `\\`, newlines); string literals and comments produce none.
    Punct(usize),
}

/// Scan Python source, reporting runs and code punctuation. Never fails.
pub fn scan_python(s: &[u8], mut emit: impl FnMut(Event)) {
    let out = &mut emit;
    let mut stack: Vec<Frame> = vec![Frame::Code { field_depth: None }];
    let mut i = 0;
    let n = s.len();
    while i < n {
        let top = match stack.last() {
            Some(f) => *f,
            None => {
                stack.push(Frame::Code { field_depth: None });
                continue;
            }
        };
        match top {
            Frame::Code { field_depth } => {
                let b = s[i];
                if is_word_at(s, i) {
                    let e = word_end(s, i);
                    let w = &s[i..e];
                    if e < n && (s[e] == b'"' || s[e] == b'\'') {
                        if let Some(fmt) = prefix_flags(w) {
                            // A prefix is never a run: it is part of the string's syntax.
                            i = open_string(s, e, fmt, &mut stack);
                            continue;
                        }
                    }
                    if is_run(w) {
                        out(Event::Run(Run {
                            start: i,
                            end: e,
                            class: Class::Code,
                        }));
                    }
                    i = e;
                    continue;
                }
                let silent = matches!(b, b' ' | b'\t' | b'\x0c' | b'#' | b'"' | b'\'')
                    || (b == b'}' && field_depth == Some(0));
                if !silent {
                    out(Event::Punct(i));
                }
                match b {
                    b'#' => {
                        i = comment(s, i + 1, out);
                    }
                    b'"' | b'\'' => {
                        i = open_string(s, i, false, &mut stack);
                    }
                    b'(' | b'[' | b'{' => {
                        if let Some(d) = field_depth {
                            set_top(
                                &mut stack,
                                Frame::Code {
                                    field_depth: Some(d + 1),
                                },
                            );
                        }
                        i += 1;
                    }
                    b')' | b']' | b'}' => {
                        match field_depth {
                            Some(0) if b == b'}' => {
                                stack.pop();
                            }
                            Some(0) => {}
                            Some(d) => set_top(
                                &mut stack,
                                Frame::Code {
                                    field_depth: Some(d - 1),
                                },
                            ),
                            None => {}
                        }
                        i += 1;
                    }
                    b'\n' | b'\r' if field_depth.is_some() => {
                        // A newline ends a field of a single-quoted f-string only if that
                        // string itself ends there; let the string frame decide.
                        i += 1;
                    }
                    _ => i += 1,
                }
            }
            Frame::Str(st) => {
                let b = s[i];
                if b == b'\\' {
                    i = escape(s, i + 1);
                    continue;
                }
                if b == st.quote {
                    if st.triple {
                        if i + 2 < n && s[i + 1] == st.quote && s[i + 2] == st.quote {
                            stack.pop();
                            i += 3;
                            continue;
                        }
                        i += 1;
                        continue;
                    }
                    stack.pop();
                    i += 1;
                    continue;
                }
                if (b == b'\n' || b == b'\r') && !st.triple {
                    // An unterminated single-quoted string ends at the line end; any open
                    // f-string fields inside it end with it.
                    stack.pop();
                    close_fields(&mut stack);
                    i += 1;
                    continue;
                }
                if st.fmt && b == b'{' {
                    if i + 1 < n && s[i + 1] == b'{' {
                        i += 2;
                        continue;
                    }
                    stack.push(Frame::Code {
                        field_depth: Some(0),
                    });
                    i += 1;
                    continue;
                }
                if is_word_at(s, i) {
                    let e = word_end(s, i);
                    if is_run(&s[i..e]) {
                        out(Event::Run(Run {
                            start: i,
                            end: e,
                            class: Class::String,
                        }));
                    }
                    i = e;
                    continue;
                }
                i = past_non_word(s, i);
            }
        }
    }
}

fn set_top(stack: &mut [Frame], f: Frame) {
    if let Some(t) = stack.last_mut() {
        *t = f;
    }
}

/// After a single-quoted string was cut at a line end, drop the f-string fields (and their
/// strings) that it enclosed, back to the nearest plain code frame.
fn close_fields(stack: &mut Vec<Frame>) {
    while let Some(Frame::Code {
        field_depth: Some(_),
    }) = stack.last()
    {
        stack.pop();
        // The field's enclosing string: pop it too if single-quoted (it ends at the line end).
        match stack.last() {
            Some(Frame::Str(st)) if !st.triple => {
                stack.pop();
            }
            _ => break,
        }
    }
}

/// Push a string frame for the quote at `q`; returns the index after the opening quote(s).
fn open_string(s: &[u8], q: usize, fmt: bool, stack: &mut Vec<Frame>) -> usize {
    let quote = s[q];
    let triple = q + 2 < s.len() && s[q + 1] == quote && s[q + 2] == quote;
    stack.push(Frame::Str(Str { quote, triple, fmt }));
    if triple {
        q + 3
    } else {
        q + 1
    }
}

/// Skip the escape whose backslash was just before `i`; returns the index after it.
/// `\x41`, `\u00e9`, `\N{...}` and octal escapes are swallowed whole so their letters never
/// form runs; after any escape the next byte starts a new word (`"\nname"` holds `name`).
fn escape(s: &[u8], i: usize) -> usize {
    if i >= s.len() {
        return i;
    }
    match s[i] {
        b'x' | b'u' | b'U' | b'0'..=b'7' => {
            let mut j = i + 1;
            while j < s.len() && s[j].is_ascii_hexdigit() {
                j += 1;
            }
            // Letters glued to the escape digits are not at a word boundary.
            if j < s.len() && is_word_at(s, j) {
                j = word_end(s, j);
            }
            j
        }
        b'N' if i + 1 < s.len() && s[i + 1] == b'{' => {
            let mut j = i + 2;
            while j < s.len() && s[j] != b'}' && s[j] != b'\n' && s[j] != b'"' && s[j] != b'\'' {
                j += 1;
            }
            if j < s.len() && s[j] == b'}' {
                j + 1
            } else {
                j
            }
        }
        b'\r' if i + 1 < s.len() && s[i + 1] == b'\n' => i + 2,
        _ => i + 1,
    }
}

/// Scan a comment body from `i` to the line end; returns the index of the line end.
fn comment(s: &[u8], mut i: usize, out: &mut impl FnMut(Event)) -> usize {
    while i < s.len() && s[i] != b'\n' && s[i] != b'\r' {
        if is_word_at(s, i) {
            let e = word_end(s, i);
            if is_run(&s[i..e]) {
                out(Event::Run(Run {
                    start: i,
                    end: e,
                    class: Class::Comment,
                }));
            }
            i = e;
        } else {
            i = past_non_word(s, i);
        }
    }
    i
}

#[cfg(test)]
mod tests {
    #[test]
    fn terminal_colours_end_before_a_word() {
        let runs = |s: &[u8]| -> Vec<String> {
            python_runs(s)
                .iter()
                .map(|r| String::from_utf8_lossy(&s[r.start..r.end]).into_owned())
                .collect()
        };
        assert_eq!(
            runs(b"x = '\x1b[32m\x1b[1mname.py\x1b[0m'\n"),
            vec!["x", "name", "py"]
        );
        assert_eq!(runs(b"x = '\\033[1;33mname'\n"), vec!["x", "name"]);
        // No escape before the bracket: `1mname` is one word, no run.
        assert_eq!(runs(b"x = '[1mname'\n"), vec!["x"]);
        // A reset without digits ends a colour only when no word goes on after its `m`: a
        // word right after the bracket may start with `m` once swapped (`org` <-> `mint`).
        assert_eq!(runs(b"x = '\x1b[m'\n"), vec!["x"]);
        assert_eq!(runs(b"x = '\x1b[mint'\n"), vec!["x", "mint"]);
        assert_eq!(runs(b"x = '\x1b[org'\n"), vec!["x", "org"]);
    }

    #[test]
    fn non_ascii_punctuation_ends_a_word_letters_do_not() {
        let s = "six\u{2019}s caf\u{e9} na\u{ef}ve a\u{2014}b x\u{a0}y \u{ff}";
        let runs: Vec<&str> = text_runs(s.as_bytes())
            .iter()
            .map(|r| &s[r.start..r.end])
            .collect();
        assert_eq!(runs, ["six", "s", "a", "b", "x", "y"]);
        // Bytes that are not UTF-8 stay word bytes, as before.
        let bad = b"ab\xffcd ok";
        let runs: Vec<(usize, usize)> = text_runs(bad).iter().map(|r| (r.start, r.end)).collect();
        assert_eq!(runs, [(6, 8)]);
    }

    use super::*;

    #[test]
    fn spans_of_gives_maximal_spans_in_order() {
        let digit = |c: u8| c.is_ascii_digit();
        assert_eq!(
            spans_of(b"12ab3 x45", digit).collect::<Vec<_>>(),
            [0..2, 4..5, 7..9]
        );
        assert_eq!(spans_of(b"", digit).count(), 0);
        assert_eq!(spans_of(b"abc", digit).count(), 0);
    }

    fn runs(src: &str) -> Vec<(String, Class)> {
        python_runs(src.as_bytes())
            .into_iter()
            .map(|r| (src[r.start..r.end].to_string(), r.class))
            .collect()
    }

    fn names(src: &str, class: Class) -> Vec<String> {
        runs(src)
            .into_iter()
            .filter(|(_, c)| *c == class)
            .map(|(n, _)| n)
            .collect()
    }

    #[test]
    fn classifies_code_string_comment() {
        let src = "def load_user(uid):  # fetch user\n    return db.get(\"user_row\")\n";
        assert_eq!(
            names(src, Class::Code),
            ["def", "load_user", "uid", "return", "db", "get"]
        );
        assert_eq!(names(src, Class::String), ["user_row"]);
        assert_eq!(names(src, Class::Comment), ["fetch", "user"]);
    }

    #[test]
    fn numbers_and_non_ascii_hold_no_run() {
        let src = "x = 0x89ab4 + 1e10 + 3j\ncafé = 1\naddr = '2001:db8::89ab:4'\n";
        assert_eq!(names(src, Class::Code), ["x", "addr"]);
        // `db8` starts with a letter at a word boundary, `89ab` does not.
        assert_eq!(names(src, Class::String), ["db8"]);
    }

    #[test]
    fn prefixes_are_not_runs_and_open_strings() {
        let src = "a = rb'raw_bytes' + f\"{user_name!r:>10}\" + br\"x\" + u'uu'\n";
        assert_eq!(names(src, Class::Code), ["a", "user_name", "r"]);
        assert_eq!(names(src, Class::String), ["raw_bytes", "x", "uu"]);
    }

    #[test]
    fn fstring_fields_are_code_and_doubled_braces_are_text() {
        let src = "s = f'{{literal}} {obj.attr_name} {fn(\"inner\")}'\n";
        assert_eq!(names(src, Class::Code), ["s", "obj", "attr_name", "fn"]);
        assert_eq!(names(src, Class::String), ["literal", "inner"]);
    }

    #[test]
    fn escapes_do_not_glue_letters() {
        let src = r#"s = "\nfirst_name\tlast \x41bc \N{BULLET} end\\""#;
        assert_eq!(names(src, Class::String), ["first_name", "last", "end"]);
    }

    #[test]
    fn a_url_escape_with_a_decimal_digit_ends_before_a_word() {
        // `%40baz` is `@baz` once decoded: `baz` is the run `"/bar@baz"` holds. `%ab` and
        // `%A0` start with a letter and stay what they were (a run, glued digits and all).
        let src = "u = '/bar%40baz?q=%2Fcol_name&%abc %A0x %4' # see %3Aend_note\n";
        assert_eq!(
            names(src, Class::String),
            ["bar", "baz", "q", "col_name", "abc", "A0x"]
        );
        assert_eq!(names(src, Class::Comment), ["see", "end_note"]);
        let t = "path: /bar%40baz %20 %9Fz 1%20x";
        let r: Vec<_> = text_runs(t.as_bytes())
            .into_iter()
            .map(|r| &t[r.start..r.end])
            .collect();
        assert_eq!(r, ["path", "bar", "baz", "z", "x"]);
    }

    #[test]
    fn triple_quoted_strings_span_lines() {
        let src = "'''doc\nstring_part ' still'''\nafter = 1\n";
        assert_eq!(names(src, Class::String), ["doc", "string_part", "still"]);
        assert_eq!(names(src, Class::Code), ["after"]);
    }

    #[test]
    fn unterminated_string_ends_at_line_end() {
        let src = "x = 'broken\ny = 2\n";
        assert_eq!(names(src, Class::Code), ["x", "y"]);
        assert_eq!(names(src, Class::String), ["broken"]);
    }

    #[test]
    fn text_runs_take_every_run_as_string() {
        let t = "key_name: value 42abc _x";
        let r: Vec<_> = text_runs(t.as_bytes())
            .into_iter()
            .map(|r| &t[r.start..r.end])
            .collect();
        assert_eq!(r, ["key_name", "value", "_x"]);
    }
}
