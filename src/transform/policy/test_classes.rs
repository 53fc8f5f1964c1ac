//! Test classes named after data the view keeps.
//!
//! faker's tests name a class per locale (`TestFilPh` for `fil_PH`) and its fixture reads
//! the locale back from the class name (`request.cls.__name__` matched by a pattern, then
//! lower-cased and joined with `_`). The locale `fil_PH` stays in the view (a frozen run:
//! the program builds module paths from it), so a class renamed word by word
//! (`TestFojPh`) names a locale that does not exist.
//!
//! Guarantee: when some Python file of the tree matches a class's name with a pattern
//! (`cls.__name__` and a `match(` or `fullmatch(` call in one file), an owned run made of
//! the word `Test` and then two or more capitalised pieces whose lower case, joined with
//! `_`, is the lower case of a frozen run of the tree is kept. One capitalised piece is a
//! class's subject, not data (`TestUtils`), and a run without the `Test` word is no test
//! class. Without the pattern the rule kept the subjects of 18 other trees' test classes
//! (`TestSetCookie` beside werkzeug's outside `set_cookie`, `TestMaxLen` in attrs), which
//! no program reads back.

use std::collections::HashSet;

use crate::transform::tokens::{self, Piece, Shape};

/// Whether the file reads data out of a class's name with a pattern.
pub(super) fn parses_class_names(src: &[u8]) -> bool {
    let has = |needle: &[u8]| src.windows(needle.len()).any(|w| w == needle);
    has(b"cls.__name__") && has(b"match(")
}

/// The lower case of every frozen run with an underscore (`fil_ph`): what a test class
/// name can spell in pieces.
pub(super) fn lower_joined<'a>(frozen: impl Iterator<Item = &'a String>) -> HashSet<String> {
    frozen
        .filter(|r| r.contains('_') && !r.starts_with('_'))
        .map(|r| r.to_ascii_lowercase())
        .collect()
}

/// Whether `run` is `Test` and the capitalised pieces of a frozen run (`TestFilPh`).
pub(super) fn named_after_frozen(run: &str, frozen_lower: &HashSet<String>) -> bool {
    let Some(rest) = run.strip_prefix("Test") else {
        return false;
    };
    let pieces = tokens::split(rest);
    if pieces.len() < 2
        || !pieces
            .iter()
            .all(|p| matches!(p, Piece::Word(_, Shape::Title)))
    {
        return false;
    }
    let joined: Vec<String> = pieces
        .iter()
        .map(|p| p.text().to_ascii_lowercase())
        .collect();
    frozen_lower.contains(&joined.join("_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_matching_class_names_with_a_pattern_parses_them() {
        let faker = b"m = PATTERN.fullmatch(request.cls.__name__)\n";
        assert!(parses_class_names(faker));
        assert!(!parses_class_names(b"name = request.cls.__name__\n"));
        assert!(!parses_class_names(b"m = PATTERN.fullmatch(name)\n"));
    }

    #[test]
    fn a_test_class_spelling_a_frozen_run_is_named_after_it() {
        let frozen = [
            "fil_PH".to_string(),
            "max_length".to_string(),
            "_private_name".to_string(),
        ];
        let lower = lower_joined(frozen.iter());
        assert!(named_after_frozen("TestFilPh", &lower));
        assert!(named_after_frozen("TestMaxLength", &lower));
        // Not a test class, one piece only, or pieces of no frozen run.
        assert!(!named_after_frozen("FilPh", &lower));
        assert!(!named_after_frozen("MaxLengthValidator", &lower));
        assert!(!named_after_frozen("TestFil", &lower));
        assert!(!named_after_frozen("TestEnUs", &lower));
        assert!(!named_after_frozen("TestPrivateName", &lower));
    }
}
