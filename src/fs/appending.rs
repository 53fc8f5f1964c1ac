//! The last write-back of a file, kept so that the next write which only adds to that file
//! is inverted from the bytes it adds (`Transform::content_to_original_appended`) instead of
//! from the whole file again. A tool that writes a file in pieces (`sed -i` writes its temp
//! file one stdio buffer at a time, and each acknowledged write is a write-back) would
//! otherwise invert the file once per piece: quadratic in its size.
//!
//! Guarantee: the kept pair is used only when the original on disk is byte for byte what
//! that write-back wrote and the new view starts with the view it came from; the transform
//! then gives exactly what inverting the whole view gives (its contract), or `None`, and
//! the whole view is inverted as before. Anything else (another file, a change from outside,
//! a shorter or different view) falls back too.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::transform::Transform;

/// Files larger than this are not kept (the pair holds two copies of the file).
const KEPT_MAX_BYTES: usize = 16 << 20;

struct LastWrite {
    rel: PathBuf,
    view: Arc<Vec<u8>>,
    original: Vec<u8>,
}

/// One file's last write-back: writers that add to a file write one file at a time.
#[derive(Default)]
pub(super) struct Appending(Mutex<Option<LastWrite>>);

impl Appending {
    /// The original of `view` at `rel` from the bytes it adds to the last write-back, when
    /// that write-back is still what `base` (the original on disk) holds.
    pub(super) fn original(
        &self,
        transform: &dyn Transform,
        rel: &Path,
        base: Option<&[u8]>,
        view: &[u8],
    ) -> Option<Vec<u8>> {
        let last = self.0.lock();
        let l = last.as_ref()?;
        let extends = l.rel == rel
            && base == Some(l.original.as_slice())
            && view.len() > l.view.len()
            && view.starts_with(&l.view);
        if !extends {
            return None;
        }
        catch_unwind(AssertUnwindSafe(|| {
            transform.content_to_original_appended(rel, &l.view, &l.original, view)
        }))
        .ok()
        .flatten()
    }

    /// Keep the write-back that just wrote `original` for `view` at `rel`.
    pub(super) fn remember(&self, rel: &Path, view: Arc<Vec<u8>>, original: Vec<u8>) {
        let mut last = self.0.lock();
        *last =
            (view.len() <= KEPT_MAX_BYTES && original.len() <= KEPT_MAX_BYTES).then(|| LastWrite {
                rel: rel.to_path_buf(),
                view,
                original,
            });
    }
}
