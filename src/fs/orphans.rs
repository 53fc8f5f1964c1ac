//! Files unlinked while the kernel still holds them (an open descriptor, or an inode it has
//! not forgotten yet): as on a native filesystem they stay readable, writable and `fstat`able
//! by inode, with their last view bytes, until the kernel forgets the inode (FORGET); nothing
//! of them is ever written back (the node is unlinked, see `writeback.rs`). The kernel's
//! references are counted from the entry replies it gets ([`ViewFs::remember_lookup`]), so a
//! file nobody holds keeps nothing after its unlink.

use super::*;

impl ViewFs {
    /// The kernel was given `ino` in an entry reply (LOOKUP, CREATE, MKDIR, MKNOD, SYMLINK).
    pub fn remember_lookup(&self, ino: u64) {
        if let Some(n) = self.state.lock().table.get_mut(ino) {
            n.lookups = n.lookups.saturating_add(1);
        }
    }

    /// FORGET: the kernel dropped `n` of its references to `ino`. An unlinked node with
    /// none left is gone, with what was kept of it.
    pub fn forget(&self, ino: u64, n: u64) {
        let mut st = self.state.lock();
        if let Some(node) = st.table.get_mut(ino) {
            node.lookups = node.lookups.saturating_sub(n);
        }
        if st.table.drop_unlinked(ino) {
            st.buffers.remove(&ino);
            st.orphans.remove(&ino);
        }
    }

    /// Before the file behind `ino` is unlinked: when the kernel holds the inode, what a
    /// descriptor must still see (its attributes and view bytes, for a file up to
    /// [`MAX_BUFFERED`]), to [`ViewFs::adopt_orphan`] once the unlink succeeded.
    pub(super) fn orphan_of(&self, ino: u64, back: &Backing) -> FsResult<Option<(Attr, Vec<u8>)>> {
        let held = self
            .state
            .lock()
            .table
            .get(ino)
            .is_some_and(|n| n.lookups > 0);
        if !held {
            return Ok(None);
        }
        let mut attr = self.attr_of(ino, back)?;
        if attr.kind != Kind::File || attr.size > MAX_BUFFERED as u64 {
            return Ok(None);
        }
        let buffered = self.state.lock().buffers.get(&ino).map(|b| b.data.clone());
        let bytes = match (buffered, back) {
            (Some(b), _) => b,
            (None, Backing::Original(rel)) => self.view_bytes(rel)?.0.to_vec(),
            (None, Backing::Scratch(_)) => {
                let path = self.safe_path(back)?;
                fs::read(&path).map_err(|e| FsError::io(format!("read {}", path.display()), e))?
            }
        };
        attr.nlink = 0;
        Ok(Some((attr, bytes)))
    }

    /// The file behind `ino` is unlinked: keep what [`ViewFs::orphan_of`] took.
    pub(super) fn adopt_orphan(&self, ino: u64, attr: Attr, bytes: Vec<u8>) {
        let mut st = self.state.lock();
        st.buffers
            .entry(ino)
            .or_insert_with(|| Buffer::new(bytes, false));
        st.orphans.insert(ino, attr);
    }

    /// The attributes of an unlinked file still held by the kernel.
    pub(super) fn orphan_attr(&self, ino: u64) -> Option<Attr> {
        let st = self.state.lock();
        let mut a = *st.orphans.get(&ino)?;
        if let Some(b) = st.buffers.get(&ino) {
            a.size = b.data.len() as u64;
            a.blocks = a.size.div_ceil(512);
        }
        Some(a)
    }
}
