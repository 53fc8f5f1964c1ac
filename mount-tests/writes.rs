//! The handle-less write path (files are served without OPEN/FLUSH/RELEASE while the original
//! is watched): an acknowledged write(2) is in the original before the file is closed or
//! synced, even if the daemon is killed right after; a large write arrives whole.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{python3, Repo};

/// A python3 child that runs `script` with `path`, reports "done" after its writes and then
/// keeps the file open until its stdin closes.
fn writer(script: &str, path: &std::path::Path) -> (Child, std::process::ChildStdin) {
    let mut child = python3()
        .args(["-c", script])
        .arg(path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "done", "the writer failed");
    (child, stdin)
}

#[test]
fn acknowledged_write_is_in_the_original_before_close_and_survives_a_kill() {
    let test = "acknowledged_write_is_in_the_original_before_close_and_survives_a_kill";
    let seed = 67;
    let repo = Repo::sample();
    let rel = "bookmobile/ledger.py";
    let view_rel = repo.view_path(seed, rel);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let name = repo.translate(seed, "view", "compute_late_fee");
    assert_ne!(name, "compute_late_fee");
    // Append a line naming a function in view words: unbuffered, no fsync, no close.
    let script = format!(
        "import os, sys\n\
         fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)\n\
         os.write(fd, b'\\n# appended: {name}\\n')\n\
         print('done', flush=True)\n\
         sys.stdin.read()"
    );
    let (mut child, stdin) = writer(&script, &m.path(&view_rel));
    let orig = fs::read_to_string(repo.orig.join(rel)).unwrap();
    assert!(
        orig.ends_with("\n# appended: compute_late_fee\n"),
        "the acknowledged write is not in the original while the file is open:\n{orig}"
    );
    let pid = crate::killed::daemon_pid(&m.point).expect("the daemon's pid");
    // SAFETY: kill(2) with a pid read from /proc and a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    drop(m);
    let after = fs::read_to_string(repo.orig.join(rel)).unwrap();
    // The flusher may have been settling the file (a write-back staged in the state
    // directory, then renamed) when the kill came: nothing of it is in the tree.
    assert_eq!(
        repo.status(),
        format!(" M {rel}\n"),
        "stray files after the kill"
    );
    // The next mount of the same state shows what was written and settles it.
    let m = repo.mount(test, "mnt", seed).expect("the remount");
    let shown = fs::read_to_string(m.path(&view_rel)).unwrap();
    assert!(
        shown.ends_with(&format!("\n# appended: {name}\n")),
        "the remounted view lost the write:\n{shown}"
    );
    m.unmount();
    let settled = fs::read_to_string(repo.orig.join(rel)).unwrap();
    assert!(
        after == orig || after == settled,
        "the kill left an original that is neither the write nor its settled form:\n{after}"
    );
    assert_eq!(
        (repo.diff().removed.len(), repo.diff().added),
        (
            0,
            vec!["".to_string(), "# appended: compute_late_fee".to_string()]
        ),
        "the settled original is not the original with the appended lines"
    );
}

