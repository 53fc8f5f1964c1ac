//! The filesystem logic of the view, without a kernel.
//!
//! [`ViewFs`] answers inode-level requests (the shape of FUSE) with plain methods returning
//! [`FsResult`]. It guarantees:
//! - names: every view component goes through `Transform::name_to_original` and must come
//!   back as one plain component; mutations resolve the parent directory and refuse (EACCES)
//!   anything whose real location is outside the original root. Nothing is ever written
//!   outside the original root or the private scratch tree.
//! - hidden: the original's `.git`, byte-code caches and our temporaries are never listed;
//!   tool-generated caches created in the view live in `STATE/scratch/<view path>`.
//! - contents: the size reported for a file is the length of the bytes served (both come
//!   from the same stamped cache entry or the same open buffer).
//! - writes: a per-inode view buffer collects writes; flush/fsync/last release write the
//!   original atomically (temp + rename) and only then mark the buffer clean, so a failed
//!   write-back returns EIO and keeps the buffer. After a write-back the cached view is the
//!   buffer itself (read your writes).
//! - handle-less I/O (`*_ino` methods, used when the kernel stops sending OPEN/FLUSH/RELEASE,
//!   see `src/fuse.rs`): with no close to wait for, every acknowledged write is written back
//!   before it is acknowledged, so law 9 holds per write. The one exception is bounded: a
//!   full-size chunk of a file already larger than [`SYNC_WRITEBACK_MAX`] is written back by
//!   the deferred flusher (the next smaller chunk, an fsync or the unmount waits for it),
//!   because re-translating a 50 MB file once per 1 MB chunk would be quadratic. These
//!   per-write write-backs are kill-safe (temp + rename) but not fsynced; fsync(2) syncs the
//!   file, and closes of handles and the unmount write back synced
//!   ([`Durability`]).
//!
//! - tool output: names of `transform::is_tool_output` created in the view live in scratch
//!   (unless the original has them); a rename between scratch and the original copies the
//!   entry as the view shows it ([`ViewFs::rename`]) instead of failing with EXDEV.
//! - re-creation: a file removed through the view and created again (`git apply`, `git
//!   checkout -- FILE`), at the same place or, as a move, elsewhere with mostly the same
//!   lines, is written back as an edit of the removed one, so Level 3 keeps its order.
//!
//! Lock order: `writeback` -> `state` -> `cache`; transforms run outside `state`.

pub mod content;
pub mod error;
pub mod inode;
pub mod links;
#[doc(hidden)]
pub mod testing;
pub mod watch;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use parking_lot::Mutex;
use rayon::prelude::*;

use crate::transform::Transform;
pub use content::Durability;
pub use content::Stamp;
use content::{write_atomic, ContentCache};
pub use error::{FsError, FsResult};
pub use inode::ROOT_INO;
use inode::{
    is_hidden_original, is_plain_component, is_reserved_view, is_scratch_name, is_tool_output,
    Backing, Table,
};

/// Largest write the kernel sends in one request (set at mount): one write(2) of more
/// than this arrives as several full-size chunks and a last, shorter one.
pub const MAX_WRITE: u32 = 1 << 20;

/// Handle-less writes to files up to this size are written back before they are
/// acknowledged, whatever their size; above it, full-size chunks are deferred (module note).
pub const SYNC_WRITEBACK_MAX: usize = 4 << 20;

/// Default byte budget for cached view contents.
pub const DEFAULT_CACHE_BUDGET: usize = 256 << 20;

/// How long the kernel may trust entries and attributes when the original is not watched.
pub const TTL: Duration = Duration::from_secs(1);

/// How long the kernel may trust entries and attributes while [`watch::Watcher`] reports
/// every change of the original (the view itself is authoritative for everything else).
pub const LONG_TTL: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
}

impl Kind {
    fn of(ft: fs::FileType) -> Kind {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_dir() {
            Kind::Dir
        } else if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_fifo() {
            Kind::Fifo
        } else if ft.is_socket() {
            Kind::Socket
        } else if ft.is_char_device() {
            Kind::CharDevice
        } else if ft.is_block_device() {
            Kind::BlockDevice
        } else {
            Kind::File
        }
    }
}

/// Attributes of a view node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attr {
    pub ino: u64,
    pub size: u64,
    pub blocks: u64,
    pub atime: SystemTime,
    pub mtime: SystemTime,
    pub ctime: SystemTime,
    pub kind: Kind,
    pub perm: u16,
    pub nlink: u32,
    pub uid: u32,
    pub gid: u32,
    pub rdev: u32,
    pub blksize: u32,
}

/// Who asked for a new file, directory or link: it is made theirs in the original (and in
/// scratch), as on a native filesystem, so an agent running as another user than the daemon
/// can edit what it created. A daemon that is not root cannot give files away and leaves
/// them its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    pub uid: u32,
    pub gid: u32,
}

impl Caller {
    /// The daemon itself (what tests and internal callers create as).
    pub fn daemon() -> Caller {
        // SAFETY: geteuid and getegid have no preconditions and cannot fail.
        unsafe {
            Caller {
                uid: libc::geteuid(),
                gid: libc::getegid(),
            }
        }
    }

    /// Give `path` (just created, never a followed symlink) to the caller.
    fn take(self, path: &Path) -> FsResult<()> {
        let me = Caller::daemon();
        if me.uid != 0 || self == me {
            return Ok(());
        }
        std::os::unix::fs::lchown(path, Some(self.uid), Some(self.gid))
            .map_err(|e| FsError::io(format!("chown {}", path.display()), e))
    }
}

/// A time given to `setattr`.
#[derive(Debug, Clone, Copy)]
pub enum SetTime {
    Now,
    At(SystemTime),
}

/// The changes of one `setattr`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SetAttr {
    pub mode: Option<u32>,
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    pub size: Option<u64>,
    pub atime: Option<SetTime>,
    pub mtime: Option<SetTime>,
}

/// A directory entry as listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub ino: u64,
    pub kind: Kind,
    pub name: OsString,
}

/// Answer to open/create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opened {
    pub fh: u64,
    /// The kernel may keep its page cache: the content is unchanged since the last open.
    pub keep_cache: bool,
    /// Opened read-only: closing it has nothing to write back, the kernel need not ask.
    pub read_only: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct StatFs {
    pub blocks: u64,
    pub bfree: u64,
    pub bavail: u64,
    pub files: u64,
    pub ffree: u64,
    pub bsize: u32,
    pub namelen: u32,
    pub frsize: u32,
}

/// Tuning knobs.
/// Looks up the original's committed bytes of an original path (see [`Options::committed`]).
pub type Committed = Arc<dyn Fn(&Path) -> Option<Vec<u8>> + Send + Sync>;

#[derive(Clone)]
pub struct Options {
    pub cache_budget: usize,
    /// Compute every file's view in [`ViewFs::new`]. The mount turns this off and calls
    /// [`ViewFs::scan`] on a background thread once the view answers, so mounting does not
    /// wait for the transform of the whole tree (requests compute what they need first).
    pub scan_at_new: bool,
    /// Where the view is mounted: absolute symlink targets into the original are shown there.
    pub mountpoint: Option<PathBuf>,
    /// The original's committed content of a path (the base commit's blob), for files written
    /// as new: see `ViewFs::flush_ino`.
    pub committed: Option<Committed>,
    /// The shadow repository (the view's `.git`) is still being built: the root lists `.git`
    /// and every request for it waits until [`ViewFs::release_shadow`].
    pub shadow_pending: bool,
    /// Report every node as owned by this user and group (`mount --owner`): an agent that
    /// runs as another user than the one owning the checkout may then edit it, with
    /// `default_permissions` checks passing. The original keeps its owners.
    pub owner: Option<Caller>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cache_budget: DEFAULT_CACHE_BUDGET,
            scan_at_new: true,
            mountpoint: None,
            committed: None,
            shadow_pending: false,
            owner: None,
        }
    }
}

struct Buffer {
    data: Vec<u8>,
    dirty: bool,
    /// Bumped on every change, so a write-back only marks clean what it wrote.
    generation: u64,
    writers: u32,
}

impl Buffer {
    fn new(data: Vec<u8>, dirty: bool) -> Buffer {
        Buffer {
            data,
            dirty,
            generation: 0,
            writers: 0,
        }
    }

    /// Every change goes through here: dirty, and a new generation.
    fn changed(&mut self) {
        self.dirty = true;
        self.generation += 1;
    }

    /// Put `data` at `start` (see [`write_start`]), growing the buffer with zeros.
    fn write_at(&mut self, start: usize, data: &[u8]) {
        let end = start + data.len();
        if end > self.data.len() {
            self.data.resize(end, 0);
        }
        self.data[start..end].copy_from_slice(data);
        self.changed();
    }

    fn set_len(&mut self, len: usize) {
        self.data.resize(len, 0);
        self.changed();
    }
}

/// The largest size a file of the original may reach through the view. Such a file lives in
/// memory while it is open for writing (its view has to be transformed back as a whole), so a
/// `truncate -s 1T` or a write at a huge offset must be refused (EFBIG), not allowed to
/// allocate until the daemon dies.
pub const MAX_BUFFERED: usize = 1 << 30;

