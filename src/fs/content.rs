//! View contents of original files, keyed by original-relative path.
//!
//! Guarantees: a cached entry is only ever served for the exact original it was computed
//! from. Each entry is tagged with a [`Stamp`] (mtime, ctime, size, inode of the original);
//! callers pass the stamp they just observed and get a hit only when it matches, so a file
//! changed behind our back is recomputed, never served stale or truncated. Sizes are kept for
//! every file ever seen; bytes are kept under an LRU byte budget.

use std::collections::BTreeMap;
use std::fs::Metadata;
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use lru::LruCache;
use parking_lot::Mutex;

/// Identity of one version of an original file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    mtime: (i64, i64),
    ctime: (i64, i64),
    size: u64,
    ino: u64,
}

impl Stamp {
    pub fn of(m: &Metadata) -> Stamp {
        Stamp {
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
            size: m.size(),
            ino: m.ino(),
        }
    }
}

struct Inner {
    /// Every key of `bytes` is here too; ordered by path components, so a subtree is one
    /// contiguous range.
    meta: BTreeMap<PathBuf, (Stamp, u64)>,
    bytes: LruCache<PathBuf, (Stamp, Arc<Vec<u8>>)>,
    used: usize,
}

pub struct ContentCache {
    budget: usize,
    inner: Mutex<Inner>,
}

impl ContentCache {
    pub fn new(budget: usize) -> Self {
        ContentCache {
            budget,
            inner: Mutex::new(Inner {
                meta: BTreeMap::new(),
                bytes: LruCache::unbounded(),
                used: 0,
            }),
        }
    }

    /// View length of `rel` if known for this exact version of the original.
    pub fn view_len(&self, rel: &Path, stamp: Stamp) -> Option<u64> {
        let inner = self.inner.lock();
        match inner.meta.get(rel) {
            Some((s, len)) if *s == stamp => Some(*len),
            _ => None,
        }
    }

    pub fn get(&self, rel: &Path, stamp: Stamp) -> Option<Arc<Vec<u8>>> {
        let mut inner = self.inner.lock();
        match inner.bytes.get(rel) {
            Some((s, b)) if *s == stamp => Some(b.clone()),
            _ => None,
        }
    }

    pub fn put(&self, rel: &Path, stamp: Stamp, view: Arc<Vec<u8>>) {
        let mut inner = self.inner.lock();
        inner
            .meta
            .insert(rel.to_path_buf(), (stamp, view.len() as u64));
        if let Some((_, old)) = inner.bytes.pop(rel) {
            inner.used -= old.len();
        }
        if view.len() > self.budget {
            return;
        }
        inner.used += view.len();
        inner.bytes.put(rel.to_path_buf(), (stamp, view));
        while inner.used > self.budget {
            match inner.bytes.pop_lru() {
                Some((_, (_, b))) => inner.used -= b.len(),
                None => break,
            }
        }
    }

    /// Carry what is known of `rel` at stamp `old` over to stamp `new`: for a caller that
    /// knows the bytes did not change between the two (a chmod or chown changes the ctime
    /// alone). Nothing happens unless the entry is at `old`.
    pub fn restamp(&self, rel: &Path, old: Stamp, new: Stamp) {
        let mut inner = self.inner.lock();
        if let Some((s, _)) = inner.meta.get_mut(rel).filter(|(s, _)| *s == old) {
            *s = new;
        }
        if let Some((s, _)) = inner.bytes.peek_mut(rel).filter(|(s, _)| *s == old) {
            *s = new;
        }
    }

    /// Forget `rel` and everything below it.
    pub fn remove_tree(&self, rel: &Path) {
        let mut inner = self.inner.lock();
        let doomed: Vec<PathBuf> = super::paths::subtree(&inner.meta, rel)
            .map(|(k, _)| k.clone())
            .collect();
        for k in doomed {
            inner.meta.remove(&k);
            if let Some((_, b)) = inner.bytes.pop(&k) {
                inner.used -= b.len();
            }
        }
    }

    /// Bytes currently held (for tests and logs).
    pub fn used(&self) -> usize {
        self.inner.lock().used
    }
}

static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

pub use crate::transform::WRITEBACK_TMP_PREFIX as TMP_PREFIX;

/// How far a write-back must get before it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Survives a killed daemon: temp file + rename, whose result the kernel keeps whatever
    /// happens to the process. Enough for a write request (law 9 is about the daemon).
    KillSafe,
    /// Survives a power loss too: the temp file is fsynced before the rename. For fsync(2),
    /// close of a handle and the unmount.
    Synced,
}

