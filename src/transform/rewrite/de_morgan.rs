//! `not (a and b)` <-> `not a or not b`, and `not (a or b)` <-> `not a and not b`, as the
//! whole condition of an `if`, `elif` or `while`.
//!
//! Why it keeps behaviour: in a condition CPython compiles `and`, `or` and `not` to jumps
//! on the truth of each operand, so both spellings evaluate the same operands in the same
//! order, ask the truth of each at most once, and take the same branch. (Outside a condition
//! `not (a or b)` asks the truth of `a` twice when it is true, so the rule stays inside.)
//! Conditions of an `if` that `invert_if` rewrites are left to that rule.
//!
//! Exact inverse: only the canonical spelling is matched (one space around each word, none
//! inside the parentheses), with operands that are names, attributes, calls, subscripts or
//! parenthesized (so that moving them under `not` creates no site of another rule).

use tree_sitter::Node;

use super::site::{Piece, Site};

pub fn site(cond: Node, text: &[u8]) -> Option<Site> {
    match cond.kind() {
        "not_operator" => spread(cond, text),
        "boolean_operator" => gather(cond, text),
        _ => None,
    }
}

/// The condition of an `if`, `elif` or `while` statement.
pub fn is_condition(node: Node) -> bool {
    node.parent().is_some_and(|p| {
        matches!(p.kind(), "if_statement" | "elif_clause" | "while_statement")
            && p.child_by_field_name("condition") == Some(node)
    })
}

/// `not (a and b)` -> `not a or not b`.
fn spread(node: Node, text: &[u8]) -> Option<Site> {
    let paren = node.child_by_field_name("argument")?;
    if paren.kind() != "parenthesized_expression"
        || text.get(node.start_byte()..paren.start_byte())? != b"not "
        || paren.child_count() != 3
    {
        return None;
    }
    let inner = paren.named_child(0)?;
    if inner.start_byte() != paren.start_byte() + 1 || inner.end_byte() + 1 != paren.end_byte() {
        return None;
    }
    let (a, op, b) = operands(inner, text)?;
    if !is_atom(a) || !is_atom(b) {
        return None;
    }
    let joint = match op {
        "and" => " or not ",
        _ => " and not ",
    };
    Site::new(
        node.byte_range(),
        vec![
            Piece::Lit("not "),
            Piece::Src(a.byte_range()),
            Piece::Lit(joint),
            Piece::Src(b.byte_range()),
        ],
    )
}

/// `not a or not b` -> `not (a and b)`.
fn gather(node: Node, text: &[u8]) -> Option<Site> {
    let (na, op, nb) = operands(node, text)?;
    let mut args = Vec::new();
    for n in [na, nb] {
        if n.kind() != "not_operator" {
            return None;
        }
        let arg = n.child_by_field_name("argument")?;
        if arg.start_byte() != n.start_byte() + 4
            || text.get(n.start_byte()..arg.start_byte())? != b"not "
        {
            return None;
        }
        args.push(arg);
    }
    let joint = match op {
        "or" => " and ",
        _ => " or ",
    };
    if !args.iter().all(|a| is_atom(*a)) {
        return None;
    }
    Site::new(
        node.byte_range(),
        vec![
            Piece::Lit("not ("),
            Piece::Src(args[0].byte_range()),
            Piece::Lit(joint),
            Piece::Src(args[1].byte_range()),
            Piece::Lit(")"),
        ],
    )
}

/// An operand the rule moves in and out of `not`: a name, attribute, call, subscript or
/// parenthesized expression. With these, no other rule's site appears or disappears when
/// the operand changes parent (a comparison would become `not x is y`, a `not` would nest).
fn is_atom(n: Node) -> bool {
    matches!(
        n.kind(),
        "identifier" | "attribute" | "call" | "subscript" | "parenthesized_expression"
    )
}

/// The two operands and the operator of `a and b` / `a or b` spelled with one space on each
/// side.
fn operands<'t>(node: Node<'t>, text: &[u8]) -> Option<(Node<'t>, &'static str, Node<'t>)> {
    if node.kind() != "boolean_operator" || node.child_count() != 3 {
        return None;
    }
    let a = node.child_by_field_name("left")?;
    let b = node.child_by_field_name("right")?;
    let op = match text.get(a.end_byte()..b.start_byte())? {
        b" and " => "and",
        b" or " => "or",
        _ => return None,
    };
    Some((a, op, b))
}
