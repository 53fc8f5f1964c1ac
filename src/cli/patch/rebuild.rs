//! Each touched file's content in the other coordinate system, as the mount would have it:
//! the view of a base under the layout the view showed it in, the original the mount's
//! write-back makes of new view bytes (rename back, invert the layout against the base), and
//! a view of new original bytes that the write-back takes back to exactly them.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use sha2::Digest as _;

use super::super::CliError;
use super::hex;
use crate::transform::layout::{self, Layout};
use crate::transform::rename::{file_kind, FileKind};
use crate::transform::{reorder, Composite, Transform};

/// What a translation needs: the original checkout and the view's transform.
pub struct Coords<'a> {
    pub original: &'a Path,
    pub transform: &'a Composite,
    pub seed: u64,
}

pub(super) const LINK: &str = "120000";

/// A file's base: its original content and the layout the view shows it in.
#[derive(Debug, Clone)]
pub(super) struct Base {
    pub(super) content: Vec<u8>,
    pub(super) layout: Option<Layout>,
    pub(super) mode: String,
}

impl Coords<'_> {
    /// The seeded layout of `original`, as the view's store plans it.
    fn plan(&self, path: &[u8], original: &[u8]) -> Layout {
        let none = std::collections::BTreeSet::new();
        let ordered = self.transform.l3.as_ref().map_or(&none, |s| s.ordered());
        layout::plan(path, original, self.seed, ordered)
    }

    /// Level 4's text of `text` at original `path` (its own inverse); Level 3 works on this.
    pub(super) fn rewritten(&self, path: &[u8], text: &[u8]) -> Vec<u8> {
        match &self.transform.l4 {
            Some(r) if layout::is_python_name(path) => r.apply(path, text),
            _ => text.to_vec(),
        }
    }

    pub(super) fn reorders(&self, orig: &[u8]) -> bool {
        self.transform.l3.is_some() && layout::is_python_name(orig)
    }

    pub(super) fn swap(&self, orig_path: &[u8], bytes: &[u8]) -> Vec<u8> {
        match &self.transform.l2 {
            Some(r) => r.swap_content(orig_path, bytes).into_owned(),
            None => bytes.to_vec(),
        }
    }

    pub(super) fn path_to_original(&self, view: &[u8]) -> Result<Vec<u8>, CliError> {
        let mut out: Vec<Vec<u8>> = Vec::new();
        for c in view.split(|&b| b == b'/') {
            let n = self
                .transform
                .name_to_original(std::ffi::OsStr::from_bytes(c))
                .map_err(|e| {
                    CliError::Msg(format!(
                        "{}: `{}` has no original name ({e})",
                        String::from_utf8_lossy(view),
                        String::from_utf8_lossy(c)
                    ))
                })?;
            out.push(n.as_encoded_bytes().to_vec());
        }
        Ok(out.join(&b'/'))
    }

    pub(super) fn path_to_view(&self, orig: &[u8]) -> Vec<u8> {
        orig.split(|&b| b == b'/')
            .map(|c| {
                self.transform
                    .name_to_view(std::ffi::OsStr::from_bytes(c))
                    .as_encoded_bytes()
                    .to_vec()
            })
            .collect::<Vec<_>>()
            .join(&b'/')
    }

    /// A symlink target, component by component (as the mount translates link targets).
    pub(super) fn link(&self, target: &[u8], to_view: bool) -> Vec<u8> {
        if target.starts_with(b"/") {
            return target.to_vec();
        }
        target
            .split(|&b| b == b'/')
            .map(|c| {
                if c.is_empty() || c == b"." || c == b".." {
                    return c.to_vec();
                }
                let name = std::ffi::OsStr::from_bytes(c);
                let out = if to_view {
                    Some(self.transform.name_to_view(name))
                } else {
                    self.transform.name_to_original(name).ok()
                };
                match out {
                    Some(o) if !o.is_empty() && !o.as_encoded_bytes().contains(&b'/') => {
                        o.as_encoded_bytes().to_vec()
                    }
                    _ => c.to_vec(),
                }
            })
            .collect::<Vec<_>>()
            .join(&b'/')
    }

    /// The layouts the view may have shown `base` of `path` in: the mount's remembered one
    /// for exactly these bytes, the one it first saw before writes changed the file, and a
    /// fresh plan.
    pub(super) fn layouts(&self, path: &[u8], base: &[u8]) -> Vec<Option<Layout>> {
        if !self.reorders(path) {
            return vec![None];
        }
        let mut out: Vec<Layout> = Vec::new();
        let base = &self.rewritten(path, base)[..];
        if let Some(store) = &self.transform.l3 {
            let hash = hex(&sha2::Sha256::digest(base));
            for f in store.state().files.iter().filter(|f| f.path == path) {
                if f.hash == hash {
                    out.push(f.layout.clone());
                }
                if let Some(b) = f.base.as_ref().filter(|b| b.original == base) {
                    out.push(b.layout.clone());
                }
            }
        }
        out.push(self.plan(path, base));
        out.dedup();
        out.into_iter().map(Some).collect()
    }

    /// The view of `base` at original `path` under `layout` (what the mount serves).
    pub(super) fn view_of(&self, path: &[u8], base: &Base) -> Vec<u8> {
        if base.mode == LINK {
            return self.link(&base.content, true);
        }
        let text = self.rewritten(path, &base.content);
        let ordered = match &base.layout {
            Some(l) => layout::render(&text, l),
            None => text,
        };
        self.swap(path, &ordered)
    }

    /// The anchor of Level 3's inverse for a file: its base, or the empty file.
    pub(super) fn anchor(&self, path: &[u8], base: Option<&Base>) -> (Vec<u8>, Layout) {
        match base {
            Some(Base {
                content,
                layout: Some(l),
                ..
            }) => (self.rewritten(path, content), l.clone()),
            Some(b) => {
                let text = self.rewritten(path, &b.content);
                let l = self.plan(path, &text);
                (text, l)
            }
            None => (Vec::new(), self.plan(path, b"")),
        }
    }

    /// New view bytes of original `path` -> what the mount's write-back writes.
    pub(super) fn to_original(
        &self,
        path: &[u8],
        view: &[u8],
        mode: &str,
        base: Option<&Base>,
    ) -> Vec<u8> {
        if mode == LINK {
            return self.link(view, false);
        }
        let renamed = self.swap(path, view);
        if file_kind(path, view) == FileKind::Binary {
            return renamed;
        }
        if !self.reorders(path) {
            return self.rewritten(path, &renamed);
        }
        let (b, l) = self.anchor(path, base);
        self.rewritten(path, &layout::inverse(&b, &l, &renamed).0)
    }

    /// New original bytes of `path` -> view bytes that the mount writes back to exactly them.
    pub(super) fn to_view(
        &self,
        path: &[u8],
        new: &[u8],
        mode: &str,
        base: Option<&Base>,
    ) -> Result<Vec<u8>, CliError> {
        if mode == LINK {
            return Ok(self.link(new, true));
        }
        if file_kind(path, new) == FileKind::Binary {
            return Ok(self.swap(path, new));
        }
        let new = &self.rewritten(path, new)[..];
        if !self.reorders(path) {
            return Ok(self.swap(path, new));
        }
        let (b, l) = self.anchor(path, base);
        let mut candidates = Vec::new();
        if base.is_some() {
            candidates.extend(forward_units(&b, &l, new, true));
            candidates.extend(forward_units(&b, &l, new, false));
            candidates.push(forward(&b, &l, new));
        }
        candidates.push(new.to_vec());
        candidates.push(layout::render(new, &self.plan(path, new)));
        for c in candidates {
            if layout::inverse(&b, &l, &c).0 == new {
                return Ok(self.swap(path, &c));
            }
        }
        Err(CliError::Msg(format!(
            "{}: no view of the patched file writes back to it exactly (Level 3 would keep \
             another order); translate with --levels 2",
            String::from_utf8_lossy(path)
        )))
    }
}

