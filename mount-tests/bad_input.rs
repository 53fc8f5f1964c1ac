//! Bad input in the original (not committed): each file is served faithfully or refused with
//! a clear error, and nothing in the original is lost (law 9).

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::harness::{hashes, sha256, Repo};

const BIG: usize = 50 << 20;

/// Deterministic pseudo-random bytes (xorshift), NULs included: a binary file.
fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut v = Vec::with_capacity(len + 8);
    while v.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(&x.to_le_bytes());
    }
    v.truncate(len);
    v
}

#[test]
fn bad_input_served_faithfully_nothing_lost() {
    let test = "bad_input_served_faithfully_nothing_lost";
    let seed = 41;
    let repo = Repo::sample();
    let o = &repo.orig;
    // Names stored in a binary file are frozen (the view cannot rename them there), so the
    // blob holds no name that the checks below expect renamed.
    let binary = b"\x00\x01Opaque\x00payload bytes\xff\xfe\n".repeat(100);
    let latin1 = b"LoanLedger \xe9 \xff bookmobile\n".to_vec();
    let bad_name: &[u8] = b"bad\xffname.txt";
    let bad_name_content = b"0123 456\n".to_vec();
    let crlf_bom = "\u{feff}from .ledger import LoanLedger\r\n\r\n\r\n\
                    def make_ledger():\r\n    return LoanLedger()\r\n"
        .as_bytes()
        .to_vec();
    let big = noise(BIG);
    let outside = repo.dir.path().join("outside");
    fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.txt");
    fs::write(&secret, "secret\n").unwrap();

    fs::write(o.join("bookmobile/blob.bin"), &binary).unwrap();
    fs::write(o.join("bookmobile/latin1.txt"), &latin1).unwrap();
    fs::write(o.join(OsStr::from_bytes(bad_name)), &bad_name_content).unwrap();
    fs::write(o.join("bookmobile/empty.py"), b"").unwrap();
    fs::write(o.join("big.dat"), &big).unwrap();
    std::os::unix::fs::symlink(&secret, o.join("outside_link")).unwrap();
    fs::write(o.join("bookmobile/crlf_bom.py"), &crlf_bom).unwrap();
    let before = hashes(o);

    // Invalid UTF-8 is text with a few stray bytes: its names are translated, the stray bytes
    // kept where they are.
    let latin_parts = repo.translate_many(seed, "view", &["LoanLedger ", " bookmobile\n"]);
    let mut latin1_view = latin_parts[0].as_bytes().to_vec();
    latin1_view.extend_from_slice(b"\xe9 \xff");
    latin1_view.extend_from_slice(latin_parts[1].as_bytes());
    assert_ne!(latin1_view, latin1, "the sample's names are not renamed");
    let names = repo.translate_many(
        seed,
        "view",
        &[
            "bookmobile/blob.bin",
            "bookmobile/latin1.txt",
            "bookmobile/empty.py",
            "big.dat",
            "outside_link",
            "bookmobile/crlf_bom.py",
        ],
    );
    let [blob, latin, empty, big_name, link, crlf] = &names[..] else {
        unreachable!()
    };
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let v = |rel: &str| m.path(rel);

    // Binary: byte-identical. Invalid UTF-8: renamed around the stray bytes.
    assert_eq!(fs::read(v(blob)).unwrap(), binary, "binary file");
    assert_eq!(
        fs::read(v(latin)).unwrap(),
        latin1_view,
        "invalid UTF-8 file"
    );
    // A name that is not UTF-8 keeps its bytes.
    let bad = m.point.join(OsStr::from_bytes(bad_name));
    assert_eq!(
        fs::read(&bad).unwrap_or_else(|e| panic!("file with a non-UTF-8 name: {e}")),
        bad_name_content
    );
    assert!(
        fs::read_dir(&m.point)
            .unwrap()
            .any(|e| e.unwrap().file_name().as_bytes() == bad_name),
        "the non-UTF-8 name is not listed"
    );
    // Empty file.
    assert_eq!(fs::metadata(v(empty)).unwrap().len(), 0);
    assert_eq!(fs::read(v(empty)).unwrap(), b"");
    // 50 MB: size and content.
    assert_eq!(fs::metadata(v(big_name)).unwrap().len(), BIG as u64);
    let big_view = fs::read(v(big_name)).unwrap();
    assert_eq!(big_view.len(), BIG);
    assert!(big_view == big, "50 MB file content differs");
    drop(big_view);
    // Symlink out of the original: shown as the same link, or not at all; never followed
    // into a copy of the outside file.
    match fs::symlink_metadata(v(link)) {
        Ok(md) => {
            assert!(md.file_type().is_symlink(), "the link is served as {md:?}");
            assert_eq!(fs::read_link(v(link)).unwrap(), secret);
        }
        Err(e) => eprintln!("{test}: the outside symlink is not served: {e}"),
    }
    // CRLF + BOM: renamed, BOM and line endings kept.
    let crlf_view = fs::read(v(crlf)).unwrap();
    assert!(crlf_view.starts_with("\u{feff}".as_bytes()), "BOM lost");
    let text = String::from_utf8(crlf_view.clone()).unwrap();
    assert_eq!(text.matches("\r\n").count(), text.matches('\n').count());
    assert_eq!(text.lines().count(), 5);
    assert!(!text.contains("LoanLedger"), "not renamed: {text:?}");

    // Rewrite each served file unchanged through the view.
    for (p, c) in [
        (v(blob), &binary),
        (v(latin), &latin1_view),
        (bad.clone(), &bad_name_content),
        (v(empty), &Vec::new()),
        (v(crlf), &crlf_view),
        (v(big_name), &big),
    ] {
        fs::write(&p, c).unwrap_or_else(|e| panic!("rewrite {}: {e}", p.display()));
        assert!(
            fs::read(&p).unwrap() == *c,
            "read after rewrite: {}",
            p.display()
        );
    }
    m.unmount();
    let after = hashes(o);
    for (k, h) in &before {
        assert_eq!(
            after.get(k),
            Some(h),
            "{} changed or lost",
            String::from_utf8_lossy(k)
        );
    }
    assert_eq!(after.len(), before.len(), "new files in the original");
    assert_eq!(fs::read(&secret).unwrap(), b"secret\n");
    assert_eq!(sha256(&fs::read(o.join("big.dat")).unwrap()), sha256(&big));
    assert!(Path::new(&o.join("outside_link")).is_symlink());
}

