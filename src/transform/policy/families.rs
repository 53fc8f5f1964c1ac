//! Families of names built at run time from a fixed part and data (`"visit_" + kind`,
//! `"xpath_%s_combinator"`, `type(x).__name__.lower()`): how they are found in strings, and
//! when a member must stay because the data it is built from stays.

use std::collections::HashMap;

use super::*;

/// A string fragment that builds names at run time, and on which side the run-time part goes:
/// `"clean_%s"`, `"visit_" + name`, `f"get_{field}_display"`, `"%s_id"`. A run in a string
/// that touches a format placeholder (`%`, `{`, `}`), ends with `_`, or is the edge of a
/// literal joined with `+`, names a family of identifiers whose other half is only known at
/// run time; renaming its tokens would break the lookup.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fragment {
    /// The fixed part (`visit_`, `parse_`, `_display`).
    pub text: String,
    /// The run as lexed in the string (`s_id` for the fixed part `_id` of `"%s_id"`).
    pub run: String,
    /// Whether the string shows the join (`+`, `%`, `{}` next to the run), rather than only
    /// an underscore at an end of the string (`"_cache"`, which may be a whole name).
    pub joined: bool,
    /// Whether the run-time part follows the fixed part (`"visit_" + x`): names of the family
    /// start with `text`; otherwise they end with it.
    pub prefix: bool,
    /// For a fixed end that follows a run-time part which itself follows a fixed start in the
    /// same literal (`_combinator` of `"xpath_%s_combinator"`), that start: the run-time part
    /// is the middle of the family's names.
    pub after: Option<String>,
    /// Whether `__name__` is read next to the literal (its line, or the one before or after):
    /// the run-time part is then likely a class's name (`type(x).__name__.lower()`).
    pub near_name: bool,
    /// Whether the run-time part is a `%` conversion that writes a number (`%d`, `%05.2f`):
    /// the family's names then hold digits there (`item_%d` builds `item_3`, never
    /// `item_name`).
    pub numeric: bool,
}

impl Fragment {
    /// A fixed start that data outside the literal supplies (a listed item, a caller's
    /// literal) joined to a run-time part: `on_enter_`, `_check_with_`.
    pub fn joined_prefix(text: String) -> Fragment {
        Fragment {
            run: text.clone(),
            text,
            joined: true,
            prefix: true,
            after: None,
            near_name: false,
            numeric: false,
        }
    }

    /// The tokens a fragment freezes (those long enough to be renamed at all).
    pub fn tokens(&self) -> impl Iterator<Item = String> + '_ {
        all_tokens(&self.text).filter(|t| t.len() >= MIN_TOKEN_LEN)
    }

    /// The fixed part when it is one word too short to be a token, joined in the string and
    /// with its underscore on the run-time side (`id` of `"id_%s"`, `is` of `"is_%s"`).
    pub fn short_word(&self) -> Option<String> {
        let w = if self.prefix {
            self.text.strip_suffix('_')?
        } else {
            self.text.strip_prefix('_')?
        };
        let short = (2..MIN_TOKEN_LEN).contains(&w.len());
        (self.joined && short && w.bytes().all(|b| b.is_ascii_lowercase())).then(|| w.to_string())
    }
}

/// The dynamic name fragments of a file (see [`Fragment`]).
pub fn dynamic_fragments(src: &[u8]) -> Vec<Fragment> {
    fragments_in_runs(src, &lexer::python_runs(src))
}

