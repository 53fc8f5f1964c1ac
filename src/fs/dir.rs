//! Directory listings: `.`, `..`, then view names in the order the original directory lists
//! them (scratch entries after), hidden names left out, and stable offsets for a listing read
//! in several calls (one snapshot per handle).
//!
//! Why the disk's order and not a sorted one: a program that walks `os.listdir` or `glob`
//! unsorted (html2text numbers its test cases in glob order) meets its files in the order the
//! file system gives, and law 5 asks the view to give the same order as the original. Sorted
//! consumers are law 5's other half, kept by `transform::order`. The order of a file system
//! that hashes names (ext4's htree, with a per-file-system secret seed) shows nothing of the
//! original names that the names themselves would not.

use super::*;

impl ViewFs {
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

    /// The listing of directory `ino`: `.`, `..`, then view names in the original's order.
    pub(super) fn list_dir(&self, ino: u64) -> FsResult<Vec<DirEntry>> {
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
        // The first of two equal names wins (an original's view name shadows a scratch entry).
        let first: Vec<bool> = {
            let mut seen = std::collections::HashSet::with_capacity(names.len());
            names.iter().map(|n| seen.insert(n.0.as_os_str())).collect()
        };
        let mut first = first.into_iter();
        // `retain` visits the entries in order, one flag each.
        names.retain(|_| first.next().unwrap_or(false));
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
}

/// The entries of a listing after `offset`, each with the offset of the next one (offsets are
/// positions in the listing, so they stay valid for the listing's life).
pub(super) fn entries_after(entries: &[DirEntry], offset: u64) -> Vec<(u64, DirEntry)> {
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    entries
        .iter()
        .enumerate()
        .skip(start)
        .map(|(i, e)| (i as u64 + 1, e.clone()))
        .collect()
}