/// Where a write of `len` bytes at `offset` starts in a buffer, if its end is addressable and
/// within [`MAX_BUFFERED`].
fn write_start(offset: u64, len: usize) -> FsResult<usize> {
    let start = usize::try_from(offset).map_err(|_| FsError::new(libc::EFBIG, "offset"))?;
    let end = start
        .checked_add(len)
        .ok_or_else(|| FsError::new(libc::EFBIG, "offset"))?;
    if end > MAX_BUFFERED {
        return Err(FsError::new(libc::EFBIG, "offset"));
    }
    Ok(start)
}

/// A size a file of the original may be truncated to (see [`MAX_BUFFERED`]).
fn buffered_len(size: u64) -> FsResult<usize> {
    usize::try_from(size)
        .ok()
        .filter(|&l| l <= MAX_BUFFERED)
        .ok_or_else(|| FsError::new(libc::EFBIG, "size"))
}

enum Handle {
    /// A file of the original, served through the view buffer/cache.
    View {
        ino: u64,
        write: bool,
        /// For read-only handles, the view bytes at open: every read of this handle is served
        /// from one version (never a mix), without touching the original again.
        snap: Option<Arc<Vec<u8>>>,
    },
    /// A scratch file: plain I/O on the private copy.
    Direct { file: Arc<File> },
    /// A directory; its listing is taken at the first readdir (a kernel that still holds
    /// the listing in its cache never asks), then stays fixed for the handle.
    Dir {
        ino: u64,
        entries: Option<Arc<Vec<DirEntry>>>,
    },
}

struct State {
    table: Table,
    buffers: HashMap<u64, Buffer>,
    handles: HashMap<u64, Handle>,
    next_fh: u64,
    /// Listings served without a directory handle, by inode (see [`ViewFs::readdir_ino`]).
    listings: HashMap<u64, Arc<Vec<DirEntry>>>,
}

/// The view of one original tree.
/// File in the state directory holding the transform's state.
pub const TRANSFORM_STATE_FILE: &str = "layouts.json";

pub struct ViewFs {
    root: PathBuf,
    /// The original root and the mountpoint, for absolute symlink targets.
    roots: links::Roots,
    scratch: PathBuf,
    /// Where the transform's own state (Level 3 layouts) is saved after each write-back, so a
    /// remount with the same state directory reads back exactly what was written.
    transform_state: PathBuf,
    transform: Arc<dyn Transform>,
    cache: ContentCache,
    state: Mutex<State>,
    writeback: Mutex<()>,
    /// Set at unmount: a background scan stops early.
    closing: std::sync::atomic::AtomicBool,
    /// A watcher reports changes of the original (see [`ViewFs::set_watched`]).
    watched: std::sync::atomic::AtomicBool,
    /// Inodes whose handle-less writes wait for the deferred flusher.
    deferred: Mutex<std::collections::BTreeSet<u64>>,
    deferred_cv: parking_lot::Condvar,
    /// Originals of files unlinked through the view, by original path (see
    /// [`ViewFs::unlink`]): a file created again under the same name is written back as an
    /// edit of what it replaced.
    unlinked: Mutex<std::collections::VecDeque<(PathBuf, Vec<u8>)>>,
    committed: Option<Committed>,
    owner: Option<Caller>,
    /// True while the shadow repository is being built (see [`Options::shadow_pending`]).
    shadow_pending: Mutex<bool>,
    shadow_cv: parking_lot::Condvar,
}

/// The longest name a directory entry may have, as on Linux's native filesystems.
pub const NAME_MAX: usize = 255;

/// How many unlinked originals are remembered, and up to what size.
const UNLINKED_KEPT: usize = 64;
const UNLINKED_MAX_BYTES: u64 = 4 << 20;

fn to_time(secs: i64, nsecs: i64) -> SystemTime {
    let nsecs = nsecs.clamp(0, 999_999_999) as u32;
    if secs >= 0 {
        SystemTime::UNIX_EPOCH + Duration::new(secs as u64, nsecs)
    } else {
        SystemTime::UNIX_EPOCH - Duration::from_secs(secs.unsigned_abs()) + Duration::new(0, nsecs)
    }
}

fn attr_from(ino: u64, m: &Metadata, size: u64) -> Attr {
    Attr {
        ino,
        size,
        blocks: size.div_ceil(512),
        atime: to_time(m.atime(), m.atime_nsec()),
        mtime: to_time(m.mtime(), m.mtime_nsec()),
        ctime: to_time(m.ctime(), m.ctime_nsec()),
        kind: Kind::of(m.file_type()),
        perm: (m.mode() & 0o7777) as u16,
        nlink: m.nlink() as u32,
        uid: m.uid(),
        gid: m.gid(),
        rdev: m.rdev() as u32,
        blksize: 4096,
    }
}

impl ViewFs {
    /// Build the view of `original`, keeping private files under `state`, and compute the
    /// view of every regular file once, in parallel.
    pub fn new(
        original: &Path,
        state: &Path,
        transform: Arc<dyn Transform>,
        options: Options,
    ) -> FsResult<ViewFs> {
        let root = original
            .canonicalize()
            .map_err(|e| FsError::io(format!("original {}", original.display()), e))?;
        let scratch = state.join("scratch");
        fs::create_dir_all(&scratch)
            .map_err(|e| FsError::io(format!("scratch {}", scratch.display()), e))?;
        let scratch = scratch
            .canonicalize()
            .map_err(|e| FsError::io(format!("scratch {}", scratch.display()), e))?;
        let fs = ViewFs {
            committed: options.committed.clone(),
            owner: options.owner,
            roots: links::Roots {
                original: root.clone(),
                view: options.mountpoint.clone(),
            },
            root,
            transform_state: state.join(TRANSFORM_STATE_FILE),
            scratch,
            transform,
            cache: ContentCache::new(options.cache_budget),
            state: Mutex::new(State {
                table: Table::new(),
                buffers: HashMap::new(),
                handles: HashMap::new(),
                next_fh: 1,
                listings: HashMap::new(),
            }),
            writeback: Mutex::new(()),
            closing: std::sync::atomic::AtomicBool::new(false),
            watched: std::sync::atomic::AtomicBool::new(false),
            deferred: Mutex::new(std::collections::BTreeSet::new()),
            deferred_cv: parking_lot::Condvar::new(),
            unlinked: Mutex::new(std::collections::VecDeque::new()),
            shadow_pending: Mutex::new(options.shadow_pending),
            shadow_cv: parking_lot::Condvar::new(),
        };
        if options.scan_at_new {
            fs.scan();
        }
        Ok(fs)
    }

    /// The canonical original root.
    pub fn original_root(&self) -> &Path {
        &self.root
    }

    /// Stop the background work at unmount: a running [`ViewFs::scan`] ends early and the
    /// deferred flusher returns (what it had not written back, the unmount flush writes).
    pub fn stop_background(&self) {
        self.closing
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.shadow_cv.notify_all();
        // Under the lock the flusher checks `closing` with, so the wake-up cannot be missed.
        let _d = self.deferred.lock();
        self.deferred_cv.notify_all();
    }

    /// The shadow repository is in place (or could not be built): requests for `.git` go on.
    pub fn release_shadow(&self) {
        *self.shadow_pending.lock() = false;
        self.shadow_cv.notify_all();
    }

    /// Wait while the shadow repository is being built (never past the unmount).
    fn wait_shadow(&self) {
        let mut pending = self.shadow_pending.lock();
        while *pending && !self.closing.load(std::sync::atomic::Ordering::SeqCst) {
            self.shadow_cv
                .wait_for(&mut pending, Duration::from_millis(200));
        }
    }

    /// Cache the view of original file `rel`, rendered elsewhere from the bytes that `m`
    /// describes (the shadow repository renders every unchanged file once; the scan and the
    /// first `git status` then find them ready).
    pub fn prime(&self, rel: &Path, m: &Metadata, view: Arc<Vec<u8>>) {
        self.cache.put(rel, Stamp::of(m), view);
    }

    /// Compute (and cache) the view of every regular file of the original, in parallel.
    pub fn scan(&self) {
        let start = std::time::Instant::now();
        let mut files = Vec::new();
        let mut dirs = vec![PathBuf::new()];
        while let Some(d) = dirs.pop() {
            let Ok(rd) = fs::read_dir(self.root.join(&d)) else {
                continue;
            };
            for e in rd.flatten() {
                let name = e.file_name();
                if is_hidden_original(&name) {
                    continue;
                }
                let Ok(ft) = e.file_type() else { continue };
                if ft.is_dir() {
                    dirs.push(d.join(&name));
                } else if ft.is_file() {
                    files.push(d.join(&name));
                }
            }
        }
        files.par_iter().for_each(|rel| {
            if self.closing.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if let Err(e) = self.view_bytes(rel) {
                tracing::warn!("scan {}: {e}", rel.display());
            }
        });
        tracing::info!(
            files = files.len(),
            cached = self.cache.used(),
            elapsed = ?start.elapsed(),
            "scan done"
        );
    }

    // ---------------------------------------------------------------- change notifications

    /// The view path of original path `rel`, when every component has a view name.
    fn view_of_original(&self, rel: &Path) -> Option<PathBuf> {
        inode::view_path(self.transform.as_ref(), rel)
    }