/// `dynamic_fragments` over runs already lexed from `src`.
pub fn fragments_in_runs(src: &[u8], runs: &[lexer::Run]) -> Vec<Fragment> {
    let mut out = Vec::new();
    // The fixed start last seen, with where it ends, for infix families.
    let mut last_start: Option<(String, usize)> = None;
    for &r in runs {
        if r.class != Class::String {
            continue;
        }
        let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) else {
            continue;
        };
        let before = r.start.checked_sub(1).map(|i| src[i]);
        let after = src.get(r.end).copied();
        let quote_after = matches!(after, Some(b'"' | b'\''));
        let quote_before = matches!(before, Some(b'"' | b'\''));
        // A doubled `{{`, `}}` or `%%` is an escaped character (and the markup of templates,
        // `"as{{ missing }}df"`), not a field: nothing is joined there.
        let doubled_after = after.is_some() && src.get(r.end + 1).copied() == after;
        let doubled_before =
            before.is_some() && r.start >= 2 && src.get(r.start - 2).copied() == before;
        // What a `%` next to the run converts: the run-time part of `"dj%21"` (a URL's
        // escape, which no `%` operator accepts as written) or of SQL's `LIKE '%django'`
        // (`%d`, a number) is never a name's letters.
        let conv_after =
            (after == Some(b'%') && !doubled_after).then(|| percent_conversion(src, r.end + 1));
        let conv_before =
            (before == Some(b'%') && !doubled_before).then(|| percent_conversion(src, r.start));
        let dynamic_after = conv_after.is_some_and(|c| c != Conversion::Nothing)
            || (after == Some(b'{') && !doubled_after)
            || (quote_after && next_code_byte(src, r.end + 1) == Some(b'+'));
        let dynamic_before = conv_before.is_some_and(|c| c != Conversion::Nothing)
            || (before == Some(b'}') && !doubled_before)
            || (quote_before && prev_code_byte(src, r.start - 1) == Some(b'+'));
        // An open underscore alone does not make a dunder a fragment: `"__init__"` names the
        // whole (frozen) dunder, and a family of names ending in `__init__` is no reason to
        // freeze the token `init` everywhere.
        // A whole literal given to `startswith`/`endswith` is the fixed part of the names it
        // is compared with, underscore or not (`n.startswith("level")` picks `level4_...`).
        let compared = (quote_before && quote_after)
            .then(|| affix_compared(src, r.start - 1))
            .flatten()
            .map(|c| c.prefix)
            .filter(|_| !is_dunder(run));
        let open_end =
            (run.ends_with('_') && quote_after && !is_dunder(run)) || compared == Some(true);
        let open_start = (run.starts_with('_')
            && matches!(before, Some(b'"' | b'\'' | b'}'))
            && !is_dunder(run))
            || compared == Some(false);
        // `%s_id`: the letter after `%` is the conversion, not a name part.
        let text = if before == Some(b'%') {
            run.get(1..).unwrap_or("")
        } else {
            run
        };
        // Two letters are enough for a family (`"is_%s" % fact` builds sympy's `is_integer`),
        // though such a fragment has no token to freeze; so is a lone underscore joined to a
        // name (`setattr(self, "_" + attr, ...)` makes private names from public ones).
        let lone_underscore = text == "_" && (dynamic_after || dynamic_before);
        if text.bytes().filter(u8::is_ascii_alphabetic).count() < 2 && !lone_underscore {
            continue;
        }
        // The start of the same literal: nothing between the two runs closes a string or a
        // line (`"xpath_%s_combinator"`, `f"get_{field}_display"`).
        let after = last_start.take().filter(|(_, end)| {
            dynamic_before
                && !src[*end..r.start]
                    .iter()
                    .any(|b| matches!(b, b'"' | b'\'' | b'\n'))
        });
        // Read only for runs that make a fragment (most string runs do not). A message
        // given to `raise` or `warn` is read by people and tests, never looked up.
        let fragment = (dynamic_after || open_end || dynamic_before || open_start)
            && !in_message(src, r.start);
        if !fragment {
            continue;
        }
        let near_name = fragment && reads_name_nearby(src, r.start, r.end);
        if dynamic_after || open_end {
            out.push(Fragment {
                text: text.to_string(),
                run: run.to_string(),
                joined: dynamic_after,
                prefix: true,
                after: None,
                near_name,
                numeric: conv_after == Some(Conversion::Number),
            });
            if dynamic_after {
                last_start = Some((text.to_string(), r.end));
            }
        }
        if dynamic_before || open_start {
            out.push(Fragment {
                text: text.to_string(),
                run: run.to_string(),
                joined: dynamic_before,
                prefix: false,
                after: after.map(|(t, _)| t),
                near_name,
                numeric: conv_before == Some(Conversion::Number),
            });
        }
    }
    out
}

/// What a `%` conversion writes into the text it formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Conversion {
    /// Any text: `%s`, `%r`, `%a`, `%c`, and `%x` (hexadecimal digits are letters too).
    Text,
    /// Digits (with a sign, a point or an exponent): `%d`, `%i`, `%u`, `%o`, `%e`, `%f`, `%g`.
    Number,
    /// No run-time part: `%` is no conversion here (`%21` of a URL, a `%` that ends the
    /// literal, a padded `%%`), so a `%` operator would refuse the string or write `%`.
    Nothing,
}

/// The conversion of a `%` whose spec starts at `at` (just after the `%`): an optional
/// `(key)`, flags, width, precision and length modifier, then the conversion letter.
///
/// A URL escape glued to a word (`"/url%20with%20spaces/"`, `%2Fbaz`) is read as the lexer
/// reads it (`lexer::after_percent_escape`): two digits, then a word of its own, so no
/// conversion. A format's `%20s` or `%08x` ends in one letter and stays a conversion.
pub(super) fn percent_conversion(src: &[u8], at: usize) -> Conversion {
    if let Some(w) = at
        .checked_sub(1)
        .and_then(|p| lexer::after_percent_escape(src, p))
    {
        if w + 1 < src.len() && lexer::is_word_at(src, w) && lexer::is_word_at(src, w + 1) {
            return Conversion::Nothing;
        }
    }
    let mut i = at;
    if src.get(i) == Some(&b'(') {
        match src[i..].iter().position(|&b| b == b')' || b == b'\n') {
            Some(p) if src[i + p] == b')' => i += p + 1,
            _ => return Conversion::Nothing,
        }
    }
    while matches!(src.get(i), Some(b'#' | b'0' | b'-' | b' ' | b'+')) {
        i += 1;
    }
    let digits = |mut i: usize| {
        if src.get(i) == Some(&b'*') {
            return i + 1;
        }
        while src.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    };
    i = digits(i);
    if src.get(i) == Some(&b'.') {
        i = digits(i + 1);
    }
    if matches!(src.get(i), Some(b'h' | b'l' | b'L')) {
        i += 1;
    }
    match src.get(i) {
        Some(b's' | b'r' | b'a' | b'c' | b'x' | b'X') => Conversion::Text,
        Some(b'd' | b'i' | b'u' | b'o' | b'e' | b'E' | b'f' | b'F' | b'g' | b'G') => {
            Conversion::Number
        }
        _ => Conversion::Nothing,
    }
}

/// How many line breaks `affix_compared` reads back over to the call's open bracket.
const MAX_CALL_LINES: usize = 3;

