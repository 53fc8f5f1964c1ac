//! Attributes, owners, odd names and node kinds, and the two ways requests are routed.

use super::*;

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
