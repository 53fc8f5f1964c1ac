//! Watching the original tree, so the kernel may cache the view for long.
//!
//! The view is authoritative for its own metadata, so the kernel is given long entry and
//! attribute timeouts and keeps file contents between opens. What the view does not control
//! is the original changing behind its back (an editor or `git checkout` in the original).
//! [`Watcher`] puts an inotify watch on every directory of the original and turns each change
//! into invalidations of what the kernel may hold for the corresponding view node:
//! - a file's contents or attributes changed: the node's attributes and page cache;
//! - a name appeared, disappeared or was replaced: the parent's attributes and listing, the
//!   node itself, and for a disappearance the parent's dentry of that name.
//!
//! Invalidations are sent from the watcher's own thread, never from a request handler, so
//! the kernel can always complete them (a handler waiting on its own inode's invalidation
//! would deadlock). When watches cannot be set up (inotify limits), the caller keeps the
//! short timeouts instead.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{CStr, CString, OsStr, OsString};
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::inode::is_hidden_original;
use super::ViewFs;

/// What the kernel should forget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inval {
    /// Attributes and cached pages (or listing) of an inode.
    Inode(u64),
    /// The dentry `name` in directory `parent`.
    Entry(u64, OsString),
}

/// Where invalidations go (the FUSE notifier in production, a vector in tests).
pub trait Invalidate: Send + 'static {
    fn send(&self, inval: &Inval);
}

const MASK: u32 = libc::IN_MODIFY
    | libc::IN_ATTRIB
    | libc::IN_CLOSE_WRITE
    | libc::IN_CREATE
    | libc::IN_DELETE
    | libc::IN_MOVED_FROM
    | libc::IN_MOVED_TO
    | libc::IN_ONLYDIR
    | libc::IN_DONT_FOLLOW
    | libc::IN_EXCL_UNLINK;

struct Watches {
    fd: i32,
    root: PathBuf,
    dirs: HashMap<i32, PathBuf>,
}

impl Watches {
    /// Watch `rel` and every directory below it (hidden ones excluded).
    fn add_tree(&mut self, rel: &Path) -> io::Result<()> {
        let mut todo = vec![rel.to_path_buf()];
        while let Some(d) = todo.pop() {
            let path = self.root.join(&d);
            let c = CString::new(path.as_os_str().as_bytes())
                .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
            // SAFETY: `fd` is our inotify descriptor and `c` a NUL-terminated path.
            let wd = unsafe { libc::inotify_add_watch(self.fd, c.as_ptr(), MASK) };
            if wd < 0 {
                let e = io::Error::last_os_error();
                match e.raw_os_error() {
                    // Gone or replaced meanwhile: its parent's watch reports that.
                    Some(libc::ENOENT) | Some(libc::ENOTDIR) | Some(libc::EACCES) => continue,
                    _ => return Err(e),
                }
            }
            self.dirs.insert(wd, d.clone());
            let Ok(rd) = fs::read_dir(&path) else {
                continue;
            };
            for e in rd.flatten() {
                let name = e.file_name();
                if is_hidden_original(&name) {
                    continue;
                }
                if e.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                    todo.push(d.join(&name));
                }
            }
        }
        Ok(())
    }
}

impl Drop for Watches {
    fn drop(&mut self) {
        // SAFETY: we own `fd` and close it exactly once.
        unsafe { libc::close(self.fd) };
    }
}

