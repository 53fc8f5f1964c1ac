//! Changes made outside the view, as the watcher reports them, and what the kernel is told to drop.

use super::*;

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