/// Whether the literal whose opening quote is at `quote` is an argument of a
/// `startswith(...)` (`Some(true)`: the names start with it) or `endswith(...)` call
/// (`Some(false)`), alone or in a tuple (`name.endswith(("_a", "_b"))`), or is compared
/// with a slice of its own length (`f[:2] == "t_"`, `name[-4:] != "_opt"`; see
/// `slice_compared`). The arguments are read back to the call's open bracket over at most
/// `MAX_CALL_LINES` line breaks; a bracket inside another literal or a comment there can
/// hide a call (the fragment is then missed, as before this rule).
pub(super) fn affix_compared(src: &[u8], quote: usize) -> Option<Compared<'_>> {
    if let Some(c) = slice_compared(src, quote) {
        return Some(c);
    }
    let mut i = literal_start(src, quote);
    let mut depth = 0usize;
    let mut in_tuple = false;
    let mut lines = 0usize;
    while i > 0 {
        i -= 1;
        match src[i] {
            // A call whose arguments are laid out over a few lines (cerberus's
            // `x.startswith(\n    ('allof_', 'oneof_')\n)`); farther up is another statement.
            b'\n' if lines < MAX_CALL_LINES => lines += 1,
            b'\n' => return None,
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' if depth > 0 => depth -= 1,
            b'(' => {
                // The open bracket of the literal's own call, or of a tuple inside it.
                let mut j = i;
                while j > 0 && (src[j - 1] == b' ' || src[j - 1] == b'\t') {
                    j -= 1;
                }
                let name_end = j;
                while j > 0 && (src[j - 1].is_ascii_alphanumeric() || src[j - 1] == b'_') {
                    j -= 1;
                }
                let receiver = (j > 0 && src[j - 1] == b'.')
                    .then(|| name_before(src, j - 1))
                    .flatten();
                let name = &src[j..name_end];
                let cuts = matches!(name, b"removeprefix" | b"removesuffix");
                match name {
                    b"startswith" | b"removeprefix" => {
                        return Some(Compared {
                            prefix: true,
                            receiver,
                            cuts,
                        })
                    }
                    b"endswith" | b"removesuffix" => {
                        return Some(Compared {
                            prefix: false,
                            receiver,
                            cuts,
                        })
                    }
                    b"" if !in_tuple => in_tuple = true,
                    _ => return None,
                }
            }
            b'[' | b'{' => return None,
            _ => {}
        }
    }
    None
}

/// How a literal is compared with names: as their start (`prefix`) or end, and the plain
/// name it is compared with, where one is spelled (`pa` of `pa.startswith("cache_")`, `f` of
/// `f[:2] == "t_"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Compared<'a> {
    pub prefix: bool,
    pub receiver: Option<&'a str>,
    /// The call gives the rest itself (`removeprefix`, `removesuffix`), so no other cut is
    /// needed for the part to leave one.
    pub cuts: bool,
}

/// The identifier that ends at `end` (`name` of `self.name`), if any.
fn name_before(src: &[u8], end: usize) -> Option<&str> {
    let mut start = end;
    while start > 0 && (src[start - 1].is_ascii_alphanumeric() || src[start - 1] == b'_') {
        start -= 1;
    }
    (start < end)
        .then(|| std::str::from_utf8(&src[start..end]).ok())
        .flatten()
}

/// Whether the literal opened at `quote` is compared (`==`/`!=`) with a slice that keeps as
/// many characters as it has: `x[:2] == "t_"` (`Some(true)`, a prefix) or `x[-4:] ==
/// "_opt"` (`Some(false)`), the slice on the left. This is how older code spells
/// `startswith` (PLY collects its lexer rules with `f[:2] == 't_'`).
fn slice_compared(src: &[u8], quote: usize) -> Option<Compared<'_>> {
    let q = *src.get(quote)?;
    let len = src
        .get(quote + 1..)?
        .iter()
        .position(|&b| b == q || b == b'\\' || b == b'\n')?;
    if src.get(quote + 1 + len) != Some(&q) {
        return None;
    }
    let skip_blank = |mut j: usize| {
        while j > 0 && matches!(src[j - 1], b' ' | b'\t') {
            j -= 1;
        }
        j
    };
    let mut j = skip_blank(literal_start(src, quote));
    if j < 2 || !matches!(&src[j - 2..j], b"==" | b"!=") {
        return None;
    }
    j = skip_blank(j - 2);
    if j == 0 || src[j - 1] != b']' {
        return None;
    }
    let close = j - 1;
    let open = src[..close]
        .iter()
        .rposition(|&b| b == b'[' || b == b'\n')?;
    if src[open] != b'[' {
        return None;
    }
    let inside = std::str::from_utf8(&src[open + 1..close])
        .ok()?
        .replace(' ', "");
    let (side, digits) = if let Some(d) = inside.strip_prefix(':') {
        (true, d)
    } else if let Some(d) = inside.strip_prefix('-').and_then(|d| d.strip_suffix(':')) {
        (false, d)
    } else {
        return None;
    };
    (digits.parse::<usize>().ok()? == len && len > 0).then(|| Compared {
        prefix: side,
        receiver: name_before(src, open),
        cuts: false,
    })
}

/// Whether `__name__` appears on the line of `start..end`, the line before or the line after.
fn reads_name_nearby(src: &[u8], start: usize, end: usize) -> bool {
    let mut a = start;
    let mut lines = 0;
    while a > 0 {
        if src[a - 1] == b'\n' {
            lines += 1;
            if lines == 2 {
                break;
            }
        }
        a -= 1;
    }
    let mut b = end;
    let mut lines = 0;
    while b < src.len() {
        if src[b] == b'\n' {
            lines += 1;
            if lines == 2 {
                break;
            }
        }
        b += 1;
    }
    src[a..b].windows(8).any(|w| w == b"__name__")
}

