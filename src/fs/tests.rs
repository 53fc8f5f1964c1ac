//! ViewFs without a kernel, over a temp dir, with the alpha<->omega test transform.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::testing::SwapTransform;
use super::*;

struct Fixture {
    _dir: tempfile::TempDir,
    orig: PathBuf,
    state: PathBuf,
    fs: ViewFs,
}

fn write(p: &Path, b: &[u8]) {
    if let Some(d) = p.parent() {
        fs::create_dir_all(d).unwrap();
    }
    fs::write(p, b).unwrap();
}

/// A filesystem over `orig` with the transform `t`, whose original is watched (changes from
/// outside arrive as events), as a mount sets it up.
fn watched_fs(orig: &Path, state: &Path, t: impl Transform + 'static) -> ViewFs {
    let fs = ViewFs::new(orig, state, Arc::new(t), Options::default()).unwrap();
    fs.set_watched();
    fs
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    let state = dir.path().join("state");
    write(&orig.join("alpha.py"), b"def alpha():\n    return omega\n");
    write(&orig.join("pkg/__init__.py"), b"");
    write(&orig.join("pkg/alpha_mod.py"), b"import alpha\n");
    write(
        &orig.join("pkg/__pycache__/alpha.cpython-311.pyc"),
        b"\0bytecode",
    );
    write(&orig.join("pkg/old.pyc"), b"\0old");
    write(&orig.join(".git/HEAD"), b"ref: refs/heads/main\n");
    write(&orig.join(".pytest_cache/v"), b"x");
    write(&orig.join("data.bin"), b"\0alpha\xff");
    write(&orig.join("README"), b"omega and alpha\n");
    let fs = ViewFs::new(&orig, &state, Arc::new(SwapTransform), Options::default()).unwrap();
    Fixture {
        _dir: dir,
        orig,
        state,
        fs,
    }
}

impl Fixture {
    fn names(&self, view: &str) -> Vec<String> {
        let a = self.fs.lookup_path(Path::new(view)).unwrap();
        let fh = self.fs.opendir(a.ino).unwrap();
        let v = self
            .fs
            .readdir(fh, 0)
            .unwrap()
            .into_iter()
            .map(|(_, e)| e.name.to_string_lossy().into_owned())
            .collect();
        self.fs.releasedir(fh);
        v
    }

    fn read(&self, view: &str) -> Vec<u8> {
        let a = self.fs.lookup_path(Path::new(view)).unwrap();
        let o = self.fs.open(a.ino, libc::O_RDONLY).unwrap();
        let mut out = Vec::new();
        loop {
            let chunk = self
                .fs
                .read(a.ino, o.fh, out.len() as u64, 1 << 20)
                .unwrap();
            if chunk.is_empty() {
                break;
            }
            out.extend_from_slice(&chunk);
        }
        self.fs.release(a.ino, o.fh).unwrap();
        assert_eq!(
            a.size,
            out.len() as u64,
            "getattr size == bytes served for {view}"
        );
        out
    }

    /// open O_WRONLY|O_TRUNC, write, close (as `echo > file` does).
    fn write(&self, view: &str, data: &[u8]) -> FsResult<()> {
        let a = self.fs.lookup_path(Path::new(view))?;
        let o = self.fs.open(a.ino, libc::O_WRONLY | libc::O_TRUNC)?;
        self.fs.write(a.ino, o.fh, 0, data)?;
        self.fs.flush(a.ino, o.fh)?;
        self.fs.release(a.ino, o.fh)
    }

    fn create(&self, dir: &str, name: &str, data: &[u8]) -> FsResult<()> {
        let p = self.fs.lookup_path(Path::new(dir))?;
        let (a, o) = self.fs.create(
            p.ino,
            OsStr::new(name),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )?;
        self.fs.write(a.ino, o.fh, 0, data)?;
        self.fs.release(a.ino, o.fh)
    }
}

/// A listing gives the view's names in the order the original directory gives its own, as a
/// program walking `os.listdir` unsorted sees them natively (law 5), files made through the
/// view included.
#[test]
fn listing_keeps_the_original_directorys_order() {
    let f = fixture();
    for i in 0..40 {
        write(&f.orig.join(format!("many/alpha_{i}.py")), b"x = 1\n");
        write(&f.orig.join(format!("many/n{i}.txt")), b"alpha\n");
    }
    f.create("many", "zz_new.txt", b"new").unwrap();
    let native: Vec<String> = fs::read_dir(f.orig.join("many"))
        .unwrap()
        .map(|e| {
            e.unwrap()
                .file_name()
                .to_string_lossy()
                .replace("alpha", "omega")
        })
        .collect();
    let mut sorted = native.clone();
    sorted.sort();
    assert_ne!(
        native, sorted,
        "the disk order should differ from byte order here"
    );
    let mut expected = vec![".".to_string(), "..".to_string()];
    expected.extend(native);
    assert_eq!(f.names("many"), expected);
}

#[test]
fn listing_translates_names_and_hides_caches() {
    let f = fixture();
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(
        sorted(f.names("")),
        [".", "..", "README", "data.bin", "omega.py", "pkg"]
    );
    assert_eq!(
        sorted(f.names("pkg")),
        [".", "..", "__init__.py", "omega_mod.py"]
    );
    assert_eq!(
        f.fs.lookup_path(Path::new(".git")).unwrap_err().errno,
        libc::ENOENT
    );
    assert_eq!(
        f.fs.lookup_path(Path::new("alpha.py")).unwrap_err().errno,
        libc::ENOENT
    );
    assert_eq!(
        f.fs.lookup_path(Path::new("pkg/__pycache__"))
            .unwrap_err()
            .errno,
        libc::ENOENT
    );
}

#[test]
fn contents_are_transformed_and_binary_passes() {
    let f = fixture();
    assert_eq!(f.read("omega.py"), b"def omega():\n    return alpha\n");
    assert_eq!(f.read("data.bin"), b"\0alpha\xff");
    assert_eq!(f.read("README"), b"alpha and omega\n");
}

#[test]
fn law1_round_trip_leaves_original_identical() {
    let f = fixture();
    let before = snapshot(&f.orig);
    for view in [
        "omega.py",
        "pkg/__init__.py",
        "pkg/omega_mod.py",
        "data.bin",
        "README",
    ] {
        let bytes = f.read(view);
        f.write(view, &bytes).unwrap();
    }
    assert_eq!(before, snapshot(&f.orig));
}

fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                dirs.push(e.path());
            } else {
                out.push((e.path(), fs::read(e.path()).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn law2_read_your_writes_and_write_back() {
    let f = fixture();
    f.write("omega.py", b"def omega(:\n  broken alpha").unwrap();
    assert_eq!(f.read("omega.py"), b"def omega(:\n  broken alpha");
    assert_eq!(
        fs::read(f.orig.join("alpha.py")).unwrap(),
        b"def alpha(:\n  broken omega"
    );
    // Partial write in the middle, through a read-write handle.
    let a = f.fs.lookup_path(Path::new("README")).unwrap();
    let o = f.fs.open(a.ino, libc::O_RDWR).unwrap();
    f.fs.write(a.ino, o.fh, 0, b"omega").unwrap();
    assert_eq!(
        f.fs.read(a.ino, o.fh, 0, 100).unwrap(),
        b"omega and omega\n"
    );
    assert_eq!(f.fs.getattr(a.ino).unwrap().size, 16);
    f.fs.release(a.ino, o.fh).unwrap();
    assert_eq!(
        fs::read(f.orig.join("README")).unwrap(),
        b"alpha and alpha\n"
    );
}

#[test]
fn create_mkdir_and_translated_names() {
    let f = fixture();
    let root = f.fs.getattr(ROOT_INO).unwrap();
    f.fs.mkdir(
        root.ino,
        OsStr::new("omega_dir"),
        0o755,
        0o022,
        Caller::daemon(),
    )
    .unwrap();
    f.create("omega_dir", "new_omega.py", b"x = omega\n")
        .unwrap();
    assert_eq!(
        fs::read(f.orig.join("alpha_dir/new_alpha.py")).unwrap(),
        b"x = alpha\n"
    );
    assert_eq!(f.read("omega_dir/new_omega.py"), b"x = omega\n");
    let mode = fs::metadata(f.orig.join("alpha_dir/new_alpha.py"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o644);
}

#[test]
fn rename_over_existing_file_like_an_editor() {
    let f = fixture();
    f.create("", ".omega.py.swp", b"def omega():\n    return 1\n")
        .unwrap();
    let root = f.fs.getattr(ROOT_INO).unwrap();
    f.fs.rename(
        root.ino,
        OsStr::new(".omega.py.swp"),
        root.ino,
        OsStr::new("omega.py"),
        0,
    )
    .unwrap();
    assert_eq!(f.read("omega.py"), b"def omega():\n    return 1\n");
    assert_eq!(
        fs::read(f.orig.join("alpha.py")).unwrap(),
        b"def alpha():\n    return 1\n"
    );
    assert!(!f.orig.join(".alpha.py.swp").exists());
    assert_eq!(f.names("").iter().filter(|n| n.contains("swp")).count(), 0);
    // NOREPLACE refuses.
    f.create("", "x", b"1").unwrap();
    let e =
        f.fs.rename(
            root.ino,
            OsStr::new("x"),
            root.ino,
            OsStr::new("README"),
            libc::RENAME_NOREPLACE,
        )
        .unwrap_err();
    assert_eq!(e.errno, libc::EEXIST);
}

#[test]
fn rename_directory_moves_subtree() {
    let f = fixture();
    let root = f.fs.getattr(ROOT_INO).unwrap();
    let before = f.fs.lookup_path(Path::new("pkg/omega_mod.py")).unwrap();
    f.fs.rename(
        root.ino,
        OsStr::new("pkg"),
        root.ino,
        OsStr::new("omega_pkg"),
        0,
    )
    .unwrap();
    assert!(f.orig.join("alpha_pkg/alpha_mod.py").exists());
    let after =
        f.fs.lookup_path(Path::new("omega_pkg/omega_mod.py"))
            .unwrap();
    assert_eq!(before.ino, after.ino);
    assert_eq!(f.read("omega_pkg/omega_mod.py"), b"import omega\n");
    f.write("omega_pkg/omega_mod.py", b"import alpha\n")
        .unwrap();
    assert_eq!(
        fs::read(f.orig.join("alpha_pkg/alpha_mod.py")).unwrap(),
        b"import omega\n"
    );
}

#[test]
fn unlink_and_rmdir() {
    let f = fixture();
    let pkg = f.fs.lookup_path(Path::new("pkg")).unwrap();
    f.fs.unlink(pkg.ino, OsStr::new("omega_mod.py")).unwrap();
    f.fs.unlink(pkg.ino, OsStr::new("__init__.py")).unwrap();
    assert!(!f.orig.join("pkg/alpha_mod.py").exists());
    let root = f.fs.getattr(ROOT_INO).unwrap();
    // Only hidden caches remain in the original: the view's empty dir can be removed.
    f.fs.rmdir(root.ino, OsStr::new("pkg")).unwrap();
    assert!(!f.orig.join("pkg").exists());
    assert_eq!(
        f.fs.rmdir(root.ino, OsStr::new("README"))
            .unwrap_err()
            .errno,
        libc::ENOTDIR
    );
}

#[test]
fn write_to_unlinked_open_file_does_not_resurrect_it() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("README")).unwrap();
    let o = f.fs.open(a.ino, libc::O_RDWR).unwrap();
    f.fs.write(a.ino, o.fh, 0, b"zzz").unwrap();
    f.fs.unlink(ROOT_INO, OsStr::new("README")).unwrap();
    f.fs.release(a.ino, o.fh).unwrap();
    assert!(!f.orig.join("README").exists());
}

#[test]
fn scratch_caches_never_reach_the_original() {
    let f = fixture();
    let pkg = f.fs.lookup_path(Path::new("pkg")).unwrap();
    f.fs.mkdir(
        pkg.ino,
        OsStr::new("__pycache__"),
        0o755,
        0o022,
        Caller::daemon(),
    )
    .unwrap();
    f.create("pkg/__pycache__", "m.cpython-311.pyc.123", b"\0alpha")
        .unwrap();
    let pc = f.fs.lookup_path(Path::new("pkg/__pycache__")).unwrap();
    f.fs.rename(
        pc.ino,
        OsStr::new("m.cpython-311.pyc.123"),
        pc.ino,
        OsStr::new("m.cpython-311.pyc"),
        0,
    )
    .unwrap();
    assert_eq!(f.read("pkg/__pycache__/m.cpython-311.pyc"), b"\0alpha");
    assert_eq!(f.names("pkg/__pycache__"), [".", "..", "m.cpython-311.pyc"]);
    assert!(f.names("pkg").contains(&"__pycache__".to_string()));
    // The original's own cache is untouched and still hidden.
    assert!(!f.orig.join("pkg/__pycache__/m.cpython-311.pyc").exists());
    assert!(f
        .state
        .join("scratch/pkg/__pycache__/m.cpython-311.pyc")
        .exists());
    f.fs.mkdir(
        ROOT_INO,
        OsStr::new(".pytest_cache"),
        0o755,
        0o022,
        Caller::daemon(),
    )
    .unwrap();
    f.create(".pytest_cache", "v", b"new").unwrap();
    assert_eq!(fs::read(f.orig.join(".pytest_cache/v")).unwrap(), b"x");
    assert_eq!(f.read(".pytest_cache/v"), b"new");
}

#[test]
fn escaping_and_reserved_names_are_refused() {
    let f = fixture();
    let root = f.fs.getattr(ROOT_INO).unwrap();
    for bad in ["..", ".", "a/b", ""] {
        let e =
            f.fs.mkdir(root.ino, OsStr::new(bad), 0o755, 0, Caller::daemon())
                .unwrap_err();
        assert_eq!(e.errno, libc::EINVAL, "{bad}");
    }
    let tmp = format!("{}x", crate::transform::WRITEBACK_TMP_PREFIX);
    assert_eq!(
        f.fs.mkdir(root.ino, OsStr::new(&tmp), 0o755, 0, Caller::daemon())
            .unwrap_err()
            .errno,
        libc::EACCES
    );
    assert_eq!(
        f.fs.mkdir(root.ino, OsStr::new("secret"), 0o755, 0, Caller::daemon())
            .unwrap_err()
            .errno,
        libc::EACCES
    );
    // A directory of the original that is a symlink out of the root: never written through.
    let outside = f._dir.path().join("outside");
    fs::create_dir(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, f.orig.join("link")).unwrap();
    let link = f.fs.lookup_path(Path::new("link")).unwrap();
    assert_eq!(link.kind, Kind::Symlink);
    assert_eq!(
        f.fs.readlink(link.ino).unwrap(),
        outside.as_os_str().as_bytes()
    );
    let e =
        f.fs.create(
            link.ino,
            OsStr::new("evil"),
            0o644,
            0,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap_err();
    assert_eq!(e.errno, libc::EACCES);
    assert!(!outside.join("evil").exists());
}

/// The view's `.git` is the shadow repository's place in the scratch tree: created there,
/// never in the original, whose own `.git` stays hidden and untouched.
#[test]
fn the_views_git_lives_in_scratch() {
    let f = fixture();
    let root = f.fs.getattr(ROOT_INO).unwrap();
    assert_eq!(
        f.fs.lookup_path(Path::new(".git")).unwrap_err().errno,
        libc::ENOENT,
        "the original's .git is not shown"
    );
    let g =
        f.fs.mkdir(root.ino, OsStr::new(".git"), 0o755, 0, Caller::daemon())
            .unwrap();
    let (a, o) =
        f.fs.create(
            g.ino,
            OsStr::new("HEAD"),
            0o644,
            0,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    f.fs.write(a.ino, o.fh, 0, b"ref: refs/heads/view\n")
        .unwrap();
    f.fs.release(a.ino, o.fh).unwrap();
    assert_eq!(
        fs::read(f.state.join("scratch/.git/HEAD")).unwrap(),
        b"ref: refs/heads/view\n"
    );
    assert_eq!(
        fs::read(f.orig.join(".git/HEAD")).unwrap(),
        b"ref: refs/heads/main\n"
    );
    assert!(f.names("").contains(&".git".to_string()));
}

/// A file deleted (or emptied) and then written again, as `git checkout -- f` and `> f` do,
/// comes back as its original bytes when the view bytes are the view of them, and is inverted
/// against them otherwise; with nothing known it is a plain new file.
#[test]
fn rewritten_files_invert_against_what_they_held() {
    use crate::transform::{layout::LayoutStore, Composite};
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    // Two independent functions: Level 3 shows them in some seeded order.
    let src = b"def first():\n    return 1\n\n\ndef second():\n    return 2\n\n\ndef third():\n    return 3\n";
    write(&orig.join("m.py"), src);
    let mut seed = 0;
    let t = loop {
        let t = Composite {
            l2: None,
            l3: Some(LayoutStore::new(seed)),
            l4: None,
        };
        if t.content_to_view(Path::new("m.py"), src) != src {
            break t;
        }
        seed += 1;
    };
    let view = t.content_to_view(Path::new("m.py"), src);
    let fs = ViewFs::new(
        &orig,
        &dir.path().join("s"),
        Arc::new(t),
        Options::default(),
    )
    .unwrap();
    let root = fs.getattr(ROOT_INO).unwrap();
    fs.unlink(root.ino, OsStr::new("m.py")).unwrap();
    let (a, o) = fs
        .create(
            root.ino,
            OsStr::new("m.py"),
            0o644,
            0,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    fs.write(a.ino, o.fh, 0, &view).unwrap();
    fs.release(a.ino, o.fh).unwrap();
    assert_eq!(
        fs::read(orig.join("m.py")).unwrap(),
        src,
        "a restore restores"
    );
    // Emptied, then written with one line added at the end of the view.
    let a = fs.lookup_path(Path::new("m.py")).unwrap();
    fs.setattr(
        a.ino,
        SetAttr {
            size: Some(0),
            ..SetAttr::default()
        },
    )
    .unwrap();
    assert_eq!(fs::read(orig.join("m.py")).unwrap(), b"");
    let mut edited = view.clone();
    edited.extend_from_slice(b"# end\n");
    let o = fs.open(a.ino, libc::O_WRONLY).unwrap();
    fs.write(a.ino, o.fh, 0, &edited).unwrap();
    fs.release(a.ino, o.fh).unwrap();
    let back = fs::read(orig.join("m.py")).unwrap();
    assert!(
        back.starts_with(src),
        "untouched lines keep their order: {back:?}"
    );
    let o = fs.open(a.ino, libc::O_RDONLY).unwrap();
    assert_eq!(
        fs.read(a.ino, o.fh, 0, 1 << 16).unwrap(),
        edited,
        "read your writes"
    );
    fs.release(a.ino, o.fh).unwrap();
}

#[test]
fn symlink_targets_translate_by_component() {
    let f = fixture();
    let a =
        f.fs.symlink(
            ROOT_INO,
            OsStr::new("ln"),
            Path::new("../../etc/passwd"),
            Caller::daemon(),
        )
        .unwrap();
    assert_eq!(a.kind, Kind::Symlink);
    assert_eq!(
        fs::read_link(f.orig.join("ln")).unwrap(),
        Path::new("../../etc/passwd")
    );
    assert_eq!(f.fs.readlink(a.ino).unwrap(), b"../../etc/passwd");
    // A relative target names files: each component is translated both ways.
    let b =
        f.fs.symlink(
            ROOT_INO,
            OsStr::new("ln2"),
            Path::new("sub/alpha.txt"),
            Caller::daemon(),
        )
        .unwrap();
    assert_eq!(
        fs::read_link(f.orig.join("ln2")).unwrap(),
        Path::new("sub/omega.txt")
    );
    assert_eq!(f.fs.readlink(b.ino).unwrap(), b"sub/alpha.txt");
    // Absolute targets stay as they are.
    let c =
        f.fs.symlink(
            ROOT_INO,
            OsStr::new("ln3"),
            Path::new("/alpha"),
            Caller::daemon(),
        )
        .unwrap();
    assert_eq!(
        fs::read_link(f.orig.join("ln3")).unwrap(),
        Path::new("/alpha")
    );
    assert_eq!(f.fs.readlink(c.ino).unwrap(), b"/alpha");
}

#[test]
fn setattr_truncate_chmod_utimens() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("README")).unwrap();
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    let set = SetAttr {
        size: Some(5),
        mode: Some(0o600),
        mtime: Some(SetTime::At(t)),
        ..Default::default()
    };
    let got = f.fs.setattr(a.ino, set).unwrap();
    assert_eq!(got.size, 5);
    assert_eq!(got.perm, 0o600);
    assert_eq!(got.mtime, t);
    assert_eq!(fs::read(f.orig.join("README")).unwrap(), b"omega");
    assert_eq!(f.read("README"), b"alpha");
    // Write-back keeps the mode.
    f.write("README", b"alpha!").unwrap();
    let m = fs::metadata(f.orig.join("README")).unwrap();
    assert_eq!(m.permissions().mode() & 0o777, 0o600);
}

/// `truncate -s 1T` or a write at a huge offset on a file of the original is refused with
/// EFBIG (its view lives in memory while written), the file is left as it was, and the
/// filesystem keeps serving.
#[test]
fn huge_sizes_and_offsets_are_efbig_not_an_abort() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("README")).unwrap();
    for size in [1u64 << 40, u64::MAX, (super::MAX_BUFFERED as u64) + 1] {
        let set = SetAttr {
            size: Some(size),
            ..Default::default()
        };
        assert_eq!(f.fs.setattr(a.ino, set).unwrap_err().errno, libc::EFBIG);
    }
    let o = f.fs.open(a.ino, libc::O_RDWR).unwrap();
    for offset in [1u64 << 40, u64::MAX, super::MAX_BUFFERED as u64] {
        assert_eq!(
            f.fs.write(a.ino, o.fh, offset, b"x").unwrap_err().errno,
            libc::EFBIG
        );
    }
    f.fs.release(a.ino, o.fh).unwrap();
    assert_eq!(f.read("README"), b"alpha and omega\n");
    assert_eq!(
        fs::read(f.orig.join("README")).unwrap(),
        b"omega and alpha\n"
    );
}

/// A write past 2 GiB or a `truncate -s 5G` on a file whose view is its bytes (new and
/// empty, or binary) goes to the original in place, sparse, and the file is served from there
/// as it is: nothing of it is held in memory (`raw.rs`). A renamed text file still refuses.
#[test]
fn sparse_writes_and_truncates_past_the_buffer_limit_go_to_the_original() {
    let f = fixture();
    let root = f.fs.lookup_path(Path::new("")).unwrap();
    let e =
        f.fs.create_ino(
            root.ino,
            OsStr::new("big"),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    let at = (2u64 << 30) + 1;
    assert_eq!(f.fs.write_ino(e.ino, at, b"data").unwrap(), 4);
    assert_eq!(f.fs.read_ino(e.ino, at, 4).unwrap(), b"data");
    assert_eq!(f.fs.read_ino(e.ino, 1 << 30, 3).unwrap(), [0, 0, 0]);
    assert_eq!(f.fs.getattr(e.ino).unwrap().size, at + 4);
    let m = fs::metadata(f.orig.join("big")).unwrap();
    assert_eq!(m.len(), at + 4);
    assert!(m.blocks() < 1024, "sparse: {} blocks", m.blocks());
    // A handle on it reads the original's bytes too.
    let o = f.fs.open(e.ino, libc::O_RDONLY).unwrap();
    assert_eq!(f.fs.read(e.ino, o.fh, at, 8).unwrap(), b"data");
    f.fs.release(e.ino, o.fh).unwrap();
    // Truncates up and down, in place.
    let to = |size| SetAttr {
        size: Some(size),
        ..Default::default()
    };
    f.fs.setattr(e.ino, to(5 << 30)).unwrap();
    assert_eq!(fs::metadata(f.orig.join("big")).unwrap().len(), 5 << 30);
    assert_eq!(
        f.fs.setattr(e.ino, to(u64::MAX)).unwrap_err().errno,
        libc::EFBIG
    );
    assert_eq!(
        f.fs.write_ino(e.ino, u64::MAX - 2, b"x").unwrap_err().errno,
        libc::EFBIG
    );
    f.fs.setattr(e.ino, to(3)).unwrap();
    assert_eq!(fs::read(f.orig.join("big")).unwrap(), [0, 0, 0]);
    // A binary file grows in place; a renamed text file cannot become raw.
    let d = f.fs.lookup_path(Path::new("data.bin")).unwrap();
    f.fs.setattr(d.ino, to(3 << 30)).unwrap();
    assert_eq!(f.fs.read_ino(d.ino, 0, 7).unwrap(), b"\0alpha\xff");
    let r = f.fs.lookup_path(Path::new("README")).unwrap();
    assert_eq!(
        f.fs.write_ino(r.ino, at, b"x").unwrap_err().errno,
        libc::EFBIG
    );
    assert_eq!(f.fs.setattr(r.ino, to(at)).unwrap_err().errno, libc::EFBIG);
    assert_eq!(
        fs::read(f.orig.join("README")).unwrap(),
        b"omega and alpha\n"
    );
}

/// A hard link made through the view is one more name of the same node: both names show
/// one inode with two links, a write through either is read through the other and lands in
/// both names of the original (written in place, a rename would split them), and the file
/// outlives the removal of either name. Directories are refused (EPERM), and so is a link
/// between the original and scratch (EXDEV).
#[test]
fn hard_links_are_one_file_with_two_names() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("README")).unwrap();
    let d = f.fs.lookup_path(Path::new("pkg")).unwrap();
    let root = f.fs.lookup_path(Path::new("")).unwrap();
    let l = f.fs.link(a.ino, d.ino, OsStr::new("omega_copy")).unwrap();
    assert_eq!(l.ino, a.ino);
    assert_eq!(l.nlink, 2);
    let b = f.fs.lookup_path(Path::new("pkg/omega_copy")).unwrap();
    assert_eq!(b.ino, a.ino);
    assert_eq!(f.read("pkg/omega_copy"), b"alpha and omega\n");
    let orig_link = f.orig.join("pkg/alpha_copy");
    assert_eq!(fs::read(&orig_link).unwrap(), b"omega and alpha\n");
    f.fs.write_ino(b.ino, 0, b"omega").unwrap();
    assert_eq!(f.read("README"), b"omega and omega\n");
    assert_eq!(
        fs::read(f.orig.join("README")).unwrap(),
        b"alpha and alpha\n"
    );
    assert_eq!(fs::read(&orig_link).unwrap(), b"alpha and alpha\n");
    // Through a handle too, and the names stay one inode in the original.
    f.write("pkg/omega_copy", b"alpha\n").unwrap();
    assert_eq!(f.read("README"), b"alpha\n");
    let (m1, m2) = (
        fs::metadata(f.orig.join("README")).unwrap(),
        fs::metadata(&orig_link).unwrap(),
    );
    assert_eq!((m1.ino(), m1.nlink()), (m2.ino(), 2));
    // Either name may go; the other keeps the file, readable and writable.
    f.fs.unlink(root.ino, OsStr::new("README")).unwrap();
    assert!(f.fs.lookup_path(Path::new("README")).is_err());
    assert_eq!(f.read("pkg/omega_copy"), b"alpha\n");
    f.fs.write_ino(b.ino, 0, b"omega\n").unwrap();
    assert_eq!(fs::read(&orig_link).unwrap(), b"alpha\n");
    assert_eq!(f.fs.getattr(b.ino).unwrap().nlink, 1);
    // A moved alias keeps its node.
    f.fs.link(b.ino, root.ino, OsStr::new("again")).unwrap();
    f.fs.rename(root.ino, OsStr::new("again"), d.ino, OsStr::new("moved"), 0)
        .unwrap();
    assert_eq!(f.fs.lookup_path(Path::new("pkg/moved")).unwrap().ino, b.ino);
    assert_eq!(f.read("pkg/moved"), b"omega\n");
    assert_eq!(fs::read(f.orig.join("pkg/moved")).unwrap(), b"alpha\n");
    // What is refused.
    let e = f.fs.link(d.ino, root.ino, OsStr::new("pkg2")).unwrap_err();
    assert_eq!(e.errno, libc::EPERM);
    let e =
        f.fs.link(b.ino, d.ino, OsStr::new("__pycache__"))
            .unwrap_err();
    assert_eq!(e.errno, libc::EXDEV);
}

