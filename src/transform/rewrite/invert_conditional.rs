//! `a if c else b` <-> `b if not c else a` (`not (c)` when `c` is more than a name,
//! attribute, call or subscript): the conditional expression's form of `invert_if`.
//!
//! Why it keeps behaviour: the condition is evaluated once and its truth asked once either
//! way, then exactly one branch is evaluated, the same one.
//!
//! Exact inverse: the condition is negated or un-negated as `invert_if` does it, and the
//! branches swap with the separators (` if `, ` else `, one space each) kept. Branches that
//! are themselves conditional expressions or lambdas are left alone (`x if c else y if d
//! else z` would regroup), and so is a negated condition whose inner expression could not
//! stand bare after `if` (a conditional, lambda or `:=`).

use tree_sitter::Node;

use super::invert_if::{is_atom, wrapped};
use super::site::{Piece, Site};

pub fn site(node: Node, text: &[u8]) -> Option<Site> {
    if node.kind() != "conditional_expression" || node.named_child_count() != 3 {
        return None;
    }
    let (a, c, b) = (
        node.named_child(0)?,
        node.named_child(1)?,
        node.named_child(2)?,
    );
    let bare = |n: Node| {
        !matches!(
            n.kind(),
            "conditional_expression" | "lambda" | "named_expression"
        )
    };
    if !bare(a) || !bare(b) || node.child_count() != 5 {
        return None;
    }
    if text.get(a.end_byte()..c.start_byte())? != b" if "
        || text.get(c.end_byte()..b.start_byte())? != b" else "
    {
        return None;
    }
    let mut pieces = vec![
        Piece::Src(b.byte_range()),
        Piece::Src(a.end_byte()..c.start_byte()),
    ];
    match wrapped(c, text) {
        Some(inner) if bare(inner) => pieces.push(Piece::Src(inner.byte_range())),
        Some(_) => return None,
        None if is_atom(c) => pieces.extend([Piece::Lit("not "), Piece::Src(c.byte_range())]),
        None => pieces.extend([
            Piece::Lit("not ("),
            Piece::Src(c.byte_range()),
            Piece::Lit(")"),
        ]),
    }
    pieces.extend([
        Piece::Src(c.end_byte()..b.start_byte()),
        Piece::Src(a.byte_range()),
    ]);
    Site::new(node.byte_range(), pieces)
}