/// The run-time parts of a run that belongs to the family of a dynamic fragment: `Output`
/// for `visit_Output` and `visit_`, `for` for `parse_for` and `parse_`, `name` for
/// `name_display` and `_display`. Such a run is looked up by a name built at run time from
/// data (a node's class name, a template keyword), so it must be renamed exactly when that
/// data is: the caller freezes the run when the run-time part is frozen.
pub fn dynamic_rests<'r>(run: &'r str, fragments: &FragmentIndex) -> Vec<&'r str> {
    let matches = fragments.matches(run);
    let mut out: Vec<&str> = matches.iter().map(|m| m.rest).collect();
    // The middle of an infix family's member (`child` of `xpath_child_combinator`): an
    // infix's start is a prefix, so only the prefix matches are looked up.
    for m in matches.iter().filter(|m| m.prefix) {
        for end in fragments.infixes.get(m.fixed).into_iter().flatten() {
            if let Some(mid) = m.rest.strip_suffix(end.as_str()).filter(|x| !x.is_empty()) {
                out.push(mid);
            }
        }
    }
    out
}

/// How a run belongs to the family of a dynamic fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FamilyMatch<'r> {
    /// The fragment's kind (see [`Fragment::prefix`]).
    pub prefix: bool,
    /// The fixed part, as it stands in the run.
    pub fixed: &'r str,
    /// The run-time part.
    pub rest: &'r str,
}

/// Dynamic fragments indexed by kind, for [`dynamic_rests`].
#[derive(Debug, Default)]
pub struct FragmentIndex {
    prefixes: HashSet<String>,
    suffixes: HashSet<String>,
    /// Fixed ends of one literal by its fixed start, around a run-time part (see
    /// [`Fragment::after`]).
    infixes: HashMap<String, BTreeSet<String>>,
    /// Every prefix ends and every suffix starts with `_`, so a run can only split next to
    /// an underscore (most runs have none or one: far fewer lookups).
    underscore_joins: bool,
    /// The lengths of the prefixes and of the suffixes (bit `n` for length `n`, the last bit
    /// for every length from 63 up): a split whose part has no such length is not looked up.
    prefix_lengths: u64,
    suffix_lengths: u64,
    /// Fixed ends that every literal holding them starts with a fixed part of its own
    /// (`_default` of `"_%s_default"`): their members are that start, a run-time part and the
    /// end, so only the middle is a run-time part, never the start and middle together.
    bound_suffixes: HashSet<String>,
    /// Fixed parts every literal of which joins them to a number (`"item_%d"`): their
    /// members' run-time parts are digits.
    numeric_prefixes: HashSet<String>,
    numeric_suffixes: HashSet<String>,
}

/// The bit of [`FragmentIndex::prefix_lengths`] for a fragment of `len` bytes.
fn length_bit(len: usize) -> u64 {
    1u64 << len.min(63)
}

impl FragmentIndex {
    /// Every way `run` belongs to the family of an indexed fragment.
    pub fn matches<'r>(&self, run: &'r str) -> Vec<FamilyMatch<'r>> {
        // Every split of the run is looked up (a run is short; a large repository has
        // thousands of fragments and tens of thousands of runs).
        let mut out = Vec::new();
        let bytes = run.as_bytes();
        for i in 0..=run.len() {
            if !run.is_char_boundary(i) {
                continue;
            }
            if self.underscore_joins
                && !(i > 0 && bytes[i - 1] == b'_')
                && bytes.get(i) != Some(&b'_')
            {
                continue;
            }
            let (head, tail) = run.split_at(i);
            let number = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
            if !tail.is_empty()
                && self.prefix_lengths & length_bit(head.len()) != 0
                && self.prefixes.contains(head)
                && (number(tail) || !self.numeric_prefixes.contains(head))
            {
                out.push(FamilyMatch {
                    prefix: true,
                    fixed: head,
                    rest: tail,
                });
            }
            if !head.is_empty()
                && self.suffix_lengths & length_bit(tail.len()) != 0
                && self.suffixes.contains(tail)
                && !self.bound_suffixes.contains(tail)
                && (number(head) || !self.numeric_suffixes.contains(tail))
            {
                out.push(FamilyMatch {
                    prefix: false,
                    fixed: tail,
                    rest: head,
                });
            }
        }
        out
    }

    pub fn new<'f>(fragments: impl IntoIterator<Item = &'f Fragment>) -> FragmentIndex {
        let mut ix = FragmentIndex {
            underscore_joins: true,
            ..FragmentIndex::default()
        };
        let mut free_suffixes: HashSet<&str> = HashSet::new();
        // Fixed parts seen with a run-time part that may be letters, by kind.
        let mut lettered: HashSet<(bool, &str)> = HashSet::new();
        let mut numeric: Vec<(bool, &str)> = Vec::new();
        for f in fragments {
            if !f.prefix && f.after.is_none() {
                free_suffixes.insert(&f.text);
            }
            if f.numeric {
                numeric.push((f.prefix, &f.text));
            } else {
                lettered.insert((f.prefix, &f.text));
            }
            if f.prefix {
                ix.underscore_joins &= f.text.ends_with('_');
                ix.prefix_lengths |= length_bit(f.text.len());
                ix.prefixes.insert(f.text.clone());
            } else {
                ix.underscore_joins &= f.text.starts_with('_');
                ix.suffix_lengths |= length_bit(f.text.len());
                ix.suffixes.insert(f.text.clone());
                if let Some(start) = &f.after {
                    ix.infixes
                        .entry(start.clone())
                        .or_default()
                        .insert(f.text.clone());
                }
            }
        }
        for (prefix, text) in numeric {
            if !lettered.contains(&(prefix, text)) {
                let set = if prefix {
                    &mut ix.numeric_prefixes
                } else {
                    &mut ix.numeric_suffixes
                };
                set.insert(text.to_string());
            }
        }
        // Bound only where each start is indexed too, so the member is still found through it
        // (`dynamic_rests`).
        let unreachable: HashSet<&String> = ix
            .infixes
            .iter()
            .filter(|(start, _)| !ix.prefixes.contains(*start))
            .flat_map(|(_, ends)| ends)
            .collect();
        ix.bound_suffixes = ix
            .suffixes
            .iter()
            .filter(|t| !free_suffixes.contains(t.as_str()) && !unreachable.contains(t))
            .cloned()
            .collect();
        ix
    }
}

