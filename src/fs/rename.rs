//! Renames. Within the original or within scratch a rename is one `rename(2)`; between the
//! two (tool output moved into the tree, or out of it) the entry is copied as the view shows
//! it and the source removed, so no rename fails with EXDEV and tool output never lands in
//! the original. Level 3 layouts move with the file ([`ViewFs::rederive`]).

use super::*;

impl ViewFs {
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
        let to_meta = fs::symlink_metadata(&to).ok();
        if flags & libc::RENAME_NOREPLACE != 0 && to_meta.is_some() {
            return Err(FsError::new(libc::EEXIST, "target exists"));
        }
        // Two names of one file (hard links): rename(2) does nothing and succeeds.
        if to_meta.is_some_and(|m| m.dev() == from_meta.dev() && m.ino() == from_meta.ino()) {
            return Ok(());
        }
        // Keep what the view showed for a renamed file: contents are transformed by path, so
        // the original is re-derived from the same view bytes under its new name (law 2).
        let carried = match (&from_back, from_meta.is_file()) {
            (Backing::Original(rel), true) => {
                let view = self.view_bytes(rel)?.0;
                // The view may come from a cache primed by another transform (the shadow
                // repository's render), which leaves no layout in this one: render the
                // original here once, so that the layout the view shows is remembered and
                // moves with the file, instead of the new path planning another order.
                if self.transform.base_matters(rel) {
                    if let Ok(orig) = fs::read(&from) {
                        self.to_view_content(rel, &orig)?;
                    }
                }
                Some(view)
            }
            // The same for every Python file of a moved directory: its layouts move with it.
            (Backing::Original(rel), false) if from_meta.is_dir() => {
                self.remember_layouts_below(rel, &from);
                None
            }
            _ => None,
        };
        let replaced = match fs::symlink_metadata(&to) {
            Ok(m) if m.is_file() && carried.is_some() => fs::read(&to).ok().map(|b| (b, m)),
            _ => None,
        };
        // What the view showed for the replaced file, if still cached for the bytes just read
        // (the stamp is taken again after the read, so a writer racing us is not mistaken).
        let replaced_view = match (&replaced, &to_back) {
            (Some((_, m)), Backing::Original(rel)) => fs::symlink_metadata(&to)
                .ok()
                .filter(|after| Stamp::of(after) == Stamp::of(m))
                .and_then(|_| self.cache.get(rel, Stamp::of(m))),
            _ => None,
        };
        let replaced = replaced.map(|(b, _)| b);
        let moves_state = match (&from_back, &to_back, &replaced) {
            (Backing::Original(f), Backing::Original(t), None) => Some((f, t)),
            _ => None,
        };
        if let Some((f, t)) = moves_state {
            // Saved with the layouts at both paths before the move, as every write-back saves
            // before it replaces a file: a daemon killed either side of the rename leaves a
            // state that shows the file as it was shown.
            let _ = self.guarded("rename_begin", f, || self.transform.rename_begin(f, t));
            self.persist_transform_state(Durability::KillSafe);
        }
        if let Err(e) = fs::rename(&from, &to) {
            if let Some((f, t)) = moves_state {
                let _ = self.guarded("rename_abort", f, || self.transform.rename_abort(f, t));
            }
            return Err(FsError::io(format!("rename {}", from.display()), e));
        }
        if let Some((f, t)) = moves_state {
            let _ = self.guarded("renamed", f, || self.transform.renamed(f, t));
            // The layout moved with the file: saved now, not at the next write-back, so a
            // remount, `patch --mount` or a killed daemon sees the file in the order it has.
            self.persist_transform_state(Durability::KillSafe);
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
                self.rederive(p, &to, &view, replaced, replaced_view)?;
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
    pub(super) fn rename_across(
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
    pub(super) fn list_dir_names(
        &self,
        view: &Path,
        back: &Backing,
    ) -> FsResult<Vec<(OsString, Backing)>> {
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
    pub(super) fn copy_view_entry(
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
            self.replace_original(&dst, &bytes, None, (m.mode(), None), Durability::KillSafe)
                .map_err(|e| FsError::write_back(format!("write {}", dst.display()), e))?;
        } else {
            return Err(FsError::new(
                libc::EXDEV,
                "special file moved between original and scratch",
            ));
        }
        Ok(())
    }

    /// Remove the entry behind `back` (and, for an original directory, its scratch mirror).
    pub(super) fn remove_entry(&self, back: &Backing, view: &Path, dir: bool) -> FsResult<()> {
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

    /// Make original `rel` (at `path`) the inverse of `view` under its current name. `replaced`
    /// is the original that the rename replaced, if any: an editor's save (temp file, then
    /// rename over) is an edit of that file, so it is the base of the inverse. When the view
    /// bytes are exactly what the view showed for that file (`replaced_view`: `sed -i` over a
    /// file it did not change), the inverse is that original byte for byte (law 1), and is
    /// taken as such without running the transform.
    pub(super) fn rederive(
        &self,
        rel: &Path,
        path: &Path,
        view: &Arc<Vec<u8>>,
        replaced: Option<Vec<u8>>,
        replaced_view: Option<Arc<Vec<u8>>>,
    ) -> FsResult<()> {
        let m = fs::symlink_metadata(path)
            .map_err(|e| FsError::io(format!("stat {}", path.display()), e))?;
        let current =
            fs::read(path).map_err(|e| FsError::io(format!("read {}", path.display()), e))?;
        let unchanged = replaced.is_some() && replaced_view.is_some_and(|v| v == *view);
        let base = replaced.unwrap_or_else(|| current.clone());
        let orig = if unchanged {
            base
        } else {
            self.to_original_killsafe(rel, view, Some(&base))?
        };
        let owner = Some((m.uid(), m.gid()));
        // Like a rename on a native disk: atomic, durable once the caller fsyncs.
        self.replace_original(
            path,
            &orig,
            Some(&current),
            (m.mode(), owner),
            Durability::KillSafe,
        )
        .map_err(|e| FsError::write_back(format!("write {}", path.display()), e))?;
        let m = fs::symlink_metadata(path)
            .map_err(|e| FsError::io(format!("stat {}", path.display()), e))?;
        self.cache.put(rel, Stamp::of(&m), view.clone());
        Ok(())
    }

    /// Render every file below the original directory `dir` (at `rel`) whose transform
    /// remembers a layout, so that a move of the directory carries the layouts its view
    /// shows (see `rename`). Unreadable entries are skipped: they have no view to keep.
    fn remember_layouts_below(&self, rel: &Path, dir: &Path) {
        let mut stack = vec![(rel.to_path_buf(), dir.to_path_buf())];
        while let Some((r, d)) = stack.pop() {
            let Ok(rd) = fs::read_dir(&d) else { continue };
            for e in rd.flatten() {
                let Ok(ft) = e.file_type() else { continue };
                let (cr, cp) = (r.join(e.file_name()), e.path());
                if ft.is_dir() {
                    stack.push((cr, cp));
                } else if ft.is_file() && self.transform.base_matters(&cr) {
                    if let Ok(orig) = fs::read(&cp) {
                        let _ = self.to_view_content(&cr, &orig);
                    }
                }
            }
        }
    }

    // ---------------------------------------------------------------- directories
}
