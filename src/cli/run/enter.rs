//! `schrodinger enter`: run one command inside a running `schrodinger run`'s agent
//! namespaces, for harnesses that send each command with `docker exec` (which lands in the
//! container's own namespaces, where the original is at the repository's path).
//!
//! `run` records, in its work directory (visible only outside the agent's namespaces), the
//! pid of the process that starts the agent. `enter` waits for the agent's first process,
//! joins its PID namespace (so the command's children are the agent's), and in the forked
//! child joins its mount namespace, goes to the same directory by path (now the view's),
//! drops the same capabilities as the agent, becomes the agent's user, and runs the command.
//! It exits with the command's status.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::sandbox::AgentStart;
use crate::cli::CliError;

/// `schrodinger enter`.
#[derive(Debug, Clone, clap::Args)]
pub struct EnterArgs {
    /// The work directory given to `run --work` [default: the one `run` derives from REPO].
    #[arg(long)]
    pub work: Option<PathBuf>,
    /// How long to wait for the agent's namespace to exist (seconds).
    #[arg(long, default_value_t = 60)]
    pub wait: u64,
    /// The repository given to `run`.
    pub repo: PathBuf,
    /// The command and its arguments (after `--`).
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

/// What `run` leaves for `enter` in its work directory.
#[derive(Debug, Serialize, Deserialize)]
pub struct Record {
    /// The middle process (see `agent.rs`); the agent's first process is its child.
    pub middle: u32,
    pub user: Option<(u32, u32)>,
}

pub const RECORD: &str = "agent.json";

pub fn default_work(repo: &Path) -> PathBuf {
    PathBuf::from("/var/tmp/schrodinger").join(format!("run-{}", crate::cli::views::hash_of(repo)))
}

/// The agent's first process: the child of `middle` in a PID namespace of its own. Other
/// children the middle process has earlier (the install's re-pointing) share its namespaces,
/// where the original is still visible, and are never taken.
fn agent_of(middle: u32) -> Option<u32> {
    let ns = |pid: u32| std::fs::read_link(format!("/proc/{pid}/ns/pid")).ok();
    let own = ns(middle)?;
    let child = child_of(middle)?;
    (ns(child)? != own).then_some(child)
}

/// The child of `parent`, if it has one yet.
fn child_of(parent: u32) -> Option<u32> {
    let rd = std::fs::read_dir("/proc").ok()?;
    for e in rd.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the command name (in parentheses): state, ppid, ...
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(parent) {
            return Some(pid);
        }
    }
    None
}

fn open_ns(pid: u32, kind: &str) -> Result<File, CliError> {
    let p = format!("/proc/{pid}/ns/{kind}");
    File::open(&p).map_err(|e| CliError::io(p, e))
}

/// `schrodinger enter`; returns the command's exit status.
pub fn enter(args: &EnterArgs) -> Result<i32, CliError> {
    let repo = std::path::absolute(&args.repo)
        .map_err(|e| CliError::io(format!("repository {}", args.repo.display()), e))?;
    let work = args.work.clone().unwrap_or_else(|| default_work(&repo));
    let record = work.join(RECORD);
    let start = Instant::now();
    let (rec, agent) = loop {
        let rec: Option<Record> = std::fs::read(&record)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        if let Some(rec) = rec {
            if let Some(agent) = agent_of(rec.middle) {
                break (rec, agent);
            }
        }
        if start.elapsed() > Duration::from_secs(args.wait) {
            return Err(CliError::Msg(format!(
                "no agent namespace of `schrodinger run` for {} ({} is missing or its agent \
                 has not started); is `run` this container's command?",
                repo.display(),
                record.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mnt = open_ns(agent, "mnt")?;
    let pid_ns = open_ns(agent, "pid")?;
    // SAFETY: setns takes a descriptor we own and a flag; joining a PID namespace changes
    // only where this process's future children are created.
    if unsafe { libc::setns(pid_ns.as_raw_fd(), libc::CLONE_NEWPID) } != 0 {
        return Err(CliError::io(
            "join the agent's PID namespace",
            std::io::Error::last_os_error(),
        ));
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| repo.clone());
    let Some((program, rest)) = args.command.split_first() else {
        return Err(CliError::Msg("no command".into()));
    };
    let setup = AgentStart::joining(rec.user);
    let mnt_fd = mnt.as_raw_fd();
    // The directory is entered by path after joining the mount namespace (which resets it
    // to the namespace's root): before, the path would name the original.
    let cwd = std::ffi::CString::new(cwd.as_os_str().as_encoded_bytes())
        .map_err(|_| CliError::Msg("working directory with a NUL byte".into()))?;
    let mut cmd = Command::new(program);
    cmd.args(rest);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("SCHRODINGER") {
            cmd.env_remove(k);
        }
    }
    // SAFETY: between fork and exec the child only makes system calls (setns and chdir on a
    // descriptor this process keeps open until the child is spawned, then `apply`, which
    // allocates nothing). A forked child is single-threaded, as joining a mount namespace
    // requires.
    unsafe {
        cmd.pre_exec(move || {
            if libc::setns(mnt_fd, libc::CLONE_NEWNS) != 0 || libc::chdir(cwd.as_ptr()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            setup.apply()
        });
    }
    let status = cmd
        .status()
        .map_err(|e| CliError::io(format!("run {program}"), e))?;
    drop(mnt);
    Ok(status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}
