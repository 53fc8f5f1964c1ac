//! Attributes: what `stat` reports (the size of the bytes served, the owner given at mount),
//! and `setattr` (mode, owner, times, and truncation through the view buffer).

use super::*;

impl ViewFs {
    pub(super) fn attr_of(&self, ino: u64, b: &Backing) -> FsResult<Attr> {
        let mut a = self.disk_attr(ino, b)?;
        if let Some(o) = self.owner {
            a.uid = o.uid;
            a.gid = o.gid;
        }
        Ok(a)
    }

    pub(super) fn disk_attr(&self, ino: u64, b: &Backing) -> FsResult<Attr> {
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
            Backing::Original(rel) if self.is_raw(rel, m.len()) => m.len(),
            Backing::Original(rel) => self.view_len(rel, &m)?,
            Backing::Scratch(_) => m.len(),
        };
        Ok(attr_from(ino, &m, size))
    }

    // ---------------------------------------------------------------- namespace

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
        } else if set.size.is_none()
            && (set.mode.is_some() || set.uid.is_some() || set.gid.is_some())
        {
            // A chmod or chown moves the ctime alone: the view known for the bytes before is
            // still theirs (`sed -i` sets the mode and owner of every file it writes), unless
            // the size or the mtime moved too, which a writer racing us would make them do.
            if let Backing::Original(rel) = &back {
                if let Ok(after) = fs::symlink_metadata(&path) {
                    if after.len() == m.len()
                        && after.ino() == m.ino()
                        && (after.mtime(), after.mtime_nsec()) == (m.mtime(), m.mtime_nsec())
                    {
                        self.cache.restamp(rel, Stamp::of(&m), Stamp::of(&after));
                    }
                }
            }
        }
        self.attr_of(ino, &back)
    }

    pub(super) fn truncate(
        &self,
        ino: u64,
        back: &Backing,
        path: &Path,
        size: u64,
    ) -> FsResult<()> {
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
        if size == 0 {
            self.settle_now(rel)?;
        }
        // As for a write (`ViewFs::write_ino`): the view read here is in the original before
        // any other write-back runs.
        let _wb = self.writeback.lock();
        if !self.state.lock().buffers.contains_key(&ino) && self.goes_raw(rel, size, 0)? {
            return self.raw_truncate(rel, size);
        }
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
            Some(_) => return self.flush_unheld_locked(ino, Durability::KillSafe),
            None => {}
        }
        // No writer holds this file: apply the truncation to the original right away.
        let (view, stamp) = self.view_bytes(rel)?;
        // A binary file whose view is its bytes, staying binary: truncated in place, as on a
        // native disk (see `ViewFs::write_in_place`).
        let keeps_nul = |v: &[u8]| v[..len.min(v.len())].contains(&0) || len > v.len();
        if view.contains(&0)
            && keeps_nul(&view)
            && self.binary_view_is_original(rel, &view)
            && self.truncate_in_place(rel, &view, stamp, len)?
        {
            return Ok(());
        }
        let mut data = view.to_vec();
        data.resize(len, 0);
        {
            let mut st = self.state.lock();
            st.buffers.insert(ino, Buffer::new(data, true));
        }
        let r = self.flush_ino_locked(ino, Durability::KillSafe);
        // A failed immediate truncate is reported, not retried behind the caller's back.
        self.state.lock().drop_unheld(ino, r.is_err());
        r
    }

    /// Truncate the original `rel`, whose bytes are its `view` (at `stamp`), to `len` in
    /// place; `false` when it changed since `view` was read (the caller then rewrites it).
    /// The caller holds the write-back lock.
    fn truncate_in_place(
        &self,
        rel: &Path,
        view: &[u8],
        stamp: Stamp,
        len: usize,
    ) -> FsResult<bool> {
        let Some(f) = self.open_unchanged(rel, stamp)? else {
            return Ok(false);
        };
        f.set_len(len as u64)
            .map_err(|e| FsError::write_back(format!("truncate {}", rel.display()), e))?;
        let mut new = view.to_vec();
        new.resize(len, 0);
        self.cache_in_place(rel, &f, new)?;
        Ok(true)
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

pub(super) fn timespec(t: Option<SetTime>) -> libc::timespec {
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

pub(super) fn set_times(
    path: &Path,
    atime: Option<SetTime>,
    mtime: Option<SetTime>,
) -> io::Result<()> {
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
