//! A mount's life: build the [`ViewFs`], watch the original, start the FUSE session
//! (`crate::fuse`), run the eager scan in the background once the view answers, and at the
//! end flush every buffer before the session ends, so nothing acknowledged is lost (law 9).

use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::fs::watch::Watcher;
use crate::fs::{Caller, Options, ViewFs, TTL};
use crate::fuse::Session;
use crate::transform::Transform;

/// A live mount. Dropping it without [`Mounted::unmount`] still unmounts (fuser's guard).
pub struct Mounted {
    /// Declared first: stops watching before the session goes away.
    watcher: Option<Watcher>,
    fs: Arc<ViewFs>,
    session: Session,
}

impl Mounted {
    /// The filesystem behind the mount (to flush before unmounting, or to inspect in tests).
    pub fn fs(&self) -> &Arc<ViewFs> {
        &self.fs
    }

    /// True once the kernel side went away (e.g. `umount` from outside).
    pub fn is_finished(&self) -> bool {
        self.session.is_finished()
    }

    /// Flush every dirty buffer, unmount and wait for the request loop to end.
    pub fn unmount(mut self) -> io::Result<()> {
        self.watcher.take();
        self.fs.stop_background();
        let flushed = self.fs.flush_all();
        self.session.umount_and_join()?;
        flushed.map_err(|e| io::Error::from_raw_os_error(e.errno))
    }

    /// Flush, unmount `mountpoint` with umount2 (lazily only when it is busy) and wait for
    /// the request loop to end. Used by the daemon on SIGINT/SIGTERM.
    pub fn shutdown(mut self, mountpoint: &Path) -> io::Result<()> {
        self.watcher.take();
        self.fs.stop_background();
        if let Err(e) = self.fs.flush_all() {
            tracing::error!("flush before unmount failed: {e}");
        }
        if !self.is_finished() {
            if let Err(e) = umount(mountpoint).map(|_| ()) {
                tracing::error!("unmount of {} failed: {e}", mountpoint.display());
                return Err(e);
            }
        }
        self.session.join()
    }

    /// Wait for the request loop to end (after an external unmount).
    pub fn join(mut self) -> io::Result<()> {
        self.watcher.take();
        self.fs.stop_background();
        self.session.join()
    }
}

/// Scan `original`, mount its view at `mountpoint` and serve it on background threads;
/// `watch: false` serves it without a watcher (short timeouts, files through handles).
/// Returns once the kernel has completed the handshake, i.e. the view answers requests.
/// Private files (scratch) go under `state`. This is what the daemon runs, and what tests
/// call directly with a test transform.
/// Work to run on the background thread once the view answers, before the eager scan (the
/// shadow repository's build, which primes the content cache the scan then finds full).
pub type BeforeScan = Box<dyn FnOnce(&Arc<ViewFs>) + Send>;

/// What a mount adds to the plain view of a tree when the original is a git work tree.
#[derive(Default)]
pub struct Extras {
    /// Builds the shadow repository (see [`BeforeScan`]).
    pub before_scan: Option<BeforeScan>,
    /// The original's committed bytes of a path (see [`crate::fs::Options::committed`]).
    pub committed: Option<crate::fs::Committed>,
    /// Who every node is shown as owned by (see [`crate::fs::Options::owner`]).
    pub owner: Option<Caller>,
    /// Where the agent's requests are recorded (`mount --trace`, see `crate::trace`).
    pub trace: Option<Arc<crate::trace::Tracer>>,
    /// Views an earlier mount rendered (see [`crate::fs::Options::rendered`]).
    pub rendered: Option<crate::fs::rendered::RenderedFile>,
}

pub fn spawn(
    original: &Path,
    mountpoint: &Path,
    state: &Path,
    transform: Arc<dyn Transform>,
    watch: bool,
    extras: Extras,
) -> io::Result<Mounted> {
    let before_scan = extras.before_scan;
    let options = Options {
        scan_at_new: false,
        mountpoint: Some(mountpoint.to_path_buf()),
        shadow_pending: before_scan.is_some(),
        committed: extras.committed,
        owner: extras.owner,
        rendered: extras.rendered,
        ..Options::default()
    };
    let fs =
        ViewFs::new(original, state, transform, options).map_err(|e| io::Error::other(e.msg))?;
    let fs = Arc::new(fs);
    let mut watcher = if !watch {
        tracing::info!("not watching the original (asked); using {TTL:?} timeouts");
        None
    } else {
        match Watcher::new(&fs) {
            Ok(w) => Some(w),
            Err(e) => {
                tracing::warn!("cannot watch the original ({e}); using {TTL:?} timeouts");
                None
            }
        }
    };
    let watched = watcher.is_some();
    tracing::info!(
        "files served {}",
        if watched {
            "without handles (no OPEN/FLUSH/RELEASE; writes written back when acknowledged)"
        } else {
            "through handles (written back at flush, fsync and release)"
        }
    );
    if watched {
        let flushing = fs.clone();
        std::thread::Builder::new()
            .name("schrodinger-flush".into())
            .spawn(move || flushing.run_deferred_flusher())?;
        // The flusher settles what write-backs leave in the view's order.
        fs.settle_later();
    }
    if watched {
        fs.serve_by_inode();
    }
    let session = Session::start(fs.clone(), mountpoint, extras.trace)?;
    if let Some(w) = &mut watcher {
        w.run(fs.clone(), session.invalidator())?;
        fs.set_watched();
    }
    // The eager scan runs once the view answers; requests compute what they need meanwhile.
    let scanning = fs.clone();
    std::thread::Builder::new()
        .name("schrodinger-scan".into())
        .spawn(move || {
            if let Some(work) = before_scan {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&scanning)));
                if r.is_err() {
                    tracing::error!("the work before the scan panicked");
                }
                // Whatever happened, requests for `.git` must not wait any longer.
                scanning.release_shadow();
            }
            scanning.scan()
        })?;
    Ok(Mounted {
        watcher,
        fs,
        session,
    })
}

/// Unmount `mountpoint`: a normal umount2 first, a lazy detach only if it is busy.
/// Returns Ok(true) when the detach was lazy.
pub fn umount(mountpoint: &Path) -> io::Result<bool> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(mountpoint.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: `c` is a valid NUL-terminated path for the duration of the call.
    if unsafe { libc::umount2(c.as_ptr(), 0) } == 0 {
        return Ok(false);
    }
    let e = io::Error::last_os_error();
    if e.raw_os_error() != Some(libc::EBUSY) {
        return Err(e);
    }
    tracing::warn!("{} is busy; detaching lazily", mountpoint.display());
    // SAFETY: as above.
    if unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) } == 0 {
        return Ok(true);
    }
    Err(io::Error::last_os_error())
}
