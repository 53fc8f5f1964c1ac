//! Reads and writes at the edges: symlinks, attributes, huge offsets, sparse files, hard links, budgets.

use super::*;

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