    /// What the kernel must forget after original path `rel` changed behind the view.
    pub fn invalidations(&self, rel: &Path, change: watch::Change) -> Vec<watch::Inval> {
        let Some(view) = self.view_of_original(rel) else {
            return Vec::new();
        };
        let mut st = self.state.lock();
        st.table.distrust(&view, change.dir);
        let mut out = Vec::new();
        if let Some(ino) = st.table.ino_of(&view) {
            out.push(watch::Inval::Inode(ino));
        }
        if change.entry {
            if let (Some(parent), Some(name)) = (view.parent(), view.file_name()) {
                if let Some(pino) = st.table.ino_of(parent) {
                    out.push(watch::Inval::Inode(pino));
                    // Gone: the dentry. Created: a cached negative entry of that name.
                    out.push(watch::Inval::Entry(pino, name.to_os_string()));
                }
            }
        }
        out
    }

    /// From now on, read-only opens trust the watcher: see [`inode::Node::trusted`].
    pub fn set_watched(&self) {
        self.watched
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    /// Forget every verification (the watcher lost events).
    pub fn distrust_all(&self) {
        self.state.lock().table.distrust(Path::new(""), true);
    }

    /// Every inode number handed out so far (to invalidate everything).
    pub fn all_inodes(&self) -> Vec<u64> {
        self.state.lock().table.inodes()
    }

    // ---------------------------------------------------------------- transform guards

    fn to_view_content(&self, rel: &Path, bytes: &[u8]) -> FsResult<Vec<u8>> {
        catch_unwind(AssertUnwindSafe(|| {
            self.transform.content_to_view(rel, bytes)
        }))
        .map_err(|_| {
            FsError::new(
                libc::EIO,
                format!("content_to_view panicked on {}", rel.display()),
            )
        })
    }

    fn to_original_content(
        &self,
        rel: &Path,
        view: &[u8],
        base: Option<&[u8]>,
    ) -> FsResult<Vec<u8>> {
        catch_unwind(AssertUnwindSafe(|| {
            self.transform.content_to_original(rel, view, base)
        }))
        .map_err(|_| {
            FsError::new(
                libc::EIO,
                format!("content_to_original panicked on {}", rel.display()),
            )
        })
    }

    fn to_original_name(&self, name: &OsStr) -> FsResult<OsString> {
        inode::original_name(self.transform.as_ref(), name)
    }

    fn to_view_name(&self, name: &OsStr) -> Option<OsString> {
        inode::view_name(self.transform.as_ref(), name)
    }

    // ---------------------------------------------------------------- paths

    fn disk(&self, b: &Backing) -> PathBuf {
        match b {
            Backing::Original(p) => self.root.join(p),
            Backing::Scratch(p) => self.scratch.join(p),
        }
    }

    /// The backing of child `name` of a directory backed by `parent`.
    fn child_backing(&self, parent: &Backing, name: &OsStr) -> FsResult<Backing> {
        if !is_plain_component(name) {
            return Err(FsError::new(libc::EINVAL, "not a plain name"));
        }
        match parent {
            Backing::Scratch(_) => Ok(parent.join(name)),
            Backing::Original(_) if is_reserved_view(name) => {
                Err(FsError::new(libc::EACCES, "reserved name"))
            }
            Backing::Original(_) => Ok(parent.join(&self.to_original_name(name)?)),
        }
    }

    fn node(&self, ino: u64) -> FsResult<(PathBuf, Backing)> {
        let st = self.state.lock();
        let n = st.table.get(ino).ok_or_else(FsError::noent)?;
        if n.unlinked {
            return Err(FsError::noent());
        }
        Ok((n.view.clone(), n.backing.clone()))
    }

    /// View path and backing of child `name` of directory `parent`.
    fn child(&self, parent: u64, name: &OsStr) -> FsResult<(PathBuf, Backing)> {
        if parent == ROOT_INO && name == inode::SHADOW_GIT {
            self.wait_shadow();
        }
        let (pview, pback) = self.node(parent)?;
        // FUSE passes names up to 1024 bytes; native filesystems refuse more than 255.
        if name.len() > NAME_MAX {
            return Err(FsError::new(
                libc::ENAMETOOLONG,
                "name longer than 255 bytes",
            ));
        }
        if !is_plain_component(name) {
            return Err(FsError::new(libc::EINVAL, "not a plain name"));
        }
        let view = pview.join(name);
        let back = self.route(&pback, &view, name)?;
        Ok((view, back))
    }

    /// The backing of view entry `view` (named `name`) in a directory backed by `parent`.
    /// Tool output goes to scratch (`inode::is_tool_output`), except an entry the original
    /// already has and the view shows (an existing `build/` or `*.egg-info`).
    fn route(&self, parent: &Backing, view: &Path, name: &OsStr) -> FsResult<Backing> {
        if let Backing::Original(_) = parent {
            // Scratch names (byte-code caches, the view's `.git`) always live in scratch;
            // other tool output only when the original has no entry of that name.
            if !is_reserved_view(name)
                && (is_scratch_name(name)
                    || (is_tool_output(name)
                        && !self
                            .child_backing(parent, name)
                            .is_ok_and(|b| fs::symlink_metadata(self.disk(&b)).is_ok())))
            {
                return Ok(Backing::Scratch(view.to_path_buf()));
            }
        }
        self.child_backing(parent, name)
    }

    /// Where a mutation of `b` really happens: the parent directory resolved, and refused
    /// unless it stays inside its root. The last component is never followed.
    fn safe_path(&self, b: &Backing) -> FsResult<PathBuf> {
        let (base, rel) = match b {
            Backing::Original(p) => (&self.root, p),
            Backing::Scratch(p) => (&self.scratch, p),
        };
        let Some(name) = rel.file_name() else {
            return Ok(base.clone());
        };
        let parent = base.join(rel.parent().unwrap_or(Path::new("")));
        let canon = parent
            .canonicalize()
            .map_err(|e| FsError::io(format!("resolve {}", parent.display()), e))?;
        if !canon.starts_with(base) {
            return Err(FsError::new(
                libc::EACCES,
                format!("{} leaves its root", parent.display()),
            ));
        }
        Ok(canon.join(name))
    }

    // ---------------------------------------------------------------- contents

    /// View bytes of original file `rel`, from the cache when the original is unchanged.
    fn view_bytes(&self, rel: &Path) -> FsResult<(Arc<Vec<u8>>, Stamp)> {
        let path = self.root.join(rel);
        let mut f = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| FsError::io(format!("open {}", path.display()), e))?;
        let m = f
            .metadata()
            .map_err(|e| FsError::io(format!("stat {}", path.display()), e))?;
        let stamp = Stamp::of(&m);
        if let Some(b) = self.cache.get(rel, stamp) {
            return Ok((b, stamp));
        }
        // The size is a hint only (a sparse file may claim a terabyte); reading grows the
        // buffer as the bytes actually arrive.
        let hint = usize::try_from(m.len())
            .unwrap_or(usize::MAX)
            .min(MAX_BUFFERED);
        let mut raw = Vec::with_capacity(hint);
        f.read_to_end(&mut raw)
            .map_err(|e| FsError::io(format!("read {}", path.display()), e))?;
        // Stamp again after reading: a writer racing us must not get its half-written state
        // cached under the final stamp.
        let after = f.metadata().map(|m| Stamp::of(&m)).ok();
        let view = Arc::new(self.to_view_content(rel, &raw)?);
        if after == Some(stamp) {
            self.cache.put(rel, stamp, view.clone());
        }
        Ok((view, stamp))
    }

    fn view_len(&self, rel: &Path, m: &Metadata) -> FsResult<u64> {
        if let Some(n) = self.cache.view_len(rel, Stamp::of(m)) {
            return Ok(n);
        }
        Ok(self.view_bytes(rel)?.0.len() as u64)
    }

    fn attr_of(&self, ino: u64, b: &Backing) -> FsResult<Attr> {
        let mut a = self.disk_attr(ino, b)?;
        if let Some(o) = self.owner {
            a.uid = o.uid;
            a.gid = o.gid;
        }
        Ok(a)
    }

    fn disk_attr(&self, ino: u64, b: &Backing) -> FsResult<Attr> {
        let path = self.disk(b);
        let m = fs::symlink_metadata(&path)
            .map_err(|e| FsError::io(format!("stat {}", path.display()), e))?;
        if m.file_type().is_symlink() {
            // The size of a link is the length of the target the view serves.
            let size = match (b, fs::read_link(&path)) {
                (Backing::Original(_), Ok(t)) => self.link_to_view(t.as_os_str().as_bytes()).len(),
                _ => m.len() as usize,
            };
            return Ok(attr_from(ino, &m, size as u64));
        }
        if !m.is_file() {
            return Ok(attr_from(ino, &m, m.len()));
        }
        if let Some(buf) = self.state.lock().buffers.get(&ino) {
            return Ok(attr_from(ino, &m, buf.data.len() as u64));
        }
        let size = match b {
            Backing::Original(rel) => self.view_len(rel, &m)?,
            Backing::Scratch(_) => m.len(),
        };
        Ok(attr_from(ino, &m, size))
    }

    // ---------------------------------------------------------------- namespace

    pub fn lookup(&self, parent: u64, name: &OsStr) -> FsResult<Attr> {
        let (view, back) = self.child(parent, name).map_err(|e| {
            if e.errno == libc::EACCES || e.errno == libc::EINVAL {
                // Hidden and untranslatable names simply do not exist in the view.
                FsError::new(libc::ENOENT, e.msg)
            } else {
                e
            }
        })?;
        let path = self.disk(&back);
        if let Err(e) = fs::symlink_metadata(&path) {
            return Err(FsError::io(format!("lookup {}", path.display()), e));
        }
        let ino = self.state.lock().table.intern(view, back.clone());
        self.attr_of(ino, &back)
    }

