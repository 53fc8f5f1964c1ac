//! `schrodinger mount` and `schrodinger unmount`.
//!
//! `mount` validates its arguments, then re-executes this binary as a daemon in a new
//! session with `--ready-fd N` (the write end of a pipe) and returns only when the daemon
//! reports that the view is mounted and answering, or prints the daemon's error and fails.
//! The daemon records its pid in `/run/schrodinger/<hash of mountpoint>.pid`; `unmount`
//! unmounts with umount2 (lazily only if busy) and waits until that pid has exited, so
//! every acknowledged write is in the original when it returns.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::views::{self, alive, pid_file, read_pid, RUN_DIR};
use super::{CliError, MountArgs, UnmountArgs};

/// Checked, absolute locations of one mount.
struct Plan {
    original: PathBuf,
    mountpoint: PathBuf,
    state: PathBuf,
    /// `--trace`, resolved.
    trace: Option<PathBuf>,
}

/// `p` made absolute with symlinks resolved as far as it exists (the rest appended), so
/// that containment checks see through `..` and links even for paths not created yet.
fn resolve(p: &Path) -> Result<PathBuf, CliError> {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map_err(|e| CliError::io("current directory", e))?
            .join(p)
    };
    let mut norm = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::ParentDir => {
                norm.pop();
            }
            Component::CurDir => {}
            other => norm.push(other),
        }
    }
    let mut existing = norm;
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(mut out) = existing.canonicalize() {
            for r in rest.iter().rev() {
                out.push(r);
            }
            return Ok(out);
        }
        let Some(name) = existing.file_name().map(|n| n.to_os_string()) else {
            return Err(CliError::Msg(format!("cannot resolve {}", p.display())));
        };
        rest.push(name);
        existing.pop();
    }
}

fn plan(args: &MountArgs) -> Result<Plan, CliError> {
    let original = args
        .original
        .canonicalize()
        .map_err(|e| CliError::io(format!("original {}", args.original.display()), e))?;
    if !original.is_dir() {
        return Err(CliError::Msg(format!(
            "original {} is not a directory",
            original.display()
        )));
    }
    let mountpoint = args.mountpoint.canonicalize().map_err(|e| {
        CliError::io(
            format!(
                "mountpoint {} (create it as an empty directory first)",
                args.mountpoint.display()
            ),
            e,
        )
    })?;
    if !mountpoint.is_dir() {
        return Err(CliError::Msg(format!(
            "mountpoint {} is not a directory",
            mountpoint.display()
        )));
    }
    if original.starts_with(&mountpoint) || mountpoint.starts_with(&original) {
        return Err(CliError::Msg(format!(
            "mountpoint {} and original {} must not contain each other",
            mountpoint.display(),
            original.display()
        )));
    }
    let state = match &args.state {
        Some(s) => resolve(s)?,
        None => views::default_state(&mountpoint),
    };
    if state.starts_with(&original) || state.starts_with(&mountpoint) {
        return Err(CliError::Msg(format!(
            "state directory {} must be outside the original and the mountpoint",
            state.display()
        )));
    }
    let trace = args.trace.as_deref().map(resolve).transpose()?;
    if let Some(t) = &trace {
        if t.starts_with(&original) || t.starts_with(&mountpoint) {
            return Err(CliError::Msg(format!(
                "trace file {} must be outside the original and the mountpoint",
                t.display()
            )));
        }
    }
    Ok(Plan {
        trace,
        original,
        mountpoint,
        state,
    })
}

fn check_mountpoint_free(p: &Plan) -> Result<(), CliError> {
    if let Some(pid) = read_pid(&p.mountpoint) {
        if alive(pid) {
            return Err(CliError::Msg(format!(
                "{} is already mounted by schrodinger (pid {pid}); run `schrodinger unmount {}`",
                p.mountpoint.display(),
                p.mountpoint.display()
            )));
        }
    }
    let mut rd = fs::read_dir(&p.mountpoint)
        .map_err(|e| CliError::io(format!("mountpoint {}", p.mountpoint.display()), e))?;
    if rd.next().is_some() {
        return Err(CliError::Msg(format!(
            "mountpoint {} is not empty",
            p.mountpoint.display()
        )));
    }
    Ok(())
}