/// The view of `new` (an edit of `base`, shown under `layout`) that keeps the view's order
/// of units, the mirror of `layout::inverse`: in each run of units of `new`, units with lines
/// kept from `base` take the view's order of those lines, and a unit with no kept line
/// follows the unit before it in the original (which is where the inverse puts a new unit
/// that follows another in the view). A unit's place is the median of its kept lines' (one
/// common line the diff matched far away must not move it), or, as the inverse computes it,
/// the first. Blank lines and anchors stay where `new` has them. `None` when `new` does not
/// parse.
pub(super) fn forward_units(
    base: &[u8],
    layout: &Layout,
    new: &[u8],
    median: bool,
) -> Option<Vec<u8>> {
    let structure = reorder::analyze(new).ok()?;
    let bl = layout::split_lines(base);
    let nl = layout::split_lines(new);
    let order = if layout.is_valid_for(bl.len()) {
        layout.order()
    } else {
        (0..bl.len()).collect()
    };
    let mut vpos = vec![0usize; bl.len()];
    for (k, &i) in order.iter().enumerate() {
        vpos[i] = k;
    }
    let kept: Vec<Option<usize>> = layout::matched_lines(&bl, &nl)
        .into_iter()
        .map(|i| i.map(|i| vpos[i]))
        .collect();
    let seq = reorder::emit(nl.len(), &structure.runs, &mut |run| {
        let mut keys: Vec<(usize, usize)> = Vec::with_capacity(run.units.len());
        for (i, u) in run.units.iter().enumerate() {
            let mut at: Vec<usize> = u
                .span
                .clone()
                .filter_map(|j| kept.get(j).copied().flatten())
                .collect();
            at.sort_unstable();
            let own = if median {
                at.get(at.len() / 2).copied()
            } else {
                at.first().copied()
            };
            let key = match (own, keys.last()) {
                (Some(p), _) => (p, i),
                (None, Some(&(p, _))) => (p, i),
                (None, None) => (0, i),
            };
            keys.push(key);
        }
        let mut units: Vec<usize> = (0..run.units.len()).collect();
        units.sort_by_key(|&u| keys[u]);
        units
    });
    Some(seq.iter().flat_map(|&j| nl[j].to_vec()).collect())
}

