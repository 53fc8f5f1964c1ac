//! `mount --trace FILE`: one JSON line per filesystem request the agent's commands send to the
//! view (time, operation, view path, bytes, result).
//!
//! Guarantees:
//! - Only view names: paths come from the view's inode table, which holds view paths; nothing
//!   of the original's names is ever formatted into a record.
//! - The file only ever holds whole lines: each record is written with one `write(2)` of a
//!   whole line (or of a batch of whole lines), and a process killed between two calls leaves
//!   the lines written so far. Lines are batched in memory and written every
//!   [`FLUSH_EVERY`] by a background thread, and at [`Tracer::finish`] (unmount), so a killed
//!   daemon loses at most the last interval.
//! - Recording never blocks a request on the disk: a request appends to a buffer under a
//!   short lock; the writer thread swaps the buffer out before it writes.
//! - Memory stays bounded: past [`MAX_PENDING`] bytes not yet written, or once a write of
//!   the file failed (a full disk), records are dropped and counted; the count is logged at
//!   the end. The view itself is never held up by its trace.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};
use serde::{Deserialize, Serialize};

/// How often buffered records reach the file.
pub const FLUSH_EVERY: Duration = Duration::from_millis(200);

/// Bytes of records waiting for the writer beyond which new ones are dropped.
pub const MAX_PENDING: usize = 64 << 20;

/// One line of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Seconds since the mount started.
    pub t: f64,
    /// `mount` (the first line), `readdir`, `open`, `read`, `write`, `create`, `mkdir`,
    /// `mknod`, `symlink`, `unlink`, `rmdir`, `rename`, `truncate`.
    pub op: String,
    /// The view path, relative to the mountpoint (`""` for its root).
    #[serde(default)]
    pub path: String,
    /// The new path of a rename.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Bytes read or written (the size asked for a truncate).
    #[serde(default)]
    pub bytes: u64,
    /// Offset of a read or write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// 0 on success, else the errno answered.
    #[serde(default)]
    pub errno: i32,
    /// On the `mount` line: regular files and directories in the view when it was mounted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirs: Option<u64>,
}

impl Record {
    /// A record of `op` on `path`, stamped later by the tracer.
    pub fn new(op: &str, path: String) -> Record {
        Record {
            t: 0.0,
            op: op.to_string(),
            path,
            to: None,
            bytes: 0,
            offset: None,
            errno: 0,
            files: None,
            dirs: None,
        }
    }
}

struct Shared {
    pending: Mutex<Vec<u8>>,
    wake: Condvar,
    done: AtomicBool,
    /// The file could not be written: later records are dropped.
    failed: AtomicBool,
    dropped: std::sync::atomic::AtomicU64,
}

/// Writes a trace file (see the module note).
pub struct Tracer {
    shared: Arc<Shared>,
    start: Instant,
    writer: Mutex<Option<std::thread::JoinHandle<io::Result<()>>>>,
}

impl Tracer {
    /// Create (or truncate) `path` and write the `mount` line: how many files and
    /// directories the view holds, so that a summary can tell a whole-tree search.
    pub fn create(path: &Path, files: u64, dirs: u64) -> io::Result<Tracer> {
        let file = File::create(path)?;
        let shared = Arc::new(Shared {
            pending: Mutex::new(Vec::new()),
            wake: Condvar::new(),
            done: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            dropped: std::sync::atomic::AtomicU64::new(0),
        });
        let s = shared.clone();
        let writer = std::thread::Builder::new()
            .name("schrodinger-trace".into())
            .spawn(move || write_loop(&s, file))?;
        let t = Tracer {
            shared,
            start: Instant::now(),
            writer: Mutex::new(Some(writer)),
        };
        let mut first = Record::new("mount", String::new());
        first.files = Some(files);
        first.dirs = Some(dirs);
        t.record(first);
        Ok(t)
    }

    /// Stamp and queue one record.
    pub fn record(&self, mut r: Record) {
        r.t = (self.start.elapsed().as_secs_f64() * 1e6).round() / 1e6;
        let Ok(mut line) = serde_json::to_vec(&r) else {
            return;
        };
        line.push(b'\n');
        let mut p = self.shared.pending.lock();
        if self.shared.failed.load(Ordering::Relaxed) || p.len() + line.len() > MAX_PENDING {
            self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            return;
        }
        p.extend_from_slice(&line);
    }

