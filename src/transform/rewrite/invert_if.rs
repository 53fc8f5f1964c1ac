//! `if c: A else: B` <-> `if not c: B else: A` (`not (c)` when `c` is more than a name,
//! attribute, call or subscript).
//!
//! Why it keeps behaviour: the condition is evaluated once either way and its truth is asked
//! once (`if not (c)` compiles to a jump on the truth of `c`), so exactly the same branch
//! runs with the same effects; the branches are moved as whole lines, comments with them.
//! Line numbers inside the statement change, as Level 3's moves change them.
//!
//! Exact inverse: a condition in one of the two negated spellings the rule writes (`not c`
//! for a name, attribute, call or subscript `c`; `not (c)` for any other `c` not itself so
//! spelled; one space, none inside the parentheses) is unwrapped, any other is wrapped, so
//! rewriting twice gives the input. Only the plain shape is taken: `if` and `else` each alone on their header line,
//! no `elif`, each branch ending on the line before the next header (no trailing comment line
//! that the parser could hand to either branch).

use tree_sitter::Node;

use super::site::{Piece, Site};
use super::Lines;

/// The site of `node` when it is an `if`/`else` of the plain shape.
pub fn site(node: Node, text: &[u8], lines: &Lines) -> Option<Site> {
    let shape = shape(node, text)?;
    let cond = shape.cond;
    let cond_pieces = match wrapped(cond, text) {
        Some(inner) => vec![Piece::Src(inner.byte_range())],
        None if is_atom(cond) => vec![Piece::Lit("not "), Piece::Src(cond.byte_range())],
        None => vec![
            Piece::Lit("not ("),
            Piece::Src(cond.byte_range()),
            Piece::Lit(")"),
        ],
    };
    let a_start = lines.start(shape.colon_row + 1)?;
    let else_row = shape.else_row;
    let else_start = lines.start(else_row)?;
    let a_end = lines.content_end(else_row - 1)?;
    let b_start = lines.start(shape.else_colon_row + 1)?;
    let b_end = lines.content_end(shape.end_row)?;
    if !(cond.end_byte() <= a_start && a_start <= a_end && else_start < b_start && b_start <= b_end)
    {
        return None;
    }
    let mut pieces = vec![Piece::Src(node.start_byte()..cond.start_byte())];
    pieces.extend(cond_pieces);
    pieces.extend([
        Piece::Src(cond.end_byte()..a_start),
        Piece::Src(b_start..b_end),
        Piece::Src(a_end..else_start),
        Piece::Src(else_start..b_start),
        Piece::Src(a_start..a_end),
    ]);
    Site::new(node.start_byte()..b_end, pieces)
}

/// Whether `node` is an `if`/`else` this rule takes (the De Morgan rule leaves the
/// conditions of these alone).
pub fn applies(node: Node, text: &[u8]) -> bool {
    shape(node, text).is_some()
}

struct Shape<'t> {
    cond: Node<'t>,
    colon_row: usize,
    else_row: usize,
    else_colon_row: usize,
    end_row: usize,
}

fn shape<'t>(node: Node<'t>, text: &[u8]) -> Option<Shape<'t>> {
    if node.kind() != "if_statement" {
        return None;
    }
    let cond = node.child_by_field_name("condition")?;
    if text.get(node.start_byte()..cond.start_byte())? != b"if " {
        return None;
    }
    let then = node.child_by_field_name("consequence")?;
    let mut cursor = node.walk();
    let mut alts = node.children_by_field_name("alternative", &mut cursor);
    let alt = alts.next()?;
    if alts.next().is_some() || alt.kind() != "else_clause" {
        return None;
    }
    let body = alt.child_by_field_name("body")?;
    let colon_row = colon_row(node)?;
    let else_colon_row = colon_row_of(alt)?;
    let else_row = alt.start_position().row;
    // `else` alone on its header line, right after the first branch's last line.
    if else_colon_row != else_row || else_row == 0 || !first_on_line(alt, text) {
        return None;
    }
    if then.start_position().row <= colon_row || body.start_position().row <= else_colon_row {
        return None;
    }
    if last_row(then)? != else_row - 1 || then.end_position().row != else_row - 1 {
        return None;
    }
    let end_row = body.end_position().row;
    if last_row(body)? != end_row || node.end_position().row != end_row {
        return None;
    }
    // Nothing but the branches, the headers and comments on header lines.
    for c in node
        .children(&mut node.walk())
        .chain(alt.children(&mut alt.walk()))
    {
        if c.kind() == "comment" {
            let r = c.start_position().row;
            if r != colon_row && r != else_row {
                return None;
            }
        }
    }
    Some(Shape {
        cond,
        colon_row,
        else_row,
        else_colon_row,
        end_row,
    })
}

/// Row of the `:` that ends the header of `if`.
fn colon_row(node: Node) -> Option<usize> {
    let then = node.child_by_field_name("consequence")?;
    node.children(&mut node.walk())
        .filter(|c| c.kind() == ":" && c.end_byte() <= then.start_byte())
        .last()
        .map(|c| c.start_position().row)
}

fn colon_row_of(clause: Node) -> Option<usize> {
    clause
        .children(&mut clause.walk())
        .find(|c| c.kind() == ":")
        .map(|c| c.start_position().row)
}

/// Last row of the last statement of a block (comments not counted).
fn last_row(block: Node) -> Option<usize> {
    block
        .children(&mut block.walk())
        .filter(|c| c.kind() != "comment")
        .last()
        .map(|c| c.end_position().row)
}

fn first_on_line(n: Node, text: &[u8]) -> bool {
    let start = n.start_byte();
    let line_start = text[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    text[line_start..start]
        .iter()
        .all(|b| *b == b' ' || *b == b'\t')
}

/// A condition that reads well after a bare `not`: a name, attribute, call or subscript.
pub fn is_atom(n: Node) -> bool {
    matches!(n.kind(), "identifier" | "attribute" | "call" | "subscript")
}

/// The `c` of a negated condition in one of the two spellings this rule writes: `not c` with
/// `c` an atom, or `not (c)` with `c` neither an atom nor itself so spelled. (`not (x)` with an
/// atom `x` is neither, so it gets one more `not`, and the rule stays an involution.)
pub fn wrapped<'t>(cond: Node<'t>, text: &[u8]) -> Option<Node<'t>> {
    if cond.kind() != "not_operator" {
        return None;
    }
    let arg = cond.child_by_field_name("argument")?;
    if arg.start_byte() != cond.start_byte() + 4
        || arg.end_byte() != cond.end_byte()
        || text.get(cond.start_byte()..arg.start_byte())? != b"not "
    {
        return None;
    }
    if is_atom(arg) {
        return Some(arg);
    }
    if arg.kind() != "parenthesized_expression" || arg.child_count() != 3 {
        return None;
    }
    let inner = arg.named_child(0)?;
    if inner.start_byte() != arg.start_byte() + 1 || inner.end_byte() + 1 != arg.end_byte() {
        return None;
    }
    if is_atom(inner) || wrapped(inner, text).is_some() {
        return None;
    }
    Some(inner)
}