/// The view of `new` (an edit of `base`, shown under `layout`) that keeps the view's order:
/// kept lines stay where the view shows them, new lines follow the original line before them.
pub(super) fn forward(base: &[u8], layout: &Layout, new: &[u8]) -> Vec<u8> {
    let bl = layout::split_lines(base);
    let nl = layout::split_lines(new);
    let order = if layout.is_valid_for(bl.len()) {
        layout.order()
    } else {
        (0..bl.len()).collect()
    };
    let new_of = layout::matched_lines(&bl, &nl);
    let mut matched: Vec<Option<usize>> = vec![None; bl.len()];
    for (j, i) in new_of.iter().enumerate() {
        if let Some(i) = *i {
            matched[i] = Some(j);
        }
    }
    let is_kept: Vec<bool> = new_of.iter().map(Option::is_some).collect();
    let mut front = Vec::new();
    let mut after: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut last = None;
    for (j, kept) in is_kept.iter().enumerate() {
        if *kept {
            last = Some(j);
        } else {
            match last {
                Some(l) => after.entry(l).or_default().push(j),
                None => front.push(j),
            }
        }
    }
    let mut out: Vec<u8> = front.iter().flat_map(|&j| nl[j].to_vec()).collect();
    for i in order {
        if let Some(j) = matched[i] {
            out.extend_from_slice(nl[j]);
            for &k in after.get(&j).map(Vec::as_slice).unwrap_or(&[]) {
                out.extend_from_slice(nl[k]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_keeps_the_view_order_and_places_new_lines_after_their_original_neighbour() {
        let base = b"a\nb\nc\nd\n";
        // The view shows c d a b.
        let l = Layout::from_order(&[2, 3, 0, 1]);
        let new = b"a\nb\nX\nc\nd2\n";
        assert_eq!(forward(base, &l, new), b"c\nd2\na\nb\nX\n");
        assert_eq!(forward(base, &Layout::identity(4), new), new);
    }
}
