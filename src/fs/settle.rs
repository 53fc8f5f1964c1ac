//! Settling: the write-back of a Python file that leaves Level 3's inverse for later.
//!
//! Guarantees: the original is at every moment a file whose view is exactly what was written
//! (law 2), replaced atomically (law 9); and once settled it is byte for byte what the
//! write-back inverting at once would have written (laws 1 and 4), because both invert the
//! same final view against the same base (`LayoutStore::settle`). A file is settled by the
//! flusher thread shortly after its write, before an fsync of it returns, and before the
//! unmount returns; a daemon killed first leaves it in the view's order (a valid program,
//! what the agent wrote), marked in the saved state, and the next mount settles it.
//!
//! Why: the inverse parses the new view and then the result (most of an edited file's
//! write-back, docs/performance.md), and a write request waited for both, once per file for
//! `sed -i`, a formatter or a `git checkout` of many files through the view.
//!
//! How: a kill-safe write-back (a handle-less write, a rename onto a Python name) writes the
//! view in its own order (`Transform::content_to_original_unsettled`, an identity layout) and
//! queues the path; the flusher settles queued paths one at a time: it reads the original
//! and computes the settled bytes without the write-back lock (requests go on), then, under
//! the lock and only if the file did not change meanwhile, writes them atomically with the
//! unsettled file's modification time (so the view's bytes, size and time stay as they
//! were), the transform knowing both versions meanwhile (`Transform::settle_step`), since
//! readers take no lock.

use std::time::SystemTime;

use super::*;
use crate::transform::layout::{SettleStep, Settled};

/// A settled form computed for an original as it was read.
struct Prepared {
    path: PathBuf,
    meta: fs::Metadata,
    current: Vec<u8>,
    settled: Settled,
}

