//! `x == 1` <-> `1 == x` (and `!=`): the operands of an equality swap when exactly one of them
//! is an integer, a string without replacement fields or `None`.
//!
//! Why it keeps behaviour: a literal has no side effect, so evaluating it first changes
//! nothing. Python asks the left operand's comparison first and the right one's when that
//! answers `NotImplemented`, except that a right operand whose type is a subclass of the
//! left's is asked first. `int`, `str`, `bytes` and `NoneType` compare only with their own
//! type and its subclasses, and answer `NotImplemented` for anything else: against an
//! instance of a subclass the subclass is asked first in both orders, against anything else
//! the other operand is, so both spellings call the same method with the same arguments.
//! `==` and `!=` never raise for unlike types, so no error message names the operands in
//! order. Not taken: floats and `True`/`False`, whose comparisons also accept `int` and its
//! subclasses (`2.5 == x` never asks an `int` subclass's `__eq__`; `x == 2.5` does), and
//! ordering operators (`<`), whose `TypeError` names the types in order.
//!
//! Exact inverse: the text between the operands is kept, so swapping again gives the input.

use tree_sitter::Node;

use super::site::{Piece, Site};

/// The site of `node` when it is an equality with one literal operand.
pub fn site(node: Node, text: &[u8]) -> Option<Site> {
    if node.kind() != "comparison_operator" || node.named_child_count() != 2 {
        return None;
    }
    let mut cursor = node.walk();
    let mut ops = node.children(&mut cursor).filter(|c| !c.is_named());
    let op = ops.next()?;
    if ops.next().is_some() || !matches!(op.kind(), "==" | "!=") {
        return None;
    }
    let left = node.named_child(0)?;
    let right = node.named_child(1)?;
    if is_literal(left, text) == is_literal(right, text) {
        return None;
    }
    Site::new(
        node.byte_range(),
        vec![
            Piece::Src(right.byte_range()),
            Piece::Src(left.end_byte()..right.start_byte()),
            Piece::Src(left.byte_range()),
        ],
    )
}

/// A literal whose evaluation runs no code and whose type compares only with itself and its
/// subclasses: integers, strings without replacement fields (one piece, not implicitly
/// joined), `None`.
fn is_literal(n: Node, text: &[u8]) -> bool {
    match n.kind() {
        // An imaginary number (`1j`) is a complex, which compares with ints and floats.
        "integer" => !text[n.byte_range()].ends_with(b"j") && !text[n.byte_range()].ends_with(b"J"),
        "none" => true,
        "string" => !n
            .children(&mut n.walk())
            .any(|c| c.kind() == "interpolation"),
        _ => false,
    }
}