    /// Records dropped so far (see the module note).
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Ordering::Relaxed)
    }

    /// Write what is queued and stop the writer (at unmount). Later records are dropped.
    pub fn finish(&self) -> io::Result<()> {
        self.shared.done.store(true, Ordering::SeqCst);
        self.shared.wake.notify_all();
        let r = match self.writer.lock().take() {
            Some(h) => h
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("trace writer panicked"))),
            None => return Ok(()),
        };
        let dropped = self.dropped();
        if dropped > 0 {
            tracing::warn!(
                dropped,
                "trace records dropped (the writer fell behind or failed)"
            );
        }
        r
    }
}

impl Drop for Tracer {
    fn drop(&mut self) {
        if let Err(e) = self.finish() {
            tracing::error!("writing the trace: {e}");
        }
    }
}

fn write_loop(s: &Shared, mut file: File) -> io::Result<()> {
    loop {
        let done = s.done.load(Ordering::SeqCst);
        let batch = {
            let mut p = s.pending.lock();
            if p.is_empty() && !done {
                s.wake.wait_for(&mut p, FLUSH_EVERY);
            }
            std::mem::take(&mut *p)
        };
        if !batch.is_empty() {
            if let Err(e) = file.write_all(&batch) {
                s.failed.store(true, Ordering::SeqCst);
                s.pending.lock().clear();
                return Err(e);
            }
        }
        if done && s.pending.lock().is_empty() {
            return file.sync_all();
        }
    }
}

/// Read a trace: its records, skipping a last line cut short (a daemon killed while the
/// disk was full) and lines that are not records. Returns the records and how many lines
/// were skipped.
pub fn read(text: &str) -> (Vec<Record>, usize) {
    let mut out = Vec::new();
    let mut skipped = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<Record>(line) {
            Ok(r) => out.push(r),
            Err(_) => skipped += 1,
        }
    }
    (out, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_reach_the_file_whole_and_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.jsonl");
        let t = Tracer::create(&path, 3, 1).unwrap();
        for i in 0..1000u64 {
            let mut r = Record::new("read", format!("pkg/m{i}.py"));
            r.bytes = i;
            r.offset = Some(0);
            t.record(r);
        }
        t.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let (recs, skipped) = read(&text);
        assert_eq!(skipped, 0);
        assert_eq!(recs.len(), 1001);
        assert_eq!(recs[0].op, "mount");
        assert_eq!(recs[0].files, Some(3));
        assert!(recs.windows(2).all(|w| w[0].t <= w[1].t));
        assert_eq!(recs[1000].path, "pkg/m999.py");
        assert_eq!(recs[1000].bytes, 999);
    }

    #[test]
    fn records_are_written_while_the_mount_lives() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.jsonl");
        let t = Tracer::create(&path, 0, 0).unwrap();
        t.record(Record::new("open", "a.py".into()));
        std::thread::sleep(FLUSH_EVERY * 3);
        // Not finished: the background writer has written the lines already.
        let (recs, _) = read(&std::fs::read_to_string(&path).unwrap());
        assert_eq!(recs.len(), 2);
        drop(t);
    }

    /// A file that cannot be written (a full disk) stops the trace, not the view: records
    /// are dropped and counted, memory does not grow, and `finish` reports the error.
    #[test]
    fn a_failed_write_drops_records_instead_of_holding_them() {
        if !std::path::Path::new("/dev/full").exists() {
            panic!("/dev/full is needed for this test");
        }
        let t = Tracer::create(std::path::Path::new("/dev/full"), 0, 0).unwrap();
        for _ in 0..10 {
            t.record(Record::new("read", "a.py".into()));
        }
        std::thread::sleep(FLUSH_EVERY * 3);
        for _ in 0..100_000 {
            t.record(Record::new("read", "a.py".into()));
        }
        assert!(t.shared.pending.lock().len() < 1 << 20);
        assert!(t.dropped() >= 100_000);
        assert!(t.finish().is_err());
    }

    #[test]
    fn a_cut_last_line_is_skipped() {
        let text = "{\"t\":0.0,\"op\":\"mount\",\"files\":1,\"dirs\":0}\n{\"t\":0.1,\"op\":\"re";
        let (recs, skipped) = read(text);
        assert_eq!(recs.len(), 1);
        assert_eq!(skipped, 1);
    }
}
