//! Rewrites as plain data: a [`Site`] is a byte range of the input and the pieces its
//! replacement is made of, either literal text or other ranges of the input (which may hold
//! sites of their own). [`render`] applies every site of a file at once.
//!
//! Guarantee: `render` either places every site exactly once, each inside a piece of the site
//! around it (or at top level), or gives `None`; it never drops a site silently, so a rule
//! that overlaps another shows as a failure of the file's self-check, not as a wrong view.

use std::ops::Range;

/// One piece of a replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Bytes of the input, rendered with the sites inside them.
    Src(Range<usize>),
    /// New text.
    Lit(&'static str),
}

/// A range of the input and what it becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub range: Range<usize>,
    pub pieces: Vec<Piece>,
}

impl Site {
    /// A site whose `Src` pieces lie strictly inside `range` (a piece as large as the site
    /// would render the site inside itself). `None` otherwise.
    pub fn new(range: Range<usize>, pieces: Vec<Piece>) -> Option<Site> {
        let inside = pieces.iter().all(|p| match p {
            Piece::Src(r) => {
                r.start <= r.end
                    && r.start >= range.start
                    && r.end <= range.end
                    && r.len() < range.len()
            }
            Piece::Lit(_) => true,
        });
        inside.then_some(Site { range, pieces })
    }
}

/// `text` with every site replaced, or `None` when two sites overlap other than by nesting
/// inside a `Src` piece.
pub fn render(text: &[u8], sites: &mut [Site]) -> Option<Vec<u8>> {
    if sites.is_empty() {
        return Some(text.to_vec());
    }
    if sites.iter().any(|s| s.range.end > text.len()) {
        return None;
    }
    sites.sort_by(|a, b| {
        a.range
            .start
            .cmp(&b.range.start)
            .then(b.range.end.cmp(&a.range.end))
    });
    let mut out = Vec::with_capacity(text.len() + 16 * sites.len());
    let mut placed = 0usize;
    emit(text, sites, 0..text.len(), &mut out, &mut placed, 0)?;
    (placed == sites.len()).then_some(out)
}

/// Deep enough for any real nesting of conditions and blocks; deeper input is left alone
/// (the caller's self-check turns `None` into "no rewrite").
const MAX_DEPTH: usize = 200;

fn emit(
    text: &[u8],
    sites: &[Site],
    span: Range<usize>,
    out: &mut Vec<u8>,
    placed: &mut usize,
    depth: usize,
) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    let mut at = span.start;
    let mut i = sites.partition_point(|s| s.range.start < span.start);
    // Sites that start here but reach past the span hold it in a piece (they sort first):
    // they are being placed by an outer call.
    while sites
        .get(i)
        .is_some_and(|s| s.range.start == span.start && s.range.end > span.end)
    {
        i += 1;
    }
    while let Some(s) = sites.get(i) {
        if s.range.start >= span.end {
            break;
        }
        if s.range.end > span.end || s.range.start < at {
            return None;
        }
        out.extend_from_slice(&text[at..s.range.start]);
        *placed += 1;
        for p in &s.pieces {
            match p {
                Piece::Src(r) => emit(text, sites, r.clone(), out, placed, depth + 1)?,
                Piece::Lit(l) => out.extend_from_slice(l.as_bytes()),
            }
        }
        at = s.range.end;
        // Past every site that starts inside this one: those were placed through its pieces
        // (or, if no piece held them, are missing from the count and fail the render).
        i += 1;
        while sites.get(i).is_some_and(|t| t.range.start < at) {
            i += 1;
        }
    }
    out.extend_from_slice(&text[at..span.end]);
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_sites_render_through_their_pieces() {
        let text = b"x == 1 and y";
        // swap the comparison, and wrap the whole in not (...)
        let inner = Site::new(
            0..6,
            vec![Piece::Src(5..6), Piece::Src(1..5), Piece::Src(0..1)],
        )
        .unwrap();
        let outer = Site::new(
            0..12,
            vec![
                Piece::Lit("not ("),
                Piece::Src(0..6),
                Piece::Src(6..12),
                Piece::Lit(")"),
            ],
        )
        .unwrap();
        let out = render(text, &mut [outer, inner]).unwrap();
        assert_eq!(out, b"not (1 == x and y)");
    }

    #[test]
    fn a_site_no_piece_holds_fails_the_render() {
        let text = b"abcdef";
        let outer = Site::new(0..6, vec![Piece::Lit("z"), Piece::Src(4..6)]).unwrap();
        let hidden = Site::new(1..3, vec![Piece::Lit("q")]).unwrap();
        assert_eq!(render(text, &mut [outer, hidden]), None);
        let crossing = Site::new(3..5, vec![Piece::Lit("q")]).unwrap();
        let first = Site::new(0..4, vec![Piece::Lit("p")]).unwrap();
        assert_eq!(render(text, &mut [first, crossing]), None);
    }

    #[test]
    fn a_piece_as_large_as_its_site_is_refused() {
        assert!(Site::new(2..5, vec![Piece::Src(2..5)]).is_none());
        assert!(Site::new(2..5, vec![Piece::Src(1..4)]).is_none());
    }
}