/// How far back from a string the call it is an argument of is looked for.
const MESSAGE_REACH: usize = 2000;

/// Whether the string run at `pos` is inside the arguments of `raise Name(...)` (or
/// `raise a.b.Name(...)`) or of a `warn(...)` call: the text it builds is a message.
/// Read back to the unmatched open bracket, over at most `MESSAGE_REACH` bytes; a bracket
/// inside another literal on the way can hide the call (the run then counts as before).
pub(super) fn in_message(src: &[u8], pos: usize) -> bool {
    let floor = pos.saturating_sub(MESSAGE_REACH);
    let mut depth = 0usize;
    let mut i = pos;
    let open = loop {
        if i <= floor {
            return false;
        }
        i -= 1;
        match src[i] {
            b')' | b']' | b'}' => depth += 1,
            b'(' | b'[' | b'{' if depth > 0 => depth -= 1,
            b'(' => break i,
            b'[' | b'{' => return false,
            _ => {}
        }
    };
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut j = open;
    while j > 0 && (word(src[j - 1]) || src[j - 1] == b'.') {
        j -= 1;
    }
    let callee = &src[j..open];
    let last = callee.rsplit(|&b| b == b'.').next().unwrap_or(b"");
    if last == b"warn" {
        return true;
    }
    if last.is_empty() || !last[0].is_ascii_uppercase() {
        return false;
    }
    let mut k = j;
    while k > 0 && matches!(src[k - 1], b' ' | b'\t') {
        k -= 1;
    }
    // `raise` itself, then at least one blank before the exception's name.
    k < j && k >= 5 && &src[k - 5..k] == b"raise" && (k == 5 || !word(src[k - 6]))
}

pub(super) fn next_code_byte(src: &[u8], mut i: usize) -> Option<u8> {
    while i < src.len() && (src[i] == b' ' || src[i] == b'\t') {
        i += 1;
    }
    src.get(i).copied()
}

/// Where the literal whose opening quote is at `quote` starts: before its prefix (`b"`,
/// `rb"`), if it has one.
fn literal_start(src: &[u8], quote: usize) -> usize {
    let mut j = quote;
    while j > 0 && src[j - 1].is_ascii_alphabetic() && quote - (j - 1) <= 2 {
        j -= 1;
    }
    j
}

pub(super) fn prev_code_byte(src: &[u8], i: usize) -> Option<u8> {
    // `i` is the index of the opening quote; skip a string prefix and spaces before it.
    let mut j = literal_start(src, i);
    while j > 0 && (src[j - 1] == b' ' || src[j - 1] == b'\t') {
        j -= 1;
    }
    j.checked_sub(1).map(|k| src[k])
}

/// The spellings programs make of a class-like run's name (a capital first, words only):
/// its lower case (`identifierlist` of `IdentifierList`, `type(x).__name__.lower()`) and,
/// for more than one word, its snake case (`blank_line` of `BlankLine`, joined words
/// lower-cased with `_`, as a CamelCase splitter makes it).
pub(super) fn class_spellings(run: &str) -> Vec<String> {
    let starts_upper = run.as_bytes().first().is_some_and(u8::is_ascii_uppercase);
    let pieces = tokens::split(run);
    let words: Vec<&str> = pieces
        .iter()
        .map_while(|p| match p {
            Piece::Word(w, _) => Some(*w),
            _ => None,
        })
        .collect();
    if !starts_upper || words.len() != pieces.len() || !run.bytes().any(|b| b.is_ascii_lowercase())
    {
        return Vec::new();
    }
    let mut out = vec![run.to_ascii_lowercase()];
    if words.len() > 1 {
        out.push(words.join("_").to_ascii_lowercase());
    }
    out
}