pub fn mount(args: &MountArgs) -> Result<(), CliError> {
    let p = plan(args)?;
    if args.prepare {
        return prepare(args, &p);
    }
    if args.foreground || args.ready_fd.is_some() {
        return daemon(args, &p);
    }
    check_mountpoint_free(&p)?;
    fs::create_dir_all(&p.state)
        .map_err(|e| CliError::io(format!("state {}", p.state.display()), e))?;

    let mut fds = [0i32; 2];
    // SAFETY: `fds` is a two-element array as pipe2 requires. The read end is close-on-exec;
    // the write end is left inheritable on purpose: it is the daemon's readiness channel.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), 0) } != 0 {
        return Err(CliError::io("pipe", std::io::Error::last_os_error()));
    }
    // SAFETY: both descriptors were just created by pipe2 and are owned here exactly once.
    let (mut rx, tx) = unsafe {
        use std::os::fd::FromRawFd;
        (
            File::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    };
    let exe = std::env::current_exe().map_err(|e| CliError::io("current executable", e))?;
    let log = log_file(&p.state)?;
    let mut cmd = Command::new(exe);
    cmd.arg("mount");
    if let Some(seed) = args.view.seed {
        cmd.arg("--seed").arg(seed.to_string());
    }
    if let Some(b) = &args.view.bundle {
        cmd.arg("--bundle").arg(resolve(b)?);
    } else {
        // Only what was given: a remount takes the rest from the bundle it serves.
        if let Some(l) = &args.view.levels {
            cmd.arg("--levels").arg(l);
        }
        if args.view.python.is_some() {
            cmd.arg("--python").arg(args.view.python_path());
        }
        if let Some(f) = &args.view.freeze {
            cmd.arg("--freeze").arg(resolve(f)?);
        }
        if args.view.rename_pure_locals {
            cmd.arg("--rename-pure-locals");
        }
        if let Some(s) = args.view.rewrite_share {
            cmd.arg("--rewrite-share").arg(s.to_string());
        }
        if let Some(f) = &args.view.rewrite_regions {
            cmd.arg("--rewrite-regions").arg(resolve(f)?);
        }
        if let Some(r) = &args.view.rewrite_rules {
            cmd.arg("--rewrite-rules").arg(r);
        }
        if let Some(f) = &args.view.rewrite_skip {
            cmd.arg("--rewrite-skip").arg(resolve(f)?);
        }
    }
    if args.no_watch {
        cmd.arg("--no-watch");
    }
    if let Some((uid, gid)) = args.owner {
        cmd.arg("--owner").arg(format!("{uid}:{gid}"));
    }
    if let Some(t) = &p.trace {
        cmd.arg("--trace").arg(t);
    }
    if args.trace_opens {
        cmd.arg("--trace-opens");
    }
    cmd.arg("--state")
        .arg(&p.state)
        .arg("--ready-fd")
        .arg(fds[1].to_string())
        .arg(&p.original)
        .arg(&p.mountpoint)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log);
    let read_end = fds[0];
    // SAFETY: runs in the forked child before exec; setsid and close are async-signal-safe.
    // A new session detaches the daemon from the terminal (no SIGHUP/SIGINT from it); the
    // child must not hold the read end, or the parent would never see EOF.
    unsafe {
        cmd.pre_exec(move || {
            libc::setsid();
            libc::close(read_end);
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(|e| CliError::io("start daemon", e))?;
    drop(tx);
    // A person at a terminal hears why a first mount takes long; scripts see nothing extra.
    let waiting = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        let waiting = waiting.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs(3));
            if waiting.load(std::sync::atomic::Ordering::Relaxed) {
                eprintln!(
                    "schrodinger: building the view (a first mount scans the Python \
                     environment, about a minute; later mounts use the cache)..."
                );
            }
        });
    }
    // One line: "ready" or "error: ...". EOF without it means the daemon died.
    let mut msg = Vec::new();
    let mut byte = [0u8; 1];
    while let Ok(1) = rx.read(&mut byte) {
        if byte[0] == b'\n' {
            break;
        }
        msg.push(byte[0]);
    }
    waiting.store(false, std::sync::atomic::Ordering::Relaxed);
    let msg = String::from_utf8_lossy(&msg).into_owned();
    if msg.starts_with("ready") {
        return Ok(());
    }
    let status = child.wait().ok();
    let why = msg
        .strip_prefix("error: ")
        .unwrap_or(&msg)
        .trim()
        .to_string();
    Err(CliError::Msg(if why.is_empty() {
        format!(
            "the daemon exited ({}) before the view was ready; see {}",
            status.map(|s| s.to_string()).unwrap_or_default(),
            p.state.join("schrodinger.log").display()
        )
    } else {
        why
    }))
}