#[test]
fn external_change_is_seen() {
    let f = fixture();
    assert_eq!(f.read("README"), b"alpha and omega\n");
    fs::write(f.orig.join("README"), b"alpha, longer text now\n").unwrap();
    assert_eq!(f.read("README"), b"omega, longer text now\n");
}

#[test]
fn failed_write_back_is_eio_and_keeps_the_buffer() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("pkg/omega_mod.py")).unwrap();
    let o = f.fs.open(a.ino, libc::O_RDWR).unwrap();
    f.fs.write(a.ino, o.fh, 0, b"import alpha as x\n").unwrap();
    let moved = f._dir.path().join("moved_pkg");
    fs::rename(f.orig.join("pkg"), &moved).unwrap();
    assert_eq!(f.fs.flush(a.ino, o.fh).unwrap_err().errno, libc::EIO);
    assert_eq!(
        f.fs.read(a.ino, o.fh, 0, 100).unwrap(),
        b"import alpha as x\n"
    );
    fs::rename(&moved, f.orig.join("pkg")).unwrap();
    f.fs.release(a.ino, o.fh).unwrap();
    assert_eq!(
        fs::read(f.orig.join("pkg/alpha_mod.py")).unwrap(),
        b"import omega as x\n"
    );
}

#[test]
fn large_file_works_and_cache_respects_budget() {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    let big: Vec<u8> = b"alpha beta omega\n"
        .iter()
        .copied()
        .cycle()
        .take(50 << 20)
        .collect();
    write(&orig.join("big.txt"), &big);
    let fs = ViewFs::new(
        &orig,
        &dir.path().join("s"),
        Arc::new(SwapTransform),
        Options {
            cache_budget: 1 << 20,
            ..Options::default()
        },
    )
    .unwrap();
    let a = fs.lookup_path(Path::new("big.txt")).unwrap();
    assert_eq!(a.size, big.len() as u64);
    assert!(fs.cache.used() <= 1 << 20);
    let o = fs.open(a.ino, libc::O_RDONLY).unwrap();
    let tail = (50 << 20) - 100;
    let expect = super::testing::swap(&big)[tail as usize..].to_vec();
    assert_eq!(fs.read(a.ino, o.fh, tail, 1000).unwrap(), expect);
    fs.release(a.ino, o.fh).unwrap();
}

#[test]
fn readdir_offsets_are_stable() {
    let f = fixture();
    let fh = f.fs.opendir(ROOT_INO).unwrap();
    let all = f.fs.readdir(fh, 0).unwrap();
    let (off, _) = all[2].clone();
    let rest = f.fs.readdir(fh, off).unwrap();
    assert_eq!(rest, all[3..].to_vec());
    assert!(f.fs.readdir(fh, 1000).unwrap().is_empty());
}

use std::os::unix::fs::PermissionsExt;

/// Collects invalidations sent by the watcher.
#[derive(Clone, Default)]
struct Collect(Arc<parking_lot::Mutex<Vec<watch::Inval>>>);

impl watch::Invalidate for Collect {
    fn send(&self, inval: &watch::Inval) {
        self.0.lock().push(inval.clone());
    }
}

impl Collect {
    /// Wait (bounded) until `want` was sent.
    fn wait_for(&self, want: &watch::Inval) -> bool {
        for _ in 0..100 {
            if self.0.lock().contains(want) {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        false
    }
}

#[test]
fn watcher_invalidates_nodes_changed_in_the_original() {
    let f = fixture();
    let fs = Arc::new(f.fs);
    let file = fs.lookup_path(Path::new("omega.py")).unwrap().ino;
    let pkg = fs.lookup_path(Path::new("pkg")).unwrap().ino;
    let sink = Collect::default();
    let mut w = watch::Watcher::new(&fs).unwrap();
    w.run(fs.clone(), Box::new(sink.clone())).unwrap();

    // Contents changed: the file's inode.
    write(&f.orig.join("alpha.py"), b"x = 1\n");
    assert!(sink.wait_for(&watch::Inval::Inode(file)));
    // A name removed: the parent's listing and the dentry (under its view name).
    fs::remove_file(f.orig.join("pkg/alpha_mod.py")).unwrap();
    assert!(sink.wait_for(&watch::Inval::Entry(pkg, "omega_mod.py".into())));
    assert!(sink.0.lock().contains(&watch::Inval::Inode(pkg)));
    // A new directory is watched too; hidden names are ignored.
    fs::create_dir(f.orig.join("pkg/sub")).unwrap();
    let sub = fs.lookup_path(Path::new("pkg/sub")).unwrap().ino;
    std::thread::sleep(std::time::Duration::from_millis(200));
    write(&f.orig.join("pkg/sub/m.py"), b"");
    assert!(sink.wait_for(&watch::Inval::Inode(sub)));
    // A name created in the original: a negative entry the kernel may hold is dropped.
    assert!(sink.wait_for(&watch::Inval::Entry(sub, "m.py".into())));
    std::thread::sleep(std::time::Duration::from_millis(300));
    sink.0.lock().clear();
    write(&f.orig.join("pkg/__pycache__/x.pyc"), b"\0");
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(sink.0.lock().is_empty(), "{:?}", sink.0.lock());
    drop(w);
}

#[test]
fn listing_by_inode_matches_listing_by_handle() {
    let f = fixture();
    let pkg = f.fs.lookup_path(Path::new("pkg")).unwrap().ino;
    let fh = f.fs.opendir(pkg).unwrap();
    let by_handle = f.fs.readdir(fh, 0).unwrap();
    assert_eq!(f.fs.readdir_ino(pkg, 0).unwrap(), by_handle);
    assert_eq!(f.fs.readdir_ino(pkg, 2).unwrap(), by_handle[2..].to_vec());
    // Offset 0 takes a fresh listing.
    write(&f.orig.join("pkg/new.py"), b"");
    let again = f.fs.readdir_ino(pkg, 0).unwrap();
    assert!(again.iter().any(|(_, e)| e.name == "new.py"));
    let file = f.fs.lookup_path(Path::new("omega.py")).unwrap().ino;
    assert_eq!(f.fs.check_dir(file).unwrap_err().errno, libc::ENOTDIR);
}

#[test]
fn watched_opens_trust_the_cache_until_a_change_is_reported() {
    let f = fixture();
    f.fs.set_watched();
    let ino = f.fs.lookup_path(Path::new("omega.py")).unwrap().ino;
    let read_all = |fs: &ViewFs| {
        let o = fs.open(ino, libc::O_RDONLY).unwrap();
        let d = fs.read(ino, o.fh, 0, 1 << 20).unwrap();
        fs.release(ino, o.fh).unwrap();
        (o.keep_cache, d)
    };
    let (_, v0) = read_all(&f.fs);
    assert_eq!(v0, b"def omega():\n    return alpha\n");
    // Changed behind the view, not reported yet: the verified version is still served whole.
    write(&f.orig.join("alpha.py"), b"alpha = 2\n");
    assert_eq!(read_all(&f.fs), (true, v0));
    // Reported: the next open looks at the original again.
    let inv =
        f.fs.invalidations(Path::new("alpha.py"), watch::Change::default());
    assert_eq!(inv, vec![watch::Inval::Inode(ino)]);
    assert_eq!(read_all(&f.fs), (false, b"omega = 2\n".to_vec()));
}

/// The watcher's event for a write the daemon itself made asks the kernel to forget nothing
/// (it holds what was written, which the view serves); a later change from outside does.
#[test]
fn the_daemons_own_writes_invalidate_nothing() {
    let f = fixture();
    f.fs.set_watched();
    let ino = f.fs.lookup_path(Path::new("omega.py")).unwrap().ino;
    let o = f.fs.open(ino, libc::O_RDWR).unwrap();
    f.fs.write(ino, o.fh, 0, b"def omega():\n    return 77777\n")
        .unwrap();
    f.fs.flush(ino, o.fh).unwrap();
    f.fs.release(ino, o.fh).unwrap();
    assert_eq!(
        fs::read(f.orig.join("alpha.py")).unwrap(),
        b"def alpha():\n    return 77777\n"
    );
    let path = Path::new("alpha.py");
    assert_eq!(f.fs.invalidations(path, watch::Change::default()), vec![]);
    // Handle-less writes are the daemon's own too.
    f.fs.write_ino(ino, 0, b"def omega():\n    return 88888\n")
        .unwrap();
    assert_eq!(f.fs.invalidations(path, watch::Change::default()), vec![]);
    // Someone else's write is not, even of the same length.
    write(
        &f.orig.join("alpha.py"),
        b"def alpha():\n    return 99999\n",
    );
    assert_eq!(
        f.fs.invalidations(path, watch::Change::default()),
        vec![watch::Inval::Inode(ino)]
    );
}

/// After a watcher overflow every known name is invalidated along with every inode: the
/// kernel keeps entries for an hour while watched, so a name changed in the original during
/// the overflow must not wait for that.
#[test]
fn every_known_name_can_be_invalidated() {
    let f = fixture();
    let pkg = f.fs.lookup_path(Path::new("pkg")).unwrap().ino;
    let file = f.fs.lookup_path(Path::new("omega.py")).unwrap().ino;
    let entries = f.fs.all_entries();
    assert!(entries.contains(&(ROOT_INO, "pkg".into())), "{entries:?}");
    assert!(
        entries.contains(&(ROOT_INO, "omega.py".into())),
        "{entries:?}"
    );
    let inodes = f.fs.all_inodes();
    assert!(inodes.contains(&pkg) && inodes.contains(&file));
    // Each entry names a node the daemon holds, under its view name.
    for (parent, name) in &entries {
        let a = f.fs.lookup(*parent, name).unwrap();
        assert!(inodes.contains(&a.ino), "{name:?}");
    }
}

// ------------------------------------------------------------ handle-less I/O (no-open)

#[test]
fn handle_less_write_is_in_the_original_when_acknowledged() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("README")).unwrap();
    // No open, no flush, no release: the kernel sends only the write.
    f.fs.write_ino(a.ino, 0, b"alpha").unwrap();
    assert_eq!(
        fs::read(f.orig.join("README")).unwrap(),
        b"omega and alpha\n"
    );
    f.fs.write_ino(a.ino, 16, b"more alpha\n").unwrap();
    assert_eq!(
        fs::read(f.orig.join("README")).unwrap(),
        b"omega and alpha\nmore omega\n"
    );
    // Read your writes, and no buffer is left to shadow the original.
    assert_eq!(
        f.fs.read_ino(a.ino, 0, 100).unwrap(),
        b"alpha and omega\nmore alpha\n"
    );
    assert!(f.fs.state.lock().buffers.is_empty());
    fs::write(f.orig.join("README"), b"changed in the original\n").unwrap();
    assert_eq!(
        f.fs.read_ino(a.ino, 0, 100).unwrap(),
        b"changed in the original\n"
    );
}

