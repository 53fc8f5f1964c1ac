//! The kernel boundary: the only module that uses `fuser`. Every request is delegated to
//! [`ViewFs`] and every error becomes the errno it carries; nothing here can panic on a
//! request (no unwraps on request data), and the filesystem logic itself is tested without
//! a kernel.

use std::ffi::OsStr;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use fuser::{
    BsdFileFlags, Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags,
    Generation, INodeNo, IoctlFlags, KernelConfig, LockOwner, MountOption, OpenFlags, RenameFlags,
    ReplyAttr, ReplyCreate, ReplyData, ReplyDirectory, ReplyEmpty, ReplyEntry, ReplyIoctl,
    ReplyOpen, ReplyStatfs, ReplyWrite, ReplyXattr, Request, SessionACL, TimeOrNow, WriteFlags,
};

use crate::fs::watch::{Inval, Invalidate};
use crate::fs::{
    Attr, Caller, FsError, Kind, SetAttr, SetTime, ViewFs, LONG_TTL, MAX_WRITE, NEGATIVE_TTL,
    NO_HANDLE, TTL,
};
use crate::trace::{Record, Tracer};

/// The fuser adapter over a shared [`ViewFs`].
///
/// When files are served by inode (a watcher reports every change of the original), the
/// kernel may cache for long: entries and attributes get [`LONG_TTL`] (else [`TTL`]),
/// missing names are cached, directories have no OPENDIR, and files have no handles
/// (FUSE_NO_OPEN_SUPPORT: the first OPEN and FLUSH are answered ENOSYS, after which the
/// kernel sends neither again, nor RELEASE, and keeps file contents in its page cache
/// between opens; the watcher's invalidations are what drops stale pages). Which way each
/// request goes is decided in `crate::fs` (`routing.rs`).
pub struct FuseFs {
    fs: Arc<ViewFs>,
    /// Where requests are recorded (`mount --trace`).
    trace: Option<Arc<Tracer>>,
}

impl FuseFs {
    /// Record a request on `ino` (or on `name` in the directory `ino`) in the trace, if the
    /// mount keeps one; `fill` sets what the record adds to the view path.
    fn note(&self, op: &str, ino: u64, name: Option<&OsStr>, fill: impl FnOnce(&mut Record)) {
        let Some(t) = &self.trace else { return };
        let mut r = Record::new(op, self.fs.view_path_text(ino, name));
        fill(&mut r);
        t.record(r);
    }

    /// An entry reply: the kernel holds one more reference to the node (see `forget`).
    fn entry(&self, reply: ReplyEntry, a: &Attr) {
        self.fs.remember_lookup(a.ino);
        reply.entry(&self.ttl(), &attr(a), Generation(0));
    }

    fn ttl(&self) -> Duration {
        if self.fs.by_inode() {
            LONG_TTL
        } else {
            TTL
        }
    }
}

/// Invalidations from the watcher thread go to the kernel through fuser's notifier.
struct NotifySink(fuser::Notifier);

impl Invalidate for NotifySink {
    fn send(&self, inval: &Inval) {
        // ENOENT only means the kernel holds nothing for that node.
        let r = match inval {
            Inval::Inode(ino) => self.0.inval_inode(INodeNo(*ino), 0, 0),
            Inval::Entry(parent, name) => self.0.inval_entry(INodeNo(*parent), name),
        };
        if let Err(e) = r {
            tracing::trace!("invalidation {inval:?}: {e}");
        }
    }
}

fn errno(e: &FsError) -> Errno {
    tracing::debug!("request failed: {e}");
    Errno::from_i32(e.errno)
}

fn kind(k: Kind) -> FileType {
    match k {
        Kind::File => FileType::RegularFile,
        Kind::Dir => FileType::Directory,
        Kind::Symlink => FileType::Symlink,
        Kind::Fifo => FileType::NamedPipe,
        Kind::Socket => FileType::Socket,
        Kind::CharDevice => FileType::CharDevice,
        Kind::BlockDevice => FileType::BlockDevice,
    }
}

fn attr(a: &Attr) -> FileAttr {
    FileAttr {
        ino: INodeNo(a.ino),
        size: a.size,
        blocks: a.blocks,
        atime: a.atime,
        mtime: a.mtime,
        ctime: a.ctime,
        crtime: a.ctime,
        kind: kind(a.kind),
        perm: a.perm,
        nlink: a.nlink,
        uid: a.uid,
        gid: a.gid,
        rdev: a.rdev,
        blksize: a.blksize,
        flags: 0,
    }
}

