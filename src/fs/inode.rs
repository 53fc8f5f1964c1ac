//! Inode table: view-relative path <-> inode number, with where each node lives.
//!
//! A node's backing is a pure function of its view path (names translated component by
//! component, scratch names routed to the private tree), so the table is only a cache of
//! that function plus stable numbers; renames move whole subtrees. Inode numbers are never
//! reused while mounted (forget is ignored), so a stale number can only miss, not alias.
//!
//! A hard link made through the view is one node with more than one name: the kernel sees
//! one inode (one page cache, one attribute set), as on a native filesystem. The node's
//! `view` and `backing` are one of its names (the one its contents are read and transformed
//! through); the others are `aliases`. Removing or moving a name keeps the node whole as long
//! as it has another one.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use super::error::{FsError, FsResult};
use super::paths::subtree;
use crate::transform::Transform;
use crate::transform::WRITEBACK_TMP_PREFIX as TMP_PREFIX;

pub const ROOT_INO: u64 = 1;

/// Where a node's bytes live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backing {
    /// Relative to the original root, in original names.
    Original(PathBuf),
    /// Relative to the scratch root, in view names (tool-generated caches).
    Scratch(PathBuf),
}

impl Backing {
    pub fn join(&self, name: &OsStr) -> Backing {
        match self {
            Backing::Original(p) => Backing::Original(p.join(name)),
            Backing::Scratch(p) => Backing::Scratch(p.join(name)),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Node {
    pub view: PathBuf,
    pub backing: Backing,
    /// Removed or renamed over: pending write-backs of open handles are dropped, never
    /// resurrect the file.
    pub unlinked: bool,
    /// Stamp of the original at the last open, when the kernel page cache still holds
    /// exactly what we would serve again.
    pub open_stamp: Option<super::content::Stamp>,
    /// The original was verified at `open_stamp` and the watcher reported no change since:
    /// a read-only open may serve the cached view without touching the original.
    pub trusted: bool,
    /// How many times the kernel was given this node (entry replies), less what it forgot:
    /// while it is above zero the kernel may still use the inode, open or not.
    pub lookups: u64,
    /// Other names of the node (hard links made through the view), with their backings.
    pub aliases: Vec<(PathBuf, Backing)>,
}

impl Node {
    /// The backing of this node's name `view` (its main name's when `view` is not an alias).
    pub fn backing_of(&self, view: &Path) -> &Backing {
        self.aliases
            .iter()
            .find(|(v, _)| v == view)
            .map_or(&self.backing, |(_, b)| b)
    }
}

pub struct Table {
    nodes: HashMap<u64, Node>,
    /// Ordered by path components, so a subtree is one contiguous range (renames and
    /// unlinks touch only it, not every node of a large tree).
    by_view: BTreeMap<PathBuf, u64>,
    /// Nodes of files with more than one name in the original, by (device, inode number):
    /// a name looked up later (after a remount, or a link made outside the view) joins the
    /// node instead of becoming a second inode the kernel would cache apart.
    linked: HashMap<(u64, u64), u64>,
    next: u64,
}

impl Table {
    pub fn new() -> Self {
        let mut t = Table {
            nodes: HashMap::new(),
            by_view: BTreeMap::new(),
            linked: HashMap::new(),
            next: ROOT_INO + 1,
        };
        t.nodes.insert(
            ROOT_INO,
            Node {
                view: PathBuf::new(),
                backing: Backing::Original(PathBuf::new()),
                unlinked: false,
                open_stamp: None,
                trusted: false,
                lookups: 0,
                aliases: Vec::new(),
            },
        );
        t.by_view.insert(PathBuf::new(), ROOT_INO);
        t
    }

    pub fn get(&self, ino: u64) -> Option<&Node> {
        self.nodes.get(&ino)
    }

    pub fn get_mut(&mut self, ino: u64) -> Option<&mut Node> {
        self.nodes.get_mut(&ino)
    }

    /// Drop an unlinked node the kernel no longer references (its number is never reused).
    pub fn drop_unlinked(&mut self, ino: u64) -> bool {
        if self
            .nodes
            .get(&ino)
            .is_some_and(|n| n.unlinked && n.lookups == 0)
        {
            self.nodes.remove(&ino);
            return true;
        }
        false
    }

    /// Withdraw the trust of the node at `view` and, for a directory, of everything below.
    pub fn distrust(&mut self, view: &Path, subtree: bool) {
        if subtree {
            let inos: Vec<u64> = self.subtree(view).map(|(_, i)| *i).collect();
            for ino in inos {
                if let Some(n) = self.nodes.get_mut(&ino) {
                    n.trusted = false;
                }
            }
        } else if let Some(n) = self.by_view.get(view).and_then(|i| self.nodes.get_mut(i)) {
            n.trusted = false;
        }
    }

    /// Every inode number in the table.
    pub fn inodes(&self) -> Vec<u64> {
        self.nodes.keys().copied().collect()
    }

    /// (parent inode, name) of every node whose parent is in the table.
    pub fn entries(&self) -> Vec<(u64, OsString)> {
        self.by_view
            .keys()
            .filter_map(|view| {
                let parent = self.by_view.get(view.parent()?)?;
                Some((*parent, view.file_name()?.to_os_string()))
            })
            .collect()
    }

    pub fn ino_of(&self, view: &Path) -> Option<u64> {
        self.by_view.get(view).copied()
    }

    /// The inode for `view`, created if new; its backing is refreshed.
    pub fn intern(&mut self, view: PathBuf, backing: Backing) -> u64 {
        if let Some(&ino) = self.by_view.get(&view) {
            if let Some(n) = self.nodes.get_mut(&ino) {
                match n.aliases.iter_mut().find(|(v, _)| *v == view) {
                    Some(alias) => alias.1 = backing,
                    None => n.backing = backing,
                }
                n.unlinked = false;
            }
            return ino;
        }
        let ino = self.next;
        self.next += 1;
        self.by_view.insert(view.clone(), ino);
        self.nodes.insert(
            ino,
            Node {
                view,
                backing,
                unlinked: false,
                open_stamp: None,
                trusted: false,
                lookups: 0,
                aliases: Vec::new(),
            },
        );
        ino
    }

    /// [`Table::intern`] for a file with more than one name in the original (`file`: its
    /// device and inode number): the name joins the node that already holds another name of
    /// that file, unless the kernel or a handle already knows this name's own node (`busy`).
    pub fn intern_linked(
        &mut self,
        view: PathBuf,
        backing: Backing,
        file: (u64, u64),
        busy: impl Fn(u64) -> bool,
    ) -> u64 {
        let ino = self.intern(view.clone(), backing.clone());
        let joins = self.linked.get(&file).copied().filter(|&x| {
            x != ino
                && self.nodes.get(&x).is_some_and(|n| !n.unlinked)
                && self
                    .nodes
                    .get(&ino)
                    .is_some_and(|n| n.lookups == 0 && n.aliases.is_empty() && n.view == view)
                && !busy(ino)
        });
        let Some(x) = joins else {
            self.linked.entry(file).or_insert(ino);
            return ino;
        };
        self.nodes.remove(&ino);
        self.by_view.insert(view.clone(), x);
        if let Some(n) = self.nodes.get_mut(&x) {
            n.aliases.push((view, backing));
        }
        x
    }

    /// Remember that node `ino` is the file `file` (device, inode number) of the original.
    pub fn note_linked(&mut self, ino: u64, file: (u64, u64)) {
        self.linked.insert(file, ino);
    }

    /// Give node `ino` the further name `view` (a hard link). False when `ino` is gone or
    /// `view` is taken.
    pub fn link(&mut self, ino: u64, view: PathBuf, backing: Backing) -> bool {
        if self.by_view.contains_key(&view) {
            return false;
        }
        let Some(n) = self.nodes.get_mut(&ino).filter(|n| !n.unlinked) else {
            return false;
        };
        n.aliases.push((view.clone(), backing));
        self.by_view.insert(view, ino);
        true
    }

    /// Take the name `view` from its node: the node is unlinked only when that was its last
    /// name, and a removed main name hands over to an alias.
    fn drop_name(&mut self, ino: u64, view: &Path) {
        let Some(n) = self.nodes.get_mut(&ino) else {
            return;
        };
        if let Some(k) = n.aliases.iter().position(|(v, _)| v == view) {
            n.aliases.remove(k);
        } else if n.view == view && !n.aliases.is_empty() {
            let (v, b) = n.aliases.remove(0);
            n.view = v;
            n.backing = b;
        } else {
            n.unlinked = true;
        }
    }

    /// The entries at `view` and below it.
    fn subtree<'a>(&'a self, view: &'a Path) -> impl Iterator<Item = (&'a PathBuf, &'a u64)> {
        subtree(&self.by_view, view)
    }

    /// Detach the node at `view` (and its subtree) from the namespace.
    pub fn remove(&mut self, view: &Path) {
        let doomed: Vec<PathBuf> = self.subtree(view).map(|(k, _)| k.clone()).collect();
        for k in doomed {
            if let Some(ino) = self.by_view.remove(&k) {
                self.drop_name(ino, &k);
            }
        }
    }

    /// Move the subtree at `from` to `to` (whatever was at `to` must be removed first).
    /// Original-backed descendants are rebased from the old original path to the new one;
    /// scratch paths are view paths, so they simply follow the view.
    pub fn rename(&mut self, from: &Path, to: &Path, to_backing: &Backing) {
        let old_root = self
            .by_view
            .get(from)
            .and_then(|i| self.nodes.get(i))
            .map(|n| n.backing_of(from).clone());
        let moved: Vec<(PathBuf, u64)> = self.subtree(from).map(|(k, v)| (k.clone(), *v)).collect();
        for (old, ino) in moved {
            self.by_view.remove(&old);
            let suffix = old.strip_prefix(from).unwrap_or(Path::new(""));
            let new_view = if suffix.as_os_str().is_empty() {
                to.to_path_buf()
            } else {
                to.join(suffix)
            };
            let Some(node) = self.nodes.get_mut(&ino) else {
                continue;
            };
            let alias = node.aliases.iter().position(|(v, _)| *v == old);
            let backing = node.backing_of(&old);
            let new_backing = if suffix.as_os_str().is_empty() {
                to_backing.clone()
            } else {
                match (backing, &old_root, to_backing) {
                    (Backing::Original(p), Some(Backing::Original(r)), Backing::Original(n)) => {
                        match p.strip_prefix(r) {
                            Ok(rest) => Backing::Original(n.join(rest)),
                            Err(_) => Backing::Scratch(new_view.clone()),
                        }
                    }
                    _ => Backing::Scratch(new_view.clone()),
                }
            };
            match alias {
                Some(k) => node.aliases[k] = (new_view.clone(), new_backing),
                None => {
                    node.view = new_view.clone();
                    node.backing = new_backing;
                }
            }
            self.by_view.insert(new_view, ino);
        }
    }
}

impl Default for Table {
    fn default() -> Self {
        Self::new()
    }
}

/// A single, plain path component: not empty, not `.`/`..`, no `/`, no NUL.
pub fn is_plain_component(name: &OsStr) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && b != b"."
        && b != b".."
        && !b.contains(&b'/')
        && !b.contains(&0)
        && b.len() <= 255
}

/// The view's `.git`: the shadow repository, which lives in the scratch tree like the tool
/// caches (the original's own `.git` is hidden).
pub const SHADOW_GIT: &str = ".git";

/// Names that always live in the scratch tree (`transform::always_in_scratch`).
pub fn is_scratch_name(name: &OsStr) -> bool {
    crate::transform::always_in_scratch(name.as_bytes())
}

/// Tool output (`transform::is_tool_output`): created in the view, it lives in the scratch
/// tree, unless the original already has an entry of that name, which the view shows.
pub fn is_tool_output(name: &OsStr) -> bool {
    crate::transform::is_tool_output(name.as_bytes())
}

/// Original entries the view never shows (see `transform::hidden_in_original`).
pub fn is_hidden_original(name: &OsStr) -> bool {
    crate::transform::hidden_in_original(name.as_bytes())
}

/// The original name of view component `name`: one plain component that is not hidden.
pub fn original_name(t: &dyn Transform, name: &OsStr) -> FsResult<OsString> {
    let r = catch_unwind(AssertUnwindSafe(|| t.name_to_original(name)))
        .map_err(|_| FsError::new(libc::EINVAL, "name_to_original panicked"))?;
    let orig = r?;
    if !is_plain_component(&orig) {
        return Err(FsError::new(
            libc::EINVAL,
            "name does not translate to one component",
        ));
    }
    if is_hidden_original(&orig) {
        return Err(FsError::new(
            libc::EACCES,
            "name translates to a hidden name",
        ));
    }
    Ok(orig)
}

/// The view name of original component `name`, when it has one that comes back to it (an
/// entry whose name does not come back would be unreachable; better not listed at all).
pub fn view_name(t: &dyn Transform, name: &OsStr) -> Option<OsString> {
    let v = catch_unwind(AssertUnwindSafe(|| t.name_to_view(name))).ok()?;
    if !is_plain_component(&v) || is_scratch_name(&v) || is_reserved_view(&v) {
        return None;
    }
    match original_name(t, &v) {
        Ok(back) if back == name => Some(v),
        _ => None,
    }
}

/// The view path of original path `rel`, when every component is visible and has a view name.
pub fn view_path(t: &dyn Transform, rel: &Path) -> Option<PathBuf> {
    let mut view = PathBuf::new();
    for c in rel.components() {
        let name = c.as_os_str();
        if is_hidden_original(name) {
            return None;
        }
        view.push(view_name(t, name)?);
    }
    Some(view)
}

/// View names that are reserved (neither original nor scratch).
pub fn is_reserved_view(name: &OsStr) -> bool {
    let b = name.as_bytes();
    b.starts_with(TMP_PREFIX.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(paths: &[&str]) -> Table {
        let mut t = Table::new();
        for p in paths {
            t.intern(PathBuf::from(p), Backing::Original(PathBuf::from(p)));
        }
        t
    }

    #[test]
    fn subtree_ops_touch_exactly_the_subtree() {
        // Siblings that sort right next to `a/b` as strings but are not below it.
        let paths = [
            "a", "a/b", "a/b/c", "a/b/c/d", "a/b.txt", "a/b2", "a/bb/c", "a-b", "b",
        ];
        let mut t = table(&paths);
        t.remove(Path::new("a/b"));
        for p in paths {
            let gone = ["a/b", "a/b/c", "a/b/c/d"].contains(&p);
            assert_eq!(t.ino_of(Path::new(p)).is_none(), gone, "{p}");
        }
        let mut t = table(&paths);
        t.rename(
            Path::new("a/b"),
            Path::new("z"),
            &Backing::Original(PathBuf::from("z")),
        );
        for p in paths {
            let moved = ["a/b", "a/b/c", "a/b/c/d"].contains(&p);
            assert_eq!(t.ino_of(Path::new(p)).is_none(), moved, "{p}");
        }
        for p in ["z", "z/c", "z/c/d"] {
            assert!(t.ino_of(Path::new(p)).is_some(), "{p}");
        }
        let n = t.get(t.ino_of(Path::new("z/c/d")).unwrap()).unwrap();
        assert_eq!(n.backing, Backing::Original(PathBuf::from("z/c/d")));
    }
}
