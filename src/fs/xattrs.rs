//! Extended attributes: the `user.` namespace passes through to the node's backing file.
//!
//! Programs keep small facts beside a file in `user.` attributes (loguru records a log
//! file's creation time in `user.loguru_crtime` where the file system has no birth time), and
//! behave differently where they get none. A value is bytes the view stores and returns as
//! written: it is data the agent's own tools set, and a checkout carries none (git records no
//! extended attributes), so no original name can reach the view through one. The other
//! namespaces (`security.`, `trusted.`, `system.`: capabilities, labels, ACLs) are the
//! host's, never part of the view: reads find nothing there, writes are refused, and a
//! listing names `user.` attributes only. Calls never follow a symlink (the `l` forms), as
//! every other request on a link does.

use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::error::{FsError, FsResult};
use super::ViewFs;

const USER: &[u8] = b"user.";

fn is_user(name: &OsStr) -> bool {
    name.as_bytes().starts_with(USER) && name.len() > USER.len()
}

fn c_path(path: &Path) -> FsResult<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| FsError::new(libc::EINVAL, "path has NUL"))
}

fn c_name(name: &OsStr) -> FsResult<CString> {
    CString::new(name.as_bytes()).map_err(|_| FsError::new(libc::EINVAL, "name has NUL"))
}

/// Calls `fill(buf)` with a buffer of the size asked by `fill(empty)`, again while the value
/// grows between the two calls (ERANGE), as the size-then-read protocol of these calls needs.
fn sized(what: &str, mut fill: impl FnMut(&mut [u8]) -> isize) -> FsResult<Vec<u8>> {
    for _ in 0..8 {
        let n = fill(&mut []);
        if n < 0 {
            return Err(FsError::io(what.to_string(), io::Error::last_os_error()));
        }
        let mut buf = vec![0u8; n as usize];
        let got = fill(&mut buf);
        if got >= 0 {
            buf.truncate(got as usize);
            return Ok(buf);
        }
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::ERANGE) {
            return Err(FsError::io(what.to_string(), e));
        }
    }
    Err(FsError::new(
        libc::EAGAIN,
        "extended attribute kept changing size",
    ))
}

/// The value of attribute `name` of the file at `path` (the link itself for a symlink).
fn value(path: &CStr, name: &CStr) -> FsResult<Vec<u8>> {
    sized("getxattr", |buf| {
        // SAFETY: `path` and `name` are NUL-terminated; `buf` is valid for `buf.len()` bytes
        // (an empty slice with length 0 asks for the size and writes nothing).
        unsafe {
            libc::lgetxattr(
                path.as_ptr(),
                name.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        }
    })
}

/// The `user.` attribute names of the file at `path`, without their NULs.
fn user_names(path: &CStr) -> FsResult<Vec<CString>> {
    let all = sized("listxattr", |buf| {
        // SAFETY: `path` is NUL-terminated; `buf` is valid for `buf.len()` bytes.
        unsafe { libc::llistxattr(path.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) }
    })?;
    Ok(all
        .split(|b| *b == 0)
        .filter(|n| is_user(OsStr::from_bytes(n)))
        .filter_map(|n| CString::new(n).ok())
        .collect())
}

/// Gives `to` (the temporary file of an atomic write-back, `content::write_atomic`) the
/// `user.` attributes of `from`, the file it replaces, so that a rewrite keeps them as an
/// in-place write would. Best effort: a file system without attributes has none to copy,
/// and the bytes are the write-back's point.
pub(super) fn copy_user(from: &Path, to: &std::fs::File) {
    use std::os::fd::AsRawFd;
    let Ok(path) = c_path(from) else { return };
    let Ok(names) = user_names(&path) else { return };
    for n in names {
        let Ok(value) = value(&path, &n) else {
            continue;
        };
        // SAFETY: `to` is an open file, so its descriptor is valid for the call; `n` is
        // NUL-terminated and `value` valid for its length, only read.
        let r = unsafe {
            libc::fsetxattr(
                to.as_raw_fd(),
                n.as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                0,
            )
        };
        if r != 0 {
            tracing::warn!(
                "write-back of {} dropped attribute {}: {}",
                from.display(),
                n.to_string_lossy(),
                io::Error::last_os_error()
            );
        }
    }
}

impl ViewFs {
    fn xattr_path(&self, ino: u64) -> FsResult<CString> {
        let (_, back) = self.node(ino)?;
        c_path(&self.safe_path(&back)?)
    }

    /// The value of attribute `name` of node `ino`.
    pub fn getxattr(&self, ino: u64, name: &OsStr) -> FsResult<Vec<u8>> {
        // Asked first: the kernel asks for `security.capability` before every write.
        if !is_user(name) {
            return Err(FsError::new(libc::ENODATA, "not a user. attribute"));
        }
        value(&self.xattr_path(ino)?, &c_name(name)?)
    }

    /// The `user.` attribute names of node `ino`, each followed by a NUL.
    pub fn listxattr(&self, ino: u64) -> FsResult<Vec<u8>> {
        let mut out = Vec::new();
        for n in user_names(&self.xattr_path(ino)?)? {
            out.extend_from_slice(n.as_bytes_with_nul());
        }
        Ok(out)
    }

    /// Sets attribute `name` of node `ino` (`flags`: XATTR_CREATE, XATTR_REPLACE or 0).
    pub fn setxattr(&self, ino: u64, name: &OsStr, value: &[u8], flags: i32) -> FsResult<()> {
        if !is_user(name) {
            return Err(FsError::new(libc::EOPNOTSUPP, "not a user. attribute"));
        }
        let path = self.xattr_path(ino)?;
        let n = c_name(name)?;
        // SAFETY: `path` and `n` are NUL-terminated; `value` is valid for `value.len()` bytes
        // and only read.
        let r = unsafe {
            libc::lsetxattr(
                path.as_ptr(),
                n.as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                flags,
            )
        };
        if r != 0 {
            return Err(FsError::io("setxattr", io::Error::last_os_error()));
        }
        Ok(())
    }

    /// Removes attribute `name` of node `ino`.
    pub fn removexattr(&self, ino: u64, name: &OsStr) -> FsResult<()> {
        if !is_user(name) {
            return Err(FsError::new(libc::ENODATA, "not a user. attribute"));
        }
        let path = self.xattr_path(ino)?;
        let n = c_name(name)?;
        // SAFETY: `path` and `n` are NUL-terminated.
        let r = unsafe { libc::lremovexattr(path.as_ptr(), n.as_ptr()) };
        if r != 0 {
            return Err(FsError::io("removexattr", io::Error::last_os_error()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::is_user;
    use std::ffi::OsStr;

    #[test]
    fn only_named_user_attributes_pass() {
        assert!(is_user(OsStr::new("user.loguru_crtime")));
        assert!(!is_user(OsStr::new("user.")));
        assert!(!is_user(OsStr::new("security.capability")));
        assert!(!is_user(OsStr::new("trusted.user.x")));
        assert!(!is_user(OsStr::new("system.posix_acl_access")));
    }
}
