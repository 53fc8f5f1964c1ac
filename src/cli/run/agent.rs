//! The middle process of `schrodinger run`: it lives in the agent's new mount namespace
//! (but outside its PID namespace), puts the view in the repository's place, re-points the
//! editable install while it can still see the original, covers every trace of schrodinger,
//! and then starts the agent command as PID 1 of a new PID namespace. It forwards a stop
//! (SIGTERM, then SIGKILL after a grace period) and exits with the agent's status.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::sandbox::{self, AgentStart};
use crate::cli::CliError;

/// Everything the middle process needs, passed as one JSON argument (its command line is
/// not visible to the agent: it is outside the agent's PID namespace).
#[derive(Debug, Serialize, Deserialize)]
pub struct Spec {
    pub repo: PathBuf,
    pub view: PathBuf,
    /// Where the original is bound while the install is re-pointed.
    pub orig_at: PathBuf,
    /// Interpreter whose editable install is re-pointed; none to leave it.
    pub repoint: Option<PathBuf>,
    /// The work directory (holds `view`, `orig_at` and the state), covered first.
    pub work: PathBuf,
    pub cover_dirs: Vec<PathBuf>,
    pub cover_files: Vec<PathBuf>,
    pub cwd: PathBuf,
    pub user: Option<(u32, u32)>,
    pub env: Vec<(String, String)>,
    pub command: Vec<String>,
    pub grace_secs: u64,
}

/// Exit status of the middle process when the sandbox could not be built (nothing ran).
pub const SETUP_FAILED: i32 = 125;

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// Hidden subcommand `run-agent SPEC`.
pub fn main(spec_json: &str) -> i32 {
    let spec: Spec = match serde_json::from_str(spec_json) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("schrodinger run: bad agent spec: {e}");
            return SETUP_FAILED;
        }
    };
    match start(&spec) {
        Ok(status) => status,
        Err(e) => {
            eprintln!("schrodinger run: {e}");
            SETUP_FAILED
        }
    }
}

fn io(context: &str) -> impl FnOnce(std::io::Error) -> CliError + '_ {
    move |e| CliError::io(context.to_string(), e)
}

fn build(spec: &Spec) -> Result<(), CliError> {
    let exe = std::env::current_exe().map_err(io("current executable"))?;
    sandbox::make_private().map_err(io("mount namespace"))?;
    detach_other_views(&spec.view)?;
    if let Some(python) = &spec.repoint {
        // For a moment both are visible: the original at `orig_at`, the view in its place.
        std::fs::create_dir_all(&spec.orig_at).map_err(io("work directory"))?;
        sandbox::bind(&spec.repo, &spec.orig_at).map_err(io("original"))?;
        sandbox::bind(&spec.view, &spec.repo).map_err(io("view"))?;
        let out = Command::new(&exe)
            .arg("repoint")
            .arg("--if-installed")
            .arg("--python")
            .arg(python)
            // The view is at the original's path: installs made from there are found as the
            // view's own and replaced.
            .arg(&spec.orig_at)
            .arg(&spec.repo)
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(io("repoint"))?;
        sandbox::detach(&spec.orig_at).map_err(io("original"))?;
        if !out.status.success() {
            return Err(CliError::Msg(format!(
                "re-pointing the editable install failed (pass --no-repoint to skip it):\n{}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
    } else {
        sandbox::bind(&spec.view, &spec.repo).map_err(io("view"))?;
    }
    // Only the repository's path shows the view from now on.
    sandbox::detach(&spec.view).map_err(io("view"))?;
    sandbox::cover_dir(&spec.work).map_err(io("cover"))?;
    sandbox::seal(&spec.work).map_err(io("cover"))?;
    // A file is covered by /dev/null: it reads as empty and cannot be executed.
    for f in &spec.cover_files {
        if f.is_file() {
            sandbox::bind(Path::new("/dev/null"), f).map_err(io("cover"))?;
        }
    }
    // Each directory is sealed as soon as it is covered: a later one may contain it.
    for d in &spec.cover_dirs {
        if d.is_dir() {
            sandbox::cover_dir(d).map_err(io("cover"))?;
            sandbox::seal(d).map_err(io("cover"))?;
        }
    }
    // The container's /proc shows the daemon; the agent's own is mounted by its first process.
    sandbox::detach(Path::new("/proc")).map_err(io("/proc"))?;
    sandbox::new_pid_namespace().map_err(io("PID namespace"))?;
    Ok(())
}

/// Detach this namespace's copies of every view but the run's own (`mounts.rs` says why).
/// A view below another one is gone with it when that one goes first; the deepest go first,
/// and a mount point that is no longer one (`EINVAL`) is that case.
fn detach_other_views(own: &Path) -> Result<(), CliError> {
    let own = own.canonicalize().map_err(io("view"))?;
    let info = std::fs::read("/proc/self/mountinfo").map_err(io("mount table"))?;
    for point in super::mounts::views_in(&info) {
        if point == own {
            continue;
        }
        match sandbox::detach(&point) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => {}
            Err(e) => return Err(io("another view")(e)),
        }
    }
    Ok(())
}

fn start(spec: &Spec) -> Result<i32, CliError> {
    build(spec)?;
    let Some((program, args)) = spec.command.split_first() else {
        return Err(CliError::Msg("no agent command".into()));
    };
    let setup = AgentStart::new(spec.user);
    let mut cmd = Command::new(program);
    cmd.args(args)
        // By path, after the mounts: a directory handle from before would be the original.
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)));
    // SAFETY: `apply` only makes async-signal-safe system calls and allocates nothing.
    unsafe {
        cmd.pre_exec(move || setup.apply());
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| CliError::io(format!("start {program}"), e))?;
    // SAFETY: `on_stop` only stores to an atomic, which is async-signal-safe.
    unsafe {
        for s in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::signal(s, on_stop as *const () as libc::sighandler_t);
        }
    }
    let pid = child.id() as libc::pid_t;
    let mut stopping: Option<Instant> = None;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                return Ok(status
                    .code()
                    .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
            }
            Ok(None) => {}
            Err(e) => return Err(CliError::io("wait for the agent", e)),
        }
        if STOP.load(Ordering::SeqCst) {
            match stopping {
                None => {
                    // SAFETY: kill has no memory preconditions; `pid` is our child.
                    unsafe { libc::kill(pid, libc::SIGTERM) };
                    stopping = Some(Instant::now());
                }
                Some(t) if t.elapsed() > Duration::from_secs(spec.grace_secs) => {
                    // PID 1 of a namespace ignores SIGTERM without a handler; this ends
                    // every process of the namespace.
                    // SAFETY: as above.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
