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