    /// Look a view-relative path up from the root (convenience for tests and tools).
    pub fn lookup_path(&self, view: &Path) -> FsResult<Attr> {
        let mut attr = self.getattr(ROOT_INO)?;
        for c in view.components() {
            attr = self.lookup(attr.ino, c.as_os_str())?;
        }
        Ok(attr)
    }

    pub fn getattr(&self, ino: u64) -> FsResult<Attr> {
        let (_, back) = self.node(ino)?;
        self.attr_of(ino, &back)
    }

    pub fn readlink(&self, ino: u64) -> FsResult<Vec<u8>> {
        let (_, back) = self.node(ino)?;
        let path = self.disk(&back);
        let t = fs::read_link(&path)
            .map_err(|e| FsError::io(format!("readlink {}", path.display()), e))?;
        let t = t.into_os_string().into_vec_bytes();
        Ok(match back {
            Backing::Original(_) => self.link_to_view(&t),
            Backing::Scratch(_) => t,
        })
    }

    fn link_to_view(&self, target: &[u8]) -> Vec<u8> {
        links::to_view(self.transform.as_ref(), target, &self.roots)
    }

    fn new_entry(&self, view: PathBuf, back: Backing) -> FsResult<Attr> {
        let ino = self.state.lock().table.intern(view, back.clone());
        self.attr_of(ino, &back)
    }

    /// Make sure a scratch directory's parents exist (they mirror view directories).
    fn prepare(&self, back: &Backing) -> FsResult<()> {
        if let Backing::Scratch(p) = back {
            if let Some(parent) = p.parent() {
                let d = self.scratch.join(parent);
                fs::create_dir_all(&d)
                    .map_err(|e| FsError::io(format!("mkdir {}", d.display()), e))?;
            }
        }
        Ok(())
    }

    pub fn mkdir(
        &self,
        parent: u64,
        name: &OsStr,
        mode: u32,
        umask: u32,
        who: Caller,
    ) -> FsResult<Attr> {
        let (view, back) = self.child(parent, name)?;
        self.prepare(&back)?;
        let path = self.safe_path(&back)?;
        fs::create_dir(&path).map_err(|e| FsError::io(format!("mkdir {}", path.display()), e))?;
        let _ = fs::set_permissions(&path, fs::Permissions::from_mode(mode & !umask & 0o7777));
        who.take(&path)?;
        self.new_entry(view, back)
    }

