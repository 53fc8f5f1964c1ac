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
        // Saved with both versions before the file is replaced: a daemon killed in between
        // leaves a state under which either shows the same view (`LayoutStore::settle`
        // settles an alias at the next mount).
        self.persist_transform_state(Durability::KillSafe);
        let view = self.cache.get(rel, Stamp::of(&p.meta));
        let bytes = p.settled.original();
        if bytes != p.current.as_slice() {
            if let Err(e) = self.replace_keeping_mtime(&p.path, bytes, &p.meta) {
                step(SettleStep::Abort);
                return Err(e);
            }
        }
        if !step(SettleStep::Commit) {
            // Cannot happen under the write-back lock with the file unchanged; if it does,
            // the unsettled bytes go back, which is what the transform remembers.
            tracing::error!(
                "settling {}: the layout store changed meanwhile",
                rel.display()
            );
            return self.replace_keeping_mtime(&p.path, &p.current, &p.meta);
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

    /// Replace the original at `path` (metadata `m`) by `bytes` atomically, keeping its
    /// modification time, which the view shows.
    fn replace_keeping_mtime(&self, path: &Path, bytes: &[u8], m: &fs::Metadata) -> FsResult<()> {
        let failed = |e| FsError::write_back(format!("settle {}", path.display()), e);
        write_atomic(
            path,
            bytes,
            m.mode(),
            Some((m.uid(), m.gid())),
            Durability::KillSafe,
            self.staging.as_deref(),
        )
        .map_err(failed)?;
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
    use std::sync::Arc;

    use super::super::{saved_state, Options, ViewFs, TRANSFORM_BLOBS_DIR};
    use crate::transform::layout::LayoutStore;
    use crate::transform::{Composite, Transform};

    const SRC: &[u8] = b"def first():\n    return 1\n\n\ndef second():\n    return 2\n\n\ndef third():\n    return 3\n";

    /// Level 3 alone, from the state directory's saved layouts when there are some (a mount).
    fn transform(seed: u64, state: &Path) -> Composite {
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

    /// A seed under which `SRC` is shown in another order.
    fn reordering_seed() -> u64 {
        (0..64)
            .find(|&s| {
                transform(s, Path::new("/nonexistent")).content_to_view(Path::new("m.py"), SRC)
                    != SRC
            })
            .expect("a seed that reorders")
    }

    fn fresh(dir: &Path, seed: u64, settle_later: bool) -> ViewFs {
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
        let now = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(now.path().join("orig")).unwrap();
        std::fs::write(now.path().join("orig/m.py"), SRC).unwrap();
        let fs = fresh(now.path(), seed, false);
        let ino = fs.lookup_path(Path::new("m.py")).unwrap().ino;
        let view = fs.read_ino(ino, 0, 1 << 16).unwrap();
        assert_ne!(view, SRC);
        let edited = edit(&view);
        fs.write_ino(ino, 0, &edited).unwrap();
        let expected = std::fs::read(now.path().join("orig/m.py")).unwrap();
        assert_eq!(expected, [b"# edited\n".as_slice(), SRC].concat());

        let later = tempfile::tempdir().unwrap();
        let orig = later.path().join("orig/m.py");
        std::fs::create_dir_all(later.path().join("orig")).unwrap();
        std::fs::write(&orig, SRC).unwrap();
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
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(dir.path().join("orig")).unwrap();
            std::fs::write(dir.path().join("orig/m.py"), SRC).unwrap();
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

    /// The layout state is saved before a write-back replaces the file: a daemon killed
    /// between the two (here: the replacement fails, then the daemon stops) leaves a state
    /// under which the next daemon shows either version of the file as it was shown, the
    /// agent's own order of definitions included, which no fresh plan gives.
    #[test]
    fn a_state_saved_before_the_file_is_replaced_shows_either_version() {
        let seed = reordering_seed();
        // The definitions in an order that is neither the view's nor the original's.
        let moved = |view: &[u8]| {
            let text = String::from_utf8(view.to_vec()).unwrap();
            let defs: Vec<&str> = text.trim_end().split("\n\n\n").collect();
            let src = String::from_utf8(SRC.to_vec()).unwrap();
            [[2, 0, 1], [1, 2, 0], [2, 1, 0], [0, 2, 1], [1, 0, 2]]
                .iter()
                .map(|p| format!("{}\n", p.map(|i| defs[i]).join("\n\n\n")))
                .find(|t| t.as_bytes() != view && *t != src)
                .unwrap()
                .into_bytes()
        };
        let first = |view: &[u8]| [b"# one\n".as_slice(), view].concat();
        let setup = || {
            let d = tempfile::tempdir().unwrap();
            std::fs::create_dir_all(d.path().join("orig")).unwrap();
            std::fs::write(d.path().join("orig/m.py"), SRC).unwrap();
            let fs = fresh(d.path(), seed, false);
            let ino = fs.lookup_path(Path::new("m.py")).unwrap().ino;
            let view = fs.read_ino(ino, 0, 1 << 16).unwrap();
            let one = first(&view);
            fs.write_ino(ino, 0, &one).unwrap();
            (d, fs, ino, one)
        };
        // Where the second write lands.
        let (d, fs, ino, one) = setup();
        let two = moved(&one);
        fs.write_ino(ino, 0, &two).unwrap();
        let landed = std::fs::read(d.path().join("orig/m.py")).unwrap();
        drop(fs);
        drop(d);

        let (d, fs, ino, one) = setup();
        let orig = d.path().join("orig/m.py");
        let written = std::fs::read(&orig).unwrap();
        assert_ne!(written, landed);
        std::fs::remove_dir_all(d.path().join("state/staging")).unwrap();
        assert!(fs.write_ino(ino, 0, &two).is_err(), "the replacement fails");
        assert_eq!(std::fs::read(&orig).unwrap(), written);
        drop(fs);
        let view = |fs: &ViewFs| {
            let ino = fs.lookup_path(Path::new("m.py")).unwrap().ino;
            fs.read_ino(ino, 0, 1 << 16).unwrap()
        };
        // Killed before the rename: the old bytes, shown as they were.
        assert_eq!(view(&fresh(d.path(), seed, false)), one);
        // Killed after it: the new bytes, shown as written.
        std::fs::write(&orig, &landed).unwrap();
        assert_eq!(view(&fresh(d.path(), seed, false)), two);
    }

    /// The same for a move: the layouts are saved at both paths before the rename, so a
    /// daemon killed after it (here: the rename fails, the daemon stops, and the tree is
    /// then moved as the rename would have) shows the file at its new path as it was shown,
    /// not in the order a fresh plan gives that path.
    #[test]
    fn a_state_saved_before_a_rename_shows_the_file_at_its_new_path() {
        let view_at = |fs: &ViewFs, rel: &str| {
            let ino = fs.lookup_path(Path::new(rel)).unwrap().ino;
            fs.read_ino(ino, 0, 1 << 16).unwrap()
        };
        let seed = (0..64)
            .find(|&s| {
                let t = transform(s, Path::new("/nonexistent"));
                let (p, q) = (Path::new("p/m.py"), Path::new("q/m.py"));
                t.content_to_view(p, SRC) != t.content_to_view(q, SRC)
            })
            .expect("a seed that orders the file by its path");
        let d = tempfile::tempdir().unwrap();
        let orig = d.path().join("orig");
        std::fs::create_dir_all(orig.join("p")).unwrap();
        std::fs::create_dir_all(orig.join("q")).unwrap();
        std::fs::write(orig.join("p/m.py"), SRC).unwrap();
        std::fs::write(orig.join("q/other.txt"), b"x\n").unwrap();
        let fs = fresh(d.path(), seed, false);
        let shown = view_at(&fs, "p/m.py");
        let root = super::super::ROOT_INO;
        let e = fs
            .rename(root, "p".as_ref(), root, "q".as_ref(), 0)
            .unwrap_err();
        assert_eq!(e.errno, libc::ENOTEMPTY);
        drop(fs);
        std::fs::remove_dir_all(orig.join("q")).unwrap();
        std::fs::rename(orig.join("p"), orig.join("q")).unwrap();
        assert_eq!(view_at(&fresh(d.path(), seed, false), "q/m.py"), shown);
    }
}
