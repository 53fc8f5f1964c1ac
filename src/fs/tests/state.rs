//! Binary files written in place, the saved transform state, views rendered by an earlier mount, and write-backs that must stay exact.

use super::*;

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
