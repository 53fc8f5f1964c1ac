//! `schrodinger run`: one evaluation task in a container, start to end.
//!
//! The supervisor (this process) mounts the view of the repository in a work directory of
//! the container's own mount namespace, then starts the agent in a namespace of its own
//! (see `agent.rs` and `sandbox.rs`), where the repository's path shows the view and nothing
//! of schrodinger can be seen or reached. When the agent ends (or a timeout or a signal ends
//! it), the supervisor writes the agent's patch in view coordinates (`git diff` in the view,
//! new files included), unmounts, writes the patch in original coordinates (the same in the
//! original), and exits with the agent's status.

pub mod agent;
pub mod enter;
mod mounts;
mod patches;
pub mod sandbox;
mod user;

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{views, CliError, MountArgs, UnmountArgs, ViewArgs};

const RUN_HELP: &str = "\
Example (a SWE-bench container, as root, with the project's environment active):

    schrodinger run --seed 7 --out /out /testbed -- bash -lc 'cd /testbed && my-agent'

The agent sees the view at /testbed (its editable install re-pointed to it) and cannot see
the original, the state, the map or this binary. Afterwards /out holds original.patch (apply
it to the original checkout for grading), view.patch, and run.json. The exit status is the
agent's (124 on --timeout, 128+N when ended by signal N, 125 when the sandbox could not be
built). A harness that sends each command with `docker exec` lands outside the agent's
namespaces: prefix its commands with `schrodinger enter /testbed --`.";

/// `schrodinger run`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = RUN_HELP)]
pub struct RunArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    /// Where the patches and run.json are written (created; not inside REPO).
    #[arg(long, default_value = "/var/tmp/schrodinger-out")]
    pub out: PathBuf,
    /// Run the agent as this user (a name from /etc/passwd, or UID[:GID]); the view shows
    /// the tree as theirs. Default: the caller (root).
    #[arg(long)]
    pub user: Option<String>,
    /// End the agent after this many seconds (SIGTERM, then SIGKILL after --grace).
    #[arg(long)]
    pub timeout: Option<u64>,
    /// Seconds between SIGTERM and SIGKILL when the agent is stopped.
    #[arg(long, default_value_t = 5)]
    pub grace: u64,
    /// Leave the Python environment alone. By default an editable install of REPO in the
    /// environment of --python is re-pointed to the view, as `schrodinger repoint` does
    /// (an environment without one is left as it is).
    #[arg(long)]
    pub no_repoint: bool,
    /// Private work directory: the view's mountpoint and the mount's state [default:
    /// /var/tmp/schrodinger/run-<hash of REPO>]. Not inside REPO.
    #[arg(long)]
    pub work: Option<PathBuf>,
    /// Record the requests the agent's commands send to the view in --out/trace.jsonl (see
    /// `mount --trace`; the agent cannot see --out).
    #[arg(long)]
    pub trace: bool,
    /// The repository (a git work tree); the agent finds the view at this same path.
    pub repo: PathBuf,
    /// The agent's command and its arguments (after `--`).
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// How the agent ended.
#[derive(Debug, serde::Serialize)]
struct Outcome {
    status: i32,
    timed_out: bool,
    stopped_by_signal: bool,
    /// The agent's time, from its start to its end.
    seconds: f64,
    /// From `run` starting to the view answering (map, environment scan, mount).
    mount_seconds: f64,
    /// From the agent's end to `run` exiting (both patches and the unmount).
    finish_seconds: f64,
}

fn absolute(p: &Path) -> Result<PathBuf, CliError> {
    std::path::absolute(p).map_err(|e| CliError::io(format!("path {}", p.display()), e))
}

/// `schrodinger run`; returns the exit status to end with.
pub fn run(args: &RunArgs) -> Result<i32, CliError> {
    // SAFETY: geteuid has no preconditions and cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return Err(CliError::Msg(
            "run needs root: it creates mount and PID namespaces and mounts FUSE (use \
             --user to run the agent as another user)"
                .into(),
        ));
    }
    let repo = args
        .repo
        .canonicalize()
        .map_err(|e| CliError::io(format!("repository {}", args.repo.display()), e))?;
    let base = views::head_of(&repo).ok_or_else(|| {
        CliError::Msg(format!(
            "{} is not a git work tree with a commit, which run needs for its patches",
            repo.display()
        ))
    })?;
    let work = match &args.work {
        Some(w) => absolute(w)?,
        None => {
            PathBuf::from("/var/tmp/schrodinger").join(format!("run-{}", views::hash_of(&repo)))
        }
    };
    let out = absolute(&args.out)?;
    for (what, p) in [("--work", &work), ("--out", &out)] {
        if p.starts_with(&repo) || repo.starts_with(p) {
            return Err(CliError::Msg(format!(
                "{what} {} must be outside the repository {}",
                p.display(),
                repo.display()
            )));
        }
    }
    let user = args.user.as_deref().map(user::parse).transpose()?;
    let began = Instant::now();
    let view = work.join("view");
    let state = work.join("state");
    std::fs::create_dir_all(&view)
        .map_err(|e| CliError::io(format!("work {}", work.display()), e))?;
    std::fs::create_dir_all(&out).map_err(|e| CliError::io(format!("out {}", out.display()), e))?;
    for f in ["original.patch", "view.patch", "run.json", "trace.jsonl"] {
        let _ = std::fs::remove_file(out.join(f));
    }
    super::mount::mount(&MountArgs {
        view: args.view.clone(),
        state: Some(state.clone()),
        foreground: false,
        no_watch: false,
        owner: user.as_ref().map(|u| (u.uid, u.gid)),
        trace: args.trace.then(|| out.join("trace.jsonl")),
        trace_opens: false,
        prepare: false,
        original: repo.clone(),
        mountpoint: view.clone(),
        ready_fd: None,
    })?;
    let mount_seconds = began.elapsed().as_secs_f64();
    let result = supervise(args, &repo, &work, &view, &out, user.as_ref());
    let ended = Instant::now();
    // Whatever happened, the view is unmounted (every write is then in the original).
    let view_patch = match &result {
        Ok(_) => Some(patches::worktree_diff(&view, &base, &work)),
        Err(_) => None,
    };
    let unmounted = super::mount::unmount(&UnmountArgs {
        mountpoint: view.clone(),
    });
    let mut outcome = result?;
    unmounted?;
    outcome.mount_seconds = mount_seconds;
    let original_patch = patches::worktree_diff(&repo, &base, &work)?;
    write(&out.join("original.patch"), &original_patch)?;
    let Some(view_patch) = view_patch else {
        return Err(CliError::Msg("no view patch".into()));
    };
    write(&out.join("view.patch"), &view_patch?)?;
    outcome.finish_seconds = ended.elapsed().as_secs_f64();
    let json = serde_json::to_vec_pretty(&outcome).map_err(|e| CliError::Msg(e.to_string()))?;
    write(&out.join("run.json"), &json)?;
    if outcome.timed_out {
        eprintln!("schrodinger: the agent ran past --timeout and was stopped");
    }
    Ok(outcome.status)
}

