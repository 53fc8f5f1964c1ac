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
//!   ([`Durability`]). A kill-safe write-back of a Python file may leave Level 3's inverse
//!   to the flusher (`settle.rs`): the original then holds the view's order until settled,
//!   at the latest before an fsync of the file or the unmount returns.
//!
//! - tool output: names of `transform::is_tool_output` created in the view live in scratch
//!   (unless the original has them); a rename between scratch and the original copies the
//!   entry as the view shows it ([`ViewFs::rename`]) instead of failing with EXDEV.
//! - re-creation: a file removed through the view and created again (`git apply`, `git
//!   checkout -- FILE`), at the same place or, as a move, elsewhere with mostly the same
//!   lines, is written back as an edit of the removed one, so Level 3 keeps its order.
//!
//! Lock order: `writeback` -> `state` -> `cache`, and `writeback` -> `deferred` -> `unsettled`;
//! transforms run outside `state`.
//!
//! The parts, each an `impl ViewFs` with its own note: this file holds the type, its state,
//! construction, the background scan and the name and content translation every part uses;
//! `namespace.rs` lookups and single-entry changes, `rename.rs` renames, `dir.rs` listings,
//! `handles.rs` opens, reads and writes, `writeback.rs` the write-back (law 9), `settle.rs`
//! write-backs settled after they return, `attrs.rs`
//! stat and setattr; `inode.rs` the inode table, `content.rs` the content cache and atomic
//! writes, `links.rs` symlink targets, `watch.rs` the watcher of the original.

mod appending;
mod attrs;
pub mod content;
mod dir;
pub mod error;
mod handles;
pub mod inode;
pub mod links;
mod namespace;
mod orphans;
mod paths;
mod raw;
mod rename;
pub mod rendered;
mod routing;
pub mod saved_state;
mod settle;
#[doc(hidden)]
pub mod testing;
pub mod watch;
mod writeback;
mod xattrs;

#[cfg(test)]
mod kill_tests;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
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
pub use routing::NO_HANDLE;

/// Largest write the kernel sends in one request (set at mount): one write(2) of more
/// than this arrives as several full-size chunks and a last, shorter one.
pub const MAX_WRITE: u32 = 1 << 20;

/// The preferred I/O size the view reports (`st_blksize`). Programs size their write
/// buffers by it (stdio, Python's `open`), and each write request is a whole-file write-back
/// here: with 128 KiB instead of a page, a source file saved by `sed -i` or Python arrives
/// in one request instead of one per 4 KiB.
pub const IO_BLOCK: u32 = 1 << 17;

/// Handle-less writes to files up to this size are written back before they are
/// acknowledged, whatever their size; above it, full-size chunks are deferred (module note).
pub const SYNC_WRITEBACK_MAX: usize = 4 << 20;

/// Default byte budget for cached view contents.
pub const DEFAULT_CACHE_BUDGET: usize = 256 << 20;

/// How long the kernel may trust entries and attributes when the original is not watched.
pub const TTL: Duration = Duration::from_secs(1);

/// How long the kernel may trust entries and attributes while [`watch::Watcher`] reports
/// every change of the original (the view itself is authoritative for everything else). An
/// hour: on a tree of 70,000 files, a timeout of a minute expired between two searches, and
/// each expired name cost a LOOKUP round trip (a warm `grep -rn` took 3.9x native). A queue
/// overflow, where the watcher cannot say what changed, invalidates every node and name the
/// daemon knows (`watch.rs`).
pub const LONG_TTL: Duration = Duration::from_secs(3600);

/// How long the kernel may trust that a name does not exist, while watched. Shorter than
/// [`LONG_TTL`]: the watcher drops such entries for names created in the original, but after a
/// queue overflow it does not know the missing names the kernel holds.
pub const NEGATIVE_TTL: Duration = Duration::from_secs(60);

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
    /// Views rendered by an earlier mount of the same state directory, and where the first
    /// complete scan stores them when there are none (see `rendered.rs`).
    pub rendered: Option<rendered::RenderedFile>,
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
            rendered: None,
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
    /// Attributes of files unlinked while the kernel held them (see `orphans.rs`).
    orphans: HashMap<u64, Attr>,
}

impl State {
    /// Drop the buffer of `ino` once no handle writes through it and it is clean (or, with
    /// `even_dirty`, whatever its state): a buffer left behind would shadow later changes
    /// of the original, while a dirty one is otherwise the only copy of acknowledged bytes.
    fn drop_unheld(&mut self, ino: u64, even_dirty: bool) {
        if self
            .buffers
            .get(&ino)
            .is_some_and(|b| b.writers == 0 && (!b.dirty || even_dirty))
        {
            self.buffers.remove(&ino);
        }
    }
}

