//! Test double of [`Transform`], for tests of the filesystem before the real core exists.
//! Not part of the product: it swaps the words `alpha` and `omega` everywhere (names and
//! text contents), which is an involution; `secret` names are refused like reserved ones.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;

use crate::transform::{Transform, TransformError};

#[derive(Debug, Default, Clone, Copy)]
pub struct SwapTransform;

/// Swap `alpha` <-> `omega` in one left-to-right pass.
pub fn swap(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len());
    let mut i = 0;
    while i < input.len() {
        let rest = &input[i..];
        if rest.starts_with(b"alpha") {
            out.extend_from_slice(b"omega");
            i += 5;
        } else if rest.starts_with(b"omega") {
            out.extend_from_slice(b"alpha");
            i += 5;
        } else {
            out.push(input[i]);
            i += 1;
        }
    }
    out
}

impl Transform for SwapTransform {
    fn name_to_view(&self, name: &OsStr) -> OsString {
        OsString::from_vec(swap(name.as_bytes()))
    }

    fn name_to_original(&self, name: &OsStr) -> Result<OsString, TransformError> {
        if name.as_bytes() == b"secret" {
            return Err(TransformError::Reserved);
        }
        Ok(OsString::from_vec(swap(name.as_bytes())))
    }

    fn content_to_view(&self, _orig_rel: &Path, original: &[u8]) -> Vec<u8> {
        if original.contains(&0) {
            return original.to_vec();
        }
        swap(original)
    }

    fn passes_binary(&self, _orig_rel: &Path) -> bool {
        true
    }

    fn content_to_original(&self, _orig_rel: &Path, view: &[u8], _base: Option<&[u8]>) -> Vec<u8> {
        if view.contains(&0) {
            return view.to_vec();
        }
        swap(view)
    }
}

/// Level 3 over a temp dir, for the tests of write-backs that reorder (`settle.rs`,
/// `kill_tests.rs`): the real layout store, no renaming, the state read back as a mount
/// reads it.
#[cfg(test)]
pub mod level3 {
    use std::path::Path;
    use std::sync::Arc;

    use super::super::{saved_state, Options, ViewFs, TRANSFORM_BLOBS_DIR};
    use crate::transform::layout::LayoutStore;
    use crate::transform::{Composite, Transform};

    pub const SRC: &[u8] = b"def first():\n    return 1\n\n\ndef second():\n    return 2\n\n\ndef third():\n    return 3\n";

    /// Level 3 alone, from the state directory's saved layouts when there are some (a mount).
    pub fn transform(seed: u64, state: &Path) -> Composite {
        let store = match saved_state::load(state) {
            Some(st) => LayoutStore::from_state(st, &|n| {
                std::fs::read(state.join(TRANSFORM_BLOBS_DIR).join(n)).ok()
            }),
            None => LayoutStore::new(seed),
        };
        Composite {
            l2: None,
            l3: Some(store),
            l4: None,
        }
    }

    /// A temp dir whose `orig/m.py` holds `SRC` (for [`fresh`]).
    pub fn tree_of_src() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("orig")).unwrap();
        std::fs::write(d.path().join("orig/m.py"), SRC).unwrap();
        d
    }

    /// What `fs` shows at view path `rel`.
    pub fn view_of(fs: &ViewFs, rel: &str) -> Vec<u8> {
        let ino = fs.lookup_path(Path::new(rel)).unwrap().ino;
        fs.read_ino(ino, 0, 1 << 16).unwrap()
    }

    /// A seed under which `SRC` is shown in another order.
    pub fn reordering_seed() -> u64 {
        (0..64)
            .find(|&s| {
                transform(s, Path::new("/nonexistent")).content_to_view(Path::new("m.py"), SRC)
                    != SRC
            })
            .expect("a seed that reorders")
    }

    /// A view of `dir/orig` with its state in `dir/state`, watched as a mount sets it up;
    /// `settle_later` as under a mount with the flusher (which no test runs).
    pub fn fresh(dir: &Path, seed: u64, settle_later: bool) -> ViewFs {
        let orig = dir.join("orig");
        let state = dir.join("state");
        let fs = ViewFs::new(
            &orig,
            &state,
            Arc::new(transform(seed, &state)),
            Options::default(),
        )
        .unwrap();
        fs.set_watched();
        if settle_later {
            fs.settle_later();
        }
        fs
    }
}
