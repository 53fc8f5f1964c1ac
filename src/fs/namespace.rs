//! Names: lookups and the operations that add or remove one directory entry (mkdir, mknod,
//! symlink, unlink, rmdir). Every name goes through [`ViewFs::child`], which translates it,
//! refuses what is not one plain component or longer than [`NAME_MAX`], and routes it to the
//! original or to scratch; what a caller creates becomes the caller's ([`Caller`]).

use super::*;

impl ViewFs {
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
        let m = fs::symlink_metadata(&path)
            .map_err(|e| FsError::io(format!("lookup {}", path.display()), e))?;
        let ino = {
            let mut guard = self.state.lock();
            let st = &mut *guard;
            if m.is_file() && m.nlink() > 1 {
                let (handles, buffers) = (&st.handles, &st.buffers);
                let busy = |i: u64| {
                    buffers.contains_key(&i)
                        || handles
                            .values()
                            .any(|h| matches!(h, Handle::View { ino, .. } if *ino == i))
                };
                st.table
                    .intern_linked(view, back.clone(), (m.dev(), m.ino()), busy)
            } else {
                st.table.intern(view, back.clone())
            }
        };
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
        let (_, back) = match self.node(ino) {
            Ok(n) => n,
            Err(e) => return self.orphan_attr(ino).ok_or(e),
        };
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

    pub(super) fn link_to_view(&self, target: &[u8]) -> Vec<u8> {
        links::to_view(self.transform.as_ref(), target, &self.roots)
    }

    pub(super) fn new_entry(&self, view: PathBuf, back: Backing) -> FsResult<Attr> {
        let ino = self.state.lock().table.intern(view, back.clone());
        self.attr_of(ino, &back)
    }

    /// Make sure a scratch directory's parents exist (they mirror view directories).
    pub(super) fn prepare(&self, back: &Backing) -> FsResult<()> {
        if let Backing::Scratch(p) = back {
            if let Some(parent) = p.parent() {
                let d = self.scratch.join(parent);
                fs::create_dir_all(&d)
                    .map_err(|e| FsError::io(format!("mkdir {}", d.display()), e))?;
            }
        }
        Ok(())
    }

    /// Where a new entry `name` of directory `parent` goes: its view path, its backing, and
    /// its path on disk (never through a symlink), with the scratch parents it needs made.
    pub(super) fn new_place(
        &self,
        parent: u64,
        name: &OsStr,
    ) -> FsResult<(PathBuf, Backing, PathBuf)> {
        let (view, back) = self.child(parent, name)?;
        self.prepare(&back)?;
        let path = self.safe_path(&back)?;
        Ok((view, back, path))
    }

    pub fn mkdir(
        &self,
        parent: u64,
        name: &OsStr,
        mode: u32,
        umask: u32,
        who: Caller,
    ) -> FsResult<Attr> {
        let (view, back, path) = self.new_place(parent, name)?;
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
        let (view, back, path) = self.new_place(parent, name)?;
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
        let (view, back, path) = self.new_place(parent, name)?;
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

    /// A hard link: the new name is made beside the old one in the original (or in scratch)
    /// and becomes one more name of the same node, so the kernel sees one inode. A link
    /// between the original and scratch is refused with EXDEV, as across filesystems, and a
    /// directory with EPERM.
    pub fn link(&self, ino: u64, newparent: u64, newname: &OsStr) -> FsResult<Attr> {
        let (_, back) = self.node(ino)?;
        let src = self.safe_path(&back)?;
        let m = fs::symlink_metadata(&src)
            .map_err(|e| FsError::io(format!("link {}", src.display()), e))?;
        if m.is_dir() {
            return Err(FsError::new(libc::EPERM, "hard link to a directory"));
        }
        let (view, nback, path) = self.new_place(newparent, newname)?;
        if matches!(back, Backing::Original(_)) != matches!(nback, Backing::Original(_)) {
            return Err(FsError::new(
                libc::EXDEV,
                "link between the original and scratch",
            ));
        }
        fs::hard_link(&src, &path)
            .map_err(|e| FsError::io(format!("link {}", path.display()), e))?;
        {
            let mut st = self.state.lock();
            // A name left in the table by a file removed from outside the view.
            st.table.remove(&view);
            st.table.link(ino, view, nback);
            st.table.note_linked(ino, (m.dev(), m.ino()));
        }
        self.attr_of(ino, &back)
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
        if let Backing::Original(rel) = &back {
            self.settle_now(rel)?;
        }
        let old = match &back {
            Backing::Original(rel) if m.is_file() && m.len() <= UNLINKED_MAX_BYTES => {
                fs::read(&path).ok().map(|b| (rel.clone(), b))
            }
            _ => None,
        };
        // A descriptor still open on it keeps reading and `fstat`ing what it had (a node
        // with another name keeps being served by that name).
        let ino = {
            let st = self.state.lock();
            st.table
                .ino_of(&view)
                .filter(|i| st.table.get(*i).is_some_and(|n| n.aliases.is_empty()))
        };
        let orphan = match ino.map(|i| self.orphan_of(i, &back)) {
            Some(Ok(o)) => o,
            Some(Err(e)) => {
                tracing::debug!("keeping {} for open descriptors: {e}", view.display());
                None
            }
            None => None,
        };
        fs::remove_file(&path).map_err(|e| FsError::io(format!("unlink {}", path.display()), e))?;
        if let (Some(ino), Some((attr, bytes))) = (ino, orphan) {
            self.adopt_orphan(ino, attr, bytes);
        }
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
}
