//! Requests without a file handle (the kernel caches files and sends no OPEN), scratch files and moves between scratch and the original.

use super::*;

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
