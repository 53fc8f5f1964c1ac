//! Listing, contents, the first laws, and the tree-changing calls, over the alpha<->omega fixture.

use super::*;

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
