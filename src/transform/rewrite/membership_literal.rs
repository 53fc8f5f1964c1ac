//! `x in (1, 2)` <-> `x in [1, 2]` (and `not in`), when every element is a literal constant.
//!
//! Why it keeps behaviour: CPython's compiler turns a list display on the right of `in` into
//! a tuple before it emits code (and a tuple of constants into one constant), so both
//! spellings compile to the same instructions. A set display is never taken: membership in
//! a set hashes the operand, in a tuple it compares.
//!
//! Exact inverse: only the brackets change; the text between them is kept. A one-element
//! list without a trailing comma is left alone (`(1)` is no tuple).

use tree_sitter::Node;

use super::site::{Piece, Site};

pub fn site(node: Node, text: &[u8]) -> Option<Site> {
    if node.kind() != "comparison_operator" || node.child_count() != 3 {
        return None;
    }
    let op = node.child(1)?;
    if !matches!(op.kind(), "in" | "not in") {
        return None;
    }
    let seq = node.named_child(1)?;
    let (open, close) = match seq.kind() {
        "tuple" => ("[", "]"),
        "list" => ("(", ")"),
        _ => return None,
    };
    let body = text.get(seq.start_byte() + 1..seq.end_byte().checked_sub(1)?)?;
    let mut elements = 0;
    let mut cursor = seq.walk();
    for c in seq.named_children(&mut cursor) {
        if !is_constant(c, text) {
            return None;
        }
        elements += 1;
    }
    let trailing_comma = body.trim_ascii_end().ends_with(b",");
    if seq.kind() == "list" && elements == 1 && !trailing_comma {
        return None;
    }
    if seq.kind() == "tuple" && !text[seq.byte_range()].starts_with(b"(") {
        return None;
    }
    Site::new(
        seq.byte_range(),
        vec![
            Piece::Lit(open),
            Piece::Src(seq.start_byte() + 1..seq.end_byte() - 1),
            Piece::Lit(close),
        ],
    )
}

fn is_constant(n: Node, text: &[u8]) -> bool {
    match n.kind() {
        "integer" | "float" | "true" | "false" | "none" => true,
        "string" => {
            let mut cursor = n.walk();
            let plain = !n.children(&mut cursor).any(|c| c.kind() == "interpolation");
            plain && !text[n.byte_range()].contains(&b'\n')
        }
        _ => false,
    }
}