pub use saved_state::{TRANSFORM_BLOBS_DIR, TRANSFORM_STATE_FILE};

/// The view of one original tree.
pub struct ViewFs {
    root: PathBuf,
    /// The original root and the mountpoint, for absolute symlink targets.
    roots: links::Roots,
    scratch: PathBuf,
    /// The state directory, where the transform's own state (Level 3 layouts) is saved after
    /// each write-back (`saved_state`), so a remount with the same state directory reads back
    /// exactly what was written.
    state_dir: PathBuf,
    /// Where write-backs make their temporary files, when it is on the original's filesystem
    /// (`staging_dir`): a daemon killed in the middle of one leaves nothing in the original
    /// tree, whose status and patch must show only what the agent wrote.
    staging: Option<PathBuf>,
    /// Where the saves stand (`saved_state::Saver`).
    saved_state: Mutex<saved_state::Saver>,
    /// The state's blobs known to be saved (written by this daemon or found on disk).
    saved_blobs: Mutex<HashSet<String>>,
    /// The stamp each original file had after the daemon last wrote it: the watcher's event
    /// for such a write asks the kernel to forget nothing (see `ViewFs::invalidations`).
    own_writes: Mutex<HashMap<PathBuf, Stamp>>,
    transform: Arc<dyn Transform>,
    cache: ContentCache,
    state: Mutex<State>,
    writeback: Mutex<()>,
    /// Set at unmount: a background scan stops early.
    closing: std::sync::atomic::AtomicBool,
    /// A watcher reports changes of the original (see [`ViewFs::set_watched`]).
    watched: std::sync::atomic::AtomicBool,
    /// Files are served without handles (see `routing.rs`); fixed before the session starts.
    by_inode: std::sync::atomic::AtomicBool,
    /// Inodes whose handle-less writes wait for the deferred flusher.
    deferred: Mutex<std::collections::BTreeSet<u64>>,
    deferred_cv: parking_lot::Condvar,
    /// Write-backs may leave Level 3's inverse for the flusher (`settle.rs`).
    settling: std::sync::atomic::AtomicBool,
    /// Original paths written in the view's order, waiting to be settled (`settle.rs`);
    /// taken under `deferred`, so the flusher never misses one.
    unsettled: Mutex<std::collections::BTreeSet<PathBuf>>,
    /// Originals of files unlinked through the view, by original path (see
    /// [`ViewFs::unlink`]): a file created again under the same name is written back as an
    /// edit of what it replaced.
    unlinked: Mutex<std::collections::VecDeque<(PathBuf, Vec<u8>)>>,
    /// The last write-back of a file, for the next write that only adds to it.
    appending: appending::Appending,
    committed: Option<Committed>,
    owner: Option<Caller>,
    /// True while the shadow repository is being built (see [`Options::shadow_pending`]).
    shadow_pending: Mutex<bool>,
    shadow_cv: parking_lot::Condvar,
    /// Views an earlier mount rendered (see `rendered.rs`), and where to store them.
    rendered: Option<rendered::Rendered>,
    rendered_file: Option<rendered::RenderedFile>,
}

/// The longest name a directory entry may have, as on Linux's native filesystems.
pub const NAME_MAX: usize = 255;

/// How many unlinked originals are remembered, and up to what size.
const UNLINKED_KEPT: usize = 64;
const UNLINKED_MAX_BYTES: u64 = 4 << 20;

/// `state`'s staging directory for write-backs into `root`, made and cleared of what killed
/// daemons left there; none when it cannot be made or lies on another filesystem (a rename
/// from it would fail).
fn staging_dir(root: &Path, state: &Path) -> Option<PathBuf> {
    let dir = state.join("staging");
    fs::create_dir_all(&dir).ok()?;
    let dir = dir.canonicalize().ok()?;
    if fs::metadata(&dir).ok()?.dev() != fs::metadata(root).ok()?.dev() {
        tracing::info!(
            "the state directory is on another filesystem: write-backs stage beside their files"
        );
        return None;
    }
    for e in fs::read_dir(&dir).ok()?.flatten() {
        if content::is_stale_tmp(e.file_name().as_bytes()) {
            let _ = fs::remove_file(e.path());
        }
    }
    Some(dir)
}