#[test]
fn handle_less_create_truncate_and_scratch() {
    let f = fixture();
    let a =
        f.fs.create_ino(
            ROOT_INO,
            OsStr::new("omega_new.py"),
            0o640,
            0o022,
            libc::O_RDWR,
            Caller::daemon(),
        )
        .unwrap();
    assert_eq!(a.size, 0);
    let orig = f.orig.join("alpha_new.py");
    assert_eq!(fs::read(&orig).unwrap(), b"");
    assert_eq!(fs::metadata(&orig).unwrap().mode() & 0o777, 0o640);
    f.fs.write_ino(a.ino, 0, b"omega = 1\n").unwrap();
    assert_eq!(fs::read(&orig).unwrap(), b"alpha = 1\n");
    // Truncation without a handle reaches the original at once.
    f.fs.setattr(
        a.ino,
        SetAttr {
            size: Some(5),
            ..SetAttr::default()
        },
    )
    .unwrap();
    assert_eq!(fs::read(&orig).unwrap(), b"alpha");
    // create of an existing file with O_TRUNC empties it; with O_EXCL it fails.
    let again =
        f.fs.create_ino(
            ROOT_INO,
            OsStr::new("omega_new.py"),
            0o644,
            0o022,
            libc::O_RDWR | libc::O_TRUNC,
            Caller::daemon(),
        )
        .unwrap();
    assert_eq!(again.ino, a.ino);
    assert_eq!(fs::read(&orig).unwrap(), b"");
    let excl = f.fs.create_ino(
        ROOT_INO,
        OsStr::new("omega_new.py"),
        0o644,
        0o022,
        libc::O_RDWR | libc::O_EXCL,
        Caller::daemon(),
    );
    assert_eq!(excl.unwrap_err().errno, libc::EEXIST);
    // Scratch files (byte-code caches) are read and written by path, never in the original.
    let pkg = f.fs.lookup_path(Path::new("pkg")).unwrap();
    f.fs.mkdir(
        pkg.ino,
        OsStr::new("__pycache__"),
        0o755,
        0o022,
        Caller::daemon(),
    )
    .unwrap();
    let pc = f.fs.lookup_path(Path::new("pkg/__pycache__")).unwrap();
    let c =
        f.fs.create_ino(
            pc.ino,
            OsStr::new("x.pyc"),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    f.fs.write_ino(c.ino, 0, b"\0alpha").unwrap();
    f.fs.fsync_ino(c.ino).unwrap();
    assert_eq!(f.fs.read_ino(c.ino, 1, 10).unwrap(), b"alpha");
    assert!(f.state.join("scratch/pkg/__pycache__/x.pyc").exists());
    assert!(!f.orig.join("pkg/__pycache__/x.pyc").exists());
}

#[test]
fn handle_less_write_to_an_unlinked_file_is_read_back_and_never_written() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("README")).unwrap();
    f.fs.unlink(ROOT_INO, OsStr::new("README")).unwrap();
    f.fs.write_ino(a.ino, 0, b"zzz").unwrap();
    assert_eq!(f.fs.read_ino(a.ino, 0, 10).unwrap(), b"zzz");
    assert!(!f.orig.join("README").exists());
}

