//! Splitting a run into tokens, and putting a run back together with other words in the same
//! case shape.
//!
//! A run splits at `_`, at digit boundaries and at case changes (`HTTPResponse_v2` ->
//! `HTTP`, `Response`, `v`, `2`). Every letter token then has one of three shapes: `lower`,
//! `Title` or `UPPER`. Replacing a token of three or more letters by a word of three or more
//! letters rendered in the same shape gives a run that splits at exactly the same places
//! (a lower token only follows a non-letter; a Title token keeps its upper-then-lower edge; an
//! UPPER token followed by a Title token keeps the "last capital starts the next token" edge).
//! That is why the swap can be undone token by token: see the property test `image_resplits_with_the_same_pieces` in tests/transform_props.rs.

/// The case shape of a letter token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Lower,
    Title,
    Upper,
}

/// One piece of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Letters only, with their shape.
    Word(&'a str, Shape),
    /// Digits or underscores: kept verbatim.
    Other(&'a str),
}

impl<'a> Piece<'a> {
    /// The piece as written.
    pub fn text(&self) -> &'a str {
        match *self {
            Piece::Word(w, _) | Piece::Other(w) => w,
        }
    }
}

/// The shape of a letter token.
pub(crate) fn shape_of(w: &str) -> Shape {
    let b = w.as_bytes();
    if b.iter().all(|c| c.is_ascii_lowercase()) {
        Shape::Lower
    } else if b.iter().all(|c| c.is_ascii_uppercase()) {
        Shape::Upper
    } else {
        Shape::Title
    }
}

/// Split an ASCII run into pieces. Concatenating the pieces gives the run back.
pub fn split(run: &str) -> Vec<Piece<'_>> {
    let b = run.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if !c.is_ascii_alphabetic() {
            let start = i;
            let digit = c.is_ascii_digit();
            while i < b.len() && !b[i].is_ascii_alphabetic() && b[i].is_ascii_digit() == digit {
                i += 1;
            }
            out.push(Piece::Other(&run[start..i]));
            continue;
        }
        // A letter group, cut at case edges.
        let start = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        split_letters(&run[start..i], &mut out);
    }
    out
}

fn split_letters<'a>(g: &'a str, out: &mut Vec<Piece<'a>>) {
    let b = g.as_bytes();
    let mut start = 0;
    let mut i = 1;
    while i < b.len() {
        let prev = b[i - 1];
        let cur = b[i];
        let edge = (prev.is_ascii_lowercase() && cur.is_ascii_uppercase())
            || (prev.is_ascii_uppercase()
                && cur.is_ascii_uppercase()
                && i + 1 < b.len()
                && b[i + 1].is_ascii_lowercase());
        if edge {
            let w = &g[start..i];
            out.push(Piece::Word(w, shape_of(w)));
            start = i;
        }
        i += 1;
    }
    let w = &g[start..];
    out.push(Piece::Word(w, shape_of(w)));
}

/// Render a lowercase word in a shape.
pub fn render(word: &str, shape: Shape, out: &mut String) {
    match shape {
        Shape::Lower => out.push_str(word),
        Shape::Upper => out.extend(word.chars().map(|c| c.to_ascii_uppercase())),
        Shape::Title => {
            let mut cs = word.chars();
            if let Some(f) = cs.next() {
                out.push(f.to_ascii_uppercase());
                out.push_str(cs.as_str());
            }
        }
    }
}

/// The same run in the other case, for a run in one case only (digits and `_` aside):
/// `"FREQ"` gives `freq`, `sql_field` gives `SQL_FIELD`; `None` for mixed case or no letters.
pub fn other_case(run: &str) -> Option<String> {
    let upper = run.bytes().any(|b| b.is_ascii_uppercase());
    let lower = run.bytes().any(|b| b.is_ascii_lowercase());
    match (upper, lower) {
        (true, false) => Some(run.to_ascii_lowercase()),
        (false, true) => Some(run.to_ascii_uppercase()),
        _ => None,
    }
}

/// The name that data in one case may be turned into with `.upper()` or `.lower()`
/// ([`other_case`]), except for a single lower-case word: that is a word of the data
/// (num2words' Finnish suffix `'ine'` beside the constant `INE`, inflection's test word
/// `"plurals"` beside `PLURALS`, ecdsa's `"prng-%d-%s"` hashed beside the class `PRNG`),
/// not a constant's name lower-cased. Upper-case data (`"BYMONTH"` for `bymonth=`) and
/// lower-case compounds (`"sql_field=blue"` for `SQL_FIELD`) still name what they spell.
pub fn other_case_name(run: &str) -> Option<String> {
    let lower_word = !run.bytes().any(|b| b.is_ascii_uppercase()) && word_count(run) == 1;
    if lower_word {
        return None;
    }
    other_case(run)
}

/// Number of letter tokens in a run: a run with two or more is a *compound*.
pub fn word_count(run: &str) -> usize {
    split(run)
        .iter()
        .filter(|p| matches!(p, Piece::Word(..)))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(run: &str) -> Vec<&str> {
        split(run)
            .into_iter()
            .map(|p| match p {
                Piece::Word(w, _) => w,
                Piece::Other(o) => o,
            })
            .collect()
    }

    #[test]
    fn splits_like_the_design_says() {
        assert_eq!(
            words("HTTPResponse_v2"),
            ["HTTP", "Response", "_", "v", "2"]
        );
        assert_eq!(words("query_set"), ["query", "_", "set"]);
        assert_eq!(words("QuerySet"), ["Query", "Set"]);
        assert_eq!(words("QUERY_SET"), ["QUERY", "_", "SET"]);
        assert_eq!(words("__init__"), ["__", "init", "__"]);
        assert_eq!(words("getHTTP"), ["get", "HTTP"]);
        assert_eq!(words("ABase"), ["A", "Base"]);
        assert_eq!(words("x2y"), ["x", "2", "y"]);
    }

    #[test]
    fn renders_shapes() {
        let mut s = String::new();
        render("ledger", Shape::Title, &mut s);
        render("cable", Shape::Upper, &mut s);
        render("suite", Shape::Lower, &mut s);
        assert_eq!(s, "LedgerCABLEsuite");
    }

    #[test]
    fn compounds() {
        assert_eq!(word_count("snake_case"), 2);
        assert_eq!(word_count("CamelCase"), 2);
        assert_eq!(word_count("_private"), 1);
        assert_eq!(word_count("v2"), 1);
    }
}