/// The families whose members are mostly named after the repository's classes
/// (mistletoe's `"render_{}".format(snake)` with `render_blank_line` for `BlankLine`,
/// `render_block_code` for `BlockCode`): of the members whose run-time part has several
/// words, at least `CLASS_FAMILY_MIN`, and at least half, have one that is the snake case
/// of a class-like code run (see [`class_spellings`]). Such a family is a class family
/// although no `__name__` is read next to its literal (the class's name reaches it through
/// a call). `index` holds the joined fragments.
pub(super) fn class_shaped(
    index: &FragmentIndex,
    code_runs: &BTreeSet<String>,
) -> HashSet<(bool, String)> {
    // Only snake case counts: a one-word class's lower case is also the keyword a parser
    // dispatches on (jinja2's `parse_extends` for the tag `extends`, beside the node
    // `Extends`), which ties no class to the family.
    let spelled: HashSet<String> = code_runs
        .iter()
        .flat_map(|r| class_spellings(r))
        .filter(|s| s.contains('_'))
        .collect();
    // Members of several words and those spelled after a class, by family.
    let mut counts: HashMap<(bool, &str), (usize, usize)> = HashMap::new();
    for run in code_runs {
        for m in index.matches(run) {
            if m.rest.contains('_') {
                let c = counts.entry((m.prefix, m.fixed)).or_default();
                c.0 += 1;
                c.1 += usize::from(spelled.contains(m.rest));
            }
        }
    }
    counts
        .into_iter()
        .filter(|(_, (all, spelled))| *spelled >= CLASS_FAMILY_MIN && 2 * spelled >= *all)
        .map(|((prefix, fixed), _)| (prefix, fixed.to_string()))
        .collect()
}

/// How many members spelled after classes make a family a class family: one or two are
/// a coincidence (Django's `test_foreignkey` beside `ForeignKey`).
const CLASS_FAMILY_MIN: usize = 3;

/// What ties classes to the family members named after their lower or snake case, for one
/// round of the family rule: the run-time parts of frozen members, and the spellings of
/// frozen classes. Only families whose literal reads `__name__` nearby, or whose members
/// are mostly named after classes (`class_shaped`), count (`class_families`):
/// elsewhere a member's run-time part equal to a class's lower case is a coincidence
/// (Django's `test_foreignkey` beside `ForeignKey`, `get_paginator` beside `Paginator`), and
/// freezing the class for it would keep hundreds of names for nothing.
pub(super) struct ClassNames {
    frozen_rests: HashSet<String>,
    frozen_classes: HashSet<String>,
}

impl ClassNames {
    pub(super) fn new(f: &Findings, fragments: &FragmentIndex) -> ClassNames {
        ClassNames {
            frozen_rests: f
                .frozen_owned
                .iter()
                .flat_map(|m| dynamic_rests(m, fragments))
                .filter(|r| !r.bytes().any(|b| b.is_ascii_uppercase()))
                .map(str::to_string)
                .collect(),
            frozen_classes: f
                .frozen_runs
                .keys()
                .flat_map(|r| class_spellings(r))
                .collect(),
        }
    }

    /// Whether `run` must stay because its partner stays: a class whose lower case is the
    /// run-time part of a frozen member, or a member whose run-time part is the lower case
    /// of a frozen class. Renamed together, they change alike (the class's words are the
    /// member's tokens, and `lexicon::joined_pairs` maps a multi-word join with its class).
    pub(super) fn parts_with_frozen(&self, run: &str, fragments: &FragmentIndex) -> bool {
        class_spellings(run)
            .iter()
            .any(|l| self.frozen_rests.contains(l))
            || dynamic_rests(run, fragments)
                .iter()
                .any(|rest| self.frozen_classes.contains(*rest))
    }
}

/// Whether a run belongs to the family of a joined dynamic fragment with a run-time part
/// that would not be renamed wherever that part comes from: as a name (frozen) or inside
/// strings (a single word the code never uses, which strings keep). Such a run is looked up
/// by a name built from data that keeps its words, so it must keep them too.
pub(super) fn built_from_data(
    run: &str,
    fragment_index: &FragmentIndex,
    input: &PolicyInput<'_>,
    f: &Findings,
    all_runs: &HashSet<&str>,
    hyphen_data: &HashSet<String>,
) -> bool {
    dynamic_rests(run, fragment_index).into_iter().any(|rest| {
        freeze_reason(rest, input, f).is_some()
            || (tokens::word_count(rest) < 2 && !swapped_in_data(rest, input, f))
            // A compound that strings keep whole (a piece of it is frozen on its own and it
            // is no start or end of a code name), when the repository holds it as data: that
            // is where the run-time part comes from.
            // Hyphenated data counts in its underscore form (`"nth-last-child"`, which
            // cssselect turns into `xpath_nth_last_child_function` with `.replace("-", "_")`).
            || (kept_in_strings(rest, input, f)
                && (all_runs.contains(rest) || hyphen_data.contains(rest)))
    })
}

/// The name affixes a file's code exchanges with `.replace` (`("_dir", "_path")` of
/// platformdirs's `name.replace("_dir", "_path")`): two string literals of letters, digits
/// and `_`, each with `_` at one end and at least one letter, on the same side in both.
/// Names that code turns into one another this way are tied (`replaced_twin_of_frozen`).
pub(super) fn replace_pairs(src: &[u8]) -> Vec<(String, String)> {
    static RE: std::sync::LazyLock<regex::bytes::Regex> = std::sync::LazyLock::new(|| {
        regex::bytes::Regex::new(
            r#"\.replace\(\s*(?:'([A-Za-z0-9_]+)'|"([A-Za-z0-9_]+)")\s*,\s*(?:'([A-Za-z0-9_]+)'|"([A-Za-z0-9_]+)")\s*\)"#,
        )
        .expect("a valid pattern")
    });
    if !src.windows(9).any(|w| w == b".replace(") {
        return Vec::new();
    }
    let affix = |x: &str| {
        x.bytes().any(|b| b.is_ascii_alphabetic()) && (x.starts_with('_') ^ x.ends_with('_'))
    };
    RE.captures_iter(src)
        .filter_map(|c| {
            let text = |i: usize, j: usize| {
                c.get(i)
                    .or_else(|| c.get(j))
                    .and_then(|m| std::str::from_utf8(m.as_bytes()).ok())
            };
            let (a, b) = (text(1, 2)?, text(3, 4)?);
            (affix(a) && affix(b) && a.starts_with('_') == b.starts_with('_') && a != b)
                .then(|| (a.to_string(), b.to_string()))
        })
        .collect()
}

