//! Opening, reading and writing: handles and their view buffers, and the handle-less
//! (`*_ino`) requests a watched mount receives. A buffer holds the view bytes being written;
//! reads see it (law 2) and its write-back is in `writeback.rs`. Nothing here may grow a
//! buffer past [`MAX_BUFFERED`].

use super::*;

impl ViewFs {
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
                if !trunc
                    && self.is_raw(&rel, m.len())
                    && !self.state.lock().buffers.contains_key(&ino)
                {
                    let f = fs::OpenOptions::new()
                        .read(true)
                        .write(write)
                        .custom_flags(libc::O_NOFOLLOW)
                        .open(self.safe_path(&Backing::Original(rel.clone()))?)
                        .map_err(|e| FsError::io(format!("open {}", path.display()), e))?;
                    return Ok(self.add_handle(
                        Handle::Direct { file: Arc::new(f) },
                        false,
                        !write,
                    ));
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
    pub(super) fn trusted_view(&self, ino: u64, rel: &Path) -> Option<Arc<Vec<u8>>> {
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

    pub(super) fn add_handle(&self, h: Handle, keep_cache: bool, read_only: bool) -> Opened {
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
            }
            // A buffer that could not be written back stays: it is the only copy.
            st.drop_unheld(ino, false);
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
            Backing::Original(rel) => match fs::symlink_metadata(self.root.join(&rel)) {
                Ok(m) if self.is_raw(&rel, m.len()) => self.raw_read(&rel, offset, size),
                _ => Ok(slice(&self.view_bytes(&rel)?.0, offset, size)),
            },
            Backing::Scratch(_) => read_at_most(&self.open_backing(&back, false)?, offset, size),
        }
    }

    /// Write without a handle. Written back to the original before it returns, except a
    /// full-size chunk (`data.len() == MAX_WRITE`) of a file over [`SYNC_WRITEBACK_MAX`],
    /// which the deferred flusher writes back (see the module note).
    pub fn write_ino(&self, ino: u64, offset: u64, data: &[u8]) -> FsResult<u32> {
        // Scratch files are plain files, written as they come, outside the write-back lock.
        let back = self.node_backing(ino)?;
        if let Backing::Scratch(_) = back {
            return self.write_scratch(&back, offset, data);
        }
        // From reading the view the write applies to until that view is in the original,
        // no other write-back may run: concurrent writes (the pages of one `msync`, sent by
        // several kernel threads) would otherwise each write back a view read before the
        // other landed, and one of them would be lost.
        let _wb = self.writeback.lock();
        let (back, unlinked, has_buffer) = {
            let st = self.state.lock();
            let n = st.table.get(ino).ok_or_else(FsError::noent)?;
            (n.backing.clone(), n.unlinked, st.buffers.contains_key(&ino))
        };
        let rel = match back {
            // Renamed into the scratch area meanwhile: written there, as above.
            Backing::Scratch(_) => return self.write_scratch(&back, offset, data),
            Backing::Original(rel) => rel,
        };
        if !has_buffer && !unlinked && self.goes_raw(&rel, offset, data.len() as u64)? {
            return self.raw_write(&rel, offset, data);
        }
        let start = write_start(offset, data.len())?;
        // The view the write applies to, taken outside the state lock (it may transform).
        let fresh = if has_buffer || unlinked {
            None
        } else {
            Some(self.view_bytes(&rel)?)
        };
        if let Some((view, stamp)) = &fresh {
            // A binary Python file is shown as its bytes too unless a layout remembered for
            // it says otherwise (an agent's junk written over a reordered file): when the
            // view is the original's bytes, binary junk written over binary junk has no
            // layout either (Level 3 leaves a file with a NUL byte in place).
            if stays_binary(view, start, data) && self.binary_view_is_original(&rel, view) {
                if let Some(n) = self.write_in_place(&rel, view, *stamp, start, data)? {
                    return Ok(n);
                }
            }
        }
        let fresh = fresh.map(|(view, _)| view);
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
        self.flush_unheld_locked(ino, Durability::KillSafe)?;
        Ok(data.len() as u32)
    }

    /// Write `data` at `offset` of the scratch file `back`.
    fn write_scratch(&self, back: &Backing, offset: u64, data: &[u8]) -> FsResult<u32> {
        self.open_backing(back, true)?
            .write_all_at(data, offset)
            .map_err(|e| FsError::io("write scratch", e))?;
        Ok(data.len() as u32)
    }

