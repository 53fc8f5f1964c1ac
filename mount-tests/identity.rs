//! The identity view (`--levels 0`): the baseline that differs from a transformed view only in
//! the transform. Same daemon, write path and shadow `.git`, nothing renamed or moved.

use std::fs;

use crate::harness::{git, run_ok, walk, Repo};

/// The identity view shows the original's tree byte for byte, its shadow `.git` tracks the same
/// files and is clean, and a write through it lands in the original as written.
#[test]
fn level_zero_shows_the_original_and_writes_it_back_as_written() {
    let test = "level_zero_shows_the_original_and_writes_it_back_as_written";
    let repo = Repo::sample();
    let Some(m) = repo.mount_with(test, "mnt", 3, &["--levels", "0"]) else {
        return;
    };
    let view = walk(&m.point, &[".git"]);
    let orig = walk(&repo.orig, &[".git"]);
    assert_eq!(
        view.keys().collect::<Vec<_>>(),
        orig.keys().collect::<Vec<_>>(),
        "names differ"
    );
    assert!(view == orig, "contents differ");
    assert!(view.len() >= 15, "only {} entries", view.len());
    // The shadow `.git` is the one a transformed view has (one commit of the base, no
    // history), holding the original's files unchanged.
    let files = |d: &std::path::Path| run_ok(git(d).args(["ls-files"]));
    assert_eq!(files(&m.point), files(&repo.orig));
    assert_eq!(
        run_ok(git(&m.point).args(["rev-list", "--count", "HEAD"])).trim(),
        "1"
    );
    assert_eq!(
        run_ok(git(&m.point).args(["status", "--porcelain"])),
        "",
        "the identity view of a clean checkout is clean"
    );

    // A Python file written through the view (with definitions out of order, as a reorder
    // would never leave them) lands byte for byte.
    let rel = "bookmobile/desk.py";
    let mut text = fs::read(m.point.join(rel)).expect("the sample has bookmobile/desk.py");
    text.extend_from_slice(
        b"\n\ndef zz_added():\n    return 1\n\n\ndef aa_added():\n    return 2\n",
    );
    fs::write(m.point.join(rel), &text).unwrap();
    assert_eq!(fs::read(m.point.join(rel)).unwrap(), text);
    m.unmount();
    assert_eq!(fs::read(repo.orig.join(rel)).unwrap(), text);
    assert_eq!(repo.status(), " M bookmobile/desk.py\n");
}

/// Text translates to itself under `--levels 0`, and the bundle says which levels it has.
#[test]
fn level_zero_translates_nothing() {
    let repo = Repo::sample();
    let text = "TypeError in bookmobile/desk.py: CirculationDesk.checkout_copy() got an unexpected keyword";
    let out = crate::harness::translate_with(
        &["--levels".as_ref(), "0".as_ref()],
        &repo.orig,
        "view",
        text,
    );
    assert_eq!(out, text);
    // With Level 2 the same text changes (the sample's names are the repository's).
    assert_ne!(repo.translate(3, "view", text), text);
}
