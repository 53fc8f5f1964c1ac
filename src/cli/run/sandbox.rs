//! The system calls that wall the agent off in `schrodinger run`.
//!
//! Guarantees, for the agent's processes (all descendants of the agent command):
//! - their mount namespace is a private copy in which the repository's path shows the view,
//!   and every place that holds something of schrodinger (work directory, state, bundle,
//!   scan cache, run records, the binary) is covered by an empty read-only mount;
//! - their PID namespace is new, with its own `/proc`: the daemon, the supervisor and their
//!   command lines do not exist there;
//! - a root agent has lost the capabilities that could undo either (mount and unmount,
//!   `open_by_handle_at`, raw devices, ptrace, modules, BPF), from its bounding set too, so
//!   no setuid program gives them back; a non-root agent has none to begin with.
//!
//! Everything here is a thin wrapper over one system call, so that the order of the steps
//! reads in `agent.rs`. Functions marked for `pre_exec` allocate nothing and call only
//! async-signal-safe system calls, as a forked child of a threaded process requires.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;

fn cstr(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path with a NUL byte"))
}

fn check(rc: libc::c_int, what: &str, p: &Path) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        let e = io::Error::last_os_error();
        Err(io::Error::new(
            e.kind(),
            format!("{what} {}: {e}", p.display()),
        ))
    }
}

/// Make every mount of this (new) namespace private, so nothing done here reaches the
/// container's namespace and nothing mounted there later appears here.
pub fn make_private() -> io::Result<()> {
    let root = cstr(Path::new("/"))?;
    // SAFETY: all pointers are valid NUL-terminated strings or null, as mount(2) allows for a
    // propagation change.
    let rc = unsafe {
        libc::mount(
            ptr::null(),
            root.as_ptr(),
            ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            ptr::null(),
        )
    };
    check(rc, "make private", Path::new("/"))
}

/// Bind `src` over `dst` (with the mounts below `src`).
pub fn bind(src: &Path, dst: &Path) -> io::Result<()> {
    let (s, d) = (cstr(src)?, cstr(dst)?);
    // SAFETY: valid NUL-terminated strings; fstype and data may be null for a bind.
    let rc = unsafe {
        libc::mount(
            s.as_ptr(),
            d.as_ptr(),
            ptr::null(),
            libc::MS_BIND | libc::MS_REC,
            ptr::null(),
        )
    };
    check(rc, &format!("bind {} over", src.display()), dst)
}