/// Replace `path` with `bytes` atomically: a temporary file, synced, then renamed over
/// `path`. A crash leaves either the old or the new file, never a mix; the temporary is
/// removed on every error path we survive. The temporary is made in `staging` when given
/// (a directory of the daemon's own on the same filesystem, so a daemon killed mid-write
/// leaves nothing beside the original: `ViewFs::staging`), else, or when the rename there
/// crosses filesystems, in `path`'s own directory.
///
/// The one exception: a file with more than one name (a hard link) is rewritten in place,
/// since a rename would give the written name a new inode and leave the other names with the
/// old bytes. Such a write is not atomic (docs/design-notes.md).
pub fn write_atomic(
    path: &Path,
    bytes: &[u8],
    mode: u32,
    owner: Option<(u32, u32)>,
    durability: Durability,
    staging: Option<&Path>,
) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.nlink() > 1) {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(path)?;
        std::os::unix::fs::FileExt::write_all_at(&f, bytes, 0)?;
        f.set_len(bytes.len() as u64)?;
        if durability == Durability::Synced {
            f.sync_all()?;
        }
        return Ok(());
    }
    let replace = |dir: &Path| replace_from(dir, path, bytes, mode, owner, durability);
    if let Some(dir) = staging {
        match replace(dir) {
            Err(e) if e.raw_os_error() == Some(libc::EXDEV) => {}
            done => return done,
        }
    }
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
    replace(dir)
}

/// The name of this process's `n`th temporary file.
fn tmp_name(n: u64) -> String {
    format!("{TMP_PREFIX}{}.{n}", std::process::id())
}

/// Whether `name` is a temporary file of a write-back whose daemon is gone (killed in the
/// middle of it), so that nothing will rename it anywhere.
pub fn is_stale_tmp(name: &[u8]) -> bool {
    let Some(rest) = name.strip_prefix(TMP_PREFIX.as_bytes()) else {
        return false;
    };
    let pid = rest.split(|b| *b == b'.').next().unwrap_or_default();
    match std::str::from_utf8(pid)
        .ok()
        .and_then(|p| p.parse::<u32>().ok())
    {
        Some(pid) => pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists(),
        None => false,
    }
}

/// Write `bytes` to a new temporary file in `dir`, then rename it over `path`.
fn replace_from(
    dir: &Path,
    path: &Path,
    bytes: &[u8],
    mode: u32,
    owner: Option<(u32, u32)>,
    durability: Durability,
) -> io::Result<()> {
    use std::io::Write;
    let tmp = dir.join(tmp_name(TMP_COUNTER.fetch_add(1, Ordering::Relaxed)));
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)?;
        f.write_all(bytes)?;
        if let Some((uid, gid)) = owner {
            // Best effort: only root may give files away, and losing ownership is not data loss.
            let _ = std::os::unix::fs::fchown(&f, Some(uid), Some(gid));
        }
        f.set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))?;
        super::xattrs::copy_user(path, &f);
        if durability == Durability::Synced {
            f.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write-back staged elsewhere leaves nothing but the file in its directory, and a
    /// rename that would cross filesystems falls back to staging beside the file.
    #[test]
    fn a_staged_write_back_leaves_only_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let (tree, staging) = (dir.path().join("tree"), dir.path().join("staging"));
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::create_dir_all(&staging).unwrap();
        let f = tree.join("f.py");
        std::fs::write(&f, b"old").unwrap();
        write_atomic(
            &f,
            b"new",
            0o640,
            None,
            Durability::KillSafe,
            Some(&staging),
        )
        .unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"new");
        let names = |d: &Path| -> Vec<_> {
            std::fs::read_dir(d)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect()
        };
        assert_eq!(names(&tree), ["f.py"]);
        assert!(names(&staging).is_empty());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&f).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        // /dev/shm is a tmpfs apart from the temp dir's filesystem (when it is not, this
        // stages beside the file all the same).
        let shm = tempfile::tempdir_in("/dev/shm").unwrap();
        write_atomic(
            &f,
            b"newer",
            0o640,
            None,
            Durability::KillSafe,
            Some(shm.path()),
        )
        .unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"newer");
        assert_eq!(names(&tree), ["f.py"]);
        assert!(names(shm.path()).is_empty());
    }

    #[test]
    fn only_temporaries_of_dead_daemons_are_stale() {
        let own = format!("{TMP_PREFIX}{}.3", std::process::id());
        // No process has the largest pid: the kernel's limit is far below it.
        let dead = format!("{TMP_PREFIX}{}.3", u32::MAX - 1);
        assert!(!is_stale_tmp(own.as_bytes()));
        assert!(is_stale_tmp(dead.as_bytes()));
        assert!(!is_stale_tmp(format!("{TMP_PREFIX}x.3").as_bytes()));
        assert!(!is_stale_tmp(format!("a{dead}").as_bytes()));
    }

    #[test]
    fn remove_tree_forgets_exactly_the_subtree() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("f");
        std::fs::write(&f, b"x").unwrap();
        let stamp = Stamp::of(&std::fs::metadata(&f).unwrap());
        let c = ContentCache::new(1 << 20);
        let paths = ["a/b", "a/b/c", "a/b/c/d", "a/b.txt", "a/b2", "a-b"];
        for p in paths {
            c.put(Path::new(p), stamp, Arc::new(vec![0u8; 10]));
        }
        assert_eq!(c.used(), 60);
        c.remove_tree(Path::new("a/b"));
        for p in paths {
            let gone = ["a/b", "a/b/c", "a/b/c/d"].contains(&p);
            assert_eq!(c.get(Path::new(p), stamp).is_none(), gone, "{p}");
            assert_eq!(c.view_len(Path::new(p), stamp).is_none(), gone, "{p}");
        }
        assert_eq!(c.used(), 30);
    }
}