fn write(p: &Path, data: &[u8]) -> Result<(), CliError> {
    std::fs::write(p, data).map_err(|e| CliError::io(format!("write {}", p.display()), e))
}

fn supervise(
    args: &RunArgs,
    repo: &Path,
    work: &Path,
    view: &Path,
    out: &Path,
    user: Option<&user::User>,
) -> Result<Outcome, CliError> {
    let exe = std::env::current_exe().map_err(|e| CliError::io("current executable", e))?;
    let mut cover_dirs = vec![out.to_path_buf(), PathBuf::from(views::RUN_DIR)];
    cover_dirs.extend(crate::bundle::default_cache_dir());
    cover_dirs.push(PathBuf::from("/var/tmp/schrodinger"));
    let mut cover_files = vec![exe.clone()];
    for f in args.view.bundle.iter().chain(&args.view.freeze) {
        cover_files.push(absolute(f)?);
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| repo.to_path_buf());
    let mut env: Vec<(String, String)> = std::env::vars()
        // `_` is the calling shell's record of the last program it ran: this binary.
        .filter(|(k, _)| !k.starts_with("SCHRODINGER") && k != "_")
        .collect();
    if let Some(u) = user {
        env.retain(|(k, _)| !matches!(k.as_str(), "HOME" | "USER" | "LOGNAME"));
        if let Some(name) = &u.name {
            env.push(("USER".into(), name.clone()));
            env.push(("LOGNAME".into(), name.clone()));
        }
        if let Some(home) = &u.home {
            env.push(("HOME".into(), home.clone()));
        }
    }
    let spec = agent::Spec {
        repo: repo.to_path_buf(),
        view: view.to_path_buf(),
        orig_at: work.join("original"),
        repoint: (!args.no_repoint).then(|| args.view.python_path()),
        work: work.to_path_buf(),
        cover_dirs,
        cover_files,
        cwd,
        user: user.map(|u| (u.uid, u.gid)),
        env,
        command: args.command.clone(),
        grace_secs: args.grace,
    };
    let spec = serde_json::to_string(&spec).map_err(|e| CliError::Msg(e.to_string()))?;
    let mut cmd = Command::new(&exe);
    cmd.arg("run-agent").arg(spec);
    // SAFETY: `unshare_for_agent` makes only async-signal-safe system calls.
    unsafe {
        cmd.pre_exec(|| sandbox::unshare_for_agent());
    }
    // SAFETY: `on_stop` only stores to an atomic, which is async-signal-safe.
    unsafe {
        for s in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::signal(s, on_stop as *const () as libc::sighandler_t);
        }
    }
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| CliError::io("start the agent's namespace", e))?;
    let pid = child.id() as libc::pid_t;
    // For `schrodinger enter` (harnesses that `docker exec` each command).
    let record = work.join(enter::RECORD);
    let rec = enter::Record {
        middle: child.id(),
        user: user.map(|u| (u.uid, u.gid)),
    };
    if let Err(e) = std::fs::write(&record, serde_json::to_vec(&rec).unwrap_or_default()) {
        tracing::warn!("cannot write {}: {e}", record.display());
    }
    let (mut timed_out, mut signalled, mut told) = (false, false, false);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {}
            Err(e) => return Err(CliError::io("wait for the agent", e)),
        }
        if !told {
            if STOP.load(Ordering::SeqCst) {
                signalled = true;
            } else if args
                .timeout
                .is_some_and(|t| started.elapsed() > Duration::from_secs(t))
            {
                timed_out = true;
            }
            if signalled || timed_out {
                // The middle process stops the agent (SIGTERM, then SIGKILL) and exits.
                // SAFETY: kill has no memory preconditions; `pid` is our child.
                unsafe { libc::kill(pid, libc::SIGTERM) };
                told = true;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = std::fs::remove_file(&record);
    let code = status.code().unwrap_or(128 + libc::SIGKILL);
    Ok(Outcome {
        status: if timed_out { 124 } else { code },
        timed_out,
        stopped_by_signal: signalled,
        seconds: started.elapsed().as_secs_f64(),
        mount_seconds: 0.0,
        finish_seconds: 0.0,
    })
}
