//! Write-back: a view buffer becomes the original's bytes (through the inverse transform,
//! atomically, temp + rename) before a write, flush, fsync or last close is acknowledged
//! (law 9); the deferred flusher for large files; and the memory of removed files, so a
//! file removed and created again is written back as an edit of what it was.

use super::*;
use crate::transform::layout::StateChange;

impl ViewFs {
    /// Save what changed in the transform's state since the last save (`saved_state`: a
    /// line appended to the journal, or a whole snapshot when one is due). A failure is
    /// logged, never fatal: the original is already written. Most write-backs (every write
    /// of a data file, a file written back as it was) change nothing and write nothing.
    pub(super) fn persist_transform_state(&self, durability: Durability) {
        // One lock around draining the changes and saving them: lines reach the journal in
        // the order the store made the changes.
        let mut saver = self.saved_state.lock();
        let Some(changes) = self.transform.state_changes() else {
            return;
        };
        let blobs: Vec<String> = if saver.snapshot_due() {
            self.transform.state_blobs()
        } else {
            changes
                .iter()
                .filter_map(|c| match c {
                    StateChange::Set(f) => f.base_blob.clone(),
                    StateChange::Gone(_) => None,
                })
                .collect()
        };
        // The blobs the state refers to are saved first, so a state on disk never names a
        // blob that is not there (a kill between the two leaves an unused blob at worst).
        // Each is written once: a blob never changes under its digest.
        let dir = self.state_dir.join(TRANSFORM_BLOBS_DIR);
        let mut known = self.saved_blobs.lock();
        for name in blobs {
            if known.contains(&name) {
                continue;
            }
            let path = dir.join(&name);
            if !path.exists() {
                let Some(bytes) = self.transform.state_blob(&name) else {
                    continue;
                };
                let written = fs::create_dir_all(&dir)
                    .and_then(|()| write_atomic(&path, &bytes, 0o600, None, durability, None));
                if let Err(e) = written {
                    tracing::warn!("saving {}: {e}", path.display());
                    // The drained changes are in the next snapshot.
                    saver.fail();
                    return;
                }
            }
            known.insert(name);
        }
        drop(known);
        let saved = if saver.snapshot_due() {
            match self.transform.save_state() {
                Some(state) => saver.write_snapshot(&self.state_dir, state, durability),
                None => Ok(()),
            }
        } else {
            saver.append(&self.state_dir, &changes, durability)
        };
        if let Err(e) = saved {
            tracing::warn!("saving the layouts in {}: {e}", self.state_dir.display());
        }
    }

    /// Write back the buffer of `ino`, which no handle holds, and drop it once clean: a
    /// buffer left behind would shadow later changes of the original.
    pub(super) fn flush_unheld(&self, ino: u64, durability: Durability) -> FsResult<()> {
        let _wb = self.writeback.lock();
        self.flush_unheld_locked(ino, durability)
    }

    /// [`ViewFs::flush_unheld`] for a caller that holds the write-back lock.
    pub(super) fn flush_unheld_locked(&self, ino: u64, durability: Durability) -> FsResult<()> {
        let r = self.flush_ino_locked(ino, durability);
        self.state.lock().drop_unheld(ino, false);
        r
    }

    /// Replace original file `path`, which now holds `current` (`None`: unknown or none),
    /// by `bytes` with `mode` and `owner` (every write-back's last step). The transform's
    /// state is saved first: by then it knows both the bytes replaced and these (the layout
    /// store's aliases), so a daemon killed before the rename, or after it, leaves a state
    /// under which the file shows as it was shown. Nothing is written when `bytes` are
    /// `current`; the state is saved all the same (a layout may change without the bytes).
    pub(super) fn replace_original(
        &self,
        path: &Path,
        bytes: &[u8],
        current: Option<&[u8]>,
        (mode, owner): (u32, Option<(u32, u32)>),
        durability: Durability,
    ) -> io::Result<()> {
        self.persist_transform_state(durability);
        if current == Some(bytes) {
            return Ok(());
        }
        write_atomic(
            path,
            bytes,
            mode,
            owner,
            durability,
            self.staging.as_deref(),
        )
    }

