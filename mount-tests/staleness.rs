//! Changes made directly to the original show through the view within a deadline, and the
//! view never serves a truncated or mixed file meanwhile.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::harness::Repo;

const DEADLINE: Duration = Duration::from_millis(1500);

/// Poll `view` until it reads `next`; every read before that must be exactly `prev`.
fn wait_for(view: &Path, prev: &str, next: &str, what: &str) {
    let start = Instant::now();
    let mut reads = 0;
    loop {
        let got = fs::read(view).unwrap();
        reads += 1;
        if got == next.as_bytes() {
            let len = fs::metadata(view).unwrap().len();
            assert_eq!(len, next.len() as u64, "{what}: stat size after the change");
            return;
        }
        assert!(
            got == prev.as_bytes(),
            "{what}: read {reads} ({:?} after the change) is neither the old nor the new view \
             ({} bytes; old {}, new {}):\n{}",
            start.elapsed(),
            got.len(),
            prev.len(),
            next.len(),
            String::from_utf8_lossy(&got)
        );
        assert!(
            start.elapsed() < DEADLINE,
            "{what}: the view still shows the old content after {DEADLINE:?} ({reads} reads)"
        );
        std::thread::sleep(Duration::from_millis(25));
    }
}

#[test]
fn original_changes_show_through_untruncated() {
    changes_show_through("original_changes_show_through_untruncated", 51, &[]);
}

/// Without a watcher, short timeouts and files served through handles keep the same promise.
#[test]
fn original_changes_show_through_without_a_watcher() {
    changes_show_through(
        "original_changes_show_through_without_a_watcher",
        52,
        &["--no-watch"],
    );
}

fn changes_show_through(test: &str, seed: u64, extra: &[&str]) {
    let repo = Repo::sample();
    let rel = "bookmobile/ledger.py";
    let view_rel = repo.view_path(seed, rel);
    let Some(m) = repo.mount_with(test, "mnt", seed, extra) else {
        return;
    };
    let orig_path = repo.orig.join(rel);
    let view_path = m.path(&view_rel);
    let o0 = fs::read_to_string(&orig_path).unwrap();
    let v0 = fs::read_to_string(&view_path).unwrap();
    assert!(o0.contains(" = 1000\n") && v0.contains(" = 1000\n"));
    // Keep the old content in the kernel's caches as a reader would.
    assert_eq!(fs::metadata(&view_path).unwrap().len(), v0.len() as u64);

    // Same size.
    let (o1, v1) = (
        o0.replace(" = 1000\n", " = 2000\n"),
        v0.replace(" = 1000\n", " = 2000\n"),
    );
    fs::write(&orig_path, &o1).unwrap();
    wait_for(&view_path, &v0, &v1, "same-size change");

    // Larger.
    let tail = "# 0123456789\n".repeat(40);
    let (o2, v2) = (format!("{o1}{tail}"), format!("{v1}{tail}"));
    fs::write(&orig_path, &o2).unwrap();
    wait_for(&view_path, &v1, &v2, "growing change");

    // Smaller.
    let keep = |s: &str| -> String { s.split_inclusive('\n').take(12).collect() };
    let (o3, v3) = (keep(&o2), keep(&v2));
    fs::write(&orig_path, &o3).unwrap();
    wait_for(&view_path, &v2, &v3, "shrinking change");

    m.unmount();
    assert_eq!(
        fs::read_to_string(&orig_path).unwrap(),
        o3,
        "the original changed"
    );
}