/// Whether `run` ends (or starts) with one affix of a `.replace` pair and its twin with the
/// other affix is frozen: the program builds one name from the other (platformdirs's
/// `site_config_path` from `site_config_dir`, an outside name), so they stay together.
pub(super) fn replaced_twin_of_frozen(
    run: &str,
    pairs: &[(String, String)],
    input: &PolicyInput<'_>,
    f: &Findings,
) -> bool {
    pairs.iter().any(|(a, b)| {
        [(a, b), (b, a)].into_iter().any(|(x, y)| {
            let twin = if x.starts_with('_') {
                run.strip_suffix(x.as_str())
                    .filter(|stem| !stem.is_empty())
                    .map(|stem| format!("{stem}{y}"))
            } else {
                run.strip_prefix(x.as_str())
                    .filter(|rest| !rest.is_empty())
                    .map(|rest| format!("{y}{rest}"))
            };
            twin.is_some_and(|t| {
                freeze_reason(&t, input, f).is_some_and(|r| r != FreezeReason::Short)
            })
        })
    })
}

/// The lower-case letters a file joins to one run-time part to make a name it looks up: a
/// literal that is only the letter and one field (`f"a{name}"`, `"a{}".format(name)`,
/// `"a%s" % name`, `"a" + name`), used as a subscript (`meths[f"a{name}"]`) or as the name
/// given to `getattr`, `setattr`, `hasattr` or `delattr`. structlog makes the async twin of
/// each level method as `meths[f"a{name}"]` (`aerror` of `error`). One letter is too short
/// for a family of its own (`Fragment` wants two), so such a prefix only ties a name to its
/// rest when the rest stays (`letter_twin_of_frozen`); and a literal used otherwise
/// (`slug="a%s" % i`, `"a" + s[1:]`) names nothing.
pub(super) fn letters_in_runs(src: &[u8], runs: &[lexer::Run]) -> BTreeSet<u8> {
    let mut out = BTreeSet::new();
    for r in runs {
        if r.class != Class::String || r.end != r.start + 1 || !src[r.start].is_ascii_lowercase() {
            continue;
        }
        // The literal's first character: the letter is the fixed start of the names.
        let Some(open) = r.start.checked_sub(1) else {
            continue;
        };
        let quote = src[open];
        if !matches!(quote, b'"' | b'\'') {
            continue;
        }
        let rest = &src[r.end..];
        let field_then_close = |n: usize| rest.get(n) == Some(&quote);
        let one_field = match rest.first() {
            Some(b'{') => rest
                .iter()
                .take(64)
                .position(|&b| b == b'}')
                .is_some_and(|k| {
                    rest[1..k]
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'_')
                        && field_then_close(k + 1)
                }),
            Some(b'%') => matches!(rest.get(1), Some(b's' | b'r')) && field_then_close(2),
            Some(&q) if q == quote => next_code_byte(src, r.end + 1) == Some(b'+'),
            _ => false,
        };
        if one_field && looked_up(src, open) {
            out.insert(src[r.start]);
        }
    }
    out
}

/// Whether the literal whose opening quote is at `quote` is a subscript (`d[f"a{x}"]`) or
/// the second argument of `getattr`, `setattr`, `hasattr` or `delattr` on its line.
fn looked_up(src: &[u8], quote: usize) -> bool {
    let i = literal_start(src, quote);
    let Some(before) = prev_code_byte(src, quote) else {
        return false;
    };
    match before {
        b'[' => true,
        b',' => {
            let line_start = src[..i]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |k| k + 1);
            let line = &src[line_start..i];
            [&b"getattr("[..], b"setattr(", b"hasattr(", b"delattr("]
                .iter()
                .any(|f| line.windows(f.len()).any(|w| w == *f))
        }
        _ => false,
    }
}

/// Whether `run` is one of `letters` followed by a name that stays and that the repository
/// spells somewhere, in code or data (`aerror`, with `error` an outside name and a string
/// key): the program builds the run from that name at run time.
pub(super) fn letter_twin_of_frozen(
    run: &str,
    letters: &BTreeSet<u8>,
    all_runs: &HashSet<&str>,
    input: &PolicyInput<'_>,
    f: &Findings,
) -> bool {
    let Some((&first, _)) = run.as_bytes().split_first() else {
        return false;
    };
    if !letters.contains(&first) {
        return false;
    }
    let rest = &run[1..];
    rest.len() >= 2
        && rest.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && all_runs.contains(rest)
        && freeze_reason(rest, input, f).is_some_and(|r| r != FreezeReason::Short)
}

/// Whether the data a single-word run-time part comes from is swapped by the renamer: the
/// part as written, or in lower case, which a program capitalises into a class name
/// (jsonschema names each validator class `f"{version.title()}Validator"` from
/// `version="draft7"`); a word with an index is swapped as its stem (`draft7` with the code
/// name `draft`: `Renamer::is_code_ident`).
fn swapped_in_data(rest: &str, input: &PolicyInput<'_>, f: &Findings) -> bool {
    // A local's plain word is renamed only as that local, which no data names.
    let renamed = |w: &str| swapped_code_run(w, f) && freeze_reason(w, input, f).is_none();
    let lower = rest.to_ascii_lowercase();
    let stem = lower.trim_end_matches(|c: char| c.is_ascii_digit());
    swapped_in_strings(rest, input, f)
        || renamed(&lower)
        || (stem.len() < lower.len() && !stem.is_empty() && renamed(stem))
}