/// Attributes sent with a negative entry (the kernel only looks at the node id, 0).
const NEGATIVE: Attr = Attr {
    ino: 0,
    size: 0,
    blocks: 0,
    atime: SystemTime::UNIX_EPOCH,
    mtime: SystemTime::UNIX_EPOCH,
    ctime: SystemTime::UNIX_EPOCH,
    kind: Kind::File,
    perm: 0,
    nlink: 0,
    uid: 0,
    gid: 0,
    rdev: 0,
    blksize: 4096,
};

fn set_time(t: Option<TimeOrNow>) -> Option<SetTime> {
    t.map(|t| match t {
        TimeOrNow::Now => SetTime::Now,
        TimeOrNow::SpecificTime(s) => SetTime::At(s),
    })
}

fn fopen(o: &crate::fs::Opened) -> FopenFlags {
    let mut f = FopenFlags::empty();
    if o.keep_cache {
        f |= FopenFlags::FOPEN_KEEP_CACHE;
    }
    if o.read_only {
        f |= FopenFlags::FOPEN_NOFLUSH;
    }
    f
}

impl Filesystem for FuseFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> io::Result<()> {
        // A known chunk size tells a chunk of a longer write(2) from its last piece
        // (see `ViewFs::write_ino`).
        if let Err(max) = config.set_max_write(MAX_WRITE) {
            tracing::warn!("max_write {MAX_WRITE} refused, the kernel keeps {max}");
        }
        Ok(())
    }

    fn destroy(&mut self) {
        if let Err(e) = self.fs.flush_all() {
            tracing::error!("flush at destroy failed: {e}");
        }
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match self.fs.lookup(parent.0, name) {
            Ok(a) => self.entry(reply, &a),
            // While the original is watched, a missing name is cached too (node id 0 is a
            // negative entry): Python's import probes many names that do not exist. Names
            // created in the view replace it in the kernel; the watcher drops it for names
            // created in the original.
            Err(e) if e.errno == libc::ENOENT && self.fs.by_inode() => {
                reply.entry(&NEGATIVE_TTL, &attr(&NEGATIVE), Generation(0))
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn forget(&self, _req: &Request, ino: INodeNo, nlookup: u64) {
        self.fs.forget(ino.0, nlookup);
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.fs.getattr(ino.0) {
            Ok(a) => reply.attr(&self.ttl(), &attr(&a)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        mode: Option<u32>,
        uid: Option<u32>,
        gid: Option<u32>,
        size: Option<u64>,
        atime: Option<TimeOrNow>,
        mtime: Option<TimeOrNow>,
        _ctime: Option<SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<SystemTime>,
        _chgtime: Option<SystemTime>,
        _bkuptime: Option<SystemTime>,
        _flags: Option<BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        let set = SetAttr {
            mode,
            uid,
            gid,
            size,
            atime: set_time(atime),
            mtime: set_time(mtime),
        };
        let r = self.fs.setattr(ino.0, set);
        if let Some(size) = size {
            self.note("truncate", ino.0, None, |x| {
                x.bytes = size;
                x.errno = errno_of(&r);
            });
        }
        match r {
            Ok(a) => reply.attr(&self.ttl(), &attr(&a)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn readlink(&self, _req: &Request, ino: INodeNo, reply: ReplyData) {
        match self.fs.readlink(ino.0) {
            Ok(t) => reply.data(&t),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn mkdir(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        reply: ReplyEntry,
    ) {
        let r = self.fs.mkdir(parent.0, name, mode, umask, caller(req));
        self.note("mkdir", parent.0, Some(name), |x| x.errno = errno_of(&r));
        match r {
            Ok(a) => self.entry(reply, &a),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn mknod(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        _rdev: u32,
        reply: ReplyEntry,
    ) {
        let r = self.fs.mknod(parent.0, name, mode, umask, caller(req));
        self.note("mknod", parent.0, Some(name), |x| x.errno = errno_of(&r));
        match r {
            Ok(a) => self.entry(reply, &a),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn unlink(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let r = self.fs.unlink(parent.0, name);
        self.note("unlink", parent.0, Some(name), |x| x.errno = errno_of(&r));
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn rmdir(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        let r = self.fs.rmdir(parent.0, name);
        self.note("rmdir", parent.0, Some(name), |x| x.errno = errno_of(&r));
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn symlink(
        &self,
        req: &Request,
        parent: INodeNo,
        link_name: &OsStr,
        target: &Path,
        reply: ReplyEntry,
    ) {
        let r = self.fs.symlink(parent.0, link_name, target, caller(req));
        self.note("symlink", parent.0, Some(link_name), |x| {
            x.errno = errno_of(&r)
        });
        match r {
            Ok(a) => self.entry(reply, &a),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn link(
        &self,
        _req: &Request,
        ino: INodeNo,
        newparent: INodeNo,
        newname: &OsStr,
        reply: ReplyEntry,
    ) {
        let r = self.fs.link(ino.0, newparent.0, newname);
        self.note("link", newparent.0, Some(newname), |x| {
            x.errno = errno_of(&r)
        });
        match r {
            Ok(a) => self.entry(reply, &a),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn rename(
        &self,
        _req: &Request,
        parent: INodeNo,
        name: &OsStr,
        newparent: INodeNo,
        newname: &OsStr,
        flags: RenameFlags,
        reply: ReplyEmpty,
    ) {
        let r = self
            .fs
            .rename(parent.0, name, newparent.0, newname, flags.bits());
        if self.trace.is_some() {
            let to = self.fs.view_path_text(newparent.0, Some(newname));
            self.note("rename", parent.0, Some(name), |x| {
                x.to = Some(to);
                x.errno = errno_of(&r);
            });
        }
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, flags: OpenFlags, reply: ReplyOpen) {
        let r = self.fs.open_request(ino.0, flags.0);
        // ENOSYS is the answer that turns OPEN off for files served by inode, not a failure.
        if errno_of(&r) != libc::ENOSYS {
            self.note("open", ino.0, None, |x| x.errno = errno_of(&r));
        }
        match r {
            Ok(o) => reply.opened(FileHandle(o.fh), fopen(&o)),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        let r = self.fs.read_request(ino.0, fh.0, offset, size);
        self.note("read", ino.0, None, |x| {
            x.offset = Some(offset);
            x.bytes = r.as_ref().map_or(0, |d| d.len() as u64);
            x.errno = errno_of(&r);
        });
        match r {
            Ok(d) => reply.data(&d),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        let r = self.fs.write_request(ino.0, fh.0, offset, data);
        self.note("write", ino.0, None, |x| {
            x.offset = Some(offset);
            x.bytes = r.as_ref().map_or(0, |n| u64::from(*n));
            x.errno = errno_of(&r);
        });
        match r {
            Ok(n) => reply.written(n),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn flush(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _lock_owner: LockOwner,
        reply: ReplyEmpty,
    ) {
        match self.fs.flush_request(ino.0, fh.0) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn release(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        match self.fs.release_request(ino.0, fh.0) {
            Ok(()) => reply.ok(),
            Err(e) => {
                tracing::error!("write-back at release failed, buffer kept: {e}");
                reply.error(errno(&e))
            }
        }
    }

    fn fsync(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        let r = self.fs.fsync_request(ino.0, fh.0);
        match r {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    // Extended attributes of the `user.` namespace pass through (`fs::xattrs`); sizes follow
    // the kernel's protocol: a request of size 0 asks how large the answer is.
    fn getxattr(&self, _req: &Request, ino: INodeNo, name: &OsStr, size: u32, reply: ReplyXattr) {
        match self.fs.getxattr(ino.0, name) {
            Ok(v) => reply_sized(reply, size, &v),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn listxattr(&self, _req: &Request, ino: INodeNo, size: u32, reply: ReplyXattr) {
        match self.fs.listxattr(ino.0) {
            Ok(v) => reply_sized(reply, size, &v),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn setxattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        name: &OsStr,
        value: &[u8],
        flags: i32,
        _position: u32,
        reply: ReplyEmpty,
    ) {
        match self.fs.setxattr(ino.0, name, value, flags) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn removexattr(&self, _req: &Request, ino: INodeNo, name: &OsStr, reply: ReplyEmpty) {
        match self.fs.removexattr(ino.0, name) {
            Ok(()) => reply.ok(),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn ioctl(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _flags: IoctlFlags,
        _cmd: u32,
        _in_data: &[u8],
        _out_size: u32,
        reply: ReplyIoctl,
    ) {
        // Python asks every file it opens whether it is a terminal (TCGETS); the kernel does
        // not remember a refusal, so answer quickly, and quietly, what a plain file answers.
        reply.error(Errno::ENOTTY);
    }

    fn opendir(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        // ENOSYS (files served by inode) tells the kernel to stop sending OPENDIR/RELEASEDIR
        // for this mount (FUSE_NO_OPENDIR_SUPPORT): it then caches listings (FOPEN_KEEP_CACHE
        // | FOPEN_CACHE_DIR) and reads them with handle 0, served by inode.
        match self.fs.opendir_request(ino.0) {
            Ok(fh) => reply.opened(FileHandle(fh), FopenFlags::empty()),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        let listed = if fh.0 == 0 {
            self.fs.readdir_ino(ino.0, offset)
        } else {
            self.fs.readdir(fh.0, offset)
        };
        // One record per listing: its first batch.
        if offset == 0 {
            self.note("readdir", ino.0, None, |x| x.errno = errno_of(&listed));
        }
        match listed {
            Ok(entries) => {
                for (next, e) in entries {
                    if reply.add(INodeNo(e.ino), next, kind(e.kind), &e.name) {
                        break;
                    }
                }
                reply.ok()
            }
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn releasedir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        reply: ReplyEmpty,
    ) {
        self.fs.releasedir(fh.0);
        reply.ok()
    }

    fn fsyncdir(
        &self,
        _req: &Request,
        _ino: INodeNo,
        _fh: FileHandle,
        _datasync: bool,
        reply: ReplyEmpty,
    ) {
        reply.ok()
    }

    fn statfs(&self, _req: &Request, _ino: INodeNo, reply: ReplyStatfs) {
        match self.fs.statfs() {
            Ok(s) => reply.statfs(
                s.blocks, s.bfree, s.bavail, s.files, s.ffree, s.bsize, s.namelen, s.frsize,
            ),
            Err(e) => reply.error(errno(&e)),
        }
    }

    fn create(
        &self,
        req: &Request,
        parent: INodeNo,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        reply: ReplyCreate,
    ) {
        let r = self
            .fs
            .create_request(parent.0, name, mode, umask, flags, caller(req));
        self.note("create", parent.0, Some(name), |x| x.errno = errno_of(&r));
        match r {
            Ok((a, o)) => {
                self.fs.remember_lookup(a.ino);
                reply.created(
                    &self.ttl(),
                    &attr(&a),
                    Generation(0),
                    FileHandle(o.as_ref().map_or(NO_HANDLE, |o| o.fh)),
                    o.as_ref().map_or(FopenFlags::empty(), fopen),
                )
            }
            Err(e) => reply.error(errno(&e)),
        }
    }
}

/// An extended attribute's value or name list: its size when asked with size 0, ERANGE when
/// it does not fit the size given.
fn reply_sized(reply: ReplyXattr, size: u32, v: &[u8]) {
    let Ok(len) = u32::try_from(v.len()) else {
        return reply.error(Errno::E2BIG);
    };
    if size == 0 {
        reply.size(len);
    } else if len > size {
        reply.error(Errno::ERANGE);
    } else {
        reply.data(v);
    }
}

/// The errno a request's result is answered with (0 for success), for its trace record.
fn errno_of<T>(r: &Result<T, FsError>) -> i32 {
    r.as_ref().err().map_or(0, |e| e.errno)
}

fn caller(req: &Request) -> Caller {
    Caller {
        uid: req.uid(),
        gid: req.gid(),
    }
}

/// Mount options shared by the daemon and the tests.
fn config() -> Config {
    let mut c = Config::default();
    c.mount_options = vec![
        MountOption::FSName("schrodinger".into()),
        MountOption::Subtype("schrodinger".into()),
        MountOption::DefaultPermissions,
        MountOption::RW,
    ];
    // allow_other lets every user of the machine (agents often run as another user) see the
    // view; only root may set it without fusermount's configuration.
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } == 0 {
        c.acl = SessionACL::All;
    }
    c.n_threads = Some(2);
    c
}

/// A running FUSE session: the kernel connection and its request threads.
pub(crate) struct Session(fuser::BackgroundSession);

impl Session {
    /// Mount `fs` at `mountpoint` and serve it; returns once the kernel has completed the
    /// handshake.
    pub(crate) fn start(
        fs: Arc<ViewFs>,
        mountpoint: &Path,
        trace: Option<Arc<Tracer>>,
    ) -> io::Result<Session> {
        fuser::spawn_mount(FuseFs { fs, trace }, mountpoint, &config()).map(Session)
    }

    /// Where the watcher sends its invalidations.
    pub(crate) fn invalidator(&self) -> Box<dyn Invalidate> {
        Box::new(NotifySink(self.0.notifier()))
    }

    /// True once the kernel side went away (e.g. `umount` from outside).
    pub(crate) fn is_finished(&self) -> bool {
        self.0.guard.is_finished()
    }

    pub(crate) fn umount_and_join(self) -> io::Result<()> {
        self.0.umount_and_join()
    }

    pub(crate) fn join(self) -> io::Result<()> {
        self.0.join()
    }
}