impl ViewFs {
    /// Let kill-safe write-backs leave the inverse for the flusher, which must be running
    /// ([`ViewFs::run_deferred_flusher`]).
    pub fn settle_later(&self) {
        self.settling
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// The original of `view` at `rel` for a kill-safe write-back: unsettled (queued) when
    /// the transform has a cheaper form for it and settling is on, else inverted at once.
    pub(super) fn to_original_killsafe(
        &self,
        rel: &Path,
        view: &[u8],
        base: Option<&[u8]>,
    ) -> FsResult<Vec<u8>> {
        if self.settling.load(std::sync::atomic::Ordering::SeqCst) {
            let unsettled = self.guarded("content_to_original", rel, || {
                self.transform
                    .content_to_original_unsettled(rel, view, base)
            })?;
            if let Some(orig) = unsettled {
                self.queue_settle(rel);
                return Ok(orig);
            }
        }
        self.to_original_content(rel, view, base)
    }

    fn queue_settle(&self, rel: &Path) {
        let _d = self.deferred.lock();
        self.unsettled.lock().insert(rel.to_path_buf());
        self.deferred_cv.notify_one();
    }

    /// The next queued path, for the flusher (which holds `deferred`).
    pub(super) fn next_unsettled(&self) -> Option<PathBuf> {
        self.unsettled.lock().pop_first()
    }

    /// Settle `rel` if it waits for it: before an fsync of it returns, and before it is
    /// removed or emptied (what it held is then the base a file written there again is
    /// inverted against, `ViewFs::rewritten`, which must be in the original's order). Under
    /// the write-back lock throughout: the flusher may be settling the same file, and this
    /// must not return before one of the two has.
    pub(super) fn settle_now(&self, rel: &Path) -> FsResult<()> {
        if !self.transform.is_unsettled(rel) {
            return Ok(());
        }
        let _wb = self.writeback.lock();
        if let Some(p) = self.prepare_settle(rel)? {
            self.finish_settle(rel, p)?;
        }
        Ok(())
    }

    /// Settle every path the transform calls unsettled (at unmount). Returns the first
    /// error; every path is tried.
    pub fn settle_all(&self) -> FsResult<()> {
        let mut paths = std::mem::take(&mut *self.unsettled.lock());
        paths.extend(self.transform.unsettled());
        let mut first = Ok(());
        for rel in paths {
            if let Err(e) = self.settle_now(&rel) {
                tracing::error!("settling {}: {e}", rel.display());
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
    }

    /// Settle `rel` for the flusher (see the module note). The inverse runs without the
    /// write-back lock, so requests go on meanwhile; its result is written only if the
    /// original did not change since it was read.
    pub(super) fn settle(&self, rel: &Path) -> FsResult<()> {
        let Some(p) = self.prepare_settle(rel)? else {
            return Ok(());
        };
        let _wb = self.writeback.lock();
        match fs::symlink_metadata(&p.path) {
            Ok(now) if Stamp::of(&now) == Stamp::of(&p.meta) => self.finish_settle(rel, p),
            // Replaced since (a rename of the same bytes over it too): settled again from
            // what is there now, which the transform may or may not still call unsettled.
            _ => {
                drop(_wb);
                self.queue_settle(rel);
                Ok(())
            }
        }
    }

    /// The settled bytes of `rel` as its original is now, if the transform has them.
    fn prepare_settle(&self, rel: &Path) -> FsResult<Option<Prepared>> {
        let path = self.safe_path(&Backing::Original(rel.to_path_buf()))?;
        // Removed or replaced by something else since: nothing of ours to settle.
        let meta = match fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => m,
            _ => return Ok(None),
        };
        let current =
            fs::read(&path).map_err(|e| FsError::eio(format!("read {}", path.display()), e))?;
        let settled = self.guarded("settle", rel, || self.transform.settle(rel, &current))?;
        Ok(settled.map(|settled| Prepared {
            path,
            meta,
            current,
            settled,
        }))
    }

    /// Write and remember `p`, for an original unchanged since it was read; the caller holds
    /// the write-back lock.
    fn finish_settle(&self, rel: &Path, p: Prepared) -> FsResult<()> {
        let step = |s| self.transform.settle_step(rel, &p.settled, s);
        // Readers do not take the write-back lock: from here on the store knows both the
        // unsettled and the settled bytes, so a reader of either gets the same view.
        if !step(SettleStep::Begin) {
            return Ok(());
        }
        let view = self.cache.get(rel, Stamp::of(&p.meta));
        // Saved with both versions first (`replace_original`): `LayoutStore::settle` settles
        // the alias a kill may leave on disk at the next mount.
        if let Err(e) = self.replace_keeping_mtime(&p, &p.current, p.settled.original()) {
            step(SettleStep::Abort);
            return Err(e);
        }
        if !step(SettleStep::Commit) {
            // Cannot happen under the write-back lock with the file unchanged; if it does,
            // the unsettled bytes go back, which is what the transform remembers.
            tracing::error!(
                "settling {}: the layout store changed meanwhile",
                rel.display()
            );
            return self.replace_keeping_mtime(&p, p.settled.original(), &p.current);
        }
        self.persist_transform_state(Durability::KillSafe);
        let after = fs::symlink_metadata(&p.path)
            .map_err(|e| FsError::eio(format!("stat {}", p.path.display()), e))?;
        match view {
            Some(v) => self.cache_own_write(rel, &after, v),
            None => self.note_own_write(rel, &after),
        }
        Ok(())
    }

    /// Replace the original `p` was prepared from, which holds `holds`, by `bytes`
    /// atomically (nothing written when they are the same), keeping its modification time,
    /// which the view shows.
    fn replace_keeping_mtime(&self, p: &Prepared, holds: &[u8], bytes: &[u8]) -> FsResult<()> {
        let (path, m) = (&p.path, &p.meta);
        let failed = |e| FsError::write_back(format!("settle {}", path.display()), e);
        let like = (m.mode(), Some((m.uid(), m.gid())));
        self.replace_original(path, bytes, Some(holds), like, Durability::KillSafe)
            .map_err(failed)?;
        if bytes == holds {
            return Ok(());
        }
        let mtime = m.modified().unwrap_or_else(|_| SystemTime::now());
        fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)
            .and_then(|f| f.set_times(fs::FileTimes::new().set_modified(mtime)))
            .map_err(failed)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::testing::level3::{fresh, reordering_seed, tree_of_src, SRC};

    /// Laws 2, 4 and 9 through the settling path. A handle-less write of a reordered file,
    /// edited, leaves the original in the view's order and showing exactly what was written;
    /// a daemon that stops there (no unmount) leaves it so, and the next one over the same
    /// state shows the same view and settles it, at unmount, to the bytes that a write-back
    /// inverting at once gives. An fsync settles at once.
    #[test]
    fn an_unsettled_write_shows_what_was_written_and_settles_to_the_inverse() {
        let seed = reordering_seed();
        let edit = |view: &[u8]| [b"# edited\n".as_slice(), view].concat();

        // The write-back that inverts at once: what settling must give.
        let now = tree_of_src();
        let fs = fresh(now.path(), seed, false);
        let ino = fs.lookup_path(Path::new("m.py")).unwrap().ino;
        let view = fs.read_ino(ino, 0, 1 << 16).unwrap();
        assert_ne!(view, SRC);
        let edited = edit(&view);
        fs.write_ino(ino, 0, &edited).unwrap();
        let expected = std::fs::read(now.path().join("orig/m.py")).unwrap();
        assert_eq!(expected, [b"# edited\n".as_slice(), SRC].concat());

        let later = tree_of_src();
        let orig = later.path().join("orig/m.py");
        let fs = fresh(later.path(), seed, true);
        let ino = fs.lookup_path(Path::new("m.py")).unwrap().ino;
        assert_eq!(fs.read_ino(ino, 0, 1 << 16).unwrap(), view);
        fs.write_ino(ino, 0, &edited).unwrap();
        // No flusher runs here: the original stays in the view's order until settled.
        assert_eq!(std::fs::read(&orig).unwrap(), edited);
        assert_eq!(fs.read_ino(ino, 0, 1 << 16).unwrap(), edited);
        let mtime = std::fs::metadata(&orig).unwrap().modified().unwrap();
        drop(fs);

        let fs = fresh(later.path(), seed, true);
        let ino = fs.lookup_path(Path::new("m.py")).unwrap().ino;
        assert_eq!(fs.read_ino(ino, 0, 1 << 16).unwrap(), edited);
        assert_eq!(std::fs::read(&orig).unwrap(), edited);
        fs.flush_all().unwrap();
        assert_eq!(
            std::fs::read(&orig).unwrap(),
            expected,
            "settled at unmount"
        );
        assert_eq!(fs.read_ino(ino, 0, 1 << 16).unwrap(), edited);
        assert_eq!(std::fs::metadata(&orig).unwrap().modified().unwrap(), mtime);

        // Another edit, then an fsync: settled before the fsync returns.
        let twice = edit(&edited);
        fs.write_ino(ino, 0, &twice).unwrap();
        assert_eq!(std::fs::read(&orig).unwrap(), twice);
        fs.fsync_ino(ino).unwrap();
        assert_eq!(
            std::fs::read(&orig).unwrap(),
            [b"# edited\n# edited\n".as_slice(), SRC].concat()
        );
        assert_eq!(fs.read_ino(ino, 0, 1 << 16).unwrap(), twice);
        drop(fs);
        let fs = fresh(later.path(), seed, true);
        let ino = fs.lookup_path(Path::new("m.py")).unwrap().ino;
        assert_eq!(fs.read_ino(ino, 0, 1 << 16).unwrap(), twice);
    }

    /// `git checkout -- FILE` and `git apply` remove or empty a file and write it again; the
    /// write is inverted against what the file held (`ViewFs::rewritten`). A file still in the
    /// view's order is settled first, so that base is in the original's order, as with a
    /// write-back that inverts at once: the two end with the same bytes.
    #[test]
    fn a_file_removed_or_emptied_unsettled_is_settled_first() {
        let seed = reordering_seed();
        let run = |settle_later: bool| {
            let dir = tree_of_src();
            let fs = fresh(dir.path(), seed, settle_later);
            let root = fs.getattr(super::super::ROOT_INO).unwrap().ino;
            let ino = fs.lookup_path(Path::new("m.py")).unwrap().ino;
            let view = fs.read_ino(ino, 0, 1 << 16).unwrap();
            let edited = [b"# one\n".as_slice(), &view].concat();
            fs.write_ino(ino, 0, &edited).unwrap();
            // Removed and made again with one more line (git's way of writing a file).
            fs.unlink(root, std::ffi::OsStr::new("m.py")).unwrap();
            let a = fs
                .create_ino(
                    root,
                    std::ffi::OsStr::new("m.py"),
                    0o644,
                    0,
                    libc::O_WRONLY,
                    super::super::Caller::daemon(),
                )
                .unwrap();
            let twice = [b"# two\n".as_slice(), &edited].concat();
            fs.write_ino(a.ino, 0, &twice).unwrap();
            // Emptied and written again.
            fs.setattr(
                a.ino,
                super::super::SetAttr {
                    size: Some(0),
                    ..Default::default()
                },
            )
            .unwrap();
            let thrice = [b"# three\n".as_slice(), &twice].concat();
            fs.write_ino(a.ino, 0, &thrice).unwrap();
            assert_eq!(fs.read_ino(a.ino, 0, 1 << 16).unwrap(), thrice);
            fs.flush_all().unwrap();
            std::fs::read(dir.path().join("orig/m.py")).unwrap()
        };
        let now = run(false);
        assert_eq!(now, [b"# three\n# two\n# one\n".as_slice(), SRC].concat());
        assert_eq!(run(true), now);
    }
}
