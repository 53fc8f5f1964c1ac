//! Files served as their own bytes: a file of the original larger than [`MAX_BUFFERED`]
//! whose view is its bytes (not a Python file, which Level 3 reorders).
//!
//! Guarantee: no request makes the daemon hold such a file in memory. Every other file of
//! the original is read, transformed and buffered whole (its view must be transformed back as
//! a whole), which is why they stop at [`MAX_BUFFERED`]; a raw file is read with `pread`,
//! written with `pwrite` and truncated with `ftruncate` on the original, as on a native disk,
//! so a sparse 2 GB file (`dd seek=`, a write at a 2 GB offset, `truncate -s 5G`) costs its
//! written bytes only.
//!
//! How a file becomes raw: a write or truncate that would take a file past
//! [`MAX_BUFFERED`] goes to the original in place when what the view shows is already the
//! original's bytes (an empty file, a binary file, text no rename touches); otherwise it is
//! refused with EFBIG as before (its view and original differ, and rewriting 1 GiB of view as
//! original text is what the limit is there to prevent). The trade, written down in
//! docs/design-notes.md: a raw file is not renamed, so text over 1 GiB shows its original
//! words; and raw writes are in place, not atomic, like the in-place writes to binary files.

use super::handles::read_at_most;
use super::*;

impl ViewFs {
    /// Whether the original `rel`, `len` bytes long, is served as its own bytes.
    pub(super) fn is_raw(&self, rel: &Path, len: u64) -> bool {
        len > MAX_BUFFERED as u64 && self.transform.passes_binary(rel)
    }

    /// The length of the original `rel`, or `None` when it cannot be read (the caller's
    /// own path reports the error).
    fn disk_len(&self, rel: &Path) -> Option<u64> {
        fs::symlink_metadata(self.root.join(rel))
            .ok()
            .filter(Metadata::is_file)
            .map(|m| m.len())
    }

    /// Whether a write of `len` bytes at `offset`, or a truncate to `offset + len`, to the
    /// original `rel` must go to its bytes: the file is raw, or would become raw and its view
    /// is its bytes now.
    pub(super) fn goes_raw(&self, rel: &Path, offset: u64, len: u64) -> FsResult<bool> {
        if !self.transform.passes_binary(rel) {
            return Ok(false);
        }
        let Some(now) = self.disk_len(rel) else {
            return Ok(false);
        };
        if self.is_raw(rel, now) {
            return Ok(true);
        }
        if offset.saturating_add(len) <= MAX_BUFFERED as u64 {
            return Ok(false);
        }
        let view = self.view_bytes(rel)?.0;
        Ok(view.is_empty() || view.contains(&0) || self.original_is(rel, &view))
    }

    /// Whether a binary `view` of `rel` (one with a NUL byte) is the original's own bytes, so
    /// that a write or truncate may change the original in place: always where the transform
    /// passes binary contents through, else (a Python file under Level 3, which a remembered
    /// layout may show reordered) checked against the original.
    pub(super) fn binary_view_is_original(&self, rel: &Path, view: &[u8]) -> bool {
        self.transform.passes_binary(rel) || self.original_is(rel, view)
    }

    /// Whether the original `rel` holds exactly `bytes`.
    pub(super) fn original_is(&self, rel: &Path, bytes: &[u8]) -> bool {
        self.disk_len(rel) == Some(bytes.len() as u64)
            && fs::read(self.root.join(rel)).is_ok_and(|b| b == bytes)
    }

    /// Read `size` bytes at `offset` of the original `rel` as they are.
    pub(super) fn raw_read(&self, rel: &Path, offset: u64, size: u32) -> FsResult<Vec<u8>> {
        let f = self.open_backing(&Backing::Original(rel.to_path_buf()), false)?;
        read_at_most(&f, offset, size)
    }

    /// Write `data` at `offset` of the original `rel` in place (the caller holds the
    /// write-back lock).
    pub(super) fn raw_write(&self, rel: &Path, offset: u64, data: &[u8]) -> FsResult<u32> {
        past_off_t(offset.checked_add(data.len() as u64))?;
        let f = self.open_backing(&Backing::Original(rel.to_path_buf()), true)?;
        f.write_all_at(data, offset)
            .map_err(|e| FsError::write_back(format!("write {}", rel.display()), e))?;
        if let Ok(m) = f.metadata() {
            self.note_own_write(rel, &m);
        }
        Ok(data.len() as u32)
    }

    /// Truncate the original `rel` to `size` in place (the caller holds the write-back lock).
    pub(super) fn raw_truncate(&self, rel: &Path, size: u64) -> FsResult<()> {
        past_off_t(Some(size))?;
        let f = self.open_backing(&Backing::Original(rel.to_path_buf()), true)?;
        f.set_len(size)
            .map_err(|e| FsError::write_back(format!("truncate {}", rel.display()), e))?;
        if let Ok(m) = f.metadata() {
            self.note_own_write(rel, &m);
        }
        Ok(())
    }
}

/// EFBIG for an end no `off_t` can hold (the kernel would say EINVAL, or worse, wrap).
fn past_off_t(end: Option<u64>) -> FsResult<()> {
    match end {
        Some(e) if e <= i64::MAX as u64 => Ok(()),
        _ => Err(FsError::new(libc::EFBIG, "offset")),
    }
}
