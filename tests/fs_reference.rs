//! Reference-model test of the filesystem core (laws 1, 2 and 9), without a kernel.
//!
//! proptest generates sequences of operations (writes at offsets through a handle and
//! without one, truncates up and down, renames over existing files, unlinks, a write through
//! a handle whose file was unlinked, mkdir and rmdir, a change made to the original from
//! outside, a remount over the same original and state, a killed daemon (nothing flushed,
//! also right after an fsync of a handle never closed), a hard link, which later operations
//! and remounts must keep one file with two names, and symbolic links) and applies each to a `ViewFs` over
//! a temporary original and to a plain model: the view's files as a map from view path to
//! view bytes. After every step, for every path of a small universe:
//! - the view serves exactly the model's bytes, or nothing when the model has no such file
//!   (law 2: read your writes, through later reads, remounts and renames);
//! - the original holds exactly the inverse of the model's bytes at the inverse path, or
//!   nothing (law 9: every acknowledged write is in the original, and nothing else is);
//! - a file never written keeps its original bytes (law 1, as the model starts from the
//!   original's files seen through the transform).
//!
//! The transform is the test double that swaps `alpha` and `omega` in names and contents. It
//! is an involution only on texts where no swap splices a half word into another, so an
//! operation whose result would leave that domain is skipped on both sides.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::prelude::*;

use schrodinger::fs::testing::{swap, SwapTransform};
use schrodinger::fs::{Caller, Kind, Options, SetAttr, ViewFs, ROOT_INO};

/// View paths the operations touch (their originals are the swapped paths).
const FILES: &[&str] = &[
    "alpha.py",
    "omega.txt",
    "beta",
    "d/alpha_mod.py",
    "d/omega",
    "e/x.py",
];
const DIRS: &[&str] = &["d", "e"];
/// Where symbolic links are made, and what they may point at (view text).
const LINKS: &[&str] = &["alpha_link", "d/omega_link"];
const TARGETS: &[&str] = &["alpha.py", "d/omega", "../alpha.py", "beta"];

#[derive(Debug, Clone)]
enum Op {
    /// Open (creating when missing), write at an offset, close.
    Write {
        file: usize,
        offset: u64,
        data: Vec<u8>,
    },
    /// The same without a handle (the path a watched mount takes).
    WriteIno {
        file: usize,
        offset: u64,
        data: Vec<u8>,
    },
    Truncate {
        file: usize,
        len: u64,
    },
    Unlink {
        file: usize,
    },
    Rename {
        from: usize,
        to: usize,
    },
    Mkdir {
        dir: usize,
    },
    Rmdir {
        dir: usize,
    },
    /// Open, unlink, write through the handle, close: the file must not come back.
    WriteUnlinked {
        file: usize,
        data: Vec<u8>,
    },
    /// The original file is rewritten by someone else.
    External {
        file: usize,
        data: Vec<u8>,
    },
    Remount,
    /// The daemon dies: no flush, no unmount; a new one mounts the same original and state.
    Kill,
    /// Open (creating when missing), write, fsync, and the daemon dies before the close.
    FsyncKill {
        file: usize,
        offset: u64,
        data: Vec<u8>,
    },
    /// Make the symbolic link `LINKS[link]` to `TARGETS[target]`, or remove it when it exists.
    Symlink {
        link: usize,
        target: usize,
    },
    /// A hard link: `to` becomes another name of `from`.
    Link {
        from: usize,
        to: usize,
    },
}

fn text() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            Just(&b"alpha"[..]),
            Just(&b"omega"[..]),
            Just(&b" "[..]),
            Just(&b"\n"[..]),
            Just(&b"x"[..]),
            Just(&b"alp"[..]),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

