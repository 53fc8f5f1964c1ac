//! `not x is y` <-> `x is not y`, and `not x in y` <-> `x not in y`.
//!
//! Why it keeps behaviour: CPython compiles both spellings to the same instruction
//! (`IS_OP 1`, `CONTAINS_OP 1`); the forms differ only in text. Exact inverse: only the
//! canonical spelling is matched (one space around each word), and the operands' text is
//! kept; the rewritten node sits under the same parent, whose kind is one where both a
//! comparison and a `not` may stand without parentheses.

use tree_sitter::Node;

use super::site::{Piece, Site};

/// Parents under which `not a is b` and `a is not b` are interchangeable: every place that
/// takes a whole expression (or a `not`), none that binds tighter than `not`.
const PARENTS: &[&str] = &[
    "if_statement",
    "elif_clause",
    "while_statement",
    "boolean_operator",
    "not_operator",
    "parenthesized_expression",
    "return_statement",
    "assignment",
    "augmented_assignment",
    "conditional_expression",
    "argument_list",
    "keyword_argument",
    "list",
    "tuple",
    "set",
    "expression_statement",
    "assert_statement",
    "pair",
    "if_clause",
    "expression_list",
];

pub fn site(node: Node, text: &[u8]) -> Option<Site> {
    let parent_ok = node.parent().is_some_and(|p| PARENTS.contains(&p.kind()));
    if !parent_ok {
        return None;
    }
    match node.kind() {
        "not_operator" => fold(node, text),
        "comparison_operator" => unfold(node, text),
        _ => None,
    }
}

/// `not X is Y` -> `X is not Y`.
fn fold(node: Node, text: &[u8]) -> Option<Site> {
    let cmp = node.child_by_field_name("argument")?;
    if cmp.kind() != "comparison_operator" || cmp.start_byte() != node.start_byte() + 4 {
        return None;
    }
    if text.get(node.start_byte()..cmp.start_byte())? != b"not " {
        return None;
    }
    let (x, op, y) = single(cmp, text)?;
    let new = match op {
        "is" => " is not ",
        "in" => " not in ",
        _ => return None,
    };
    Site::new(
        node.byte_range(),
        vec![
            Piece::Src(x.byte_range()),
            Piece::Lit(new),
            Piece::Src(y.byte_range()),
        ],
    )
}

/// `X is not Y` -> `not X is Y`.
fn unfold(node: Node, text: &[u8]) -> Option<Site> {
    let (x, op, y) = single(node, text)?;
    let new = match op {
        "is not" => " is ",
        "not in" => " in ",
        _ => return None,
    };
    Site::new(
        node.byte_range(),
        vec![
            Piece::Lit("not "),
            Piece::Src(x.byte_range()),
            Piece::Lit(new),
            Piece::Src(y.byte_range()),
        ],
    )
}

/// The operands and operator of a comparison of two operands spelled `X op Y` with one
/// space on each side of the operator and inside it.
fn single<'t>(cmp: Node<'t>, text: &[u8]) -> Option<(Node<'t>, &'static str, Node<'t>)> {
    if cmp.named_child_count() != 2 || cmp.child_count() != 3 {
        return None;
    }
    let x = cmp.named_child(0)?;
    let y = cmp.named_child(1)?;
    let between = text.get(x.end_byte()..y.start_byte())?;
    let op = match between {
        b" is " => "is",
        b" in " => "in",
        b" is not " => "is not",
        b" not in " => "not in",
        _ => return None,
    };
    Some((x, op, y))
}