#[test]
fn large_writes_arrive_whole() {
    let test = "large_writes_arrive_whole";
    let seed = 68;
    let repo = Repo::sample();
    let odd_name = repo.translate(seed, "original", "blob_odd.txt");
    let even_name = repo.translate(seed, "original", "blob_even.txt");
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    // 6 MiB + 7 bytes in one write(2): full 1 MiB chunks, then a short last piece, which
    // writes everything back before the call returns.
    let odd = "import os, sys\n\
               fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)\n\
               data = b'x' * (6 << 20) + b'\\nlast\\n'\n\
               assert os.write(fd, data) == len(data)\n\
               print('done', flush=True)\n\
               sys.stdin.read()";
    let (mut child, stdin) = writer(odd, &m.path("blob_odd.txt"));
    // New names made in the view may hold virtual words of this seed: ask where they go.
    let orig_odd = repo.orig.join(&odd_name);
    assert_eq!(fs::metadata(&orig_odd).unwrap().len(), (6 << 20) + 6);
    drop(stdin);
    child.wait().unwrap();
    // Exactly 6 MiB: every chunk is full, the deferred flusher finishes the write-back.
    let even = "import os, sys\n\
                fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)\n\
                assert os.write(fd, b'y' * (6 << 20)) == 6 << 20\n\
                print('done', flush=True)\n\
                sys.stdin.read()";
    let (mut child, stdin) = writer(even, &m.path("blob_even.txt"));
    let orig_even = repo.orig.join(&even_name);
    let t0 = Instant::now();
    while fs::metadata(&orig_even).map(|m| m.len()).unwrap_or(0) != 6 << 20 {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the deferred write-back never completed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    child.wait().unwrap();
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(m.path("blob_even.txt"))
        .unwrap();
    f.write_all(b"tail").unwrap();
    f.sync_all().unwrap();
    drop(f);
    assert_eq!(fs::metadata(&orig_even).unwrap().len(), (6 << 20) + 4);
    m.unmount();
    let data = fs::read(&orig_odd).unwrap();
    assert!(data.ends_with(b"x\nlast\n") && data[..6 << 20].iter().all(|b| *b == b'x'));
}

/// The handle path (`--no-watch`): edits are written back at close, `git diff` of the
/// original is exactly the edits, in original names.
#[test]
fn edits_through_handles_without_a_watcher() {
    let test = "edits_through_handles_without_a_watcher";
    let seed = 69;
    let repo = Repo::sample();
    let ledger = "bookmobile/ledger.py";
    let desk = "bookmobile/desk.py";
    let (ledger_view, desk_view) = (repo.view_path(seed, ledger), repo.view_path(seed, desk));
    let name = repo.translate(seed, "view", "compute_late_fee");
    let Some(m) = repo.mount_with(test, "mnt", seed, &["--no-watch"]) else {
        return;
    };
    let log = m.log();
    assert!(
        log.contains("through handles"),
        "the mount did not take the handle path:\n{log}"
    );
    crate::harness::run_ok(
        std::process::Command::new("sed")
            .args(["-i", "s/ = 1000$/ = 2000/"])
            .arg(m.path(&ledger_view)),
    );
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(m.path(&desk_view))
        .unwrap();
    f.write_all(format!("# see {name}\n").as_bytes()).unwrap();
    drop(f);
    // Written back at close: already in the original before the unmount.
    let desk_now = fs::read_to_string(repo.orig.join(desk)).unwrap();
    assert!(desk_now.ends_with("# see compute_late_fee\n"), "{desk_now}");
    m.unmount();
    let d = repo.diff();
    assert_eq!(d.files, [desk, ledger], "{}", d.raw);
    assert_eq!(d.added.len(), 2, "{}", d.raw);
    assert_eq!(d.removed.len(), 1, "{}", d.raw);
    assert!(d.removed[0].ends_with(" = 1000"), "{}", d.raw);
    assert_eq!(
        d.added[1],
        d.removed[0].replace(" = 1000", " = 2000"),
        "{}",
        d.raw
    );
}

/// Each write request is a whole-file write-back, so the view asks writers for big buffers:
/// it reports a 128 KiB preferred I/O size through the kernel, and Python's `open` takes its
/// buffer size from it.
#[test]
fn the_view_asks_for_big_write_buffers() {
    let test = "the_view_asks_for_big_write_buffers";
    let seed = 69;
    let repo = Repo::sample();
    let view_rel = repo.view_path(seed, "bookmobile/ledger.py");
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    use std::os::unix::fs::MetadataExt;
    let meta = fs::metadata(m.path(&view_rel)).unwrap();
    assert_eq!(meta.blksize(), 128 * 1024);
    let out = python3()
        .arg("-c")
        .arg("import sys; f = open(sys.argv[1], 'ab'); print(f.raw._blksize); f.close()")
        .arg(m.path(&view_rel))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "131072");
}

/// A plain text file written in many pieces (as `sed -i` writes its temp file, one stdio
/// buffer per write) is in the original, exactly inverted, after the last piece, and the
/// rename of it over the file it edits leaves exactly that edit. Each piece after the first
/// is inverted from the bytes it adds (`fs::appending`), so this checks that path with the
/// real map: the pieces cut lines and names anywhere.
#[test]
fn a_text_file_written_in_pieces_and_renamed_over_another_is_exact() {
    let test = "a_text_file_written_in_pieces_and_renamed_over_another_is_exact";
    let seed = 71;
    let mut notes = String::new();
    for i in 0..2000 {
        notes.push_str(&format!(
            "{i}: checkout_copy records LoanLedger.closed_loans\n"
        ));
    }
    let repo = Repo::with_files(&[
        (
            "shelf.py",
            "class LoanLedger:\n    closed_loans = []\n\n\ndef checkout_copy(ledger):\n    return ledger.closed_loans\n",
        ),
        ("notes.txt", &notes),
    ]);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let view = fs::read_to_string(m.path("notes.txt")).unwrap();
    assert!(
        !view.contains("checkout_copy") && !view.contains("LoanLedger"),
        "the names are not renamed in the view:\n{}",
        &view[..200]
    );
    let script = "import os, sys\n\
         src, tmp = sys.argv[1], sys.argv[2]\n\
         data = b'EDITED\\n' + open(src, 'rb').read()\n\
         fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)\n\
         for i in range(0, len(data), 4093):\n    os.write(fd, data[i:i + 4093])\n\
         os.close(fd)";
    let out = python3()
        .args(["-c", script])
        .arg(m.path("notes.txt"))
        .arg(m.path("zq7x81"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let expected = format!("EDITED\n{notes}");
    assert!(
        fs::read_to_string(repo.orig.join("zq7x81")).unwrap() == expected,
        "the temp file's original is not the inverse of what was written"
    );
    fs::rename(m.path("zq7x81"), m.path("notes.txt")).unwrap();
    assert_eq!(
        fs::read_to_string(m.path("notes.txt")).unwrap(),
        format!("EDITED\n{view}")
    );
    m.unmount();
    assert!(fs::read_to_string(repo.orig.join("notes.txt")).unwrap() == expected);
    assert!(!repo.orig.join("zq7x81").exists());
    assert_eq!(repo.status(), " M notes.txt\n");
}