    /// Where node `ino` lives.
    fn node_backing(&self, ino: u64) -> FsResult<Backing> {
        let st = self.state.lock();
        let n = st.table.get(ino).ok_or_else(FsError::noent)?;
        Ok(n.backing.clone())
    }

    /// A write to a binary file that stays binary: the view is the original, so the bytes go
    /// to the original at their offset, as on a native disk, instead of a rewrite of the
    /// whole file (fsx's thousands of small writes made that quadratic).
    /// `None` when the file changed since `view` was read (at `stamp`): the caller then
    /// takes the buffered path. The caller holds the write-back lock.
    fn write_in_place(
        &self,
        rel: &Path,
        view: &[u8],
        stamp: Stamp,
        start: usize,
        data: &[u8],
    ) -> FsResult<Option<u32>> {
        // Else the buffered path takes the write.
        let Some(f) = self.open_unchanged(rel, stamp)? else {
            return Ok(None);
        };
        f.write_all_at(data, start as u64)
            .map_err(|e| FsError::write_back(format!("write {}", rel.display()), e))?;
        let mut new = view.to_vec();
        if new.len() < start + data.len() {
            new.resize(start + data.len(), 0);
        }
        new[start..start + data.len()].copy_from_slice(data);
        self.cache_in_place(rel, &f, new)?;
        Ok(Some(data.len() as u32))
    }

    /// The original `rel` opened for writing, if it still has `stamp`, the stamp of the bytes
    /// a view was read from (checked on the descriptor that will be written; the caller holds
    /// the write-back lock); `None` when it changed since.
    pub(super) fn open_unchanged(&self, rel: &Path, stamp: Stamp) -> FsResult<Option<fs::File>> {
        let path = self.safe_path(&Backing::Original(rel.to_path_buf()))?;
        let f = fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| FsError::io(format!("open {}", path.display()), e))?;
        let before = f
            .metadata()
            .map_err(|e| FsError::io(format!("stat {}", path.display()), e))?;
        Ok((Stamp::of(&before) == stamp).then_some(f))
    }

    /// After changing the original `rel` in place through `f`, cache `view` as what it shows.
    pub(super) fn cache_in_place(&self, rel: &Path, f: &fs::File, view: Vec<u8>) -> FsResult<()> {
        let m = f
            .metadata()
            .map_err(|e| FsError::io(format!("stat {}", rel.display()), e))?;
        self.cache_own_write(rel, &m, Arc::new(view));
        Ok(())
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
            if let Backing::Original(rel) = &back {
                self.settle_now(rel)?;
            }
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
        let (view, back, path) = self.new_place(parent, name)?;
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
    pub(super) fn open_backing(&self, back: &Backing, write: bool) -> FsResult<File> {
        let path = self.safe_path(back)?;
        fs::OpenOptions::new()
            .read(!write)
            .write(write)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| FsError::io(format!("open {}", path.display()), e))
    }
}

/// Create the regular file `path` (never following a symlink there). Returns whether it
/// existed already, which only a create without `O_EXCL` accepts.
pub(super) fn create_file(path: &Path, perm: u32, flags: i32) -> FsResult<bool> {
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

/// Up to `size` bytes of `file` from `offset` (short only at the end of the file).
pub(super) fn read_at_most(file: &File, offset: u64, size: u32) -> FsResult<Vec<u8>> {
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

pub(super) fn slice(data: &[u8], offset: u64, size: u32) -> Vec<u8> {
    let start = usize::try_from(offset)
        .unwrap_or(usize::MAX)
        .min(data.len());
    let end = start.saturating_add(size as usize).min(data.len());
    data[start..end].to_vec()
}

/// Whether `view` is binary (it holds a NUL byte, so it is the original's bytes as they are)
/// and stays binary with `data` written at `start`: a NUL outside the written range, in the
/// data, or in the hole a write past the end leaves.
fn stays_binary(view: &[u8], start: usize, data: &[u8]) -> bool {
    if !view.contains(&0) {
        return false;
    }
    let end = start.saturating_add(data.len());
    data.contains(&0)
        || view[..start.min(view.len())].contains(&0)
        || view.get(end..).is_some_and(|rest| rest.contains(&0))
        || start > view.len()
}
