//! Which way a request goes. A watched mount serves files without handles: the first OPEN
//! and OPENDIR are answered ENOSYS, after which the kernel sends no OPEN, FLUSH or RELEASE
//! and makes its I/O with handle 0 ([`NO_HANDLE`]), each write written back before it is
//! acknowledged (docs/performance.md, lever 8). Otherwise every file goes through a handle
//! and is written back at flush, fsync and close. `fuse.rs` asks these methods and turns
//! the answer into a reply; the decisions are tested here, without a kernel.

use super::*;

/// The handle of a request made without one.
pub const NO_HANDLE: u64 = 0;

fn no_handles() -> FsError {
    FsError::new(libc::ENOSYS, "served without handles")
}

impl ViewFs {
    /// Serve files without handles from now on; called before the kernel session starts.
    pub fn serve_by_inode(&self) {
        self.by_inode
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn by_inode(&self) -> bool {
        self.by_inode.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// OPEN: a handle, or ENOSYS when files are served without handles (the kernel then
    /// stops asking).
    pub fn open_request(&self, ino: u64, flags: i32) -> FsResult<Opened> {
        if self.by_inode() {
            return match self.getattr(ino)? {
                a if a.kind == Kind::Dir => Err(FsError::new(libc::EISDIR, "a directory")),
                _ => Err(no_handles()),
            };
        }
        self.open(ino, flags)
    }

    /// OPENDIR: a listing handle, or ENOSYS when listings are served by inode.
    pub fn opendir_request(&self, ino: u64) -> FsResult<u64> {
        if self.by_inode() {
            self.check_dir(ino)?;
            return Err(no_handles());
        }
        self.opendir(ino)
    }

    /// CREATE: the new file, and its handle unless files are served without handles.
    pub fn create_request(
        &self,
        parent: u64,
        name: &OsStr,
        mode: u32,
        umask: u32,
        flags: i32,
        who: Caller,
    ) -> FsResult<(Attr, Option<Opened>)> {
        if self.by_inode() {
            let a = self.create_ino(parent, name, mode, umask, flags, who)?;
            return Ok((a, None));
        }
        let (a, o) = self.create(parent, name, mode, umask, flags, who)?;
        Ok((a, Some(o)))
    }

    pub fn read_request(&self, ino: u64, fh: u64, offset: u64, size: u32) -> FsResult<Vec<u8>> {
        if fh == NO_HANDLE {
            return self.read_ino(ino, offset, size);
        }
        self.read(ino, fh, offset, size)
    }

    pub fn write_request(&self, ino: u64, fh: u64, offset: u64, data: &[u8]) -> FsResult<u32> {
        if fh == NO_HANDLE {
            return self.write_ino(ino, offset, data);
        }
        self.write(ino, fh, offset, data)
    }

    /// FLUSH: handle-less writes are in the original when acknowledged, so there is nothing
    /// to do at close, and ENOSYS stops the kernel from asking at every close.
    pub fn flush_request(&self, ino: u64, fh: u64) -> FsResult<()> {
        if fh == NO_HANDLE {
            return Err(no_handles());
        }
        self.flush(ino, fh)
    }

    pub fn release_request(&self, ino: u64, fh: u64) -> FsResult<()> {
        if fh == NO_HANDLE {
            return Ok(());
        }
        self.release(ino, fh)
    }

    pub fn fsync_request(&self, ino: u64, fh: u64) -> FsResult<()> {
        if fh == NO_HANDLE {
            return self.fsync_ino(ino);
        }
        self.fsync(ino, fh)
    }
}