fn log_file(state: &Path) -> Result<File, CliError> {
    let path = state.join("schrodinger.log");
    fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| CliError::io(format!("log {}", path.display()), e))
}

fn init_logging(state: &Path) -> Result<(), CliError> {
    let file = log_file(state)?;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
    Ok(())
}

/// The view's transform, and a second, fresh one of the same bundle for rendering the
/// original's HEAD into the shadow repository (it must not disturb the live transform's
/// remembered layouts). Debug builds only: `SCHRODINGER_TEST_SWAP_TRANSFORM=1` uses the
/// alpha<->omega test double, so the daemon path can be tested end to end before the real
/// core exists; release builds have no such switch.
type Transforms = (
    std::sync::Arc<dyn crate::transform::Transform>,
    std::sync::Arc<dyn crate::transform::Transform>,
);

fn transforms_for(args: &MountArgs, p: &Plan) -> Result<Transforms, CliError> {
    #[cfg(debug_assertions)]
    if std::env::var_os("SCHRODINGER_TEST_SWAP_TRANSFORM").is_some() {
        let t = std::sync::Arc::new(crate::fs::testing::SwapTransform);
        return Ok((t.clone(), t));
    }
    let (b, unsaved) = view_bundle(args, p)?;
    // A new bundle is saved while the transforms are made from it (mostly hashing its names
    // on this thread); both are done before the view answers.
    let (live, fresh) = std::thread::scope(|s| {
        let b = &b;
        let saving = unsaved.map(|info| s.spawn(move || views::pin(&p.state, b, &info)));
        let made = super::live_and_fresh_transforms(b, &p.state);
        if let Some(saving) = saving {
            saving
                .join()
                .map_err(|_| CliError::Msg("saving the bundle failed".into()))??;
        }
        made
    })?;
    Ok((std::sync::Arc::new(live), std::sync::Arc::new(fresh)))
}

/// The work that builds the view's `.git` on the background thread, when the state
/// directory has none yet (once built, it is the agent's repository: never rebuilt).
fn shadow_work(
    p: &Plan,
    fresh: std::sync::Arc<dyn crate::transform::Transform>,
    prime: bool,
) -> Option<crate::session::BeforeScan> {
    let target = p.state.join("scratch").join(crate::fs::inode::SHADOW_GIT);
    if target.exists() || crate::shadow::original_git_dir(&p.original).is_none() {
        return None;
    }
    let original = p.original.clone();
    let roots = crate::fs::links::Roots {
        original: p.original.clone(),
        view: Some(p.mountpoint.clone()),
    };
    Some(Box::new(move |fs: &std::sync::Arc<crate::fs::ViewFs>| {
        let live: &dyn crate::shadow::LiveViews = if prime {
            fs.as_ref()
        } else {
            &crate::shadow::NoLiveViews
        };
        match crate::shadow::build(&original, &target, fresh.as_ref(), &roots, live) {
            Ok(Some(b)) => tracing::info!(
                tree = b.tree_entries,
                index = b.index_entries,
                trusted = b.trusted,
                "the view's .git is ready"
            ),
            Ok(None) => tracing::info!("the original is not a git work tree: no .git in the view"),
            Err(e) => tracing::error!("cannot build the view's .git: {e}"),
        }
    }))
}

