//! `mount --trace`: the requests an agent's commands cause, in view names only, written
//! while the view lives, at unmount, and kept whole when the daemon is killed.

use std::fs;
use std::process::Command;

use crate::harness::{run_ok, sh_ok, Repo, BIN};
use crate::killed::daemon_pid;

fn records(path: &std::path::Path) -> Vec<serde_json::Value> {
    let text = fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l:?}: {e}")))
        .collect()
}

fn has(recs: &[serde_json::Value], op: &str, path: &str) -> bool {
    recs.iter().any(|r| r["op"] == op && r["path"] == path)
}

/// An agent's session (list, search, read, edit, move) is recorded in view names, and the
/// summary reads it back.
#[test]
fn a_traced_session_is_recorded_in_view_names() {
    let test = "a_traced_session_is_recorded_in_view_names";
    let seed = 5;
    let repo = Repo::sample();
    let desk = repo.view_path(seed, "bookmobile/desk.py");
    let ledger = repo.view_path(seed, "bookmobile/ledger.py");
    let pkg = repo.view_path(seed, "bookmobile");
    assert_ne!(desk, "bookmobile/desk.py", "the sample's paths are renamed");
    let trace = repo.dir.path().join("trace.jsonl");
    let t = trace.to_str().unwrap();
    let Some(m) = repo.mount_with(test, "mnt", seed, &["--trace", t]) else {
        return;
    };
    sh_ok(
        &m.point,
        &format!(
            "ls > /dev/null; grep -rn def . > /dev/null; cat {desk} > /dev/null; \
             printf '\\n# edited\\n' >> {ledger}; mv {ledger} {pkg}/moved.py"
        ),
    );
    m.unmount();
    let recs = records(&trace);
    assert_eq!(recs[0]["op"], "mount");
    assert!(recs[0]["files"].as_u64().unwrap() >= 15, "{}", recs[0]);
    assert!(has(&recs, "readdir", ""), "root listing missing");
    // Files served by inode: no OPEN reaches the daemon (nor its ENOSYS answer the trace).
    assert!(
        !recs.iter().any(|r| r["op"] == "open"),
        "an open was recorded"
    );
    assert!(
        recs.iter()
            .any(|r| r["op"] == "read" && r["path"] == desk && r["bytes"].as_u64() > Some(0)),
        "read of {desk} missing"
    );
    assert!(
        recs.iter()
            .any(|r| r["op"] == "write" && r["path"] == ledger && r["bytes"] == 10),
        "write of {ledger} missing"
    );
    assert!(
        recs.iter().any(|r| r["op"] == "rename"
            && r["path"] == ledger
            && r["to"] == format!("{pkg}/moved.py")),
        "rename missing"
    );
    // Nothing of the original's names: every path is a view path.
    let text = fs::read_to_string(&trace).unwrap();
    for orig in ["bookmobile", "desk", "ledger", "CirculationDesk"] {
        assert!(!text.contains(orig), "{orig} in the trace");
    }
    let out = run_ok(Command::new(BIN).args(["trace", "summarize", "--json", t]));
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["tree_searches"], 1, "{s}");
    assert!(s["files_read"].as_u64() >= Some(10), "{s}");
    assert!(s["files_written"].as_u64() >= Some(2), "{s}");
    assert!(s["time_to_first_write"].as_f64().is_some(), "{s}");
}

/// With --trace-opens every open is recorded, a repeated one too, and the summary counts a
/// second search.
#[test]
fn trace_opens_records_every_open() {
    let test = "trace_opens_records_every_open";
    let repo = Repo::sample();
    let trace = repo.dir.path().join("trace.jsonl");
    let t = trace.to_str().unwrap();
    let Some(m) = repo.mount_with(test, "mnt", 7, &["--trace", t, "--trace-opens"]) else {
        return;
    };
    sh_ok(
        &m.point,
        "cat README.md README.md > /dev/null; grep -rn def . > /dev/null; sleep 1.5; \
         grep -rn def . > /dev/null",
    );
    m.unmount();
    let recs = records(&trace);
    let opens = recs
        .iter()
        .filter(|r| r["op"] == "open" && r["path"] == "README.md")
        .count();
    assert!(opens >= 4, "{opens} opens of README.md");
    let out = run_ok(Command::new(BIN).args(["trace", "summarize", "--json", t]));
    let s: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["tree_searches"], 2, "{s}");
}

/// A killed daemon leaves the lines written so far, each whole.
#[test]
fn a_killed_daemon_leaves_a_whole_trace() {
    let test = "a_killed_daemon_leaves_a_whole_trace";
    let repo = Repo::sample();
    let trace = repo.dir.path().join("trace.jsonl");
    let Some(m) = repo.mount_with(test, "mnt", 6, &["--trace", trace.to_str().unwrap()]) else {
        return;
    };
    sh_ok(&m.point, "cat README.md > /dev/null; ls -R > /dev/null");
    // Longer than the writer's interval (200 ms).
    std::thread::sleep(std::time::Duration::from_millis(700));
    let pid = daemon_pid(&m.point).expect("the daemon's pid");
    // SAFETY: kill(2) with a pid read from /proc and a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    drop(m);
    let recs = records(&trace);
    assert!(has(&recs, "read", "README.md"), "{recs:?}");
    assert!(recs.iter().filter(|r| r["op"] == "readdir").count() >= 2);
}
