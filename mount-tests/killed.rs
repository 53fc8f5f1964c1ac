//! Law 9 with a killed daemon: a write acknowledged by `fsync` is in the original even when
//! the daemon is killed (SIGKILL) right after, and the original is left whole, with no
//! temporary file of the write-back beside it.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use crate::harness::{python3, run_ok, Repo};

/// The pid of the daemon serving `point` (its command line names the mountpoint and
/// `--ready-fd`, or `--foreground`).
pub(crate) fn daemon_pid(point: &std::path::Path) -> Option<i32> {
    let point = point.to_string_lossy().into_owned();
    for e in fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(cmd) = fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let args: Vec<String> = cmd
            .split(|b| *b == 0)
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let daemon = args
            .iter()
            .any(|a| a == "--ready-fd" || a == "--foreground");
        if daemon && args.contains(&point) {
            return Some(pid);
        }
    }
    None
}

#[test]
fn fsynced_write_survives_a_killed_daemon() {
    let test = "fsynced_write_survives_a_killed_daemon";
    let seed = 61;
    let repo = Repo::sample();
    let rel = "bookmobile/ledger.py";
    let view_rel = repo.view_path(seed, rel);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let path = m.path(&view_rel);
    let mut text = fs::read_to_string(&path).unwrap();
    text.push_str("\n# written then fsynced\n");

    // Write, fsync, say so, then wait with the file still open (no close, no release).
    let mut writer = python3()
        .args([
            "-c",
            "import os, sys\n\
             f = open(sys.argv[1], 'w')\n\
             f.write(sys.stdin.readline().replace('\\\\n', '\\n'))\n\
             f.flush(); os.fsync(f.fileno())\n\
             print('synced', flush=True)\n\
             sys.stdin.read()",
        ])
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = writer.stdin.take().unwrap();
    writeln!(stdin, "{}", text.replace('\n', "\\n")).unwrap();
    let mut line = String::new();
    BufReader::new(writer.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "synced");

    let pid = daemon_pid(&m.point).expect("the daemon's pid");
    // SAFETY: kill(2) with a pid read from /proc and a valid signal number.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGKILL) }, 0);
    drop(stdin);
    let _ = writer.kill();
    let _ = writer.wait();
    drop(m); // the guard lazily unmounts the dead mount

    let after = fs::read_to_string(repo.orig.join(rel)).unwrap();
    assert!(
        after.contains("# written then fsynced"),
        "the fsynced write is not in the original:\n{after}"
    );
    run_ok(
        Command::new("python3")
            .args(["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read())"])
            .arg(repo.orig.join(rel)),
    );
    assert_eq!(
        repo.status(),
        format!(" M {rel}\n"),
        "stray files beside the original after the kill"
    );
}