#[test]
fn full_chunks_of_a_large_file_are_deferred_until_the_last_piece_or_fsync() {
    let f = fixture();
    let a =
        f.fs.create_ino(
            ROOT_INO,
            OsStr::new("big.txt"),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    let orig = f.orig.join("big.txt");
    let chunk = vec![b'x'; MAX_WRITE as usize];
    let chunks = SYNC_WRITEBACK_MAX / MAX_WRITE as usize + 2;
    for i in 0..chunks {
        f.fs.write_ino(a.ino, (i * chunk.len()) as u64, &chunk)
            .unwrap();
    }
    // Below the threshold every chunk was written back; above it, full chunks wait.
    let on_disk = fs::metadata(&orig).unwrap().len() as usize;
    assert_eq!(on_disk, SYNC_WRITEBACK_MAX);
    assert_eq!(f.fs.deferred.lock().len(), 1);
    // The last, shorter piece of a write(2) writes everything back before it returns.
    let end = (chunks * chunk.len()) as u64;
    f.fs.write_ino(a.ino, end, b"omega\n").unwrap();
    let data = fs::read(&orig).unwrap();
    assert_eq!(data.len(), chunks * chunk.len() + 6);
    assert!(data.ends_with(b"xalpha\n"));
    // A write(2) that is an exact multiple of the chunk: fsync waits for it.
    f.fs.write_ino(a.ino, end + 6, &chunk).unwrap();
    assert_eq!(fs::metadata(&orig).unwrap().len(), end + 6);
    f.fs.fsync_ino(a.ino).unwrap();
    assert_eq!(
        fs::metadata(&orig).unwrap().len(),
        end + 6 + MAX_WRITE as u64
    );
}

#[test]
fn the_deferred_flusher_writes_back_and_stops_at_unmount() {
    let f = Arc::new(fixture());
    let a =
        f.fs.create_ino(
            ROOT_INO,
            OsStr::new("big.txt"),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    let chunk = vec![b'y'; MAX_WRITE as usize];
    let n = SYNC_WRITEBACK_MAX / MAX_WRITE as usize + 1;
    for i in 0..n {
        f.fs.write_ino(a.ino, (i * chunk.len()) as u64, &chunk)
            .unwrap();
    }
    let want = (n * chunk.len()) as u64;
    let orig = f.orig.join("big.txt");
    assert_ne!(fs::metadata(&orig).unwrap().len(), want);
    let runner = f.clone();
    let t = std::thread::spawn(move || runner.fs.run_deferred_flusher());
    let t0 = std::time::Instant::now();
    while fs::metadata(&orig).unwrap().len() != want {
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(20),
            "the flusher never wrote the deferred chunk back"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    f.fs.stop_background();
    t.join().unwrap();
    assert!(f.fs.state.lock().buffers.is_empty());
}

#[test]
fn handle_create_of_an_existing_file_with_o_trunc_empties_it() {
    let f = fixture();
    let (a, o) =
        f.fs.create(
            ROOT_INO,
            OsStr::new("README"),
            0o644,
            0o022,
            libc::O_WRONLY | libc::O_TRUNC,
            Caller::daemon(),
        )
        .unwrap();
    assert_eq!(a.size, 0);
    assert_eq!(fs::read(f.orig.join("README")).unwrap(), b"");
    f.fs.write(a.ino, o.fh, 0, b"alpha\n").unwrap();
    f.fs.release(a.ino, o.fh).unwrap();
    assert_eq!(fs::read(f.orig.join("README")).unwrap(), b"omega\n");
}

#[test]
fn tool_output_created_in_the_view_lives_in_scratch() {
    let f = fixture();
    // The original already holds a build directory and an egg-info: shown and written as
    // they are (they are never part of the bundle, but the view does not hide them).
    write(&f.orig.join("build/lib/alpha.py"), b"alpha = 1\n");
    write(&f.orig.join("alpha.egg-info/PKG-INFO"), b"Name: alpha\n");
    assert_eq!(f.read("build/lib/omega.py"), b"omega = 1\n");
    assert_eq!(f.read("omega.egg-info/PKG-INFO"), b"Name: omega\n");
    f.write("omega.egg-info/PKG-INFO", b"Name: omega\nVersion: 2\n")
        .unwrap();
    assert_eq!(
        fs::read(f.orig.join("alpha.egg-info/PKG-INFO")).unwrap(),
        b"Name: alpha\nVersion: 2\n"
    );
    // New tool output goes to scratch, wherever it is made.
    let pkg = f.fs.lookup_path(Path::new("pkg")).unwrap();
    for (parent, dir) in [
        (ROOT_INO, ".hypothesis"),
        (pkg.ino, ".hypothesis"),
        (ROOT_INO, "omega_pkg.egg-info"),
        (ROOT_INO, "htmlcov"),
        (ROOT_INO, ".tox"),
        (pkg.ino, "build"),
    ] {
        f.fs.mkdir(parent, OsStr::new(dir), 0o755, 0o022, Caller::daemon())
            .unwrap();
    }
    f.create(".hypothesis", "examples", b"alpha").unwrap();
    f.create("omega_pkg.egg-info", "PKG-INFO", b"Name: omega_pkg\n")
        .unwrap();
    f.create("", ".coverage", b"\0data").unwrap();
    f.create("", ".coverage.host.1.2", b"\0data").unwrap();
    for p in [
        ".hypothesis",
        "pkg/.hypothesis",
        "alpha_pkg.egg-info",
        "omega_pkg.egg-info",
        "htmlcov",
        ".tox",
        "pkg/build",
        ".coverage",
        ".coverage.host.1.2",
    ] {
        assert!(!f.orig.join(p).exists(), "{p} reached the original");
    }
    for p in [
        ".hypothesis/examples",
        "pkg/.hypothesis",
        "omega_pkg.egg-info/PKG-INFO",
        ".coverage",
        "pkg/build",
    ] {
        assert!(
            f.state.join("scratch").join(p).exists(),
            "{p} not in scratch"
        );
    }
    // Scratch files are served as written (no transform), listed beside original entries.
    assert_eq!(f.read(".hypothesis/examples"), b"alpha");
    let names = f.names("");
    for n in [
        ".coverage",
        ".hypothesis",
        "build",
        "omega.egg-info",
        "omega_pkg.egg-info",
    ] {
        assert!(names.contains(&n.to_string()), "{n} not listed: {names:?}");
    }
    assert!(f.names("pkg").contains(&"build".to_string()));
    // A directory the view lists tool output in is not empty.
    let err = f.fs.rmdir(ROOT_INO, OsStr::new("pkg")).unwrap_err();
    assert_eq!(err.errno, libc::ENOTEMPTY);
}

/// pytest writes its cache as a temporary directory beside `.pytest_cache`, then renames it
/// into place; before, the temporary directory was in the original and the rename EXDEV.
#[test]
fn pytest_cache_made_by_rename_stays_in_scratch() {
    let f = fixture();
    f.fs.mkdir(
        ROOT_INO,
        OsStr::new("pytest-cache-files-x1y2"),
        0o755,
        0o022,
        Caller::daemon(),
    )
    .unwrap();
    f.create("pytest-cache-files-x1y2", "README.md", b"# pytest cache\n")
        .unwrap();
    assert!(!f.orig.join("pytest-cache-files-x1y2").exists());
    f.fs.rename(
        ROOT_INO,
        OsStr::new("pytest-cache-files-x1y2"),
        ROOT_INO,
        OsStr::new(".pytest_cache"),
        0,
    )
    .unwrap();
    assert_eq!(f.read(".pytest_cache/README.md"), b"# pytest cache\n");
    // The original's own .pytest_cache is untouched and still hidden.
    assert_eq!(fs::read(f.orig.join(".pytest_cache/v")).unwrap(), b"x");
    assert!(!f.orig.join(".pytest_cache/README.md").exists());
}

#[test]
fn rename_between_scratch_and_original_copies_as_the_view_shows() {
    let f = fixture();
    // Scratch directory -> original: contents and names go through the transform, and tool
    // output inside it stays in scratch at its new place.
    f.fs.mkdir(
        ROOT_INO,
        OsStr::new("htmlcov"),
        0o755,
        0o022,
        Caller::daemon(),
    )
    .unwrap();
    f.create("htmlcov", "omega.html", b"<p>omega</p>\n")
        .unwrap();
    let h = f.fs.lookup_path(Path::new("htmlcov")).unwrap();
    f.fs.mkdir(
        h.ino,
        OsStr::new("__pycache__"),
        0o755,
        0o022,
        Caller::daemon(),
    )
    .unwrap();
    f.create("htmlcov/__pycache__", "x.pyc", b"\0pyc").unwrap();
    let file = f.fs.lookup_path(Path::new("htmlcov/omega.html")).unwrap();
    f.fs.rename(
        ROOT_INO,
        OsStr::new("htmlcov"),
        ROOT_INO,
        OsStr::new("report"),
        0,
    )
    .unwrap();
    assert_eq!(
        fs::read(f.orig.join("report/alpha.html")).unwrap(),
        b"<p>alpha</p>\n"
    );
    assert!(!f.orig.join("report/__pycache__").exists());
    assert!(!f.state.join("scratch/htmlcov").exists());
    assert_eq!(f.read("report/omega.html"), b"<p>omega</p>\n");
    assert_eq!(f.read("report/__pycache__/x.pyc"), b"\0pyc");
    // The inode the kernel holds for the moved file still answers, at its new place.
    let a = f.fs.getattr(file.ino).unwrap();
    assert_eq!(a.size, 13);
    // Original file -> scratch name: the view's bytes move, the original loses the file.
    f.fs.rename(
        ROOT_INO,
        OsStr::new("README"),
        ROOT_INO,
        OsStr::new(".coverage"),
        0,
    )
    .unwrap();
    assert!(!f.orig.join("README").exists());
    assert_eq!(
        fs::read(f.state.join("scratch/.coverage")).unwrap(),
        b"alpha and omega\n"
    );
    // Scratch file renamed over an original file (an editor's save pattern).
    f.create("", ".coverage.tmp1", b"def omega():\n    return 2\n")
        .unwrap();
    f.fs.rename(
        ROOT_INO,
        OsStr::new(".coverage.tmp1"),
        ROOT_INO,
        OsStr::new("omega.py"),
        0,
    )
    .unwrap();
    assert_eq!(
        fs::read(f.orig.join("alpha.py")).unwrap(),
        b"def alpha():\n    return 2\n"
    );
    assert_eq!(f.read("omega.py"), b"def omega():\n    return 2\n");
    // A non-empty target directory is refused, as rename(2) does.
    f.fs.mkdir(ROOT_INO, OsStr::new(".tox"), 0o755, 0o022, Caller::daemon())
        .unwrap();
    f.create(".tox", "f", b"1").unwrap();
    let err =
        f.fs.rename(ROOT_INO, OsStr::new(".tox"), ROOT_INO, OsStr::new("pkg"), 0)
            .unwrap_err();
    assert_eq!(err.errno, libc::ENOTEMPTY);
}

/// Records the base each write-back inverts against (contents pass unchanged).
#[derive(Default)]
struct BaseRecorder {
    bases: parking_lot::Mutex<Vec<Option<Vec<u8>>>>,
    /// How many times a view was computed from an original.
    views: std::sync::atomic::AtomicUsize,
    moves: parking_lot::Mutex<Vec<(PathBuf, PathBuf)>>,
}

impl Transform for BaseRecorder {
    fn name_to_view(&self, name: &OsStr) -> std::ffi::OsString {
        name.to_owned()
    }
    fn name_to_original(
        &self,
        name: &OsStr,
    ) -> Result<std::ffi::OsString, crate::transform::TransformError> {
        Ok(name.to_owned())
    }
    fn content_to_view(&self, _: &Path, original: &[u8]) -> Vec<u8> {
        self.views.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        original.to_vec()
    }
    fn content_to_original(&self, _: &Path, view: &[u8], base: Option<&[u8]>) -> Vec<u8> {
        self.bases.lock().push(base.map(<[u8]>::to_vec));
        view.to_vec()
    }
    // Like Level 3: what a file held before decides how its view goes back.
    fn base_matters(&self, _: &Path) -> bool {
        true
    }
    fn renamed(&self, from: &Path, to: &Path) {
        self.moves
            .lock()
            .push((from.to_path_buf(), to.to_path_buf()));
    }
}

/// A view over the files of `orig` whose transform records what it is asked (`BaseRecorder`).
fn recording_view(dir: &Path, orig: &Path) -> (Arc<BaseRecorder>, ViewFs) {
    let t = Arc::new(BaseRecorder::default());
    let fs = ViewFs::new(orig, &dir.join("state"), t.clone(), Options::default()).unwrap();
    (t, fs)
}

/// Create `name` in the view's root holding `bytes`, through a handle.
fn create_in_root(fs: &ViewFs, name: &str, bytes: &[u8]) {
    let (a, o) = fs
        .create(
            ROOT_INO,
            OsStr::new(name),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    fs.write(a.ino, o.fh, 0, bytes).unwrap();
    fs.release(a.ino, o.fh).unwrap();
}

/// A chmod or chown through the view (`sed -i` sets both on its temp file) keeps the view
/// already computed for the file: only the ctime moved. A size change still recomputes.
#[test]
fn chmod_and_chown_keep_the_computed_view() {
    use std::sync::atomic::Ordering::SeqCst;
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    write(&orig.join("m.py"), b"def a():\n    pass\n");
    let (t, fs) = recording_view(dir.path(), &orig);
    let a = fs.lookup_path(Path::new("m.py")).unwrap();
    let o = fs.open(a.ino, libc::O_RDONLY).unwrap();
    assert_eq!(
        fs.read(a.ino, o.fh, 0, 1 << 20).unwrap(),
        b"def a():\n    pass\n"
    );
    fs.release(a.ino, o.fh).unwrap();
    let computed = t.views.load(SeqCst);
    let me = fs::metadata(orig.join("m.py")).unwrap();
    for set in [
        SetAttr {
            mode: Some(0o600),
            ..Default::default()
        },
        SetAttr {
            uid: Some(me.uid()),
            gid: Some(me.gid()),
            ..Default::default()
        },
    ] {
        let got = fs.setattr(a.ino, set).unwrap();
        assert_eq!(got.size, 18);
    }
    assert_eq!(
        fs::metadata(orig.join("m.py")).unwrap().mode() & 0o777,
        0o600
    );
    assert_eq!(
        t.views.load(SeqCst),
        computed,
        "a chmod or chown computed the view again"
    );
    let o = fs.open(a.ino, libc::O_RDONLY).unwrap();
    assert_eq!(
        fs.read(a.ino, o.fh, 0, 1 << 20).unwrap(),
        b"def a():\n    pass\n"
    );
    fs.release(a.ino, o.fh).unwrap();
    assert_eq!(t.views.load(SeqCst), computed);
    // Bytes changed from outside with the mode: the view is computed again.
    write(&orig.join("m.py"), b"x = 1\n");
    let set = SetAttr {
        mode: Some(0o644),
        ..Default::default()
    };
    assert_eq!(fs.setattr(a.ino, set).unwrap().size, 6);
    assert!(t.views.load(SeqCst) > computed);
}

/// `sed -i` writes a temp file and renames it over the file: when the bytes are what the view
/// showed for that file, its original comes back as it was without running the inverse
/// transform (law 1 says what the inverse would give); other bytes still go through it.
#[test]
fn a_rename_over_a_file_with_its_own_view_bytes_keeps_the_original_untransformed() {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    write(&orig.join("m.py"), b"def a():\n    pass\n");
    let (t, fs) = recording_view(dir.path(), &orig);
    let save_as_m = |bytes: &[u8]| {
        create_in_root(&fs, "sedXYZ", bytes);
        let calls = t.bases.lock().len();
        fs.rename(
            ROOT_INO,
            OsStr::new("sedXYZ"),
            ROOT_INO,
            OsStr::new("m.py"),
            0,
        )
        .unwrap();
        t.bases.lock().len() - calls
    };
    // Read through the view first, as sed does.
    let a = fs.lookup_path(Path::new("m.py")).unwrap();
    let o = fs.open(a.ino, libc::O_RDONLY).unwrap();
    let shown = fs.read(a.ino, o.fh, 0, 1 << 20).unwrap();
    fs.release(a.ino, o.fh).unwrap();
    assert_eq!(
        save_as_m(&shown),
        0,
        "the same bytes are not transformed back"
    );
    assert_eq!(
        fs::read(orig.join("m.py")).unwrap(),
        b"def a():\n    pass\n"
    );
    // Read your writes (law 2): the file shows what was renamed over it.
    let a = fs.lookup_path(Path::new("m.py")).unwrap();
    assert_eq!(fs.read_ino(a.ino, 0, 1 << 20).unwrap(), shown);
    assert_eq!(save_as_m(b"def a():\n    return 2\n"), 1);
    assert_eq!(
        fs::read(orig.join("m.py")).unwrap(),
        b"def a():\n    return 2\n"
    );
    assert!(!orig.join("sedXYZ").exists());
}

/// `git apply` and `git checkout -- FILE` remove a file and create it again: the new file is
/// written back as an edit of the one it replaces (Level 3 then keeps the original's order).
#[test]
fn a_file_removed_and_created_again_is_an_edit_of_the_old_one() {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    write(&orig.join("m.py"), b"def a():\n    pass\n");
    write(&orig.join("other.py"), b"x = 1\n");
    let (t, fs) = recording_view(dir.path(), &orig);
    fs.unlink(ROOT_INO, OsStr::new("m.py")).unwrap();
    create_in_root(&fs, "m.py", b"def a():\n    return 1\n");
    assert_eq!(
        t.bases.lock().last().cloned().flatten().as_deref(),
        Some(&b"def a():\n    pass\n"[..])
    );
    assert_eq!(
        fs::read(orig.join("m.py")).unwrap(),
        b"def a():\n    return 1\n"
    );
    // Used once: a later write is an edit of the file as it is now.
    let a = fs.lookup_path(Path::new("m.py")).unwrap();
    let o = fs.open(a.ino, libc::O_WRONLY | libc::O_TRUNC).unwrap();
    fs.write(a.ino, o.fh, 0, b"y = 2\n").unwrap();
    fs.release(a.ino, o.fh).unwrap();
    assert_eq!(
        t.bases.lock().last().cloned().flatten().as_deref(),
        Some(&b"def a():\n    return 1\n"[..])
    );
    // A file never unlinked is created as a new one.
    create_in_root(&fs, "new.py", b"z = 3\n");
    assert_eq!(
        t.bases.lock().last().cloned().flatten().as_deref(),
        Some(&b""[..])
    );
    assert!(t.moves.lock().is_empty(), "no unlinked file resembles it");
    // A move made by removing a file and creating a similar one elsewhere (git apply's
    // renames): the new file is an edit of the old one, whose state moves with it.
    write(&orig.join("big.py"), b"a = 1\nb = 2\nc = 3\nd = 4\n");
    fs.unlink(ROOT_INO, OsStr::new("big.py")).unwrap();
    create_in_root(&fs, "moved.py", b"a = 1\nb = 2\nc = 3\ne = 5\n");
    assert_eq!(
        t.bases.lock().last().cloned().flatten().as_deref(),
        Some(&b"a = 1\nb = 2\nc = 3\nd = 4\n"[..])
    );
    assert_eq!(
        *t.moves.lock(),
        [(PathBuf::from("big.py"), PathBuf::from("moved.py"))]
    );
}

#[test]
fn new_files_dirs_and_links_belong_to_the_caller() {
    let f = fixture();
    let agent = Caller {
        uid: 65534,
        gid: 65534,
    };
    let d =
        f.fs.mkdir(ROOT_INO, OsStr::new("omega_dir"), 0o755, 0o022, agent)
            .unwrap();
    let (a, o) =
        f.fs.create(
            d.ino,
            OsStr::new("omega.py"),
            0o644,
            0o022,
            libc::O_WRONLY,
            agent,
        )
        .unwrap();
    f.fs.release(a.ino, o.fh).unwrap();
    f.fs.symlink(ROOT_INO, OsStr::new("ln"), Path::new("omega_dir"), agent)
        .unwrap();
    f.fs.mkdir(ROOT_INO, OsStr::new(".tox"), 0o755, 0o022, agent)
        .unwrap();
    // A daemon that is not root cannot give files away: they stay its own.
    let want = if Caller::daemon().uid == 0 {
        (65534, 65534)
    } else {
        (Caller::daemon().uid, Caller::daemon().gid)
    };
    for p in [
        f.orig.join("alpha_dir"),
        f.orig.join("alpha_dir/alpha.py"),
        f.orig.join("ln"),
        f.state.join("scratch/.tox"),
    ] {
        let m = fs::symlink_metadata(&p).unwrap();
        assert_eq!((m.uid(), m.gid()), want, "{}", p.display());
    }
    // The view reports the owner the original has.
    let a = f.fs.lookup_path(Path::new("omega_dir/omega.py")).unwrap();
    assert_eq!((a.uid, a.gid), want);
}

#[test]
fn an_owner_given_at_mount_is_what_every_node_reports() {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    write(&orig.join("pkg/alpha.py"), b"alpha = 1\n");
    let agent = Caller {
        uid: 4242,
        gid: 4343,
    };
    let fs = ViewFs::new(
        &orig,
        &dir.path().join("s"),
        Arc::new(SwapTransform),
        Options {
            owner: Some(agent),
            ..Options::default()
        },
    )
    .unwrap();
    for p in ["", "pkg", "pkg/omega.py"] {
        let a = fs.lookup_path(Path::new(p)).unwrap();
        assert_eq!((a.uid, a.gid), (4242, 4343), "{p:?}");
    }
    // The original keeps its own owner.
    let m = fs::metadata(orig.join("pkg/alpha.py")).unwrap();
    assert_eq!(m.uid(), Caller::daemon().uid);
}

#[test]
fn names_longer_than_255_bytes_are_enametoolong() {
    let f = fixture();
    let long = "a".repeat(NAME_MAX + 1);
    let ok = "b".repeat(NAME_MAX);
    let e = f.fs.lookup(ROOT_INO, OsStr::new(&long)).unwrap_err();
    assert_eq!(e.errno, libc::ENAMETOOLONG);
    let e =
        f.fs.create(
            ROOT_INO,
            OsStr::new(&long),
            0o644,
            0,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap_err();
    assert_eq!(e.errno, libc::ENAMETOOLONG);
    let e =
        f.fs.mkdir(ROOT_INO, OsStr::new(&long), 0o755, 0, Caller::daemon())
            .unwrap_err();
    assert_eq!(e.errno, libc::ENAMETOOLONG);
    // 255 bytes is a name like any other (absent here).
    let e = f.fs.lookup(ROOT_INO, OsStr::new(&ok)).unwrap_err();
    assert_eq!(e.errno, libc::ENOENT);
    assert!(!f.orig.join(&long).exists());
}

#[test]
fn fifos_and_sockets_are_made_in_the_original_and_devices_refused() {
    use std::os::unix::fs::FileTypeExt;
    let f = fixture();
    let a =
        f.fs.mknod(
            ROOT_INO,
            OsStr::new("omega.fifo"),
            libc::S_IFIFO | 0o640,
            0o022,
            Caller::daemon(),
        )
        .unwrap();
    assert_eq!(a.kind, Kind::Fifo);
    assert_eq!(a.perm, 0o640 & !0o022);
    let m = fs::symlink_metadata(f.orig.join("alpha.fifo")).unwrap();
    assert!(m.file_type().is_fifo());
    let s =
        f.fs.mknod(
            ROOT_INO,
            OsStr::new("omega.sock"),
            libc::S_IFSOCK | 0o600,
            0,
            Caller::daemon(),
        )
        .unwrap();
    assert_eq!(s.kind, Kind::Socket);
    assert!(fs::symlink_metadata(f.orig.join("alpha.sock"))
        .unwrap()
        .file_type()
        .is_socket());
    for dev in [libc::S_IFCHR, libc::S_IFBLK] {
        let e =
            f.fs.mknod(
                ROOT_INO,
                OsStr::new("omega.dev"),
                dev | 0o600,
                0,
                Caller::daemon(),
            )
            .unwrap_err();
        assert_eq!(e.errno, libc::EPERM);
    }
    assert!(!f.orig.join("alpha.dev").exists());
    assert_eq!(
        f.fs.lookup_path(Path::new("omega.fifo")).unwrap().kind,
        Kind::Fifo
    );
}

#[test]
fn routing_by_inode_answers_enosys_to_open_and_writes_through_inode() {
    let f = fixture();
    f.fs.serve_by_inode();
    let file = f.fs.lookup_path(Path::new("omega.py")).unwrap();
    let dir = f.fs.lookup_path(Path::new("pkg")).unwrap();
    // OPEN and OPENDIR are refused with ENOSYS (the kernel then stops sending them); a
    // directory opened as a file is EISDIR, as it would be.
    assert_eq!(
        f.fs.open_request(file.ino, libc::O_RDONLY)
            .unwrap_err()
            .errno,
        libc::ENOSYS
    );
    assert_eq!(
        f.fs.open_request(dir.ino, libc::O_RDONLY)
            .unwrap_err()
            .errno,
        libc::EISDIR
    );
    assert_eq!(
        f.fs.opendir_request(dir.ino).unwrap_err().errno,
        libc::ENOSYS
    );
    assert_eq!(
        f.fs.opendir_request(file.ino).unwrap_err().errno,
        libc::ENOTDIR
    );
    // CREATE gives no handle; I/O with handle 0 goes by inode and is in the original when
    // acknowledged; FLUSH has nothing to do (ENOSYS), RELEASE and FSYNC succeed.
    let (a, o) =
        f.fs.create_request(
            ROOT_INO,
            OsStr::new("new_omega.py"),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    assert!(o.is_none());
    assert_eq!(
        f.fs.write_request(a.ino, NO_HANDLE, 0, b"omega = 1\n")
            .unwrap(),
        10
    );
    assert_eq!(
        fs::read(f.orig.join("new_alpha.py")).unwrap(),
        b"alpha = 1\n"
    );
    assert_eq!(
        f.fs.read_request(a.ino, NO_HANDLE, 0, 100).unwrap(),
        b"omega = 1\n"
    );
    assert_eq!(
        f.fs.flush_request(a.ino, NO_HANDLE).unwrap_err().errno,
        libc::ENOSYS
    );
    f.fs.fsync_request(a.ino, NO_HANDLE).unwrap();
    f.fs.release_request(a.ino, NO_HANDLE).unwrap();
}

#[test]
fn routing_through_handles_writes_back_at_close() {
    let f = fixture();
    assert!(!f.fs.by_inode());
    let (a, o) =
        f.fs.create_request(
            ROOT_INO,
            OsStr::new("new_omega.py"),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    let fh = o.expect("a handle").fh;
    assert_ne!(fh, NO_HANDLE);
    f.fs.write_request(a.ino, fh, 0, b"omega = 2\n").unwrap();
    assert_eq!(
        f.fs.read_request(a.ino, fh, 0, 100).unwrap(),
        b"omega = 2\n"
    );
    f.fs.flush_request(a.ino, fh).unwrap();
    f.fs.release_request(a.ino, fh).unwrap();
    assert_eq!(
        fs::read(f.orig.join("new_alpha.py")).unwrap(),
        b"alpha = 2\n"
    );
    let file = f.fs.lookup_path(Path::new("omega.py")).unwrap();
    let o = f.fs.open_request(file.ino, libc::O_RDONLY).unwrap();
    f.fs.release_request(file.ino, o.fh).unwrap();
    let dir = f.fs.lookup_path(Path::new("pkg")).unwrap();
    let dh = f.fs.opendir_request(dir.ino).unwrap();
    f.fs.releasedir(dh);
}

#[test]
fn a_file_unlinked_while_held_stays_readable_until_forgotten() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("omega.py")).unwrap();
    f.fs.remember_lookup(a.ino);
    let before = f.fs.read_ino(a.ino, 0, 4096).unwrap();
    f.fs.unlink(ROOT_INO, OsStr::new("omega.py")).unwrap();
    assert!(!f.orig.join("alpha.py").exists());
    // fstat and read through the held inode still work, and a write stays its own.
    let held = f.fs.getattr(a.ino).unwrap();
    assert_eq!((held.nlink, held.size), (0, before.len() as u64));
    assert_eq!(f.fs.read_ino(a.ino, 0, 4096).unwrap(), before);
    f.fs.write_ino(a.ino, 0, b"#").unwrap();
    assert_eq!(f.fs.read_ino(a.ino, 0, 1).unwrap(), b"#");
    assert!(!f.orig.join("alpha.py").exists(), "never written back");
    assert!(f.fs.lookup_path(Path::new("omega.py")).is_err());
    // Once the kernel forgets it, nothing is kept.
    f.fs.forget(a.ino, 1);
    assert_eq!(f.fs.getattr(a.ino).unwrap_err().errno, libc::ENOENT);
    assert!(f.fs.read_ino(a.ino, 0, 10).is_err());
}

#[test]
fn a_file_nobody_holds_keeps_nothing_after_its_unlink() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("omega.py")).unwrap();
    f.fs.unlink(ROOT_INO, OsStr::new("omega.py")).unwrap();
    assert_eq!(f.fs.getattr(a.ino).unwrap_err().errno, libc::ENOENT);
}

#[test]
fn writes_to_a_binary_file_go_in_place_and_text_ones_do_not() {
    use std::os::unix::fs::MetadataExt;
    let f = fixture();
    // data.bin holds a NUL: the view is the original's bytes.
    let a = f.fs.lookup_path(Path::new("data.bin")).unwrap();
    let ino_before = fs::metadata(f.orig.join("data.bin")).unwrap().ino();
    f.fs.write_ino(a.ino, 1, b"omega").unwrap();
    let on_disk = fs::read(f.orig.join("data.bin")).unwrap();
    assert_eq!(
        &on_disk[..6],
        b"\0omega",
        "binary: written as is, not swapped"
    );
    assert_eq!(
        fs::metadata(f.orig.join("data.bin")).unwrap().ino(),
        ino_before,
        "written in place, not replaced"
    );
    assert_eq!(f.fs.read_ino(a.ino, 0, 6).unwrap(), b"\0omega");
    // Past the end: a hole of zeros, as the view shows.
    let len = on_disk.len() as u64;
    f.fs.write_ino(a.ino, len + 3, b"x").unwrap();
    let grown = fs::read(f.orig.join("data.bin")).unwrap();
    assert_eq!(&grown[len as usize..], b"\0\0\0x");
    assert_eq!(f.fs.read_ino(a.ino, len, 10).unwrap(), b"\0\0\0x");
    // A text file goes through the transform as a whole.
    let t = f.fs.lookup_path(Path::new("README")).unwrap();
    f.fs.write_ino(t.ino, 0, b"omega").unwrap();
    assert!(fs::read(f.orig.join("README"))
        .unwrap()
        .starts_with(b"alpha"));
    let one =
        f.fs.create_ino(
            ROOT_INO,
            OsStr::new("one.bin"),
            0o644,
            0,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    f.fs.write_ino(one.ino, 0, b"\0omega").unwrap();
    f.fs.write_ino(one.ino, 0, b"omega ").unwrap();
    // Its only NUL overwritten: now text, so the write-back swaps it.
    assert_eq!(fs::read(f.orig.join("one.bin")).unwrap(), b"alpha ");
}

/// A view mounted again with the same state directory serves what the first mount rendered
/// (`rendered.rs`): the same bytes as a fresh transform, without transforming, except for a
/// file whose original changed since, or whose layout a write left (remembered).
/// The Level 3 state is saved after a write-back that changed it, and not written again by
/// one that left it as it was (every write of a data file, a file written back unchanged);
/// after the daemon's first save, a change is a line of the journal, not a new snapshot.
#[test]
fn the_transform_state_is_saved_when_it_changes_and_only_then() {
    use crate::transform::{layout::LayoutStore, Composite};
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    let state = dir.path().join("state");
    let src = b"def first():\n    return 1\n\n\ndef second():\n    return 2\n";
    write(&orig.join("a.py"), src);
    write(&orig.join("b.py"), src);
    write(&orig.join("notes.txt"), b"plain\n");
    let t = Composite {
        l2: None,
        l3: Some(LayoutStore::new(3)),
        l4: None,
    };
    let fs = watched_fs(&orig, &state, t);
    let snapshot = state.join(TRANSFORM_STATE_FILE);
    let stamp = || {
        fs::metadata(&snapshot)
            .map(|m| (m.ino(), m.mtime_nsec()))
            .ok()
    };
    let saved = || saved_state::load(&state).expect("a state is saved");
    let journal = || {
        fs::read(saved_state::journal_path(&state, saved().journal))
            .map(|b| b.split(|&c| c == b'\n').filter(|l| !l.is_empty()).count())
            .unwrap_or(0)
    };
    let a = fs.lookup_path(Path::new("a.py")).unwrap().ino;
    let view = fs.read_ino(a, 0, 4096).unwrap();
    // The functions swapped in the view: a layout the store remembers, saved.
    let (one, two) = view.split_at(view.len() / 2);
    let moved = [two, one].concat();
    assert!(moved.len() == view.len());
    fs.write_ino(a, 0, &moved).unwrap();
    let first = stamp().expect("a changed layout is saved");
    assert_eq!(saved().files, fs.transform.save_state().unwrap().files);
    assert_eq!(saved().files.len(), 1);
    // A data file's write, and a.py written back as the view now shows it: nothing saved.
    let n = fs.lookup_path(Path::new("notes.txt")).unwrap().ino;
    fs.write_ino(n, 0, b"PLAIN").unwrap();
    let now = fs.read_ino(a, 0, 4096).unwrap();
    fs.write_ino(a, 0, &now).unwrap();
    assert_eq!(stamp(), Some(first), "an unchanged state was written again");
    assert_eq!(journal(), 0, "an unchanged state was journaled");
    // Another layout, and another file's: lines of the journal, the snapshot left alone.
    fs.write_ino(a, 0, &view).unwrap();
    let b = fs.lookup_path(Path::new("b.py")).unwrap().ino;
    let b_view = fs.read_ino(b, 0, 4096).unwrap();
    let (one, two) = b_view.split_at(b_view.len() / 2);
    fs.write_ino(b, 0, &[two, one].concat()).unwrap();
    assert_eq!(stamp(), Some(first), "a change rewrote the snapshot");
    assert_eq!(journal(), 2);
    assert_eq!(saved().files, fs.transform.save_state().unwrap().files);
    assert_eq!(saved().files.len(), 2);
}

#[test]
fn views_rendered_by_an_earlier_mount_are_served_again() {
    use crate::transform::{layout::LayoutStore, Composite};
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    let state = dir.path().join("state");
    let src = b"def first():\n    return 1\n\n\ndef second():\n    return 2\n\n\ndef third():\n    return 3\n";
    for f in ["a.py", "b.py", "c.py", "d.py"] {
        write(&orig.join(f), src);
    }
    write(&orig.join("notes.txt"), b"plain\n");
    let transform_of = |seed| Composite {
        l2: None,
        l3: Some(LayoutStore::new(seed)),
        l4: None,
    };
    // A seed that shows a.py reordered, and b.py in yet another order.
    let seed = (0..)
        .find(|&s| {
            let t = transform_of(s);
            let a = t.content_to_view(Path::new("a.py"), src);
            a != src && t.content_to_view(Path::new("b.py"), src) != a
        })
        .unwrap();
    let transform = || transform_of(seed);
    let file = rendered::RenderedFile {
        path: state.join("rendered"),
        bundle: rendered::digest(b"the bundle"),
    };
    let options = || Options {
        rendered: Some(file.clone()),
        ..Options::default()
    };
    // The first view scans (in `new`) and stores what it rendered.
    let t = transform();
    let want = t.content_to_view(Path::new("a.py"), src);
    let first = ViewFs::new(&orig, &state, Arc::new(t), options()).unwrap();
    assert!(file.path.exists(), "the first scan stores its views");
    // The agent moves b.py to a.py (a.py removed first): the original a.py then holds the
    // very bytes a.py's record was rendered from, but the view shows b.py's order, which the
    // move carried along (a remembered layout).
    let b_view = first
        .read_ino(first.lookup_path(Path::new("b.py")).unwrap().ino, 0, 4096)
        .unwrap();
    let root = first.lookup_path(Path::new("")).unwrap();
    first.unlink(root.ino, OsStr::new("a.py")).unwrap();
    first
        .rename(
            root.ino,
            OsStr::new("b.py"),
            root.ino,
            OsStr::new("a.py"),
            0,
        )
        .unwrap();
    assert_eq!(fs::read(orig.join("a.py")).unwrap(), src);
    assert_eq!(
        first
            .read_ino(first.lookup_path(Path::new("a.py")).unwrap().ino, 0, 4096)
            .unwrap(),
        b_view
    );
    let state_after = first.transform.save_state();
    drop(first);
    write(&orig.join("c.py"), b"def changed():\n    return 0\n");
    // The second view, same bundle: a.py and notes.txt come from the stored views.
    let t = transform();
    let t = Composite {
        l3: Some(LayoutStore::from_state(state_after.unwrap(), &|n| {
            fs::read(state.join(TRANSFORM_BLOBS_DIR).join(n)).ok()
        })),
        ..t
    };
    let second = ViewFs::new(
        &orig,
        &state,
        Arc::new(t),
        Options {
            scan_at_new: false,
            ..options()
        },
    )
    .unwrap();
    let left = |fs: &ViewFs| fs.rendered.as_ref().map(|r| r.len());
    assert_eq!(left(&second), Some(5));
    let read = |fs: &ViewFs, p: &str| {
        let a = fs.lookup_path(Path::new(p)).unwrap();
        fs.read_ino(a.ino, 0, 4096).unwrap()
    };
    assert_eq!(read(&second, "notes.txt"), b"plain\n");
    let d_fresh = transform().content_to_view(Path::new("d.py"), src);
    assert_eq!(read(&second, "d.py"), d_fresh);
    assert_eq!(left(&second), Some(3), "notes.txt and d.py were taken");
    // a.py holds the bytes of its record, but its layout is remembered: not taken, and
    // served in the order the move carried. c.py changed since: transformed afresh.
    assert_ne!(b_view, want);
    assert_eq!(
        read(&second, "a.py"),
        b_view,
        "the remembered layout, not the record"
    );
    assert_eq!(read(&second, "c.py"), b"def changed():\n    return 0\n");
    assert_eq!(
        left(&second),
        Some(3),
        "the records of a.py, b.py and c.py stay unused"
    );
    // Another bundle: nothing is reused.
    let other = ViewFs::new(
        &orig,
        &state,
        Arc::new(transform()),
        Options {
            scan_at_new: false,
            rendered: Some(rendered::RenderedFile {
                bundle: rendered::digest(b"another bundle"),
                ..file.clone()
            }),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(other.rendered.is_none());
}

/// Writes without handles that race on one file (the kernel sends the pages of an `msync`
/// from several threads) each land: none is written back over a view read before another
/// landed (fsx found such a lost write: an in-place write that saw the file changed fell
/// back to a buffer made from the view read before the change).
#[test]
fn concurrent_writes_without_handles_all_land() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("data.bin")).unwrap();
    let fs = &f.fs;
    let len = 4096usize;
    fs.write_ino(a.ino, 0, &vec![0u8; len]).unwrap();
    for round in 0..40u8 {
        std::thread::scope(|s| {
            for t in 0..4usize {
                s.spawn(move || {
                    let chunk = vec![round.wrapping_mul(4).wrapping_add(t as u8 + 1); len / 4];
                    fs.write_ino(a.ino, (t * len / 4) as u64, &chunk).unwrap();
                });
            }
        });
        let got = fs::read(f.orig.join("data.bin")).unwrap();
        for t in 0..4usize {
            let want = round.wrapping_mul(4).wrapping_add(t as u8 + 1);
            assert!(
                got[t * len / 4..(t + 1) * len / 4]
                    .iter()
                    .all(|&b| b == want),
                "round {round}: the write of thread {t} was lost"
            );
        }
        assert_eq!(
            fs.read_ino(a.ino, 0, len as u32).unwrap(),
            got,
            "round {round}: view"
        );
    }
}

/// Under Level 3 a binary Python file (fsx's random bytes in a `.py`) whose view is its
/// bytes is written in place like any binary file; one whose view is not (junk written over a
/// reordered file, inverted through its layout) still takes the write-back, and either way
/// the view reads back what was written (law 2).
#[test]
fn binary_python_files_shown_as_their_bytes_are_written_in_place() {
    use crate::transform::{layout::LayoutStore, Composite};
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    let src = b"def first():\n    return 1\n\n\ndef second():\n    return 2\n\n\ndef third():\n    return 3\n";
    write(&orig.join("m.py"), src);
    write(&orig.join("junk.py"), b"\0abc\n\0def\n");
    let mut seed = 0;
    let t = loop {
        let t = Composite {
            l2: None,
            l3: Some(LayoutStore::new(seed)),
            l4: None,
        };
        if t.content_to_view(Path::new("m.py"), src) != src {
            break t;
        }
        seed += 1;
    };
    let fs = watched_fs(&orig, &dir.path().join("s"), t);
    let j = fs.lookup_path(Path::new("junk.py")).unwrap();
    let ino = fs::metadata(orig.join("junk.py")).unwrap().ino();
    fs.write_ino(j.ino, 7, b"\0X").unwrap();
    assert_eq!(fs::read(orig.join("junk.py")).unwrap(), b"\0abc\n\0d\0X\n");
    assert_eq!(
        fs::metadata(orig.join("junk.py")).unwrap().ino(),
        ino,
        "in place"
    );
    assert_eq!(fs.read_ino(j.ino, 0, 64).unwrap(), b"\0abc\n\0d\0X\n");
    // Junk over a reordered file: its lines are put back through the layout.
    let m = fs.lookup_path(Path::new("m.py")).unwrap();
    let mut want = fs.read_ino(m.ino, 0, 4096).unwrap();
    for (at, data) in [(0usize, &b"\0"[..]), (30, b"\0zz\n"), (3, b"q\0")] {
        fs.write_ino(m.ino, at as u64, data).unwrap();
        want[at..at + data.len()].copy_from_slice(data);
        assert_eq!(
            fs.read_ino(m.ino, 0, 4096).unwrap(),
            want,
            "law 2 after a write at {at}"
        );
    }
}

/// A truncate of a binary file whose view is its bytes, leaving it binary, happens in place
/// (fsx truncates its file thousands of times); one that leaves only text is rewritten
/// through the transform, as any text file's change.
#[test]
fn truncates_of_binary_files_happen_in_place() {
    use std::os::unix::fs::MetadataExt;
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("data.bin")).unwrap();
    let ino = fs::metadata(f.orig.join("data.bin")).unwrap().ino();
    let to = |size| SetAttr {
        size: Some(size),
        ..Default::default()
    };
    f.fs.setattr(a.ino, to(12)).unwrap();
    assert_eq!(
        fs::read(f.orig.join("data.bin")).unwrap(),
        b"\0alpha\xff\0\0\0\0\0"
    );
    assert_eq!(
        fs::metadata(f.orig.join("data.bin")).unwrap().ino(),
        ino,
        "in place"
    );
    assert_eq!(
        f.fs.read_ino(a.ino, 0, 64).unwrap(),
        b"\0alpha\xff\0\0\0\0\0"
    );
    f.fs.setattr(a.ino, to(3)).unwrap();
    assert_eq!(fs::read(f.orig.join("data.bin")).unwrap(), b"\0al");
    assert_eq!(
        fs::metadata(f.orig.join("data.bin")).unwrap().ino(),
        ino,
        "in place"
    );
    assert_eq!(f.fs.getattr(a.ino).unwrap().size, 3);
    // Its only NUL cut off: now text, so it goes through the transform (and a new inode).
    f.fs.write_ino(a.ino, 0, b"x").unwrap();
    f.fs.write_ino(a.ino, 1, b"omega\0").unwrap();
    f.fs.setattr(a.ino, to(6)).unwrap();
    assert_eq!(fs::read(f.orig.join("data.bin")).unwrap(), b"xalpha");
    assert_eq!(f.fs.read_ino(a.ino, 0, 64).unwrap(), b"xomega");
}

/// An access time the caller sets stays: the daemon reads the original without touching its
/// atime (O_NOATIME), so serving the file again after `utimensat` does not move it (with
/// relatime, any read of a file whose atime is older than its mtime would).
#[test]
fn an_atime_set_by_the_caller_survives_the_daemon_reading_the_file() {
    let f = fixture();
    let a = f.fs.lookup_path(Path::new("README")).unwrap();
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
    let set = SetAttr {
        atime: Some(SetTime::At(old)),
        ..Default::default()
    };
    assert_eq!(f.fs.setattr(a.ino, set).unwrap().atime, old);
    // A fresh daemon over the same original reads it from disk.
    let again = ViewFs::new(
        &f.orig,
        &f.state,
        Arc::new(SwapTransform),
        Options::default(),
    )
    .unwrap();
    let b = again.lookup_path(Path::new("README")).unwrap();
    let o = again.open(b.ino, libc::O_RDONLY).unwrap();
    assert_eq!(
        again.read(b.ino, o.fh, 0, 100).unwrap(),
        b"alpha and omega\n"
    );
    let atime = fs::metadata(f.orig.join("README")).unwrap().atime();
    assert_eq!(atime, 1_000_000, "the daemon's read moved the atime");
    assert_eq!(again.getattr(b.ino).unwrap().atime, old);
}

/// A Python file whose view the cache holds from another transform (as the shadow
/// repository's render primes it), under a live Level 3 transform that has never rendered it:
/// the view filesystem (no eager scan), the original's root and the primed view. The seed is
/// one whose plans for `rel` and `moved_rel` differ, so a layout that did not move shows.
fn primed(rel: &str, moved_rel: &str, src: &[u8]) -> (tempfile::TempDir, PathBuf, ViewFs, Vec<u8>) {
    use crate::transform::layout::LayoutStore;
    use crate::transform::{Composite, Transform};
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    write(&orig.join(rel), src);
    let seed = (0..64u64)
        .find(|&s| {
            let t = LayoutStore::new(s);
            let v = t.to_view(rel.as_bytes(), src);
            v != t.to_view(moved_rel.as_bytes(), src) && v != src
        })
        .expect("a seed with different plans");
    let l3 = |s| Composite {
        l2: None,
        l3: Some(LayoutStore::new(s)),
        l4: None,
    };
    let options = Options {
        scan_at_new: false,
        ..Options::default()
    };
    let fs_ = ViewFs::new(
        &orig,
        &dir.path().join("state"),
        Arc::new(l3(seed)),
        options,
    )
    .unwrap();
    let view = l3(seed).content_to_view(Path::new(rel), src);
    fs_.prime(
        Path::new(rel),
        &fs::metadata(orig.join(rel)).unwrap(),
        Arc::new(view.clone()),
    );
    (dir, orig, fs_, view)
}

const FOUR_FUNCTIONS: &[u8] = b"import x\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n\n\ndef d():\n    return 4\n";

/// A Python file whose view was primed from another transform (the shadow repository's
/// render) and never rendered by the live one, then moved: the original keeps its bytes. The
/// live transform had no layout for the old path to move, so the move used to re-derive the
/// file with the new path's plan and reorder it in the original (seen intermittently in
/// `views::patch_turns_the_views_diff_into_the_originals`).
#[test]
fn a_primed_file_moved_before_the_live_transform_saw_it_keeps_its_bytes() {
    let (_dir, orig, fs_, view) = primed("pkg/mod.py", "other/moved.py", FOUR_FUNCTIONS);
    fs::create_dir_all(orig.join("other")).unwrap();
    let pkg = fs_.lookup_path(Path::new("pkg")).unwrap();
    let other = fs_.lookup_path(Path::new("other")).unwrap();
    fs_.rename(
        pkg.ino,
        OsStr::new("mod.py"),
        other.ino,
        OsStr::new("moved.py"),
        0,
    )
    .unwrap();
    assert_eq!(
        fs::read(orig.join("other/moved.py")).unwrap(),
        FOUR_FUNCTIONS
    );
    // And the view still shows what it showed before the move (law 2).
    let moved = fs_.lookup_path(Path::new("other/moved.py")).unwrap();
    let o = fs_.open(moved.ino, libc::O_RDONLY).unwrap();
    assert_eq!(fs_.read(moved.ino, o.fh, 0, 4096).unwrap(), view);
}

/// The same for a moved directory: the primed Python files inside it keep their view and
/// their bytes.
#[test]
fn primed_files_of_a_moved_directory_keep_their_view() {
    let (_dir, orig, fs_, view) = primed("pkg/sub/mod.py", "pkg/moved/mod.py", FOUR_FUNCTIONS);
    let pkg = fs_.lookup_path(Path::new("pkg")).unwrap();
    fs_.rename(pkg.ino, OsStr::new("sub"), pkg.ino, OsStr::new("moved"), 0)
        .unwrap();
    assert_eq!(
        fs::read(orig.join("pkg/moved/mod.py")).unwrap(),
        FOUR_FUNCTIONS
    );
    let moved = fs_.lookup_path(Path::new("pkg/moved/mod.py")).unwrap();
    let o = fs_.open(moved.ino, libc::O_RDONLY).unwrap();
    assert_eq!(fs_.read(moved.ino, o.fh, 0, 4096).unwrap(), view);
}

/// One file of three functions under Level 3 alone, with a seed that reorders them, in a
/// temporary original tree and state directory. `load` starts a daemon on them that takes up
/// the transform state and bases saved there, as a remount does.
struct ThreeFunctions {
    _dir: tempfile::TempDir,
    orig: PathBuf,
    state: PathBuf,
    seed: u64,
}

const THREE_FUNCTIONS: &[u8] =
    b"def first():\n    return 1\n\n\ndef second():\n    return 2\n\n\ndef third():\n    return 3\n";

impl ThreeFunctions {
    fn new() -> Self {
        use crate::transform::layout::LayoutStore;
        let dir = tempfile::tempdir().unwrap();
        let orig = dir.path().join("orig");
        let state = dir.path().join("state");
        write(&orig.join("m.py"), THREE_FUNCTIONS);
        let seed = (0..)
            .find(|&s| LayoutStore::new(s).to_view(b"m.py", THREE_FUNCTIONS) != THREE_FUNCTIONS)
            .unwrap();
        ThreeFunctions {
            _dir: dir,
            orig,
            state,
            seed,
        }
    }

    fn load(&self) -> ViewFs {
        use crate::transform::{layout::LayoutStore, Composite};
        let saved = saved_state::load(&self.state);
        let blobs = self.state.join(TRANSFORM_BLOBS_DIR);
        let l3 = match saved {
            Some(st) => LayoutStore::from_state(st, &|n| fs::read(blobs.join(n)).ok()),
            None => LayoutStore::new(self.seed),
        };
        ViewFs::new(
            &self.orig,
            &self.state,
            Arc::new(Composite {
                l2: None,
                l3: Some(l3),
                l4: None,
            }),
            Options::default(),
        )
        .unwrap()
    }
}

/// Replace the whole content of `ino` through a handle, as an editor's save does.
fn rewrite_through_handle(fs_: &ViewFs, ino: u64, bytes: &[u8]) {
    let o = fs_.open(ino, libc::O_WRONLY | libc::O_TRUNC).unwrap();
    fs_.write(ino, o.fh, 0, bytes).unwrap();
    fs_.release(ino, o.fh).unwrap();
}

/// A Level 3 edit saves the file's base apart from `layouts.json` (which holds no original
/// bytes), and a daemon started later on the same state directory finds the base again by
/// its digest and reads back what was written (law 2 across a remount).
#[test]
fn the_base_of_an_edit_is_saved_apart_and_found_after_a_remount() {
    let t = ThreeFunctions::new();
    let first = t.load();
    let a = first.lookup_path(Path::new("m.py")).unwrap();
    let view = first.read_ino(a.ino, 0, 1 << 20).unwrap();
    let edited = [&view[..], b"\n\ndef fourth():\n    return 4\n"].concat();
    rewrite_through_handle(&first, a.ino, &edited);
    assert_eq!(first.transform.state_blobs().len(), 1);
    drop(first);
    let saved: serde_json::Value =
        serde_json::from_slice(&fs::read(t.state.join(TRANSFORM_STATE_FILE)).unwrap()).unwrap();
    let entry = &saved["files"][0];
    assert!(entry.get("base").is_none(), "no base inline: {entry}");
    assert!(entry["base_blob"].is_string(), "{entry}");
    let blob = fs::read_dir(t.state.join(TRANSFORM_BLOBS_DIR))
        .unwrap()
        .flatten()
        .map(|e| fs::read(e.path()).unwrap())
        .collect::<Vec<_>>();
    assert_eq!(
        blob,
        [THREE_FUNCTIONS.to_vec()],
        "the base is the first original"
    );
    let second = t.load();
    assert_eq!(
        second.transform.state_blobs().len(),
        1,
        "the base came back"
    );
    let a = second.lookup_path(Path::new("m.py")).unwrap();
    assert_eq!(second.read_ino(a.ino, 0, 1 << 20).unwrap(), edited);
}

/// Law 9's order for the transform state: the base blobs are saved before `layouts.json`
/// that names them, so a state on disk never names a missing blob. Here the blob directory
/// cannot be made (a plain file stands in its place): the edit still reaches the original,
/// and no state naming the unsaved blob is written; once the blob can be saved, the next
/// write-back saves both.
#[test]
fn a_state_is_never_saved_before_the_blobs_it_names() {
    let t = ThreeFunctions::new();
    let fs_ = t.load();
    let blocker = t.state.join(TRANSFORM_BLOBS_DIR);
    fs::create_dir_all(&t.state).unwrap();
    fs::write(&blocker, b"not a directory").unwrap();
    let a = fs_.lookup_path(Path::new("m.py")).unwrap();
    let view = fs_.read_ino(a.ino, 0, 1 << 20).unwrap();
    let edited = [&view[..], b"\n\ndef fourth():\n    return 4\n"].concat();
    rewrite_through_handle(&fs_, a.ino, &edited);
    let written = String::from_utf8(fs::read(t.orig.join("m.py")).unwrap()).unwrap();
    assert!(
        written.contains("def fourth():"),
        "the edit reached the original: {written}"
    );
    assert!(
        !t.state.join(TRANSFORM_STATE_FILE).exists(),
        "a state naming a blob that could not be saved was written"
    );
    // The blob directory can be made now: the next write-back saves the blob, then the state.
    fs::remove_file(&blocker).unwrap();
    let again = [&edited[..], b"\n\ndef fifth():\n    return 5\n"].concat();
    rewrite_through_handle(&fs_, a.ino, &again);
    let saved: serde_json::Value =
        serde_json::from_slice(&fs::read(t.state.join(TRANSFORM_STATE_FILE)).unwrap()).unwrap();
    let name = saved["files"][0]["base_blob"].as_str().unwrap().to_string();
    assert_eq!(fs::read(blocker.join(name)).unwrap(), THREE_FUNCTIONS);
}

/// Python 2 byte code is the one content with a NUL byte that the renaming swaps
/// (`rename::is_python2_bytecode`), so its view is not its bytes: writes and truncates go
/// through the transform, the original receives original names, and the view reads back
/// what was written (law 2).
#[test]
fn python2_byte_code_is_written_back_through_the_swap() {
    use crate::transform::{rename::Renamer, Composite};
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    let stale = b"\x03\xf3\r\n\0\0\0\0c\0shelf.ledger\0";
    write(&orig.join("old.pyc-tpl"), stale);
    let r = Renamer::new([("shelf", "crate")], [], ["shelf"]).unwrap();
    let t = Composite {
        l2: Some(Arc::new(r)),
        l3: None,
        l4: None,
    };
    let fs = watched_fs(&orig, &dir.path().join("s"), t);
    let a = fs.lookup_path(Path::new("old.pyc-tpl")).unwrap();
    let view = b"\x03\xf3\r\n\0\0\0\0c\0crate.ledger\0";
    assert_eq!(fs.read_ino(a.ino, 0, 64).unwrap(), view);
    fs.write_ino(a.ino, 10, b"crate").unwrap();
    assert_eq!(fs.read_ino(a.ino, 0, 64).unwrap(), view);
    assert_eq!(fs::read(orig.join("old.pyc-tpl")).unwrap(), stale);
    fs.write_ino(a.ino, 16, b"shelf\0").unwrap();
    let written = b"\x03\xf3\r\n\0\0\0\0c\0crate.shelf\0\0";
    assert_eq!(fs.read_ino(a.ino, 0, 64).unwrap(), written, "law 2");
    assert_eq!(
        fs::read(orig.join("old.pyc-tpl")).unwrap(),
        b"\x03\xf3\r\n\0\0\0\0c\0shelf.crate\0\0"
    );
    let to = |size| SetAttr {
        size: Some(size),
        ..Default::default()
    };
    fs.setattr(a.ino, to(15)).unwrap();
    assert_eq!(
        fs.read_ino(a.ino, 0, 64).unwrap(),
        b"\x03\xf3\r\n\0\0\0\0c\0crate"
    );
    assert_eq!(
        fs::read(orig.join("old.pyc-tpl")).unwrap(),
        b"\x03\xf3\r\n\0\0\0\0c\0shelf"
    );
}

/// [`SwapTransform`] (the `alpha`/`omega` swap, which is line by line), counting the bytes
/// it inverts whole and those it inverts as an addition to the last write-back.
#[derive(Default)]
struct AppendCounter {
    whole: std::sync::atomic::AtomicUsize,
    added: std::sync::atomic::AtomicUsize,
}

impl Transform for AppendCounter {
    fn name_to_view(&self, name: &OsStr) -> std::ffi::OsString {
        SwapTransform.name_to_view(name)
    }
    fn name_to_original(
        &self,
        name: &OsStr,
    ) -> Result<std::ffi::OsString, crate::transform::TransformError> {
        SwapTransform.name_to_original(name)
    }
    fn content_to_view(&self, p: &Path, original: &[u8]) -> Vec<u8> {
        SwapTransform.content_to_view(p, original)
    }
    fn content_to_original(&self, p: &Path, view: &[u8], base: Option<&[u8]>) -> Vec<u8> {
        self.whole
            .fetch_add(view.len(), std::sync::atomic::Ordering::SeqCst);
        SwapTransform.content_to_original(p, view, base)
    }
    fn content_to_original_appended(
        &self,
        _: &Path,
        prev_view: &[u8],
        prev_original: &[u8],
        view: &[u8],
    ) -> Option<Vec<u8>> {
        let cut = prev_view.iter().rposition(|&b| b == b'\n')? + 1;
        self.added
            .fetch_add(view.len() - cut, std::sync::atomic::Ordering::SeqCst);
        let mut out = prev_original[..cut].to_vec();
        out.extend(crate::fs::testing::swap(&view[cut..]));
        Some(out)
    }
}

/// A file written in pieces without handles (`sed -i`'s temp file, one stdio buffer per
/// write) is inverted whole once, then piece by piece from its last complete line, and the
/// original holds the inverse of all of it after every piece. A write that does not add to
/// the last write-back (an overwrite, another file, an original changed from outside) is
/// inverted whole.
#[test]
fn a_file_written_in_pieces_is_inverted_from_what_each_piece_adds() {
    use std::sync::atomic::Ordering::SeqCst;
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    write(&orig.join("other"), b"omega\n");
    let t = Arc::new(AppendCounter::default());
    let fs = ViewFs::new(
        &orig,
        &dir.path().join("state"),
        t.clone(),
        Options::default(),
    )
    .unwrap();
    fs.set_watched();
    let a = fs
        .create_ino(
            ROOT_INO,
            OsStr::new("sedAbc"),
            0o644,
            0o022,
            libc::O_RDWR,
            Caller::daemon(),
        )
        .unwrap();
    let pieces: [&[u8]; 3] = [
        b"alpha one\nalpha tw",
        b"o omega\nthree alpha\n",
        b"omega four\n",
    ];
    let mut written = Vec::new();
    for p in pieces {
        fs.write_ino(a.ino, written.len() as u64, p).unwrap();
        written.extend_from_slice(p);
        assert_eq!(
            fs::read(orig.join("sedAbc")).unwrap(),
            crate::fs::testing::swap(&written)
        );
    }
    assert_eq!(
        t.whole.load(SeqCst),
        pieces[0].len(),
        "only the first piece is inverted whole"
    );
    // The second write from the start of the second line (byte 10 to 38), the third from
    // the end of the second piece, which ends a line (byte 38 to 49).
    assert_eq!(t.added.load(SeqCst), 28 + 11);
    assert_eq!(fs.read_ino(a.ino, 0, 100).unwrap(), written);

    // An overwrite inside the file adds nothing: inverted whole.
    fs.write_ino(a.ino, 0, b"omega").unwrap();
    written[..5].copy_from_slice(b"omega");
    assert_eq!(
        fs::read(orig.join("sedAbc")).unwrap(),
        crate::fs::testing::swap(&written)
    );
    assert_eq!(t.whole.load(SeqCst), pieces[0].len() + written.len());

    // Another file in between: the pair kept is that file's, so this one is inverted whole.
    let o = fs.lookup_path(Path::new("other")).unwrap();
    fs.write_ino(o.ino, 6, b"alpha\n").unwrap();
    let whole = t.whole.load(SeqCst);
    fs.write_ino(a.ino, written.len() as u64, b"five\n")
        .unwrap();
    written.extend_from_slice(b"five\n");
    assert_eq!(t.whole.load(SeqCst), whole + written.len());
    assert_eq!(
        fs::read(orig.join("sedAbc")).unwrap(),
        crate::fs::testing::swap(&written)
    );

    // The original changed from outside since the last write-back: inverted whole.
    let mut outside = crate::fs::testing::swap(&written);
    outside[0] = b'A';
    fs::write(orig.join("sedAbc"), &outside).unwrap();
    let whole = t.whole.load(SeqCst);
    let added = t.added.load(SeqCst);
    let _ = fs.write_ino(a.ino, written.len() as u64, b"six\n");
    assert_eq!(
        t.added.load(SeqCst),
        added,
        "a changed original is never extended"
    );
    assert!(t.whole.load(SeqCst) > whole);
}