fn op() -> impl Strategy<Value = Op> {
    let f = 0..FILES.len();
    let d = 0..DIRS.len();
    prop_oneof![
        4 => (f.clone(), 0u64..24, text()).prop_map(|(file, offset, data)| Op::Write { file, offset, data }),
        3 => (f.clone(), 0u64..24, text()).prop_map(|(file, offset, data)| Op::WriteIno { file, offset, data }),
        2 => (f.clone(), 0u64..30).prop_map(|(file, len)| Op::Truncate { file, len }),
        1 => f.clone().prop_map(|file| Op::Unlink { file }),
        2 => (f.clone(), f.clone()).prop_map(|(from, to)| Op::Rename { from, to }),
        1 => d.clone().prop_map(|dir| Op::Mkdir { dir }),
        1 => d.prop_map(|dir| Op::Rmdir { dir }),
        1 => (f.clone(), text()).prop_map(|(file, data)| Op::WriteUnlinked { file, data }),
        1 => (f.clone(), text()).prop_map(|(file, data)| Op::External { file, data }),
        1 => Just(Op::Remount),
        1 => Just(Op::Kill),
        1 => (f.clone(), 0u64..24, text()).prop_map(|(file, offset, data)| Op::FsyncKill { file, offset, data }),
        1 => (0..LINKS.len(), 0..TARGETS.len()).prop_map(|(link, target)| Op::Symlink { link, target }),
        2 => (f.clone(), f).prop_map(|(from, to)| Op::Link { from, to }),
    ]
}

/// The test transform's content rule: a file with a NUL byte is binary and passes as it is.
fn content(v: &[u8]) -> Vec<u8> {
    if v.contains(&0) {
        v.to_vec()
    } else {
        swap(v)
    }
}

/// Whether the test transform round-trips `v` (see the module note).
fn in_domain(v: &[u8]) -> bool {
    content(&content(v)) == v
}

fn parent_of(p: &str) -> Option<&str> {
    p.rsplit_once('/').map(|(d, _)| d)
}

fn name_of(p: &str) -> &str {
    p.rsplit_once('/').map(|(_, n)| n).unwrap_or(p)
}

fn original_path(root: &Path, view: &str) -> PathBuf {
    root.join(String::from_utf8(swap(view.as_bytes())).unwrap())
}

struct World {
    _dir: tempfile::TempDir,
    orig: PathBuf,
    state: PathBuf,
    fs: ViewFs,
    watched: bool,
    files: BTreeMap<String, Vec<u8>>,
    /// Names that are one file (hard links), each set of two names or more.
    links: Vec<BTreeSet<String>>,
    dirs: BTreeSet<String>,
    /// Symbolic links: path -> target, both in view text.
    symlinks: BTreeMap<String, String>,
}

impl World {
    fn new(initial: &[(usize, Vec<u8>)], watched: bool) -> World {
        let dir = tempfile::tempdir().unwrap();
        let orig = dir.path().join("orig");
        let state = dir.path().join("state");
        std::fs::create_dir_all(orig.join(String::from_utf8(swap(b"d")).unwrap())).unwrap();
        let mut files = BTreeMap::new();
        for (i, view) in initial {
            let path = FILES[*i];
            if path.starts_with("e/") {
                continue;
            }
            std::fs::write(original_path(&orig, path), content(view)).unwrap();
            files.insert(path.to_string(), view.clone());
        }
        let dirs = BTreeSet::from(["d".to_string()]);
        let fs = Self::mount(&orig, &state, watched);
        World {
            _dir: dir,
            orig,
            state,
            fs,
            watched,
            files,
            links: Vec::new(),
            dirs,
            symlinks: BTreeMap::new(),
        }
    }

    fn mount(orig: &Path, state: &Path, watched: bool) -> ViewFs {
        let fs = ViewFs::new(orig, state, Arc::new(SwapTransform), Options::default()).unwrap();
        if watched {
            fs.set_watched();
        }
        fs
    }

    fn parent_exists(&self, path: &str) -> bool {
        parent_of(path).is_none_or(|d| self.dirs.contains(d))
    }

    fn ino(&self, path: &str) -> u64 {
        self.fs.lookup_path(Path::new(path)).unwrap().ino
    }

    fn parent_ino(&self, path: &str) -> u64 {
        match parent_of(path) {
            Some(d) => self.ino(d),
            None => ROOT_INO,
        }
    }

    /// Every name of the file `path` names (itself included).
    fn names(&self, path: &str) -> Vec<String> {
        self.links
            .iter()
            .find(|g| g.contains(path))
            .map(|g| g.iter().cloned().collect())
            .unwrap_or_else(|| vec![path.to_string()])
    }

    /// The file `path` names now holds `v`, under each of its names.
    fn set(&mut self, path: &str, v: Vec<u8>) {
        for n in self.names(path) {
            self.files.insert(n, v.clone());
        }
    }

    /// `path` is no longer a name of its file.
    fn forget(&mut self, path: &str) {
        self.files.remove(path);
        for g in &mut self.links {
            g.remove(path);
        }
        self.links.retain(|g| g.len() > 1);
    }

