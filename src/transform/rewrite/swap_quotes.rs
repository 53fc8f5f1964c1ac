//! `'text'` <-> `"text"`: a one-line string literal whose text holds no quote of either kind
//! and no backslash changes its quote character.
//!
//! Why it keeps behaviour: both spellings are the same constant. Docstrings and other
//! strings standing alone as a statement are left alone (their text is documentation some
//! tools read as written), and so are strings inside an f-string's replacement field (before
//! Python 3.12 they may not reuse the outer quote).
//!
//! Exact inverse: the prefix and the text are kept; only the two quote bytes change.

use tree_sitter::Node;

use super::site::{Piece, Site};

pub fn site(node: Node, text: &[u8]) -> Option<Site> {
    if node.kind() != "string" {
        return None;
    }
    let parent = node.parent()?;
    if parent.kind() == "expression_statement" {
        return None;
    }
    let mut up = Some(parent);
    while let Some(p) = up {
        if p.kind() == "string" || p.kind() == "interpolation" {
            return None;
        }
        up = p.parent();
    }
    let s = &text[node.byte_range()];
    let prefix = s.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let body = s.get(prefix..)?;
    if body.len() < 2 {
        return None;
    }
    let (q, inner) = (body[0], &body[1..body.len() - 1]);
    if !matches!(q, b'\'' | b'"') || body[body.len() - 1] != q {
        return None;
    }
    if inner
        .iter()
        .any(|b| matches!(b, b'\'' | b'"' | b'\\' | b'\n' | b'\r'))
    {
        return None;
    }
    let new = if q == b'\'' { "\"" } else { "'" };
    let start = node.start_byte() + prefix;
    Site::new(
        node.byte_range(),
        vec![
            Piece::Src(node.start_byte()..start),
            Piece::Lit(new),
            Piece::Src(start + 1..node.end_byte() - 1),
            Piece::Lit(new),
        ],
    )
}