/// The bundle this mount serves (law 10): the one saved in the state directory by an earlier
/// mount, or a new one with what to save with it (the caller saves it before the view
/// answers).
fn view_bundle(
    args: &MountArgs,
    p: &Plan,
) -> Result<(crate::bundle::Bundle, Option<views::ViewInfo>), CliError> {
    if let Some((saved, info)) = views::pinned(&p.state)? {
        views::check_same_original(&p.state, &info, &p.original)?;
        let whose = format!("the view saved in {}", p.state.display());
        if let Some(path) = &args.view.bundle {
            if crate::bundle::read(path)? != saved {
                return Err(CliError::Msg(format!(
                    "{whose} serves another bundle than {}; drop --bundle to remount that \
                     view, or pass another --state for a new one",
                    path.display()
                )));
            }
        }
        views::check_options(&saved, &args.view.wanted()?, &whose)?;
        tracing::info!("serving the bundle saved in {}", p.state.display());
        return Ok((saved, None));
    }
    // A new view of its own: other live views of the original keep their maps.
    let (bundle, _) = super::build_bundle_and_tree(&p.original, &args.view)?;
    let info = views::ViewInfo {
        original: p.original.clone(),
        head: views::head_of(&p.original),
    };
    Ok((bundle, Some(info)))
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

/// The daemon body (also `--foreground`): mount, report readiness, serve until a signal or
/// an external unmount, then flush and leave.
fn daemon(args: &MountArgs, p: &Plan) -> Result<(), CliError> {
    let mut ready = args.ready_fd.map(|fd| {
        // SAFETY: the parent passed us the write end of its pipe as this fd and nothing else
        // in this process uses it.
        unsafe {
            use std::os::fd::FromRawFd;
            File::from_raw_fd(fd)
        }
    });
    let result = daemon_inner(args, p, &mut ready);
    if let (Err(e), Some(mut f)) = (&result, ready.as_ref()) {
        let _ = writeln!(f, "error: {e}");
    }
    if let Err(e) = &result {
        tracing::error!("{e}");
    }
    result
}

/// The views the first complete scan of a view rendered, in its state directory.
pub const RENDERED_FILE: &str = "rendered";

/// Where the rendered views of the view kept in `p.state` live, once its bundle is saved.
fn rendered_file(p: &Plan) -> Option<crate::fs::rendered::RenderedFile> {
    fs::read(p.state.join(views::BUNDLE_FILE))
        .ok()
        .map(|b| crate::fs::rendered::RenderedFile {
            path: p.state.join(RENDERED_FILE),
            bundle: crate::fs::rendered::digest(&b),
        })
}

/// `mount --prepare`: everything a first mount does before and after it answers, without
/// mounting: the bundle saved, the view's `.git` built, every file rendered and stored.
fn prepare(args: &MountArgs, p: &Plan) -> Result<(), CliError> {
    let start = Instant::now();
    fs::create_dir_all(&p.state)
        .map_err(|e| CliError::io(format!("state {}", p.state.display()), e))?;
    init_logging(&p.state)?;
    tracing::info!(original = %p.original.display(), "preparing");
    let (transform, fresh) = transforms_for(args, p)?;
    let prime = !transform.remembers_state();
    let options = crate::fs::Options {
        scan_at_new: false,
        mountpoint: Some(p.mountpoint.clone()),
        committed: crate::shadow::committed(&p.original),
        rendered: rendered_file(p),
        ..crate::fs::Options::default()
    };
    let view = crate::fs::ViewFs::new(&p.original, &p.state, transform, options)
        .map_err(|e| CliError::Msg(e.msg))?;
    let view = std::sync::Arc::new(view);
    if let Some(work) = shadow_work(p, fresh, prime) {
        work(&view);
    }
    view.scan();
    eprintln!(
        "prepared {} in {:.1} s: mount it with the same arguments, without --prepare",
        p.state.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn daemon_inner(args: &MountArgs, p: &Plan, ready: &mut Option<File>) -> Result<(), CliError> {
    if args.ready_fd.is_none() {
        check_mountpoint_free(p)?;
    }
    fs::create_dir_all(&p.state)
        .map_err(|e| CliError::io(format!("state {}", p.state.display()), e))?;
    init_logging(&p.state)?;
    tracing::info!(original = %p.original.display(), mountpoint = %p.mountpoint.display(), "starting");
    let (transform, fresh) = transforms_for(args, p)?;
    // Rendering HEAD with a fresh transform gives the live view's bytes for every unchanged
    // file as long as the live one remembers no layout from an earlier session.
    let prime = !transform.remembers_state();
    let tracer = match &p.trace {
        Some(path) => {
            let (files, dirs) = count_tree(&p.original);
            let t = crate::trace::Tracer::create(path, files, dirs)
                .map_err(|e| CliError::io(format!("trace file {}", path.display()), e))?;
            Some(std::sync::Arc::new(t))
        }
        None => None,
    };
    // Views rendered by an earlier mount of this state directory, for this very bundle.
    let rendered = rendered_file(p);
    let extras = crate::session::Extras {
        before_scan: shadow_work(p, fresh, prime),
        committed: crate::shadow::committed(&p.original),
        owner: args.owner.map(|(uid, gid)| crate::fs::Caller { uid, gid }),
        trace: tracer.clone(),
        rendered,
    };
    // SAFETY: `on_signal` only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    let mounted = crate::session::spawn(
        &p.original,
        &p.mountpoint,
        &p.state,
        transform,
        // --trace-opens serves through handles: every open reaches the daemon and its trace.
        !args.no_watch && !args.trace_opens,
        extras,
    )
    .map_err(|e| CliError::io(format!("mount {}", p.mountpoint.display()), e))?;
    let pid_path = pid_file(&p.mountpoint);
    let _ = fs::create_dir_all(RUN_DIR);
    views::write_record(&views::Record {
        mountpoint: p.mountpoint.clone(),
        original: p.original.clone(),
        state: p.state.clone(),
    });
    if let Err(e) = fs::write(&pid_path, format!("{}\n", std::process::id())) {
        tracing::warn!("pid file {}: {e}", pid_path.display());
    }
    tracing::info!("view ready");
    // Closing the pipe after "ready": the parent returns, nothing more goes through it.
    if let Some(mut f) = ready.take() {
        let _ = f.write_all(b"ready\n");
    }
    if args.foreground {
        eprintln!(
            "schrodinger: view of {} mounted at {}",
            p.original.display(),
            p.mountpoint.display()
        );
    }
    while !STOP.load(Ordering::SeqCst) && !mounted.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let result = if mounted.is_finished() {
        tracing::info!("unmounted from outside");
        let fs = mounted.fs().clone();
        let r = mounted.join();
        if let Err(e) = fs.flush_all() {
            tracing::error!("flush after unmount: {e}");
        }
        r
    } else {
        tracing::info!("signal: flushing and unmounting");
        mounted.shutdown(&p.mountpoint)
    };
    if let Some(t) = &tracer {
        if let Err(e) = t.finish() {
            tracing::error!("writing the trace: {e}");
        }
    }
    let _ = fs::remove_file(&pid_path);
    tracing::info!("exit");
    result.map_err(|e| CliError::io("serve", e))
}

/// Regular files and directories under `root` (the root and `.git` left out), for the first
/// line of a trace.
fn count_tree(root: &Path) -> (u64, u64) {
    let (mut files, mut dirs) = (0, 0);
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if e.file_name() != ".git" {
                    dirs += 1;
                    stack.push(e.path());
                }
            } else if ft.is_file() {
                files += 1;
            }
        }
    }
    (files, dirs)
}