/// A relative symlink inside the original (`current_ledger.py -> ledger.py`) is served with
/// its target in view names: it resolves in the view and leaks no original name (law 7).
/// A symlink made in the view gets its target in original names.
#[test]
fn symlink_inside_repo_translated() {
    let test = "symlink_inside_repo_translated";
    let seed = 42;
    let repo = Repo::sample();
    std::os::unix::fs::symlink("ledger.py", repo.orig.join("bookmobile/current_ledger.py"))
        .unwrap();
    let t = repo.translate_many(
        seed,
        "view",
        &[
            "bookmobile/current_ledger.py",
            "ledger.py",
            "bookmobile/ledger.py",
            "bookmobile",
        ],
    );
    let (link, target, ledger, pkg) = (&t[0], &t[1], &t[2], &t[3]);
    assert_ne!(target, "ledger.py");
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let served = fs::read_link(m.path(link)).unwrap();
    let resolves = fs::read(m.path(link)).ok() == fs::read(m.path(ledger)).ok();
    // A link made in the view, to a view name.
    std::os::unix::fs::symlink(target, m.path(&format!("{pkg}/alias.py"))).unwrap();
    m.unmount();
    assert_eq!(
        served,
        Path::new(target),
        "readlink in the view returns the original's target (leaks `ledger`, dangles)"
    );
    assert!(
        resolves,
        "the link does not resolve to the ledger in the view"
    );
    assert_eq!(
        fs::read_link(repo.orig.join("bookmobile/alias.py")).unwrap(),
        Path::new("ledger.py"),
        "a link made in the view keeps its view target in the original"
    );
}

/// `truncate -s 1T` and a write at a huge offset (a sparse `dd seek=`) on a file of the
/// original get EFBIG; the daemon stays up, the file is unchanged in both trees.
#[test]
fn huge_truncate_and_offset_are_refused_and_the_daemon_lives() {
    use std::os::unix::fs::FileExt;
    let test = "huge_truncate_and_offset_are_refused_and_the_daemon_lives";
    let seed = 43;
    let repo = Repo::sample();
    let t = repo.translate_many(seed, "view", &["bookmobile/ledger.py"]);
    let before = fs::read(repo.orig.join("bookmobile/ledger.py")).unwrap();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let view_before = fs::read(m.path(&t[0])).unwrap();
    let truncated = std::process::Command::new("truncate")
        .env("LC_ALL", "C")
        .args(["-s", "1T"])
        .arg(m.path(&t[0]))
        .output()
        .unwrap();
    let f = fs::OpenOptions::new()
        .write(true)
        .open(m.path(&t[0]))
        .unwrap();
    let far = f.write_at(b"x", 1 << 40).map_err(|e| e.raw_os_error());
    drop(f);
    let view_after = fs::read(m.path(&t[0])).unwrap();
    m.unmount();
    assert!(!truncated.status.success(), "truncate -s 1T succeeded");
    assert!(
        String::from_utf8_lossy(&truncated.stderr).contains("too large"),
        "{}",
        String::from_utf8_lossy(&truncated.stderr)
    );
    assert_eq!(far, Err(Some(libc::EFBIG)));
    assert_eq!(
        view_after, view_before,
        "the view changed (or the daemon died)"
    );
    assert_eq!(
        fs::read(repo.orig.join("bookmobile/ledger.py")).unwrap(),
        before
    );
}

