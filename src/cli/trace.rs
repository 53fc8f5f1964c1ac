//! `schrodinger trace`: what an agent did in a view, from the trace `mount --trace` wrote.
//!
//! The summary counts what reached the daemon. The kernel caches what it was served, so a
//! trace holds each file's first reads and each directory's first listing (a view mounted
//! with `--trace-opens` also records every open, so repeated reads and searches show);
//! `bytes_read` is what the daemon served, not what every command read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::CliError;
use crate::trace::{self, Record};

/// `schrodinger trace`.
#[derive(Debug, Clone, clap::Args)]
pub struct TraceArgs {
    #[command(subcommand)]
    pub command: TraceCommand,
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum TraceCommand {
    /// Summarize one trace: directories listed, files opened and read, bytes read, whole-tree
    /// searches, what was read before the first write, time to the first write, reads per
    /// directory.
    Summarize {
        /// The trace file (`mount --trace FILE`, or `run --trace`'s OUT/trace.jsonl).
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Two traces side by side (for example a `--levels 0` run and a transformed run of the
    /// same task), with the ratio of each figure.
    Compare {
        /// The baseline trace.
        baseline: PathBuf,
        /// The trace to compare with it.
        other: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// A burst of opens and reads counts as a whole-tree search when it touches at least this
/// share of the tree's files (`grep -r`, `find -exec`), consecutive ones at most
/// [`BURST_GAP`] apart.
pub const SEARCH_SHARE: f64 = 0.3;
/// Seconds between two requests of one burst.
pub const BURST_GAP: f64 = 1.0;

/// What one trace says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Regular files and directories of the view when it was mounted.
    pub tree_files: u64,
    pub tree_dirs: u64,
    /// Records in the trace (the `mount` line aside), and lines that could not be read.
    pub requests: usize,
    pub unreadable_lines: usize,
    /// Seconds from the mount to the last record.
    pub seconds: f64,
    pub dirs_listed: usize,
    pub files_opened: usize,
    pub files_read: usize,
    pub bytes_read: u64,
    pub tree_searches: usize,
    /// Distinct files opened or read before the first change (write, create, truncate,
    /// unlink, rename, mkdir, rmdir, symlink, mknod); all of them when nothing changed.
    pub files_read_before_first_write: usize,
    pub files_written: usize,
    pub bytes_written: u64,
    /// Seconds from the mount to the first change, if any.
    pub time_to_first_write: Option<f64>,
    /// Failed requests (a missing file opened, a bad rename).
    pub errors: usize,
    /// Distinct files opened or read, per directory of the view.
    pub reads_per_directory: BTreeMap<String, usize>,
}

const CHANGES: &[&str] = &[
    "write", "create", "truncate", "unlink", "rename", "mkdir", "rmdir", "symlink", "mknod",
];

fn parent_of(path: &str) -> String {
    Path::new(path)
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Summarize the records of one trace.
pub fn summarize(records: &[Record], unreadable: usize) -> Summary {
    let mount = records.iter().find(|r| r.op == "mount");
    let tree_files = mount.and_then(|m| m.files).unwrap_or(0);
    let tree_dirs = mount.and_then(|m| m.dirs).unwrap_or(0);
    let reqs: Vec<&Record> = records.iter().filter(|r| r.op != "mount").collect();
    let ok = |r: &&&Record| r.errno == 0;
    let mut listed = BTreeSet::new();
    let mut opened = BTreeSet::new();
    let mut read = BTreeSet::new();
    let mut touched_before = BTreeSet::new();
    let mut written = BTreeSet::new();
    let mut bytes_read = 0;
    let mut bytes_written = 0;
    let mut first_write = None;
    for r in reqs.iter().filter(ok) {
        match r.op.as_str() {
            "readdir" => {
                listed.insert(r.path.as_str());
            }
            "open" => {
                opened.insert(r.path.as_str());
            }
            "read" => {
                bytes_read += r.bytes;
                if r.bytes > 0 {
                    read.insert(r.path.as_str());
                }
            }
            "write" => bytes_written += r.bytes,
            _ => {}
        }
        let is_change = CHANGES.contains(&r.op.as_str());
        if is_change {
            first_write.get_or_insert(r.t);
            written.insert(r.path.as_str());
            if let Some(to) = &r.to {
                written.insert(to.as_str());
            }
        } else if first_write.is_none() && matches!(r.op.as_str(), "open" | "read") {
            touched_before.insert(r.path.as_str());
        }
    }
    let mut per_dir: BTreeMap<String, usize> = BTreeMap::new();
    for p in opened.union(&read) {
        *per_dir.entry(parent_of(p)).or_default() += 1;
    }
    Summary {
        tree_files,
        tree_dirs,
        requests: reqs.len(),
        unreadable_lines: unreadable,
        seconds: records.iter().map(|r| r.t).fold(0.0, f64::max),
        dirs_listed: listed.len(),
        files_opened: opened.len(),
        files_read: read.len(),
        bytes_read,
        tree_searches: tree_searches(&reqs, tree_files),
        files_read_before_first_write: touched_before.len(),
        files_written: written.len(),
        bytes_written,
        time_to_first_write: first_write,
        errors: reqs.iter().filter(|r| r.errno != 0).count(),
        reads_per_directory: per_dir,
    }
}

/// Bursts of opens and reads (consecutive ones at most [`BURST_GAP`] apart) that touch at
/// least [`SEARCH_SHARE`] of the tree's distinct files.
fn tree_searches(reqs: &[&Record], tree_files: u64) -> usize {
    if tree_files == 0 {
        return 0;
    }
    let need = ((tree_files as f64) * SEARCH_SHARE).ceil().max(2.0) as usize;
    let mut count = 0;
    let mut burst: BTreeSet<&str> = BTreeSet::new();
    let mut last = f64::NEG_INFINITY;
    for r in reqs
        .iter()
        .filter(|r| matches!(r.op.as_str(), "open" | "read") && r.errno == 0)
    {
        if r.t - last > BURST_GAP {
            if burst.len() >= need {
                count += 1;
            }
            burst.clear();
        }
        burst.insert(r.path.as_str());
        last = r.t;
    }
    if burst.len() >= need {
        count += 1;
    }
    count
}

fn load(path: &Path) -> Result<Summary, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::io(format!("trace {}", path.display()), e))?;
    let (records, unreadable) = trace::read(&text);
    if !records.iter().any(|r| r.op == "mount") {
        return Err(CliError::Msg(format!(
            "{} is not a trace of `schrodinger mount --trace` (no mount line)",
            path.display()
        )));
    }
    Ok(summarize(&records, unreadable))
}

/// The figures shown for a summary, in order: label and value (None: not applicable).
fn figures(s: &Summary) -> Vec<(&'static str, Option<f64>)> {
    vec![
        ("requests", Some(s.requests as f64)),
        ("seconds", Some(s.seconds)),
        ("directories listed", Some(s.dirs_listed as f64)),
        ("files opened", Some(s.files_opened as f64)),
        ("files read", Some(s.files_read as f64)),
        ("bytes read", Some(s.bytes_read as f64)),
        ("whole-tree searches", Some(s.tree_searches as f64)),
        (
            "files read before the first write",
            Some(s.files_read_before_first_write as f64),
        ),
        ("files written", Some(s.files_written as f64)),
        ("bytes written", Some(s.bytes_written as f64)),
        ("seconds to the first write", s.time_to_first_write),
        ("failed requests", Some(s.errors as f64)),
    ]
}

fn show(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
        Some(x) => format!("{x:.3}"),
    }
}

fn text_summary(s: &Summary) -> String {
    let mut out = format!(
        "tree: {} files, {} directories\n",
        s.tree_files, s.tree_dirs
    );
    for (label, v) in figures(s) {
        out.push_str(&format!("{label:<36} {}\n", show(v)));
    }
    if s.unreadable_lines > 0 {
        out.push_str(&format!(
            "({} unreadable lines skipped)\n",
            s.unreadable_lines
        ));
    }
    let mut dirs: Vec<(&String, &usize)> = s.reads_per_directory.iter().collect();
    dirs.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    if !dirs.is_empty() {
        out.push_str("files read per directory (most first):\n");
        for (d, n) in dirs.iter().take(20) {
            let d = if d.is_empty() { "." } else { d.as_str() };
            out.push_str(&format!("  {n:>6}  {d}\n"));
        }
        if dirs.len() > 20 {
            out.push_str(&format!("  ... {} more directories\n", dirs.len() - 20));
        }
    }
    out
}

fn text_compare(a: &Summary, b: &Summary) -> String {
    let mut out = format!(
        "{:<36} {:>14} {:>14} {:>8}\n",
        "", "baseline", "other", "ratio"
    );
    for ((label, x), (_, y)) in figures(a).into_iter().zip(figures(b)) {
        let ratio = match (x, y) {
            (Some(x), Some(y)) if x > 0.0 => format!("{:.2}x", y / x),
            _ => "-".into(),
        };
        out.push_str(&format!(
            "{label:<36} {:>14} {:>14} {ratio:>8}\n",
            show(x),
            show(y)
        ));
    }
    out
}

pub fn trace(args: &TraceArgs) -> Result<(), CliError> {
    let out = match &args.command {
        TraceCommand::Summarize { file, json } => {
            let s = load(file)?;
            if *json {
                serde_json::to_string_pretty(&s).unwrap_or_default() + "\n"
            } else {
                text_summary(&s)
            }
        }
        TraceCommand::Compare {
            baseline,
            other,
            json,
        } => {
            let (a, b) = (load(baseline)?, load(other)?);
            if *json {
                let v = serde_json::json!({ "baseline": a, "other": b });
                serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
            } else {
                text_compare(&a, &b)
            }
        }
    };
    print!("{out}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(t: f64, op: &str, path: &str, bytes: u64) -> Record {
        let mut r = Record::new(op, path.into());
        r.t = t;
        r.bytes = bytes;
        r
    }

    /// A hand-made session: list the root, search the tree (4 of 6 files opened within a
    /// second), read one file again later, fail to open one, then edit one.
    fn session() -> Vec<Record> {
        let mut m = Record::new("mount", String::new());
        m.files = Some(6);
        m.dirs = Some(2);
        let mut missing = rec(5.0, "open", "pkg/nope.py", 0);
        missing.errno = libc::ENOENT;
        let mut mv = rec(9.0, "rename", "pkg/b.py", 0);
        mv.to = Some("pkg/c.py".into());
        vec![
            m,
            rec(1.0, "readdir", "", 0),
            rec(1.1, "readdir", "pkg", 0),
            rec(2.0, "open", "pkg/a.py", 0),
            rec(2.0, "read", "pkg/a.py", 100),
            rec(2.5, "open", "pkg/b.py", 0),
            rec(2.5, "read", "pkg/b.py", 50),
            rec(3.0, "open", "README.md", 0),
            rec(3.0, "read", "README.md", 10),
            rec(3.4, "open", "pkg/d/e.py", 0),
            rec(3.4, "read", "pkg/d/e.py", 0),
            missing,
            rec(6.0, "open", "pkg/a.py", 0),
            rec(8.0, "write", "pkg/a.py", 7),
            mv,
            rec(9.5, "open", "pkg/f.py", 0),
        ]
    }

    #[test]
    fn a_session_is_summarized() {
        let s = summarize(&session(), 1);
        assert_eq!((s.tree_files, s.tree_dirs), (6, 2));
        assert_eq!(s.requests, 15);
        assert_eq!(s.unreadable_lines, 1);
        assert_eq!(s.seconds, 9.5);
        assert_eq!(s.dirs_listed, 2);
        // a, b, README, e, f (the failed open is no file opened).
        assert_eq!(s.files_opened, 5);
        // e.py gave no bytes.
        assert_eq!(s.files_read, 3);
        assert_eq!(s.bytes_read, 160);
        // 4 distinct files within one burst, 4 >= ceil(6 * 0.3) = 2; the later opens are
        // alone in their bursts.
        assert_eq!(s.tree_searches, 1);
        assert_eq!(s.files_read_before_first_write, 4);
        // a.py, b.py and c.py.
        assert_eq!(s.files_written, 3);
        assert_eq!(s.bytes_written, 7);
        assert_eq!(s.time_to_first_write, Some(8.0));
        assert_eq!(s.errors, 1);
        assert_eq!(s.reads_per_directory.get("pkg"), Some(&3));
        assert_eq!(s.reads_per_directory.get(""), Some(&1));
        assert_eq!(s.reads_per_directory.get("pkg/d"), Some(&1));
    }

    #[test]
    fn opens_spread_out_are_no_search() {
        let mut m = Record::new("mount", String::new());
        m.files = Some(4);
        let recs = vec![
            m,
            rec(1.0, "open", "a", 0),
            rec(3.0, "open", "b", 0),
            rec(5.0, "open", "c", 0),
        ];
        assert_eq!(summarize(&recs, 0).tree_searches, 0);
        assert_eq!(summarize(&recs, 0).time_to_first_write, None);
        assert_eq!(summarize(&recs, 0).files_read_before_first_write, 3);
    }

    #[test]
    fn the_comparison_shows_ratios() {
        let a = summarize(&session(), 0);
        let mut more = session();
        more.push(rec(10.0, "readdir", "pkg/d", 0));
        let b = summarize(&more, 0);
        let t = text_compare(&a, &b);
        let line = t
            .lines()
            .find(|l| l.starts_with("directories listed"))
            .unwrap();
        assert!(
            line.contains(" 2 ") && line.contains(" 3 ") && line.ends_with("1.50x"),
            "{line}"
        );
    }
}
