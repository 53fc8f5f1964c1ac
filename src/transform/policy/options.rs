//! Long options whose attribute the code reads as a string.
//!
//! argparse stores `--error-format` under the attribute `error_format`; jsonschema reads it
//! back as `vars(parser.parse_args())["error_format"]`. The renamer changes a hyphen group
//! as one name only when its underscore form is a code name (`Renamer::swap_hyphen_group`),
//! while that whole string literal may change on other grounds (it ends a test's name), and
//! the option then kept its words while the key changed. The attribute is a name the code
//! uses: counting it as one makes the option, the key and every other spelling of the option
//! change together. Only when the code holds the attribute as a whole string literal: an
//! option nobody reads by that key (cleo's `--no-interaction`, printed in help columns and
//! shell completions) is left to the usual rules.

use std::collections::{BTreeSet, HashSet};

/// Underscore forms of the long options (`--a-b`, two words or more) written in `python`
/// that are also whole string literals of the code.
pub(super) fn read_as_keys(
    python: &[(&str, &[u8])],
    whole_strings: &HashSet<&str>,
) -> BTreeSet<String> {
    python
        .iter()
        .flat_map(|(_, src)| super::hyphen_chunks(src))
        .filter_map(|w| w.strip_prefix("--"))
        .filter(|w| !w.starts_with('-') && !w.ends_with('-') && w.contains('-'))
        .map(|w| w.replace('-', "_"))
        .filter(|k| whole_strings.contains(k.as_str()))
        .collect()
}