/// Make this process's next child PID 1 of a new PID namespace. Called right before the
/// agent starts: a namespace whose first process has exited accepts no other (a helper
/// started in it earlier, such as the install's re-pointing, would leave it unusable).
pub fn new_pid_namespace() -> io::Result<()> {
    // SAFETY: unshare takes flags only; CLONE_NEWPID changes nothing of this process itself.
    if unsafe { libc::unshare(libc::CLONE_NEWPID) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Detach the mount at `p` and everything below it (lazily: open files keep working).
pub fn detach(p: &Path) -> io::Result<()> {
    let c = cstr(p)?;
    // SAFETY: a valid NUL-terminated string.
    let rc = unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
    check(rc, "detach", p)
}

/// Cover the directory `p` with an empty writable tmpfs (made read-only by [`seal`]).
pub fn cover_dir(p: &Path) -> io::Result<()> {
    let (src, d, fs) = (
        cstr(Path::new("none"))?,
        cstr(p)?,
        cstr(Path::new("tmpfs"))?,
    );
    let data = CString::new("size=64k,mode=0755").expect("no NUL");
    // SAFETY: valid NUL-terminated strings; tmpfs takes its options as a string.
    let rc = unsafe {
        libc::mount(
            src.as_ptr(),
            d.as_ptr(),
            fs.as_ptr(),
            libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            data.as_ptr().cast(),
        )
    };
    check(rc, "cover", p)
}

/// Make the mount at `p` read-only (a bind mount's flags change only through a remount).
pub fn seal(p: &Path) -> io::Result<()> {
    let d = cstr(p)?;
    // SAFETY: valid NUL-terminated string; source and fstype are ignored by a remount.
    let rc = unsafe {
        libc::mount(
            ptr::null(),
            d.as_ptr(),
            ptr::null(),
            libc::MS_REMOUNT
                | libc::MS_BIND
                | libc::MS_RDONLY
                | libc::MS_NOSUID
                | libc::MS_NODEV
                | libc::MS_NOEXEC,
            ptr::null(),
        )
    };
    check(rc, "seal", p)
}

/// Capabilities a root agent loses: each could reach the original behind the view (mount,
/// unmount, setns; open_by_handle_at; a raw disk device; another process's memory or root;
/// a kernel module; BPF). Numbers from linux/capability.h.
const DROPPED: [libc::c_ulong; 8] = [
    2,  // CAP_DAC_READ_SEARCH
    16, // CAP_SYS_MODULE
    17, // CAP_SYS_RAWIO
    19, // CAP_SYS_PTRACE
    21, // CAP_SYS_ADMIN
    27, // CAP_MKNOD
    38, // CAP_PERFMON
    39, // CAP_BPF
];

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const CAP_V3: u32 = 0x2008_0522;

/// What the agent's first process does between fork and exec. Built before the fork.
pub struct AgentStart {
    proc_dir: CString,
    proc_fs: CString,
    /// Parts of the new `/proc` a container keeps read-only.
    read_only: Vec<CString>,
    user: Option<(u32, u32)>,
    /// The agent's first process mounts its PID namespace's `/proc`; a command that joins
    /// the namespace later (`enter`) finds it mounted.
    mount_proc: bool,
}

impl AgentStart {
    pub fn new(user: Option<(u32, u32)>) -> AgentStart {
        let c = |s: &str| CString::new(s).expect("no NUL");
        AgentStart {
            proc_dir: c("/proc"),
            proc_fs: c("proc"),
            read_only: ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"]
                .into_iter()
                .map(c)
                .collect(),
            user,
            mount_proc: true,
        }
    }

    /// For a command that joins a running agent's namespaces.
    pub fn joining(user: Option<(u32, u32)>) -> AgentStart {
        AgentStart {
            mount_proc: false,
            ..AgentStart::new(user)
        }
    }

    /// # Safety
    /// As [`AgentStart::apply`].
    unsafe fn mount_proc(&self, flags: libc::c_ulong) -> io::Result<()> {
        if libc::mount(
            self.proc_fs.as_ptr(),
            self.proc_dir.as_ptr(),
            self.proc_fs.as_ptr(),
            flags,
            ptr::null(),
        ) != 0
        {
            return Err(io::Error::last_os_error());
        }
        for p in &self.read_only {
            // Absent entries (no /proc/bus on some machines) are fine.
            if libc::mount(
                p.as_ptr(),
                p.as_ptr(),
                ptr::null(),
                libc::MS_BIND,
                ptr::null(),
            ) == 0
            {
                libc::mount(
                    ptr::null(),
                    p.as_ptr(),
                    ptr::null(),
                    libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | flags,
                    ptr::null(),
                );
            }
        }
        Ok(())
    }

    /// Runs in the forked child, which is PID 1 of the new PID namespace.
    ///
    /// # Safety
    /// Call only between fork and exec: it changes the calling process's mounts,
    /// capabilities and identity. It allocates nothing.
    pub unsafe fn apply(&self) -> io::Result<()> {
        let fail = |_: ()| Err(io::Error::last_os_error());
        // If the supervisor goes, the whole namespace goes with this process.
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
            return fail(());
        }
        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        if self.mount_proc {
            self.mount_proc(flags)?;
        }

        for cap in DROPPED {
            // EINVAL: a kernel older than the capability; nothing to drop then.
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0
                && *libc::__errno_location() != libc::EINVAL
            {
                return fail(());
            }
        }
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        );
        let mut hdr = CapHeader {
            version: CAP_V3,
            pid: 0,
        };
        let mut data = [CapData {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(
            libc::SYS_capget,
            &mut hdr as *mut CapHeader,
            data.as_mut_ptr(),
        ) != 0
        {
            return fail(());
        }
        for cap in DROPPED {
            let (word, bit) = ((cap / 32) as usize, 1u32 << (cap % 32));
            data[word].effective &= !bit;
            data[word].permitted &= !bit;
            data[word].inheritable &= !bit;
        }
        if libc::syscall(libc::SYS_capset, &mut hdr as *mut CapHeader, data.as_ptr()) != 0 {
            return fail(());
        }
        if let Some((uid, gid)) = self.user {
            let groups = [gid];
            if libc::setgroups(1, groups.as_ptr()) != 0
                || libc::setgid(gid) != 0
                || libc::setuid(uid) != 0
            {
                return fail(());
            }
        }
        Ok(())
    }
}

/// `unshare(CLONE_NEWNS)` for the supervisor's child, between fork and exec: the child gets
/// a mount namespace of its own.
///
/// # Safety
/// Call only between fork and exec.
pub unsafe fn unshare_for_agent() -> io::Result<()> {
    if libc::unshare(libc::CLONE_NEWNS) != 0 {
        return Err(io::Error::last_os_error());
    }
    // The child stops the agent if the supervisor dies.
    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM, 0, 0, 0) != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