/// Whether strings swap a single word as the renamer does: a run the code uses, or its
/// spelling in the other case when that is a run the code uses and does not freeze (`"FREQ"`
/// with the code's `freq`, but not `"INTERVAL"` with the outside `interval`:
/// `Renamer::swap_run`). A plain word the code only uses as a local is no such run: strings
/// keep it (`Findings::local_words`; the renamer's code identifiers leave them out).
pub(super) fn swapped_in_strings(word: &str, input: &PolicyInput<'_>, f: &Findings) -> bool {
    swapped_code_run(word, f) || other_case_is_code(word, input, f)
}

/// Whether `word` is a run of the code that strings swap (not a local's plain word).
fn swapped_code_run(word: &str, f: &Findings) -> bool {
    f.code_runs.contains(word) && !f.local_words.contains(word)
}

/// Whether `run` is in one case only and its spelling in the other case is a run the code
/// uses and does not freeze (the mirror of `Renamer::is_other_case_of_code_ident`).
pub(super) fn other_case_is_code(run: &str, input: &PolicyInput<'_>, f: &Findings) -> bool {
    tokens::other_case_name(run).is_some_and(|other| {
        swapped_code_run(&other, f) && freeze_reason(&other, input, f).is_none()
    })
}

/// Whether a run of a whole name's family would not change the way the name does in strings:
/// the run is frozen, strings keep it (`kept_in_strings`), or its token boundaries miss the
/// name (`mapping_validator` ends with `_validator` word for word; `lvalidator` does not).
pub fn family_member_diverges(
    run: &str,
    m: &FamilyMatch<'_>,
    input: &PolicyInput<'_>,
    f: &Findings,
) -> bool {
    if freeze_reason(run, input, f).is_some() || kept_in_strings(run, input, f) {
        return true;
    }
    let (a, b) = if m.prefix {
        (m.fixed, m.rest)
    } else {
        (m.rest, m.fixed)
    };
    !all_tokens(run).eq(all_tokens(a).chain(all_tokens(b)))
}

/// Whether strings keep a run that the code does not name: a compound with a word that is
/// frozen on its own (`"_CLI_COMPLETE"` with `cli`), see `Renamer::swap_run`. The start or
/// end of a code name (`"unquoted_identifier"` of `_token_nud_unquoted_identifier`) is
/// swapped like the name, so strings do not keep it.
pub(super) fn kept_in_strings(run: &str, input: &PolicyInput<'_>, f: &Findings) -> bool {
    !f.code_runs.contains(run)
        && !f.code_affixes.contains(run)
        && !other_case_is_code(run, input, f)
        && tokens::word_count(run) >= 2
        && has_frozen_word(run, input, f)
}

/// Whether a word of `run`, as written or lowercase, is frozen as a run of its own: such a
/// word may come from run-time data that keeps it (`"_CLI_COMPLETE"` compared with
/// `f"_{prog_name}_COMPLETE"` where the command is the frozen `cli`).
pub(super) fn has_frozen_word(run: &str, input: &PolicyInput<'_>, f: &Findings) -> bool {
    tokens::split(run).into_iter().any(|p| match p {
        Piece::Word(w, _) => [w.to_string(), w.to_ascii_lowercase()]
            .iter()
            .any(|w| freeze_reason(w, input, f).is_some_and(|r| r != FreezeReason::Short)),
        Piece::Other(_) => false,
    })
}

/// The strings among the fragments that are whole names, not halves of a join: the string
/// shows no join, only an underscore at an end (`"_cache"`), and is a name the code uses
/// and does not freeze (`self._cache`). Strings swap such a run like the code does, so its
/// tokens need not be frozen, provided every run of its family (`name.endswith("_cache")`
/// meets `page_cache`) changes the same way (`family_member_diverges`).
pub fn whole_names<'f>(
    fragments: &'f BTreeSet<Fragment>,
    all_runs: &HashSet<&str>,
    input: &PolicyInput<'_>,
    f: &Findings,
) -> HashSet<&'f str> {
    let (candidates, others): (Vec<&Fragment>, Vec<&Fragment>) = fragments.iter().partition(|fr| {
        !fr.joined && f.code_runs.contains(&fr.run) && freeze_reason(&fr.run, input, f).is_none()
    });
    // Only the candidates' families are looked at (a large repository has thousands of
    // fragments and hundreds of thousands of runs).
    let index = FragmentIndex::new(candidates.iter().copied());
    let repo: Vec<&str> = all_runs
        .iter()
        .copied()
        .chain(input.defined.iter().map(String::as_str))
        .collect();
    let broken: HashSet<(bool, String)> = repo
        .par_iter()
        .flat_map_iter(|run| {
            index
                .matches(run)
                .into_iter()
                .filter(|m| family_member_diverges(run, m, input, f))
                .map(|m| (m.prefix, m.fixed.to_string()))
        })
        .collect();
    // A string run is whole only if every fragment read from it is.
    let not_whole: HashSet<&str> = others
        .iter()
        .chain(
            candidates
                .iter()
                .filter(|fr| broken.contains(&(fr.prefix, fr.text.clone()))),
        )
        .map(|fr| fr.run.as_str())
        .collect();
    candidates
        .iter()
        .map(|fr| fr.run.as_str())
        .filter(|r| !not_whole.contains(r))
        .collect()
}