    /// The deferred flusher's loop (see [`ViewFs::write_ino`]); returns at unmount.
    /// It also settles the originals written in the view's order (`settle.rs`), after the
    /// deferred write-backs.
    pub fn run_deferred_flusher(&self) {
        loop {
            let job = {
                let mut d = self.deferred.lock();
                loop {
                    if self.closing.load(std::sync::atomic::Ordering::SeqCst) {
                        return;
                    }
                    if let Some(ino) = d.pop_first() {
                        break Job::Flush(ino);
                    }
                    if let Some(rel) = self.next_unsettled() {
                        break Job::Settle(rel);
                    }
                    self.deferred_cv.wait(&mut d);
                }
            };
            match job {
                Job::Flush(ino) => {
                    if let Err(e) = self.flush_unheld(ino, Durability::KillSafe) {
                        // The buffer stays dirty: the next write, an fsync or the unmount
                        // retries.
                        tracing::error!("deferred write-back failed: {e}");
                    }
                }
                Job::Settle(rel) => {
                    if let Err(e) = self.settle(&rel) {
                        // Left in the view's order, which the view shows: nothing is lost.
                        tracing::error!("settling {}: {e}", rel.display());
                    }
                }
            }
        }
    }

    /// Write every dirty buffer back and settle every original left in the view's order
    /// (at unmount). Returns the first error.
    pub fn flush_all(&self) -> FsResult<()> {
        let inos: Vec<u64> = self.state.lock().buffers.keys().copied().collect();
        let mut first = Ok(());
        for ino in inos {
            if let Err(e) = self.flush_ino(ino, Durability::Synced) {
                tracing::error!("flush at unmount: {e}");
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        let settled = self.settle_all();
        first.and(settled)
    }

    /// The original of a file written as new (created, or emptied then written: `git
    /// checkout -- FILE`, `git apply`, `> file`) whose previous original is known: what the
    /// path held before it was removed or emptied through the view, or else its committed
    /// content. When the view bytes are exactly the view of one of those, that original comes
    /// back byte for byte (a restore restores); otherwise the view is inverted against the
    /// first, so untouched lines keep their original order (Level 3). With neither, a removed
    /// file elsewhere that the new one mostly repeats is taken as its old self (a move made by
    /// removing one file and creating another, as `git apply` renames). `None`: a plain new
    /// file.
    pub(super) fn rewritten(&self, rel: &Path, view: &[u8]) -> FsResult<Option<Vec<u8>>> {
        let mut known: Vec<Vec<u8>> = {
            let u = self.unlinked.lock();
            u.iter()
                .rev()
                .find(|(p, _)| p == rel)
                .map(|(_, b)| b.clone())
                .into_iter()
                .collect()
        };
        if let Some(c) = self.committed.as_ref().and_then(|f| f(rel)) {
            known.push(c);
        }
        for k in &known {
            if self.to_view_content(rel, k)? == view {
                return Ok(Some(k.clone()));
            }
        }
        let anchor = match known.into_iter().next() {
            Some(k) => k,
            None => match self.moved_from(rel, view) {
                Some(old) => old,
                None => return Ok(None),
            },
        };
        Ok(Some(self.to_original_content(rel, view, Some(&anchor))?))
    }

    /// Remember what original `rel` held before it was removed or emptied (see
    /// [`ViewFs::rewritten`]); the newest [`UNLINKED_KEPT`] are kept.
    pub(super) fn remember_removed(&self, rel: &Path, bytes: Vec<u8>) {
        let mut u = self.unlinked.lock();
        u.retain(|(p, _)| p != rel);
        if u.len() == UNLINKED_KEPT {
            u.pop_front();
        }
        u.push_back((rel.to_path_buf(), bytes));
    }

    /// Write the buffer of `ino` back to the original if dirty.
    pub(super) fn flush_ino(&self, ino: u64, durability: Durability) -> FsResult<()> {
        let _wb = self.writeback.lock();
        self.flush_ino_locked(ino, durability)
    }

    /// [`ViewFs::flush_ino`] for a caller that holds the write-back lock.
    pub(super) fn flush_ino_locked(&self, ino: u64, durability: Durability) -> FsResult<()> {
        let (rel, data, generation) = {
            let mut st = self.state.lock();
            let Some(node) = st.table.get(ino) else {
                return Ok(());
            };
            let unlinked = node.unlinked;
            let backing = node.backing.clone();
            let Some(b) = st.buffers.get_mut(&ino) else {
                return Ok(());
            };
            if !b.dirty {
                return Ok(());
            }
            if unlinked {
                // Deleted or replaced while open: the data has no name left to go to.
                b.dirty = false;
                return Ok(());
            }
            let Backing::Original(rel) = backing else {
                b.dirty = false;
                return Ok(());
            };
            (rel, b.data.clone(), b.generation)
        };
        let path = self
            .safe_path(&Backing::Original(rel.clone()))
            .map_err(|e| FsError::new(libc::EIO, e.msg))?;
        let (base, mode, owner) = match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(FsError::new(
                    libc::EACCES,
                    format!("{} became a symlink", path.display()),
                ))
            }
            Ok(m) => {
                let base = fs::read(&path)
                    .map_err(|e| FsError::eio(format!("read {}", path.display()), e))?;
                (Some(base), m.mode(), Some((m.uid(), m.gid())))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => (None, 0o644, None),
            Err(e) => return Err(FsError::eio(format!("stat {}", path.display()), e)),
        };
        let orig = match base.as_deref() {
            None | Some([]) if self.transform.base_matters(&rel) => self.rewritten(&rel, &data)?,
            _ => None,
        };
        let orig = match orig {
            Some(o) => o,
            None => {
                match self
                    .appending
                    .original(self.transform.as_ref(), &rel, base.as_deref(), &data)
                {
                    Some(o) => o,
                    None if durability == Durability::KillSafe => {
                        self.to_original_killsafe(&rel, &data, base.as_deref())?
                    }
                    None => self.to_original_content(&rel, &data, base.as_deref())?,
                }
            }
        };
        self.replace_original(&path, &orig, base.as_deref(), (mode, owner), durability)
            .map_err(|e| FsError::write_back(format!("write back {}", path.display()), e))?;
        if !orig.is_empty() {
            // Written again: the layout store carries its anchor from now on.
            self.unlinked.lock().retain(|(p, _)| *p != rel);
        } else if let Some(old) =
            base.filter(|b| !b.is_empty() && b.len() as u64 <= UNLINKED_MAX_BYTES)
        {
            self.remember_removed(&rel, old);
        }
        let m = fs::symlink_metadata(&path)
            .map_err(|e| FsError::eio(format!("stat {}", path.display()), e))?;
        let data = Arc::new(data);
        self.appending.remember(&rel, data.clone(), orig);
        self.cache_own_write(&rel, &m, data);
        let mut st = self.state.lock();
        if let Some(b) = st.buffers.get_mut(&ino) {
            if b.generation == generation {
                b.dirty = false;
            }
        }
        if let Some(n) = st.table.get_mut(ino) {
            n.open_stamp = None;
            n.trusted = false;
        }
        Ok(())
    }

    /// A file removed through the view, elsewhere, of the same extension, whose view the new
    /// bytes `data` at `rel` resemble most (at least half their lines, as git pairs renames):
    /// taken as moved to `rel`, its per-path state moves with it (`Transform::renamed`). Used
    /// once.
    pub(super) fn moved_from(&self, rel: &Path, data: &[u8]) -> Option<Vec<u8>> {
        let candidates: Vec<(PathBuf, Vec<u8>)> = self
            .unlinked
            .lock()
            .iter()
            .filter(|(p, _)| p.extension() == rel.extension() && !self.root.join(p).exists())
            .cloned()
            .collect();
        let mut best: Option<(f64, PathBuf, Vec<u8>)> = None;
        for (p, old) in candidates {
            let Ok(view) = self.to_view_content(&p, &old) else {
                continue;
            };
            let r = line_similarity(&view, data);
            if r >= 0.5 && best.as_ref().is_none_or(|(b, _, _)| r > *b) {
                best = Some((r, p, old));
            }
        }
        let (_, from, old) = best?;
        self.unlinked.lock().retain(|(p, _)| *p != from);
        let _ = self.guarded("renamed", rel, || self.transform.renamed(&from, rel));
        Some(old)
    }

    // ---------------------------------------------------------------- attributes
}

/// The share of lines two texts have in common (`2 * common / (a + b)`, 1.0 for equal).
pub(super) fn line_similarity(a: &[u8], b: &[u8]) -> f64 {
    let la: Vec<&[u8]> = a.split_inclusive(|&c| c == b'\n').collect();
    let lb: Vec<&[u8]> = b.split_inclusive(|&c| c == b'\n').collect();
    if la.is_empty() && lb.is_empty() {
        return 1.0;
    }
    let common: usize = similar::capture_diff_slices(similar::Algorithm::Myers, &la, &lb)
        .iter()
        .map(|op| match op {
            similar::DiffOp::Equal { len, .. } => *len,
            _ => 0,
        })
        .sum();
    2.0 * common as f64 / (la.len() + lb.len()) as f64
}

/// What the deferred flusher does next.
enum Job {
    /// Write back the buffer of an inode (a large file's full-size chunks).
    Flush(u64),
    /// Settle an original left in the view's order (`settle.rs`).
    Settle(PathBuf),
}
