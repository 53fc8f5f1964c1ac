//! A file as lines, and a Level 3 layout over them: the leaf both halves of Level 3 build
//! on (`reorder` plans an order of lines, `layout` renders and inverts it).
//!
//! Guarantee: `render` only moves whole lines; every byte of every line (CRLF, a missing
//! final newline, invalid UTF-8) is kept, and a layout that does not fit the file renders
//! the file unchanged.

use serde::{Deserialize, Serialize};

/// A file's view as half-open ranges of original line numbers, in view order. Always
/// canonical (adjacent ascending ranges merged), so equal layouts compare equal.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize)]
pub struct Layout {
    segments: Vec<(usize, usize)>,
}

impl Layout {
    /// The layout that shows `n_lines` lines in original order.
    pub fn identity(n_lines: usize) -> Layout {
        Layout::from_order(&(0..n_lines).collect::<Vec<_>>())
    }

    /// From `order[k]` = the original line shown as view line `k`.
    pub fn from_order(order: &[usize]) -> Layout {
        let mut segments: Vec<(usize, usize)> = Vec::new();
        for &i in order {
            match segments.last_mut() {
                Some((_, end)) if *end == i => *end += 1,
                _ => segments.push((i, i + 1)),
            }
        }
        Layout { segments }
    }

    /// The segments, `(start, end)` half-open, in view order.
    pub fn segments(&self) -> &[(usize, usize)] {
        &self.segments
    }

    /// `order()[k]` = the original line shown as view line `k`.
    pub fn order(&self) -> Vec<usize> {
        self.segments.iter().flat_map(|&(s, e)| s..e).collect()
    }

    pub fn is_identity(&self) -> bool {
        self.segments.len() <= 1 && self.segments.first().is_none_or(|&(s, _)| s == 0)
    }

    /// Whether the layout is a permutation of the lines of an `n_lines`-line file.
    pub fn is_valid_for(&self, n_lines: usize) -> bool {
        let mut seen = vec![false; n_lines];
        let mut total = 0usize;
        for &(s, e) in &self.segments {
            if s >= e || e > n_lines {
                return false;
            }
            for flag in &mut seen[s..e] {
                if *flag {
                    return false;
                }
                *flag = true;
            }
            total += e - s;
        }
        total == n_lines
    }
}

/// Lines with their terminators; the last one may lack `\n`. `""` has no lines.
pub fn split_lines(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

/// The view bytes of `original` under `layout`; the original itself if the layout does not
/// fit it (a stale or corrupted layout never loses bytes).
pub fn render(original: &[u8], layout: &Layout) -> Vec<u8> {
    let lines = split_lines(original);
    if !layout.is_valid_for(lines.len()) {
        return original.to_vec();
    }
    let mut out = Vec::with_capacity(original.len());
    for &(s, e) in layout.segments() {
        for l in &lines[s..e] {
            out.extend_from_slice(l);
        }
    }
    out
}