/// Open an original file to read it without moving its access time (O_NOATIME): the
/// daemon's own reads (the eager scan, a re-read after a change) are not the agent's, and an
/// atime the agent set with `utimensat` must stay. O_NOATIME needs the file's owner or
/// CAP_FOWNER; without them (EPERM) the file is opened as usual. Never follows a symlink.
pub(crate) fn open_quietly(path: &Path) -> std::io::Result<fs::File> {
    let open = |flags| {
        fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(path)
    };
    match open(libc::O_NOFOLLOW | libc::O_NOATIME) {
        Err(e) if e.raw_os_error() == Some(libc::EPERM) => open(libc::O_NOFOLLOW),
        r => r,
    }
}

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
        blksize: IO_BLOCK,
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
        let staging = staging_dir(&root, state);
        let fs = ViewFs {
            staging,
            committed: options.committed.clone(),
            owner: options.owner,
            roots: links::Roots {
                original: root.clone(),
                view: options.mountpoint.clone(),
            },
            root,
            state_dir: state.to_path_buf(),
            saved_state: Mutex::new(saved_state::Saver::default()),
            saved_blobs: Mutex::new(HashSet::new()),
            own_writes: Mutex::new(HashMap::new()),
            scratch,
            transform,
            cache: ContentCache::new(options.cache_budget),
            state: Mutex::new(State {
                table: Table::new(),
                buffers: HashMap::new(),
                handles: HashMap::new(),
                next_fh: 1,
                listings: HashMap::new(),
                orphans: HashMap::new(),
            }),
            writeback: Mutex::new(()),
            closing: std::sync::atomic::AtomicBool::new(false),
            watched: std::sync::atomic::AtomicBool::new(false),
            by_inode: std::sync::atomic::AtomicBool::new(false),
            deferred: Mutex::new(std::collections::BTreeSet::new()),
            deferred_cv: parking_lot::Condvar::new(),
            settling: std::sync::atomic::AtomicBool::new(false),
            unsettled: Mutex::new(std::collections::BTreeSet::new()),
            unlinked: Mutex::new(std::collections::VecDeque::new()),
            appending: appending::Appending::default(),
            shadow_pending: Mutex::new(options.shadow_pending),
            shadow_cv: parking_lot::Condvar::new(),
            rendered: options.rendered.as_ref().and_then(rendered::Rendered::load),
            rendered_file: options.rendered,
        };
        // Left unsettled by a daemon that did not unmount: settled by this one.
        fs.unsettled.lock().extend(fs.transform.unsettled());
        if let Some(r) = &fs.rendered {
            tracing::info!(
                files = r.len(),
                "views rendered before, reused on first touch"
            );
        }
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

    /// Cache `view` as what original file `rel`, just written by the daemon and now at `m`,
    /// shows (see [`ViewFs::invalidations`]).
    pub(super) fn cache_own_write(&self, rel: &Path, m: &Metadata, view: Arc<Vec<u8>>) {
        self.note_own_write(rel, m);
        self.cache.put(rel, Stamp::of(m), view);
    }

    /// Remember that the daemon itself left original file `rel` at `m`.
    pub(super) fn note_own_write(&self, rel: &Path, m: &Metadata) {
        self.own_writes
            .lock()
            .insert(rel.to_path_buf(), Stamp::of(m));
    }

    /// Cache the view of original file `rel`, rendered elsewhere from the bytes that `m`
    /// describes (the shadow repository renders every unchanged file once; the scan and the
    /// first `git status` then find them ready).
    pub fn prime(&self, rel: &Path, m: &Metadata, view: Arc<Vec<u8>>) {
        self.cache.put(rel, Stamp::of(m), view);
    }

    /// The cached view of original file `rel` at the stamp of `m`, if this transform holds
    /// no state of its own for it (so a fresh transform of the same bytes gives this view).
    pub fn known_view(&self, rel: &Path, m: &Metadata) -> Option<Arc<Vec<u8>>> {
        if self.transform.remembers(rel) {
            return None;
        }
        self.cache.get(rel, Stamp::of(m))
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
                    if content::is_stale_tmp(name.as_bytes()) {
                        // Left by a killed daemon that staged beside the file.
                        let _ = fs::remove_file(e.path());
                    }
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
        let one = |rel: &PathBuf| {
            if self.closing.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if let Err(e) = self.view_bytes(rel) {
                tracing::warn!("scan {}: {e}", rel.display());
            }
        };
        if self.rendered.is_some() {
            // Each view is a read and a hash away: one thread keeps ahead of most requests
            // without taking the other cores from the agent's first search.
            files.iter().for_each(one);
        } else {
            files.par_iter().for_each(one);
        }
        tracing::info!(
            files = files.len(),
            cached = self.cache.used(),
            elapsed = ?start.elapsed(),
            "scan done"
        );
        if self.rendered.is_none() && !self.closing.load(std::sync::atomic::Ordering::Relaxed) {
            if let Some(file) = &self.rendered_file {
                self.save_rendered(file, &files);
            }
        }
    }

    /// Store the view of every file in `files` that a fresh transform of its bytes gives
    /// (see `rendered.rs`), for the next mount of this state directory. Each view is the one
    /// cached under the stamp the original had before and after it was read here, so the
    /// hash and the view are of the same bytes.
    fn save_rendered(&self, file: &rendered::RenderedFile, files: &[PathBuf]) {
        let start = std::time::Instant::now();
        type Record = (PathBuf, [u8; 32], Option<Arc<Vec<u8>>>);
        let records: Vec<Record> = files
            .par_iter()
            .filter(|rel| !self.transform.remembers(rel))
            .filter_map(|rel| {
                let mut f = open_quietly(&self.root.join(rel)).ok()?;
                let stamp = Stamp::of(&f.metadata().ok()?);
                let mut raw = Vec::new();
                f.read_to_end(&mut raw).ok()?;
                if f.metadata().ok().map(|m| Stamp::of(&m)) != Some(stamp) {
                    return None;
                }
                let view = self.cache.get(rel, stamp)?;
                let view = (view.as_slice() != raw.as_slice()).then_some(view);
                Some((rel.clone(), rendered::digest(&raw), view))
            })
            .collect();
        let n = records.len();
        let entries = records.iter().map(|(rel, original, view)| rendered::Entry {
            rel,
            original: *original,
            view: view.as_deref().map(Vec::as_slice),
        });
        match rendered::save(file, entries) {
            Ok(()) => {
                tracing::info!(files = n, elapsed = ?start.elapsed(), "rendered views stored")
            }
            Err(e) => tracing::warn!("storing rendered views in {}: {e}", file.path.display()),
        }
    }

    // ---------------------------------------------------------------- change notifications

    /// The view path of original path `rel`, when every component has a view name.
    fn view_of_original(&self, rel: &Path) -> Option<PathBuf> {
        inode::view_path(self.transform.as_ref(), rel)
    }

    /// What the kernel must forget after original path `rel` changed behind the view.
    /// Nothing when the change is the daemon's own last write of the file (it still has the
    /// stamp that write left): the kernel holds what it wrote, which is what the view serves
    /// (law 2), and dropping its pages and mappings after every write cost fsx a third of its
    /// time.
    pub fn invalidations(&self, rel: &Path, change: watch::Change) -> Vec<watch::Inval> {
        if !change.dir {
            // A write in flight records its stamp under the write-back lock: wait for it, so
            // that the stamp compared is the one its event is about. (Only for the check: the
            // invalidations themselves are sent without it, see `watch.rs`.)
            let _wb = self.writeback.lock();
            if let Some(own) = self.own_writes.lock().get(rel) {
                let now = fs::symlink_metadata(self.root.join(rel)).map(|m| Stamp::of(&m));
                if now.ok() == Some(*own) {
                    return Vec::new();
                }
            }
        }
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

    /// Every name the daemon knows, as (parent inode, name): what the kernel may hold a
    /// dentry for (with [`LONG_TTL`]), for invalidating them all after a watcher overflow.
    pub fn all_entries(&self) -> Vec<(u64, OsString)> {
        self.state.lock().table.entries()
    }

    /// The view path of `ino` (joined with `name`, for a request on a directory entry) as
    /// text, for a trace record; `?` for a number the table no longer holds. View paths
    /// only: the table keeps the original's side in `Backing`, never shown here.
    pub fn view_path_text(&self, ino: u64, name: Option<&OsStr>) -> String {
        let st = self.state.lock();
        let Some(node) = st.table.get(ino) else {
            return "?".into();
        };
        let p = match name {
            Some(n) => node.view.join(n),
            None => node.view.clone(),
        };
        p.to_string_lossy().into_owned()
    }

    // ---------------------------------------------------------------- transform guards

    /// Run `f`, a call into the transform for `rel`, turning a panic into EIO: a bug of the
    /// transform on one file must not take the daemon down.
    pub(super) fn guarded<T>(&self, what: &str, rel: &Path, f: impl FnOnce() -> T) -> FsResult<T> {
        catch_unwind(AssertUnwindSafe(f))
            .map_err(|_| FsError::new(libc::EIO, format!("{what} panicked on {}", rel.display())))
    }

    fn to_view_content(&self, rel: &Path, bytes: &[u8]) -> FsResult<Vec<u8>> {
        self.guarded("content_to_view", rel, || {
            self.transform.content_to_view(rel, bytes)
        })
    }

    fn to_original_content(
        &self,
        rel: &Path,
        view: &[u8],
        base: Option<&[u8]>,
    ) -> FsResult<Vec<u8>> {
        self.guarded("content_to_original", rel, || {
            self.transform.content_to_original(rel, view, base)
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
        let mut f =
            open_quietly(&path).map_err(|e| FsError::io(format!("open {}", path.display()), e))?;
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
        let before = self
            .rendered
            .as_ref()
            .filter(|_| !self.transform.remembers(rel))
            .and_then(|r| r.take(rel, &raw));
        let view = Arc::new(match before {
            Some(v) => v,
            None => self.to_view_content(rel, &raw)?,
        });
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