    /// A FIFO, a unix socket or an empty regular file, made in the original (or scratch)
    /// under the translated name. Device nodes are refused with EPERM: a view has no
    /// business with devices, and a device file in a checkout would be one in the original.
    pub fn mknod(
        &self,
        parent: u64,
        name: &OsStr,
        mode: u32,
        umask: u32,
        who: Caller,
    ) -> FsResult<Attr> {
        let kind = mode & libc::S_IFMT;
        if !matches!(kind, libc::S_IFIFO | libc::S_IFSOCK | libc::S_IFREG) {
            return Err(FsError::new(
                libc::EPERM,
                "device nodes are not made through the view",
            ));
        }
        let (view, back) = self.child(parent, name)?;
        self.prepare(&back)?;
        let path = self.safe_path(&back)?;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| FsError::new(libc::EINVAL, "name with a NUL byte"))?;
        let perm = mode & !umask & 0o7777;
        // SAFETY: `c` is a valid NUL-terminated path; no device number is passed.
        if unsafe { libc::mknod(c.as_ptr(), kind | perm, 0) } != 0 {
            let e = io::Error::last_os_error();
            return Err(FsError::io(format!("mknod {}", path.display()), e));
        }
        // The daemon's umask is not the caller's.
        let _ = fs::set_permissions(&path, fs::Permissions::from_mode(perm));
        who.take(&path)?;
        self.new_entry(view, back)
    }

    pub fn symlink(&self, parent: u64, name: &OsStr, target: &Path, who: Caller) -> FsResult<Attr> {
        let (view, back) = self.child(parent, name)?;
        self.prepare(&back)?;
        let path = self.safe_path(&back)?;
        let target: PathBuf = match back {
            Backing::Original(_) => PathBuf::from(
                <OsString as std::os::unix::ffi::OsStringExt>::from_vec(links::to_original(
                    self.transform.as_ref(),
                    target.as_os_str().as_bytes(),
                    &self.roots,
                )),
            ),
            Backing::Scratch(_) => target.to_path_buf(),
        };
        std::os::unix::fs::symlink(&target, &path)
            .map_err(|e| FsError::io(format!("symlink {}", path.display()), e))?;
        who.take(&path)?;
        self.new_entry(view, back)
    }

    pub fn unlink(&self, parent: u64, name: &OsStr) -> FsResult<()> {
        let (view, back) = self.child(parent, name)?;
        let path = self.safe_path(&back)?;
        let m = fs::symlink_metadata(&path)
            .map_err(|e| FsError::io(format!("unlink {}", path.display()), e))?;
        if m.is_dir() {
            return Err(FsError::new(libc::EISDIR, "unlink of a directory"));
        }
        // Tools that rewrite a file by removing it and creating it again (`git apply`, `git
        // checkout -- FILE`) make an edit, not a new file: keep what it was, so the write-back
        // of the new file is inverted against it (with Level 3, in the original's order).
        let old = match &back {
            Backing::Original(rel) if m.is_file() && m.len() <= UNLINKED_MAX_BYTES => {
                fs::read(&path).ok().map(|b| (rel.clone(), b))
            }
            _ => None,
        };
        fs::remove_file(&path).map_err(|e| FsError::io(format!("unlink {}", path.display()), e))?;
        if let Some((rel, bytes)) = old {
            self.remember_removed(&rel, bytes);
        }
        self.state.lock().table.remove(&view);
        Ok(())
    }

    pub fn rmdir(&self, parent: u64, name: &OsStr) -> FsResult<()> {
        let (view, back) = self.child(parent, name)?;
        let path = self.safe_path(&back)?;
        let m = fs::symlink_metadata(&path)
            .map_err(|e| FsError::io(format!("rmdir {}", path.display()), e))?;
        if !m.is_dir() {
            return Err(FsError::new(libc::ENOTDIR, "rmdir of a non-directory"));
        }
        if let Backing::Original(_) = back {
            // The view shows the directory empty when it only holds hidden byte-code caches;
            // those are disposable, so rmdir must succeed as it would on the view.
            // Tool output the view lists in it lives in scratch and makes it non-empty too.
            if let Ok(rd) = fs::read_dir(self.scratch.join(&view)) {
                if rd.flatten().any(|e| is_tool_output(&e.file_name())) {
                    return Err(FsError::new(libc::ENOTEMPTY, "directory not empty"));
                }
            }
            let rd = fs::read_dir(&path)
                .map_err(|e| FsError::io(format!("rmdir {}", path.display()), e))?;
            let mut caches = Vec::new();
            for e in rd.flatten() {
                let n = e.file_name();
                if n.as_bytes() == b".git" || !is_hidden_original(&n) {
                    return Err(FsError::new(libc::ENOTEMPTY, "directory not empty"));
                }
                caches.push(e.path());
            }
            for c in caches {
                let _ = if c.is_dir() {
                    fs::remove_dir_all(&c)
                } else {
                    fs::remove_file(&c)
                };
            }
            let _ = fs::remove_dir_all(self.scratch.join(&view));
        }
        fs::remove_dir(&path).map_err(|e| FsError::io(format!("rmdir {}", path.display()), e))?;
        self.state.lock().table.remove(&view);
        Ok(())
    }

    /// `flags` are renameat2 flags (RENAME_NOREPLACE honoured, RENAME_EXCHANGE refused).
    pub fn rename(
        &self,
        parent: u64,
        name: &OsStr,
        newparent: u64,
        newname: &OsStr,
        flags: u32,
    ) -> FsResult<()> {
        if flags & !libc::RENAME_NOREPLACE != 0 {
            return Err(FsError::new(libc::EINVAL, "unsupported rename flags"));
        }
        let (from_view, from_back) = self.child(parent, name)?;
        let (to_view, to_back) = self.child(newparent, newname)?;
        if to_view.starts_with(&from_view) && to_view != from_view {
            return Err(FsError::new(libc::EINVAL, "rename into itself"));
        }
        if std::mem::discriminant(&from_back) != std::mem::discriminant(&to_back) {
            return self.rename_across(&from_view, &from_back, &to_view, &to_back, flags);
        }
        let _wb = self.writeback.lock();
        self.prepare(&to_back)?;
        let from = self.safe_path(&from_back)?;
        let to = self.safe_path(&to_back)?;
        let from_meta = fs::symlink_metadata(&from)
            .map_err(|e| FsError::io(format!("rename {}", from.display()), e))?;
        if flags & libc::RENAME_NOREPLACE != 0 && fs::symlink_metadata(&to).is_ok() {
            return Err(FsError::new(libc::EEXIST, "target exists"));
        }
        // Keep what the view showed for a renamed file: contents are transformed by path, so
        // the original is re-derived from the same view bytes under its new name (law 2).
        let carried = match (&from_back, from_meta.is_file()) {
            (Backing::Original(rel), true) => Some(self.view_bytes(rel)?.0),
            _ => None,
        };
        let replaced = match fs::symlink_metadata(&to) {
            Ok(m) if m.is_file() && carried.is_some() => fs::read(&to).ok(),
            _ => None,
        };
        fs::rename(&from, &to).map_err(|e| FsError::io(format!("rename {}", from.display()), e))?;
        if let (Backing::Original(f), Backing::Original(t), None) =
            (&from_back, &to_back, &replaced)
        {
            let _ = catch_unwind(AssertUnwindSafe(|| self.transform.renamed(f, t)));
        }
        {
            let mut st = self.state.lock();
            if to_view != from_view {
                st.table.remove(&to_view);
            }
            st.table.rename(&from_view, &to_view, &to_back);
        }
        if let Backing::Original(p) = &from_back {
            self.cache.remove_tree(p);
        }
        if let Backing::Original(p) = &to_back {
            self.cache.remove_tree(p);
            if let Some(view) = carried {
                self.rederive(p, &to, &view, replaced)?;
            }
            if from_meta.is_dir() {
                let old = self.scratch.join(&from_view);
                if old.exists() {
                    let new = self.scratch.join(&to_view);
                    if let Some(pp) = new.parent() {
                        let _ = fs::create_dir_all(pp);
                    }
                    let _ = fs::remove_dir_all(&new);
                    let _ = fs::rename(&old, &new);
                }
            }
        }
        Ok(())
    }

    /// A rename between the scratch tree and the original (pytest makes its cache as a
    /// temporary directory, then renames it into place; `mv htmlcov report`). The two are
    /// different stores, so the entry is copied as the view shows it (names and contents
    /// through the transform, each child routed as a new entry would be), then the source is
    /// removed. Not atomic as a whole: each file is written atomically, and a failure leaves
    /// the source in place.
    fn rename_across(
        &self,
        from_view: &Path,
        from_back: &Backing,
        to_view: &Path,
        to_back: &Backing,
        flags: u32,
    ) -> FsResult<()> {
        let _wb = self.writeback.lock();
        self.prepare(to_back)?;
        let from = self.safe_path(from_back)?;
        let to = self.safe_path(to_back)?;
        let from_meta = fs::symlink_metadata(&from)
            .map_err(|e| FsError::io(format!("rename {}", from.display()), e))?;
        let mut replaced = None;
        match fs::symlink_metadata(&to) {
            Ok(_) if flags & libc::RENAME_NOREPLACE != 0 => {
                return Err(FsError::new(libc::EEXIST, "target exists"))
            }
            Ok(m) if m.is_dir() => {
                if !from_meta.is_dir() {
                    return Err(FsError::new(libc::EISDIR, "rename over a directory"));
                }
                let empty = self.list_dir_names(to_view, to_back)?.is_empty();
                if !empty {
                    return Err(FsError::new(libc::ENOTEMPTY, "target directory not empty"));
                }
                fs::remove_dir(&to)
                    .map_err(|e| FsError::io(format!("rename {}", to.display()), e))?;
            }
            Ok(m) => {
                if from_meta.is_dir() {
                    return Err(FsError::new(
                        libc::ENOTDIR,
                        "rename a directory over a file",
                    ));
                }
                // An editor's save: the file it replaces is the base of the inverse.
                replaced = fs::read(&to).ok().filter(|_| m.is_file());
            }
            Err(_) => {}
        }
        let mut moved = Vec::new();
        self.copy_view_entry(from_view, from_back, to_view, to_back, replaced, &mut moved)?;
        self.remove_entry(from_back, from_view, from_meta.is_dir())?;
        let mut st = self.state.lock();
        st.table.remove(to_view);
        st.table.rename(from_view, to_view, to_back);
        for (view, back) in moved {
            if let Some(ino) = st.table.ino_of(&view) {
                if let Some(n) = st.table.get_mut(ino) {
                    n.backing = back;
                }
            }
        }
        drop(st);
        for b in [from_back, to_back] {
            if let Backing::Original(p) = b {
                self.cache.remove_tree(p);
            }
        }
        Ok(())
    }

    /// The names the view lists in directory `view` (backed by `back`), `.` and `..` left out.
    fn list_dir_names(&self, view: &Path, back: &Backing) -> FsResult<Vec<(OsString, Backing)>> {
        let path = self.disk(back);
        let mut out = Vec::new();
        let rd = fs::read_dir(&path)
            .map_err(|e| FsError::io(format!("opendir {}", path.display()), e))?;
        for e in rd.flatten() {
            let n = e.file_name();
            match back {
                Backing::Scratch(_) => out.push((n.clone(), back.join(&n))),
                Backing::Original(_) => {
                    if is_hidden_original(&n) {
                        continue;
                    }
                    if let Some(v) = self.to_view_name(&n) {
                        out.push((v, back.join(&n)));
                    }
                }
            }
        }
        if let Backing::Original(_) = back {
            if let Ok(rd) = fs::read_dir(self.scratch.join(view)) {
                for e in rd.flatten() {
                    let n = e.file_name();
                    if is_tool_output(&n) && !out.iter().any(|(v, _)| *v == n) {
                        out.push((n.clone(), Backing::Scratch(view.join(&n))));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Copy the view entry at `from_view` to `to_view` (backed by `to`), recursively, as the
    /// view shows it. Records the backing of every entry created below the top in `moved`.
    fn copy_view_entry(
        &self,
        from_view: &Path,
        from: &Backing,
        to_view: &Path,
        to: &Backing,
        replaced: Option<Vec<u8>>,
        moved: &mut Vec<(PathBuf, Backing)>,
    ) -> FsResult<()> {
        let src = self.safe_path(from)?;
        let dst = self.safe_path(to)?;
        let m = fs::symlink_metadata(&src)
            .map_err(|e| FsError::io(format!("rename {}", src.display()), e))?;
        let ft = m.file_type();
        if ft.is_dir() {
            fs::create_dir(&dst).map_err(|e| FsError::io(format!("mkdir {}", dst.display()), e))?;
            let _ = fs::set_permissions(&dst, fs::Permissions::from_mode(m.mode() & 0o7777));
            for (name, child_from) in self.list_dir_names(from_view, from)? {
                let child_view = to_view.join(&name);
                let child_to = self.route(to, &child_view, &name)?;
                self.prepare(&child_to)?;
                self.copy_view_entry(
                    &from_view.join(&name),
                    &child_from,
                    &child_view,
                    &child_to,
                    None,
                    moved,
                )?;
                moved.push((child_view, child_to));
            }
        } else if ft.is_symlink() {
            let t = fs::read_link(&src)
                .map_err(|e| FsError::io(format!("readlink {}", src.display()), e))?;
            let mut t = t.into_os_string().into_vec_bytes();
            if let Backing::Original(_) = from {
                t = self.link_to_view(&t);
            }
            if let Backing::Original(_) = to {
                t = links::to_original(self.transform.as_ref(), &t, &self.roots);
            }
            std::os::unix::fs::symlink(OsStr::from_bytes(&t), &dst)
                .map_err(|e| FsError::io(format!("symlink {}", dst.display()), e))?;
        } else if ft.is_file() {
            let view = match from {
                Backing::Original(rel) => self.view_bytes(rel)?.0.to_vec(),
                Backing::Scratch(_) => {
                    fs::read(&src).map_err(|e| FsError::io(format!("read {}", src.display()), e))?
                }
            };
            let bytes = match to {
                Backing::Original(rel) => {
                    self.to_original_content(rel, &view, replaced.as_deref())?
                }
                Backing::Scratch(_) => view,
            };
            write_atomic(&dst, &bytes, m.mode(), None, Durability::KillSafe)
                .map_err(|e| FsError::eio(format!("write {}", dst.display()), e))?;
            if let Backing::Original(_) = to {
                self.persist_transform_state(Durability::KillSafe);
            }
        } else {
            return Err(FsError::new(
                libc::EXDEV,
                "special file moved between original and scratch",
            ));
        }
        Ok(())
    }

    /// Remove the entry behind `back` (and, for an original directory, its scratch mirror).
    fn remove_entry(&self, back: &Backing, view: &Path, dir: bool) -> FsResult<()> {
        let path = self.safe_path(back)?;
        let r = if dir {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        r.map_err(|e| FsError::io(format!("remove {}", path.display()), e))?;
        if let (Backing::Original(_), true) = (back, dir) {
            let _ = fs::remove_dir_all(self.scratch.join(view));
        }
        Ok(())
    }

    /// Save the transform's state next to the scratch tree (atomically; a failure is logged,
    /// never fatal: the original is already written).
    fn persist_transform_state(&self, durability: Durability) {
        if let Some(bytes) = self.transform.save_state() {
            if let Err(e) = write_atomic(&self.transform_state, &bytes, 0o600, None, durability) {
                tracing::warn!("saving {}: {e}", self.transform_state.display());
            }
        }
    }

    /// Make original `rel` (at `path`) the inverse of `view` under its current name. `replaced`
    /// is the original that the rename replaced, if any: an editor's save (temp file, then
    /// rename over) is an edit of that file, so it is the base of the inverse.
    fn rederive(
        &self,
        rel: &Path,
        path: &Path,
        view: &Arc<Vec<u8>>,
        replaced: Option<Vec<u8>>,
    ) -> FsResult<()> {
        let m = fs::symlink_metadata(path)
            .map_err(|e| FsError::io(format!("stat {}", path.display()), e))?;
        let current =
            fs::read(path).map_err(|e| FsError::io(format!("read {}", path.display()), e))?;
        let base = replaced.unwrap_or_else(|| current.clone());
        let orig = self.to_original_content(rel, view, Some(&base))?;
        if orig != current {
            write_atomic(
                path,
                &orig,
                m.mode(),
                Some((m.uid(), m.gid())),
                // Like a rename on a native disk: atomic, durable once the caller fsyncs.
                Durability::KillSafe,
            )
            .map_err(|e| FsError::eio(format!("write {}", path.display()), e))?;
        }
        self.persist_transform_state(Durability::KillSafe);
        let m = fs::symlink_metadata(path)
            .map_err(|e| FsError::io(format!("stat {}", path.display()), e))?;
        self.cache.put(rel, Stamp::of(&m), view.clone());
        Ok(())
    }

    // ---------------------------------------------------------------- directories

    /// Ok when `ino` is a directory that can be listed.
    pub fn check_dir(&self, ino: u64) -> FsResult<()> {
        let (_, back) = self.node(ino)?;
        let path = self.disk(&back);
        let m = fs::metadata(&path)
            .map_err(|e| FsError::io(format!("opendir {}", path.display()), e))?;
        if !m.is_dir() {
            return Err(FsError::new(libc::ENOTDIR, "opendir of a non-directory"));
        }
        Ok(())
    }

    pub fn opendir(&self, ino: u64) -> FsResult<u64> {
        self.check_dir(ino)?;
        let mut st = self.state.lock();
        let fh = st.next_fh;
        st.next_fh += 1;
        st.handles.insert(fh, Handle::Dir { ino, entries: None });
        Ok(fh)
    }

    /// The listing of directory `ino`: `.`, `..`, then view names in byte order.
    fn list_dir(&self, ino: u64) -> FsResult<Vec<DirEntry>> {
        let (view, back) = self.node(ino)?;
        let path = self.disk(&back);
        let mut names: Vec<(OsString, Backing, Kind)> = Vec::new();
        let rd = fs::read_dir(&path)
            .map_err(|e| FsError::io(format!("opendir {}", path.display()), e))?;
        for e in rd.flatten() {
            let orig = e.file_name();
            let kind = e.file_type().map(Kind::of).unwrap_or(Kind::File);
            match &back {
                Backing::Scratch(_) => names.push((orig.clone(), back.join(&orig), kind)),
                Backing::Original(_) => {
                    if is_hidden_original(&orig) {
                        continue;
                    }
                    if let Some(v) = self.to_view_name(&orig) {
                        names.push((v, back.join(&orig), kind));
                    }
                }
            }
        }
        if let Backing::Original(_) = back {
            if let Ok(rd) = fs::read_dir(self.scratch.join(&view)) {
                for e in rd.flatten() {
                    let n = e.file_name();
                    if is_scratch_name(&n) || is_tool_output(&n) {
                        let kind = e.file_type().map(Kind::of).unwrap_or(Kind::File);
                        names.push((n.clone(), Backing::Scratch(view.join(&n)), kind));
                    }
                }
            }
        }
        if ino == ROOT_INO && *self.shadow_pending.lock() {
            // Listed while it is being built; looking it up waits for it.
            let git = OsString::from(inode::SHADOW_GIT);
            names.push((
                git.clone(),
                Backing::Scratch(PathBuf::from(&git)),
                Kind::Dir,
            ));
        }
        names.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        names.dedup_by(|a, b| a.0 == b.0);
        let mut st = self.state.lock();
        let parent_ino = view
            .parent()
            .and_then(|p| st.table.ino_of(p))
            .unwrap_or(ROOT_INO);
        let mut entries = vec![
            DirEntry {
                ino,
                kind: Kind::Dir,
                name: ".".into(),
            },
            DirEntry {
                ino: parent_ino,
                kind: Kind::Dir,
                name: "..".into(),
            },
        ];
        for (name, b, kind) in names {
            let ino = st.table.intern(view.join(&name), b);
            entries.push(DirEntry { ino, kind, name });
        }
        Ok(entries)
    }

    /// Entries after `offset`, each with the offset to resume after it. The listing is a
    /// snapshot taken at opendir, so offsets are stable for the whole stream.
    pub fn readdir(&self, fh: u64, offset: u64) -> FsResult<Vec<(u64, DirEntry)>> {
        let (ino, entries) = match self.state.lock().handles.get(&fh) {
            Some(Handle::Dir { ino, entries }) => (*ino, entries.clone()),
            _ => return Err(FsError::new(libc::EBADF, "not a directory handle")),
        };
        let entries = match entries {
            Some(e) => e,
            None => {
                let listed = Arc::new(self.list_dir(ino)?);
                let mut st = self.state.lock();
                match st.handles.get_mut(&fh) {
                    // Two readers of one handle: the first listing stored wins.
                    Some(Handle::Dir {
                        entries: Some(e), ..
                    }) => e.clone(),
                    Some(Handle::Dir { entries, .. }) => {
                        *entries = Some(listed.clone());
                        listed
                    }
                    _ => return Err(FsError::new(libc::EBADF, "not a directory handle")),
                }
            }
        };
        Ok(entries_after(&entries, offset))
    }

    /// Entries of directory `ino` after `offset`, without a handle (when the kernel does not
    /// open directories: it then caches listings and reads one from offset 0 on). A listing
    /// is taken at offset 0 and kept for the continuation calls of that read.
    pub fn readdir_ino(&self, ino: u64, offset: u64) -> FsResult<Vec<(u64, DirEntry)>> {
        let kept = if offset == 0 {
            None
        } else {
            self.state.lock().listings.get(&ino).cloned()
        };
        let entries = match kept {
            Some(e) => e,
            None => {
                let e = Arc::new(self.list_dir(ino)?);
                self.state.lock().listings.insert(ino, e.clone());
                e
            }
        };
        Ok(entries_after(&entries, offset))
    }

    pub fn releasedir(&self, fh: u64) {
        self.state.lock().handles.remove(&fh);
    }

    // ---------------------------------------------------------------- files

    pub fn open(&self, ino: u64, flags: i32) -> FsResult<Opened> {
        let (_, back) = self.node(ino)?;
        let write = flags & libc::O_ACCMODE != libc::O_RDONLY;
        let trunc = write && flags & libc::O_TRUNC != 0;
        match back {
            Backing::Scratch(_) => {
                let path = self.safe_path(&back)?;
                let f = fs::OpenOptions::new()
                    .read(true)
                    .write(write)
                    .truncate(trunc)
                    .custom_flags(libc::O_NOFOLLOW)
                    .open(&path)
                    .or_else(|e| if write { Err(e) } else { fs::File::open(&path) })
                    .map_err(|e| FsError::io(format!("open {}", path.display()), e))?;
                Ok(self.add_handle(Handle::Direct { file: Arc::new(f) }, false, !write))
            }
            Backing::Original(rel) => {
                if !write {
                    if let Some(snap) = self.trusted_view(ino, &rel) {
                        let h = Handle::View {
                            ino,
                            write,
                            snap: Some(snap),
                        };
                        return Ok(self.add_handle(h, true, true));
                    }
                }
                let path = self.disk(&Backing::Original(rel.clone()));
                let m = fs::symlink_metadata(&path)
                    .map_err(|e| FsError::io(format!("open {}", path.display()), e))?;
                if m.is_dir() {
                    return Err(FsError::new(libc::EISDIR, "open of a directory"));
                }
                let snap = if write {
                    None
                } else {
                    Some(self.view_bytes(&rel)?)
                };
                let stamp = snap.as_ref().map(|s| s.1).unwrap_or_else(|| Stamp::of(&m));
                let mut st = self.state.lock();
                let keep = st.table.get(ino).and_then(|n| n.open_stamp) == Some(stamp)
                    && !st.buffers.contains_key(&ino);
                let trust = !write && self.watched.load(std::sync::atomic::Ordering::SeqCst);
                if let Some(n) = st.table.get_mut(ino) {
                    n.open_stamp = Some(stamp);
                    n.trusted = trust;
                }
                if write {
                    if let Some(b) = st.buffers.get_mut(&ino) {
                        b.writers += 1;
                        if trunc {
                            b.set_len(0);
                        }
                    } else {
                        drop(st);
                        let data = if trunc {
                            Vec::new()
                        } else {
                            self.view_bytes(&rel)?.0.to_vec()
                        };
                        st = self.state.lock();
                        let b = st.buffers.entry(ino).or_insert(Buffer::new(data, trunc));
                        b.writers += 1;
                    }
                }
                drop(st);
                let keep = keep && !write;
                let snap = snap.map(|s| s.0);
                Ok(self.add_handle(Handle::View { ino, write, snap }, keep, !write))
            }
        }
    }

    /// The cached view of `rel` when the node is trusted (verified at its last open, no
    /// change reported since, no buffer): what the kernel's page cache already holds.
    fn trusted_view(&self, ino: u64, rel: &Path) -> Option<Arc<Vec<u8>>> {
        let st = self.state.lock();
        if st.buffers.contains_key(&ino) {
            return None;
        }
        let n = st.table.get(ino)?;
        if !n.trusted {
            return None;
        }
        self.cache.get(rel, n.open_stamp?)
    }

    fn add_handle(&self, h: Handle, keep_cache: bool, read_only: bool) -> Opened {
        let mut st = self.state.lock();
        let fh = st.next_fh;
        st.next_fh += 1;
        st.handles.insert(fh, h);
        Opened {
            fh,
            keep_cache,
            read_only,
        }
    }

    /// Create and open a regular file (`flags` as given to open(2)).
    pub fn create(
        &self,
        parent: u64,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        who: Caller,
    ) -> FsResult<(Attr, Opened)> {
        // `create_ino` has applied O_TRUNC already; the handle opens what is there.
        let ino = self.create_ino(parent, name, mode, umask, flags, who)?.ino;
        let flags = flags & !(libc::O_ACCMODE | libc::O_TRUNC);
        let opened = self.open(ino, flags | libc::O_RDWR)?;
        let attr = self.getattr(ino)?;
        Ok((attr, opened))
    }

    pub fn read(&self, ino: u64, fh: u64, offset: u64, size: u32) -> FsResult<Vec<u8>> {
        let st = self.state.lock();
        match st.handles.get(&fh) {
            Some(Handle::Direct { file, .. }) => {
                let file = file.clone();
                drop(st);
                read_at_most(&file, offset, size)
            }
            Some(Handle::View {
                ino: hino, snap, ..
            }) if *hino == ino => {
                if let Some(b) = st.buffers.get(&ino) {
                    return Ok(slice(&b.data, offset, size));
                }
                if let Some(s) = snap {
                    return Ok(slice(s, offset, size));
                }
                let back = st.table.get(ino).map(|n| n.backing.clone());
                drop(st);
                match back {
                    Some(Backing::Original(rel)) => {
                        Ok(slice(&self.view_bytes(&rel)?.0, offset, size))
                    }
                    _ => Err(FsError::noent()),
                }
            }
            _ => Err(FsError::new(libc::EBADF, "bad file handle")),
        }
    }

    pub fn write(&self, ino: u64, fh: u64, offset: u64, data: &[u8]) -> FsResult<u32> {
        let mut st = self.state.lock();
        match st.handles.get(&fh) {
            Some(Handle::Direct { file, .. }) => {
                let file = file.clone();
                drop(st);
                file.write_all_at(data, offset)
                    .map_err(|e| FsError::io("write scratch", e))?;
                Ok(data.len() as u32)
            }
            Some(Handle::View {
                ino: hino,
                write: true,
                ..
            }) if *hino == ino => {
                let b = st
                    .buffers
                    .get_mut(&ino)
                    .ok_or_else(|| FsError::new(libc::EBADF, "no buffer"))?;
                b.write_at(write_start(offset, data.len())?, data);
                Ok(data.len() as u32)
            }
            Some(Handle::View { .. }) => Err(FsError::new(libc::EBADF, "not open for writing")),
            _ => Err(FsError::new(libc::EBADF, "bad file handle")),
        }
    }

    pub fn flush(&self, ino: u64, _fh: u64) -> FsResult<()> {
        self.flush_ino(ino, Durability::Synced)
    }

    pub fn fsync(&self, ino: u64, fh: u64) -> FsResult<()> {
        let direct = match self.state.lock().handles.get(&fh) {
            Some(Handle::Direct { file, .. }) => Some(file.clone()),
            _ => None,
        };
        if let Some(f) = direct {
            return f.sync_all().map_err(|e| FsError::io("fsync scratch", e));
        }
        self.flush_ino(ino, Durability::Synced)
    }

    pub fn release(&self, ino: u64, fh: u64) -> FsResult<()> {
        let h = self.state.lock().handles.remove(&fh);
        if let Some(Handle::View { write: true, .. }) = h {
            let result = self.flush_ino(ino, Durability::Synced);
            let mut st = self.state.lock();
            if let Some(b) = st.buffers.get_mut(&ino) {
                b.writers = b.writers.saturating_sub(1);
                // A buffer that could not be written back stays: it is the only copy.
                if b.writers == 0 && !b.dirty {
                    st.buffers.remove(&ino);
                }
            }
            return result;
        }
        Ok(())
    }

    // ------------------------------------------------------- handle-less I/O

    /// Read without a handle: the write buffer if there is one, else the current view.
    pub fn read_ino(&self, ino: u64, offset: u64, size: u32) -> FsResult<Vec<u8>> {
        let back = {
            let st = self.state.lock();
            if let Some(b) = st.buffers.get(&ino) {
                return Ok(slice(&b.data, offset, size));
            }
            let n = st.table.get(ino).ok_or_else(FsError::noent)?;
            n.backing.clone()
        };
        match back {
            Backing::Original(rel) => Ok(slice(&self.view_bytes(&rel)?.0, offset, size)),
            Backing::Scratch(_) => read_at_most(&self.open_backing(&back, false)?, offset, size),
        }
    }

    /// Write without a handle. Written back to the original before it returns, except a
    /// full-size chunk (`data.len() == MAX_WRITE`) of a file over [`SYNC_WRITEBACK_MAX`],
    /// which the deferred flusher writes back (see the module note).
    pub fn write_ino(&self, ino: u64, offset: u64, data: &[u8]) -> FsResult<u32> {
        let start = write_start(offset, data.len())?;
        let (back, unlinked, has_buffer) = {
            let st = self.state.lock();
            let n = st.table.get(ino).ok_or_else(FsError::noent)?;
            (n.backing.clone(), n.unlinked, st.buffers.contains_key(&ino))
        };
        let rel = match back {
            Backing::Scratch(_) => {
                self.open_backing(&back, true)?
                    .write_all_at(data, offset)
                    .map_err(|e| FsError::io("write scratch", e))?;
                return Ok(data.len() as u32);
            }
            Backing::Original(rel) => rel,
        };
        // The view the write applies to, taken outside the state lock (it may transform).
        let fresh = if has_buffer || unlinked {
            None
        } else {
            Some(self.view_bytes(&rel)?.0)
        };
        let len = {
            let mut st = self.state.lock();
            let b = st.buffers.entry(ino).or_insert_with(|| {
                Buffer::new(fresh.map(|v| v.to_vec()).unwrap_or_default(), false)
            });
            b.write_at(start, data);
            b.data.len()
        };
        if unlinked {
            // Written to a file whose name is gone: kept for reads, never written back.
            return Ok(data.len() as u32);
        }
        if data.len() == MAX_WRITE as usize && len > SYNC_WRITEBACK_MAX {
            self.deferred.lock().insert(ino);
            self.deferred_cv.notify_one();
            return Ok(data.len() as u32);
        }
        self.flush_unheld(ino, Durability::KillSafe)?;
        Ok(data.len() as u32)
    }

    /// fsync without a handle: every write made so far is in the original and on the disk
    /// when it returns (writes were written back kill-safe, not synced, as they came).
    pub fn fsync_ino(&self, ino: u64) -> FsResult<()> {
        let back = self.node(ino)?.1;
        let original = matches!(back, Backing::Original(_));
        if original {
            // Whatever is still buffered goes out like any write-back; the syncs below make
            // it, and the earlier unsynced write-backs, durable.
            self.flush_unheld(ino, Durability::KillSafe)?;
        }
        let eio = |what: &str, e| FsError::eio(format!("fsync {what}"), e);
        self.open_backing(&back, false)?
            .sync_all()
            .map_err(|e| eio("file", e))?;
        if original {
            // The rename that put the file there is an entry of its directory.
            let path = self.safe_path(&back)?;
            if let Some(dir) = path.parent() {
                fs::File::open(dir)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| eio("directory", e))?;
            }
            self.persist_transform_state(Durability::Synced);
        }
        Ok(())
    }

    /// Create a regular file without opening a handle (the kernel will not send OPEN or
    /// RELEASE for it). `O_TRUNC` of a file that appeared meanwhile is applied here.
    pub fn create_ino(
        &self,
        parent: u64,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        who: Caller,
    ) -> FsResult<Attr> {
        let (view, back) = self.child(parent, name)?;
        self.prepare(&back)?;
        let path = self.safe_path(&back)?;
        let existed = create_file(&path, mode & !umask & 0o7777, flags)?;
        if !existed {
            who.take(&path)?;
        }
        let ino = self.state.lock().table.intern(view, back);
        if existed && flags & libc::O_TRUNC != 0 {
            self.setattr(
                ino,
                SetAttr {
                    size: Some(0),
                    ..SetAttr::default()
                },
            )?;
        }
        self.getattr(ino)
    }

    /// Open the file behind `back` by path, for a request without a handle; a symlink put in
    /// its place is never followed.
    fn open_backing(&self, back: &Backing, write: bool) -> FsResult<File> {
        let path = self.safe_path(back)?;
        fs::OpenOptions::new()
            .read(!write)
            .write(write)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| FsError::io(format!("open {}", path.display()), e))
    }

    /// Write back the buffer of `ino`, which no handle holds, and drop it once clean: a
    /// buffer left behind would shadow later changes of the original.
    fn flush_unheld(&self, ino: u64, durability: Durability) -> FsResult<()> {
        let r = self.flush_ino(ino, durability);
        let mut st = self.state.lock();
        if let Some(b) = st.buffers.get(&ino) {
            if b.writers == 0 && !b.dirty {
                st.buffers.remove(&ino);
            }
        }
        r
    }

    /// The deferred flusher's loop (see [`ViewFs::write_ino`]); returns at unmount.
    pub fn run_deferred_flusher(&self) {
        loop {
            let ino = {
                let mut d = self.deferred.lock();
                loop {
                    if self.closing.load(std::sync::atomic::Ordering::SeqCst) {
                        return;
                    }
                    if let Some(ino) = d.pop_first() {
                        break ino;
                    }
                    self.deferred_cv.wait(&mut d);
                }
            };
            if let Err(e) = self.flush_unheld(ino, Durability::KillSafe) {
                // The buffer stays dirty: the next write, an fsync or the unmount retries.
                tracing::error!("deferred write-back failed: {e}");
            }
        }
    }

    /// Write every dirty buffer back (at unmount). Returns the first error.
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
        first
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
    fn rewritten(&self, rel: &Path, view: &[u8]) -> FsResult<Option<Vec<u8>>> {
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
    fn remember_removed(&self, rel: &Path, bytes: Vec<u8>) {
        let mut u = self.unlinked.lock();
        u.retain(|(p, _)| p != rel);
        if u.len() == UNLINKED_KEPT {
            u.pop_front();
        }
        u.push_back((rel.to_path_buf(), bytes));
    }

    /// Write the buffer of `ino` back to the original if dirty.
    fn flush_ino(&self, ino: u64, durability: Durability) -> FsResult<()> {
        let _wb = self.writeback.lock();
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
            None => self.to_original_content(&rel, &data, base.as_deref())?,
        };
        if base.as_deref() != Some(orig.as_slice()) {
            write_atomic(&path, &orig, mode, owner, durability)
                .map_err(|e| FsError::eio(format!("write back {}", path.display()), e))?;
        }
        if !orig.is_empty() {
            // Written again: the layout store carries its anchor from now on.
            self.unlinked.lock().retain(|(p, _)| *p != rel);
        } else if let Some(old) =
            base.filter(|b| !b.is_empty() && b.len() as u64 <= UNLINKED_MAX_BYTES)
        {
            self.remember_removed(&rel, old);
        }
        self.persist_transform_state(durability);
        let m = fs::symlink_metadata(&path)
            .map_err(|e| FsError::eio(format!("stat {}", path.display()), e))?;
        self.cache.put(&rel, Stamp::of(&m), Arc::new(data));
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
    fn moved_from(&self, rel: &Path, data: &[u8]) -> Option<Vec<u8>> {
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
        let _ = catch_unwind(AssertUnwindSafe(|| self.transform.renamed(&from, rel)));
        Some(old)
    }

    // ---------------------------------------------------------------- attributes

    pub fn setattr(&self, ino: u64, set: SetAttr) -> FsResult<Attr> {
        let (_, back) = self.node(ino)?;
        let path = self.safe_path(&back)?;
        let m = fs::symlink_metadata(&path)
            .map_err(|e| FsError::io(format!("stat {}", path.display()), e))?;
        if m.file_type().is_symlink() && (set.mode.is_some() || set.size.is_some()) {
            return Err(FsError::new(libc::EACCES, "will not follow a symlink"));
        }
        if let Some(size) = set.size {
            if m.is_dir() {
                return Err(FsError::new(libc::EISDIR, "truncate of a directory"));
            }
            self.truncate(ino, &back, &path, size)?;
        }
        if let Some(mode) = set.mode {
            fs::set_permissions(&path, fs::Permissions::from_mode(mode & 0o7777))
                .map_err(|e| FsError::io(format!("chmod {}", path.display()), e))?;
        }
        if set.uid.is_some() || set.gid.is_some() {
            std::os::unix::fs::lchown(&path, set.uid, set.gid)
                .map_err(|e| FsError::io(format!("chown {}", path.display()), e))?;
        }
        if set.atime.is_some() || set.mtime.is_some() {
            set_times(&path, set.atime, set.mtime)
                .map_err(|e| FsError::io(format!("utimens {}", path.display()), e))?;
        }
        self.attr_of(ino, &back)
    }

    fn truncate(&self, ino: u64, back: &Backing, path: &Path, size: u64) -> FsResult<()> {
        let Backing::Original(rel) = back else {
            let f = fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NOFOLLOW)
                .open(path)
                .map_err(|e| FsError::io(format!("truncate {}", path.display()), e))?;
            return f
                .set_len(size)
                .map_err(|e| FsError::io(format!("truncate {}", path.display()), e));
        };
        let len = buffered_len(size)?;
        let buffered = {
            let mut st = self.state.lock();
            match st.buffers.get_mut(&ino) {
                Some(b) => {
                    b.set_len(len);
                    Some(b.writers)
                }
                None => None,
            }
        };
        match buffered {
            // A writer's handle will write it back at flush or release.
            Some(writers) if writers > 0 => return Ok(()),
            // A buffer without a writer (handle-less writes): nothing else will flush it.
            Some(_) => return self.flush_unheld(ino, Durability::KillSafe),
            None => {}
        }
        // No writer holds this file: apply the truncation to the original right away.
        let mut data = self.view_bytes(rel)?.0.to_vec();
        data.resize(len, 0);
        {
            let mut st = self.state.lock();
            st.buffers.insert(ino, Buffer::new(data, true));
        }
        let r = self.flush_ino(ino, Durability::KillSafe);
        let mut st = self.state.lock();
        if let Some(b) = st.buffers.get(&ino) {
            if b.writers == 0 && (!b.dirty || r.is_err()) {
                // A failed immediate truncate is reported, not retried behind the caller's back.
                st.buffers.remove(&ino);
            }
        }
        r
    }

    pub fn statfs(&self) -> FsResult<StatFs> {
        let c = std::ffi::CString::new(self.root.as_os_str().as_bytes())
            .map_err(|_| FsError::new(libc::EINVAL, "root path has NUL"))?;
        // SAFETY: `c` is a valid NUL-terminated path; `s` is a plain-old-data out parameter
        // that statvfs fills completely on success and that we read only then.
        let s = unsafe {
            let mut s: libc::statvfs = std::mem::zeroed();
            if libc::statvfs(c.as_ptr(), &mut s) != 0 {
                return Err(FsError::io("statvfs", io::Error::last_os_error()));
            }
            s
        };
        Ok(StatFs {
            blocks: s.f_blocks,
            bfree: s.f_bfree,
            bavail: s.f_bavail,
            files: s.f_files,
            ffree: s.f_ffree,
            bsize: s.f_bsize as u32,
            namelen: s.f_namemax as u32,
            frsize: s.f_frsize as u32,
        })
    }
}

/// Create the regular file `path` (never following a symlink there). Returns whether it
/// existed already, which only a create without `O_EXCL` accepts.
fn create_file(path: &Path, perm: u32, flags: i32) -> FsResult<bool> {
    match fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(perm)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
    {
        Ok(f) => {
            // The umask of the daemon is not the caller's: set the mode the caller asked for.
            let _ = f.set_permissions(fs::Permissions::from_mode(perm));
            Ok(false)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && flags & libc::O_EXCL == 0 => Ok(true),
        Err(e) => Err(FsError::io(format!("create {}", path.display()), e)),
    }
}

/// The share of lines two texts have in common (`2 * common / (a + b)`, 1.0 for equal).
fn line_similarity(a: &[u8], b: &[u8]) -> f64 {
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

/// Up to `size` bytes of `file` from `offset` (short only at the end of the file).
fn read_at_most(file: &File, offset: u64, size: u32) -> FsResult<Vec<u8>> {
    let mut buf = vec![0u8; size as usize];
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], offset.saturating_add(got as u64)) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(FsError::io("read scratch", e)),
        }
    }
    buf.truncate(got);
    Ok(buf)
}

fn slice(data: &[u8], offset: u64, size: u32) -> Vec<u8> {
    let start = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(data.len());
    let end = start.saturating_add(size as usize).min(data.len());
    data[start..end].to_vec()
}

fn timespec(t: Option<SetTime>) -> libc::timespec {
    match t {
        None => libc::timespec {
            tv_sec: 0,
            tv_nsec: libc::UTIME_OMIT,
        },
        Some(SetTime::Now) => libc::timespec {
            tv_sec: 0,
            tv_nsec: libc::UTIME_NOW,
        },
        Some(SetTime::At(t)) => match t.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => libc::timespec {
                tv_sec: d.as_secs() as libc::time_t,
                tv_nsec: d.subsec_nanos() as _,
            },
            Err(e) => {
                let d = e.duration();
                libc::timespec {
                    tv_sec: -(d.as_secs() as libc::time_t),
                    tv_nsec: 0,
                }
            }
        },
    }
}

fn set_times(path: &Path, atime: Option<SetTime>, mtime: Option<SetTime>) -> io::Result<()> {
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    let times = [timespec(atime), timespec(mtime)];
    // SAFETY: `c` is NUL-terminated and `times` is a two-element array, as utimensat requires;
    // AT_SYMLINK_NOFOLLOW keeps the call on the link itself.
    let r = unsafe {
        libc::utimensat(
            libc::AT_FDCWD,
            c.as_ptr(),
            times.as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

trait IntoVecBytes {
    fn into_vec_bytes(self) -> Vec<u8>;
}

impl IntoVecBytes for OsString {
    fn into_vec_bytes(self) -> Vec<u8> {
        use std::os::unix::ffi::OsStringExt;
        self.into_vec()
    }
}

/// The entries of a listing after `offset`, each with the offset of the next one (offsets are
/// positions in the listing, so they stay valid for the listing's life).
fn entries_after(entries: &[DirEntry], offset: u64) -> Vec<(u64, DirEntry)> {
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    entries
        .iter()
        .enumerate()
        .skip(start)
        .map(|(i, e)| (i as u64 + 1, e.clone()))
        .collect()
}