/// Through the kernel: a data file written at a 2 GiB offset and truncated to 5 GiB is
/// sparse in the original and read back from there, and a hard link (`ln`) is one file with
/// two names in the view and in the original, whichever name is written.
#[test]
fn sparse_big_files_and_hard_links_through_the_kernel() {
    use std::os::unix::fs::{FileExt, MetadataExt};
    let test = "sparse_big_files_and_hard_links_through_the_kernel";
    let seed = 44;
    let repo = Repo::sample();
    let t = repo.translate_many(seed, "view", &["bookmobile/ledger.py"]);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let big = m.path("sparse.dat");
    let f = fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(&big)
        .unwrap();
    let at = (2u64 << 30) + 1;
    f.write_all_at(b"data", at).unwrap();
    let mut back = [0u8; 4];
    f.read_exact_at(&mut back, at).unwrap();
    drop(f);
    let truncated = std::process::Command::new("truncate")
        .args(["-s", "5G"])
        .arg(&big)
        .status()
        .unwrap();
    let view_len = fs::metadata(&big).unwrap().len();
    let linked = std::process::Command::new("ln")
        .arg(m.path(&t[0]))
        .arg(m.path("copy.py"))
        .status()
        .unwrap();
    let (a, b) = (
        fs::metadata(m.path(&t[0])).unwrap(),
        fs::metadata(m.path("copy.py")).unwrap(),
    );
    let mut text = fs::read(m.path("copy.py")).unwrap();
    text.extend_from_slice(b"# appended through the link\n");
    fs::write(m.path("copy.py"), &text).unwrap();
    let through_other = fs::read(m.path(&t[0])).unwrap();
    m.unmount();
    assert_eq!(&back, b"data");
    assert!(truncated.success());
    assert_eq!(view_len, 5 << 30);
    let o = fs::metadata(repo.orig.join("sparse.dat")).unwrap();
    assert_eq!(o.len(), 5 << 30);
    assert!(
        o.blocks() < 1024,
        "sparse in the original: {} blocks",
        o.blocks()
    );
    assert!(linked.success());
    assert_eq!((a.ino(), a.nlink()), (b.ino(), 2), "one inode, two links");
    assert_eq!(
        through_other, text,
        "a write through one name is read through the other"
    );
    let (p, q) = (
        fs::metadata(repo.orig.join("bookmobile/ledger.py")).unwrap(),
        fs::metadata(repo.orig.join("copy.py")).unwrap(),
    );
    assert_eq!(
        (p.ino(), p.nlink()),
        (q.ino(), 2),
        "one file with two names in the original"
    );
    assert!(fs::read(repo.orig.join("copy.py"))
        .unwrap()
        .ends_with(b"# appended through the link\n"));
}

/// A full disk under the original: the writer gets ENOSPC (not EIO), what it had written
/// and was acknowledged is in the original as it was written, a file nobody wrote is whole,
/// and the daemon keeps serving.
#[test]
fn a_full_disk_gives_enospc_and_keeps_the_original_whole() {
    let test = "a_full_disk_gives_enospc_and_keeps_the_original_whole";
    let dir = tempfile::tempdir().unwrap();
    let small = dir.path().join("small");
    fs::create_dir_all(&small).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256k", "none"])
        .arg(&small)
        .status()
        .unwrap();
    assert!(mounted.success(), "mount tmpfs");
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0).status();
        }
    }
    let _tmpfs = Unmount(&small);
    let orig = small.join("orig");
    fs::create_dir_all(&orig).unwrap();
    fs::write(orig.join("untouched.txt"), "12 34\n").unwrap();
    let Some(m) = crate::harness::Mount::new(test, &orig, &dir.path().join("mnt"), 3) else {
        return;
    };
    // One write of 400 KB into a new file: the kernel sends it in chunks, each written back
    // before it is acknowledged, until the disk is full.
    let chunk = b"0123456789 ".repeat(40_000);
    let target = m.point.join("9999.txt");
    let err = {
        use std::io::Write;
        let mut f = fs::File::create(&target).unwrap();
        f.write_all(&chunk).and_then(|_| f.sync_all()).unwrap_err()
    };
    assert_eq!(err.raw_os_error(), Some(libc::ENOSPC), "{err}");
    let on_disk = fs::read(orig.join("9999.txt")).unwrap();
    assert!(on_disk.len() < chunk.len());
    assert_eq!(
        on_disk[..],
        chunk[..on_disk.len()],
        "a prefix of what was written"
    );
    assert_eq!(fs::read(orig.join("untouched.txt")).unwrap(), b"12 34\n");
    // Still serving.
    // (Counted, not kept: a kept entry holds the directory open.)
    let listed = fs::read_dir(&m.point).unwrap().flatten().count();
    assert!(listed >= 2);
    m.unmount();
}