/// Inotify watches on the whole original tree, and (once [`Watcher::run`] is called) the
/// thread that turns their events into invalidations. Dropping it stops the thread.
pub struct Watcher {
    watches: Option<Watches>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Set up watches on every directory of `fs`'s original. Fails (and nothing is
    /// watched) when inotify is unavailable or its limits are too low for this tree.
    pub fn new(fs: &ViewFs) -> io::Result<Watcher> {
        // SAFETY: plain syscall; the result is checked.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut w = Watches {
            fd,
            root: fs.original_root().to_path_buf(),
            dirs: HashMap::new(),
        };
        w.add_tree(Path::new(""))?;
        tracing::info!(dirs = w.dirs.len(), "watching the original");
        Ok(Watcher {
            watches: Some(w),
            stop: Arc::new(AtomicBool::new(false)),
            thread: None,
        })
    }

    /// Start delivering invalidations for changes of the original to `sink`.
    pub fn run(&mut self, fs: Arc<ViewFs>, sink: Box<dyn Invalidate>) -> io::Result<()> {
        let Some(mut w) = self.watches.take() else {
            return Ok(());
        };
        let stop = self.stop.clone();
        let t = std::thread::Builder::new()
            .name("schrodinger-watch".into())
            .spawn(move || watch_loop(&mut w, &fs, sink.as_ref(), &stop))?;
        self.thread = Some(t);
        Ok(())
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One change of the original seen by inotify: an entry appeared/disappeared, or only its
/// contents/attributes changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Change {
    pub entry: bool,
    pub gone: bool,
    /// The name is a directory (what was below it may have moved too).
    pub dir: bool,
}

fn watch_loop(w: &mut Watches, fs: &ViewFs, sink: &dyn Invalidate, stop: &AtomicBool) {
    let mut buf = vec![0u8; 64 * 1024];
    while !stop.load(Ordering::SeqCst) {
        let mut pfd = libc::pollfd {
            fd: w.fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd; a short timeout so `stop` is noticed.
        let r = unsafe { libc::poll(&mut pfd, 1, 100) };
        if r <= 0 {
            continue;
        }
        let mut changes: BTreeMap<PathBuf, Change> = BTreeMap::new();
        let mut overflow = false;
        loop {
            // SAFETY: `buf` is writable for its whole length.
            let n = unsafe { libc::read(w.fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let n = n as usize;
            let mut off = 0;
            let head = std::mem::size_of::<libc::inotify_event>();
            while off + head <= n {
                // SAFETY: the kernel wrote a whole event header at `off` (events are never
                // split across reads); read_unaligned copes with the byte buffer.
                let ev: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf[off..].as_ptr().cast()) };
                let name_bytes = &buf[off + head..(off + head + ev.len as usize).min(n)];
                off += head + ev.len as usize;
                if ev.mask & libc::IN_Q_OVERFLOW != 0 {
                    overflow = true;
                    continue;
                }
                if ev.mask & libc::IN_IGNORED != 0 {
                    w.dirs.remove(&ev.wd);
                    continue;
                }
                let Some(dir) = w.dirs.get(&ev.wd).cloned() else {
                    continue;
                };
                let name = CStr::from_bytes_until_nul(name_bytes)
                    .map(|c| c.to_bytes())
                    .unwrap_or(name_bytes);
                if name.is_empty() {
                    continue;
                }
                let name = OsStr::from_bytes(name);
                if is_hidden_original(name) {
                    continue;
                }
                let rel = dir.join(name);
                if ev.mask & libc::IN_ISDIR != 0
                    && ev.mask & (libc::IN_CREATE | libc::IN_MOVED_TO) != 0
                {
                    if let Err(e) = w.add_tree(&rel) {
                        tracing::warn!("watch {}: {e}", rel.display());
                    }
                }
                let c = changes.entry(rel).or_default();
                c.dir |= ev.mask & libc::IN_ISDIR != 0;
                if ev.mask
                    & (libc::IN_CREATE | libc::IN_DELETE | libc::IN_MOVED_FROM | libc::IN_MOVED_TO)
                    != 0
                {
                    c.entry = true;
                    // The last event wins: deleted then re-created is not gone.
                    c.gone = ev.mask & (libc::IN_DELETE | libc::IN_MOVED_FROM) != 0;
                }
            }
        }
        let invals = if overflow {
            tracing::warn!("inotify queue overflow: invalidating every node");
            fs.distrust_all();
            let mut v: Vec<Inval> = fs.all_inodes().into_iter().map(Inval::Inode).collect();
            v.extend(
                fs.all_entries()
                    .into_iter()
                    .map(|(parent, name)| Inval::Entry(parent, name)),
            );
            v
        } else {
            let mut v = Vec::new();
            for (rel, c) in &changes {
                v.extend(fs.invalidations(rel, *c));
            }
            v.dedup();
            v
        };
        for i in &invals {
            sink.send(i);
        }
    }
}