/// Is `p` a mount point of a schrodinger view (per /proc/self/mountinfo)?
fn is_view_mount(p: &Path) -> bool {
    let Ok(info) = fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    let want = p.as_os_str().as_bytes();
    info.lines().any(|l| {
        let fields: Vec<&str> = l.split(' ').collect();
        let mp = fields.get(4).map(|m| unescape(m)).unwrap_or_default();
        let Some(sep) = fields.iter().position(|f| *f == "-") else {
            return false;
        };
        let fstype = fields.get(sep + 1).copied().unwrap_or("");
        let source = fields.get(sep + 2).copied().unwrap_or("");
        mp == want && fstype.starts_with("fuse") && source == "schrodinger"
    })
}

fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

pub fn unmount(args: &UnmountArgs) -> Result<(), CliError> {
    // A dead daemon leaves a mount that cannot be stat'ed (ENOTCONN): resolve lexically then.
    let mountpoint = args
        .mountpoint
        .canonicalize()
        .or_else(|_| resolve(&args.mountpoint))?;
    let pid = read_pid(&mountpoint).filter(|&p| alive(p));
    let mounted = is_view_mount(&mountpoint);
    if pid.is_none() && !mounted {
        let _ = fs::remove_file(pid_file(&mountpoint));
        return Err(CliError::Msg(format!(
            "nothing is mounted by schrodinger at {}",
            mountpoint.display()
        )));
    }
    let mut lazy = false;
    if mounted {
        lazy = crate::session::umount(&mountpoint)
            .map_err(|e| CliError::io(format!("unmount {}", mountpoint.display()), e))?;
    }
    let Some(pid) = pid else {
        return Ok(());
    };
    let start = Instant::now();
    while alive(pid) {
        if start.elapsed() > Duration::from_secs(if lazy { 10 } else { 120 }) {
            return Err(CliError::Msg(format!(
                "{} is detached but the daemon (pid {pid}) is still running: files in the view are still open",
                mountpoint.display()
            )));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}