    /// The model's content of `path` after writing `data` at `offset`.
    fn written(&self, path: &str, offset: u64, data: &[u8]) -> Vec<u8> {
        let mut v = self.files.get(path).cloned().unwrap_or_default();
        let end = offset as usize + data.len();
        if v.len() < end {
            v.resize(end, 0);
        }
        v[offset as usize..end].copy_from_slice(data);
        v
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Write { file, offset, data } | Op::WriteIno { file, offset, data } => {
                let path = FILES[*file];
                if !self.parent_exists(path) {
                    let e = self.fs.lookup_path(Path::new(path)).unwrap_err();
                    assert_eq!(e.errno, libc::ENOENT);
                    return;
                }
                let new = self.written(path, *offset, data);
                if !in_domain(&new) {
                    return;
                }
                let handle = matches!(op, Op::Write { .. });
                let name = OsStr::new(name_of(path));
                let parent = self.parent_ino(path);
                let exists = self.files.contains_key(path);
                if handle {
                    let (ino, fh) = if exists {
                        let ino = self.ino(path);
                        (ino, self.fs.open(ino, libc::O_WRONLY).unwrap().fh)
                    } else {
                        let (a, o) = self
                            .fs
                            .create(parent, name, 0o644, 0o022, libc::O_WRONLY, Caller::daemon())
                            .unwrap();
                        (a.ino, o.fh)
                    };
                    if !data.is_empty() {
                        self.fs.write(ino, fh, *offset, data).unwrap();
                    }
                    self.fs.release(ino, fh).unwrap();
                } else {
                    let ino = if exists {
                        self.ino(path)
                    } else {
                        self.fs
                            .create_ino(
                                parent,
                                name,
                                0o644,
                                0o022,
                                libc::O_WRONLY,
                                Caller::daemon(),
                            )
                            .unwrap()
                            .ino
                    };
                    if !data.is_empty() {
                        self.fs.write_ino(ino, *offset, data).unwrap();
                    }
                }
                // An empty write at an offset past the end does not extend the file.
                let new = if data.is_empty() {
                    self.files.get(path).cloned().unwrap_or_default()
                } else {
                    new
                };
                self.set(path, new);
            }
            Op::Truncate { file, len } => {
                let path = FILES[*file];
                let Some(mut v) = self.files.get(path).cloned() else {
                    return;
                };
                v.resize(*len as usize, 0);
                if !in_domain(&v) {
                    return;
                }
                let ino = self.ino(path);
                let set = SetAttr {
                    size: Some(*len),
                    ..SetAttr::default()
                };
                self.fs.setattr(ino, set).unwrap();
                self.set(path, v);
            }
            Op::Unlink { file } => {
                let path = FILES[*file];
                if !self.parent_exists(path) {
                    return;
                }
                let r = self
                    .fs
                    .unlink(self.parent_ino(path), OsStr::new(name_of(path)));
                if self.files.contains_key(path) {
                    r.unwrap();
                    self.forget(path);
                } else {
                    assert_eq!(r.unwrap_err().errno, libc::ENOENT);
                }
            }
            Op::Rename { from, to } => {
                let (a, b) = (FILES[*from], FILES[*to]);
                if !self.files.contains_key(a) || !self.parent_exists(b) || a == b {
                    return;
                }
                self.fs
                    .rename(
                        self.parent_ino(a),
                        OsStr::new(name_of(a)),
                        self.parent_ino(b),
                        OsStr::new(name_of(b)),
                        0,
                    )
                    .unwrap();
                if self.names(a).iter().any(|n| n == b) {
                    // Two names of one file: rename(2) leaves both.
                    return;
                }
                let v = self.files[a].clone();
                self.forget(b);
                self.files.remove(a);
                self.files.insert(b.to_string(), v);
                for g in &mut self.links {
                    if g.remove(a) {
                        g.insert(b.to_string());
                    }
                }
            }
            Op::Mkdir { dir } => {
                let d = DIRS[*dir];
                let r = self
                    .fs
                    .mkdir(ROOT_INO, OsStr::new(d), 0o755, 0o022, Caller::daemon());
                if self.dirs.insert(d.to_string()) {
                    r.unwrap();
                } else {
                    assert_eq!(r.unwrap_err().errno, libc::EEXIST);
                }
            }
            Op::Rmdir { dir } => {
                let d = DIRS[*dir];
                let r = self.fs.rmdir(ROOT_INO, OsStr::new(d));
                let full = self
                    .files
                    .keys()
                    .chain(self.symlinks.keys())
                    .any(|f| parent_of(f) == Some(d));
                if !self.dirs.contains(d) {
                    assert_eq!(r.unwrap_err().errno, libc::ENOENT);
                } else if full {
                    assert_eq!(r.unwrap_err().errno, libc::ENOTEMPTY);
                } else {
                    r.unwrap();
                    self.dirs.remove(d);
                }
            }
            Op::WriteUnlinked { file, data } => {
                let path = FILES[*file];
                if !self.files.contains_key(path) {
                    return;
                }
                // The write reaches the file's other names, if it has any.
                let new = self.written(path, 0, data);
                if !in_domain(&new) {
                    return;
                }
                let ino = self.ino(path);
                let fh = self.fs.open(ino, libc::O_RDWR).unwrap().fh;
                self.fs
                    .unlink(self.parent_ino(path), OsStr::new(name_of(path)))
                    .unwrap();
                self.fs.write(ino, fh, 0, data).unwrap();
                self.fs.release(ino, fh).unwrap();
                let others: Vec<String> =
                    self.names(path).into_iter().filter(|n| n != path).collect();
                self.forget(path);
                if let Some(other) = others.first() {
                    self.set(other, new);
                }
            }
            Op::External { file, data } => {
                let path = FILES[*file];
                if !self.parent_exists(path) || !in_domain(data) || !in_domain(&content(data)) {
                    return;
                }
                std::fs::write(original_path(&self.orig, path), data).unwrap();
                if self.watched {
                    // What the watcher reports on a watched mount.
                    self.fs.distrust_all();
                }
                // Written in place (O_TRUNC): every name of the file sees it.
                self.set(path, content(data));
            }
            Op::Link { from, to } => {
                let (a, b) = (FILES[*from], FILES[*to]);
                if !self.files.contains_key(a) || !self.parent_exists(b) || a == b {
                    return;
                }
                let r = self
                    .fs
                    .link(self.ino(a), self.parent_ino(b), OsStr::new(name_of(b)));
                if self.files.contains_key(b) {
                    assert_eq!(r.unwrap_err().errno, libc::EEXIST);
                    return;
                }
                r.unwrap();
                self.files.insert(b.to_string(), self.files[a].clone());
                match self.links.iter_mut().find(|g| g.contains(a)) {
                    Some(g) => {
                        g.insert(b.to_string());
                    }
                    None => self
                        .links
                        .push(BTreeSet::from([a.to_string(), b.to_string()])),
                }
            }
            Op::Remount => {
                self.fs.flush_all().unwrap();
                self.fs.stop_background();
                self.fs = Self::mount(&self.orig, &self.state, self.watched);
            }
            Op::Kill => self.kill(),
            Op::FsyncKill { file, offset, data } => {
                let path = FILES[*file];
                if !self.parent_exists(path) {
                    return;
                }
                let new = self.written(path, *offset, data);
                if !in_domain(&new) {
                    return;
                }
                let (ino, fh) = if self.files.contains_key(path) {
                    let ino = self.ino(path);
                    (ino, self.fs.open(ino, libc::O_WRONLY).unwrap().fh)
                } else {
                    let (a, o) = self
                        .fs
                        .create(
                            self.parent_ino(path),
                            OsStr::new(name_of(path)),
                            0o644,
                            0o022,
                            libc::O_WRONLY,
                            Caller::daemon(),
                        )
                        .unwrap();
                    (a.ino, o.fh)
                };
                if !data.is_empty() {
                    self.fs.write(ino, fh, *offset, data).unwrap();
                }
                self.fs.fsync(ino, fh).unwrap();
                let new = if data.is_empty() {
                    self.files.get(path).cloned().unwrap_or_default()
                } else {
                    new
                };
                self.set(path, new);
                // Never released: what fsync acknowledged must be there after the kill.
                self.kill();
            }
            Op::Symlink { link, target } => {
                let (l, t) = (LINKS[*link], TARGETS[*target]);
                if !self.parent_exists(l) {
                    return;
                }
                let parent = self.parent_ino(l);
                let name = OsStr::new(name_of(l));
                if self.symlinks.remove(l).is_some() {
                    self.fs.unlink(parent, name).unwrap();
                } else {
                    let a = self
                        .fs
                        .symlink(parent, name, Path::new(t), Caller::daemon())
                        .unwrap();
                    assert_eq!(a.kind, Kind::Symlink);
                    self.symlinks.insert(l.to_string(), t.to_string());
                }
            }
        }
    }

    /// The daemon dies: its background threads are told to stop, nothing is flushed, and a
    /// new daemon mounts the same original and state.
    fn kill(&mut self) {
        self.fs.stop_background();
        self.fs = Self::mount(&self.orig, &self.state, self.watched);
    }

    fn check(&self, after: &Op) {
        for path in FILES {
            let orig = original_path(&self.orig, path);
            match self.files.get(*path) {
                Some(want) => {
                    let a = self
                        .fs
                        .lookup_path(Path::new(path))
                        .unwrap_or_else(|e| panic!("{path} missing after {after:?}: {e:?}"));
                    assert_eq!(a.kind, Kind::File);
                    assert_eq!(a.size, want.len() as u64, "{path} size after {after:?}");
                    let o = self.fs.open(a.ino, libc::O_RDONLY).unwrap();
                    let got = self.fs.read(a.ino, o.fh, 0, 4096).unwrap();
                    self.fs.release(a.ino, o.fh).unwrap();
                    assert_eq!(&got, want, "view of {path} after {after:?}");
                    let on_disk = std::fs::read(&orig)
                        .unwrap_or_else(|e| panic!("original of {path} after {after:?}: {e}"));
                    assert_eq!(on_disk, content(want), "original of {path} after {after:?}");
                }
                None => {
                    assert!(
                        self.fs.lookup_path(Path::new(path)).is_err(),
                        "{path} after {after:?}"
                    );
                    assert!(!orig.exists(), "original of {path} exists after {after:?}");
                }
            }
        }
        for l in LINKS {
            let orig = original_path(&self.orig, l);
            match self.symlinks.get(*l) {
                Some(t) => {
                    let a = self
                        .fs
                        .lookup_path(Path::new(l))
                        .unwrap_or_else(|e| panic!("{l} missing after {after:?}: {e:?}"));
                    assert_eq!(a.kind, Kind::Symlink, "{l} after {after:?}");
                    assert_eq!(self.fs.readlink(a.ino).unwrap(), t.as_bytes(), "{l}");
                    let on_disk = std::fs::read_link(&orig)
                        .unwrap_or_else(|e| panic!("original of {l} after {after:?}: {e}"));
                    assert_eq!(
                        on_disk.as_os_str().as_encoded_bytes(),
                        swap(t.as_bytes()),
                        "original target of {l} after {after:?}"
                    );
                }
                None => {
                    assert!(
                        self.fs.lookup_path(Path::new(l)).is_err(),
                        "{l} after {after:?}"
                    );
                    assert!(
                        std::fs::symlink_metadata(&orig).is_err(),
                        "original of {l} exists after {after:?}"
                    );
                }
            }
        }
        for d in DIRS {
            let there = self.fs.lookup_path(Path::new(d));
            assert_eq!(
                there.map(|a| a.kind).ok(),
                self.dirs.contains(*d).then_some(Kind::Dir),
                "{d} after {after:?}"
            );
        }
    }
}

fn initial() -> impl Strategy<Value = Vec<(usize, Vec<u8>)>> {
    prop::collection::vec((0..FILES.len(), text()), 0..4).prop_map(|v| {
        v.into_iter()
            .filter(|(_, t)| in_domain(t) && in_domain(&content(t)))
            .collect()
    })
}

fn run(initial: &[(usize, Vec<u8>)], ops: &[Op], watched: bool) {
    let mut w = World::new(initial, watched);
    w.check(&Op::Remount);
    for op in ops {
        w.apply(op);
        w.check(op);
    }
    // A final remount serves the same, from the original alone.
    w.apply(&Op::Remount);
    w.check(&Op::Remount);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("FS_REFERENCE_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(96),
        ..ProptestConfig::default()
    })]

    #[test]
    fn laws_1_2_9_viewfs_matches_the_model(
        initial in initial(),
        ops in prop::collection::vec(op(), 1..40),
        watched in any::<bool>(),
    ) {
        run(&initial, &ops, watched);
    }
}
