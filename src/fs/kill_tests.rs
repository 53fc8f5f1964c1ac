//! What a daemon killed in the middle of a write-back leaves (law 9 with law 2 across a
//! remount): the layout state is saved before each replacement of a file, with both
//! versions, so the next daemon shows whichever is on disk as it was shown; and the
//! temporaries of killed daemons leave the tree.

use std::path::Path;
use std::sync::Arc;

use super::testing::level3::{fresh, reordering_seed, transform, tree_of_src, view_of, SRC};
use super::testing::SwapTransform;
use super::{Options, ViewFs};
use crate::transform::layout::three_defs;
use crate::transform::Transform;

fn write(p: &Path, b: &[u8]) {
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(p, b).unwrap();
}

/// The layout state is saved before a write-back replaces the file: a daemon killed
/// between the two (here: the replacement fails, then the daemon stops) leaves a state
/// under which the next daemon shows either version of the file as it was shown, the
/// agent's own order of definitions included, which no fresh plan gives.
#[test]
fn a_state_saved_before_the_file_is_replaced_shows_either_version() {
    let seed = reordering_seed();
    let setup = || {
        let d = tree_of_src();
        let fs = fresh(d.path(), seed, false);
        let ino = fs.lookup_path(Path::new("m.py")).unwrap().ino;
        let one = [b"# one\n".as_slice(), &view_of(&fs, "m.py")].concat();
        fs.write_ino(ino, 0, &one).unwrap();
        (d, fs, ino, one)
    };
    // Where the second write lands.
    let (d, fs, ino, one) = setup();
    let two = three_defs::moved(&one, SRC);
    fs.write_ino(ino, 0, &two).unwrap();
    let landed = std::fs::read(d.path().join("orig/m.py")).unwrap();
    drop(fs);
    drop(d);

    let (d, fs, ino, one) = setup();
    let orig = d.path().join("orig/m.py");
    let written = std::fs::read(&orig).unwrap();
    assert_ne!(written, landed);
    std::fs::remove_dir_all(d.path().join("state/staging")).unwrap();
    assert!(fs.write_ino(ino, 0, &two).is_err(), "the replacement fails");
    assert_eq!(std::fs::read(&orig).unwrap(), written);
    drop(fs);
    // Killed before the rename: the old bytes, shown as they were.
    assert_eq!(view_of(&fresh(d.path(), seed, false), "m.py"), one);
    // Killed after it: the new bytes, shown as written.
    std::fs::write(&orig, &landed).unwrap();
    assert_eq!(view_of(&fresh(d.path(), seed, false), "m.py"), two);
}

/// The same for a move: the layouts are saved at both paths before the rename, so a
/// daemon killed after it (here: the rename fails, the daemon stops, and the tree is
/// then moved as the rename would have) shows the file at its new path as it was shown,
/// not in the order a fresh plan gives that path.
#[test]
fn a_state_saved_before_a_rename_shows_the_file_at_its_new_path() {
    let seed = (0..64)
        .find(|&s| {
            let t = transform(s, Path::new("/nonexistent"));
            let (p, q) = (Path::new("p/m.py"), Path::new("q/m.py"));
            t.content_to_view(p, SRC) != t.content_to_view(q, SRC)
        })
        .expect("a seed that orders the file by its path");
    let d = tempfile::tempdir().unwrap();
    let orig = d.path().join("orig");
    write(&orig.join("p/m.py"), SRC);
    write(&orig.join("q/other.txt"), b"x\n");
    let fs = fresh(d.path(), seed, false);
    let shown = view_of(&fs, "p/m.py");
    let root = super::ROOT_INO;
    let e = fs
        .rename(root, "p".as_ref(), root, "q".as_ref(), 0)
        .unwrap_err();
    assert_eq!(e.errno, libc::ENOTEMPTY);
    drop(fs);
    std::fs::remove_dir_all(orig.join("q")).unwrap();
    std::fs::rename(orig.join("p"), orig.join("q")).unwrap();
    assert_eq!(view_of(&fresh(d.path(), seed, false), "q/m.py"), shown);
}

/// What a daemon killed in the middle of a write-back left (its temporary file, in the
/// staging directory or, when that was on another filesystem, beside the file) is removed
/// by the next daemon; temporaries of a live daemon stay.
#[test]
fn temporaries_of_killed_daemons_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (orig, state) = (dir.path().join("orig"), dir.path().join("state"));
    let prefix = crate::transform::WRITEBACK_TMP_PREFIX;
    let dead = format!("{prefix}{}.1", u32::MAX - 1);
    let live = format!("{prefix}{}.1", std::process::id());
    write(&orig.join("pkg/mod.py"), b"x = 1\n");
    for d in [orig.join("pkg"), state.join("staging")] {
        write(&d.join(&dead), b"half");
        write(&d.join(&live), b"in flight");
    }
    let options = Options {
        scan_at_new: true,
        ..Options::default()
    };
    let _fs = ViewFs::new(&orig, &state, Arc::new(SwapTransform), options).unwrap();
    for d in [orig.join("pkg"), state.join("staging")] {
        assert!(!d.join(&dead).exists(), "{}", d.display());
        assert!(d.join(&live).exists(), "{}", d.display());
    }
}
