//! The one error type of the filesystem layer: every failure carries the errno the kernel
//! will see. The message is for the daemon's log only (it may name original paths, which
//! must never reach the view).

use std::io;

use crate::transform::TransformError;

/// A failed filesystem operation.
#[derive(Debug, thiserror::Error)]
#[error("{msg} (errno {errno})")]
pub struct FsError {
    /// What the kernel is told.
    pub errno: i32,
    /// What the log is told.
    pub msg: String,
}

/// Result of every `ViewFs` operation.
pub type FsResult<T> = Result<T, FsError>;

impl FsError {
    pub fn new(errno: i32, msg: impl Into<String>) -> Self {
        FsError {
            errno,
            msg: msg.into(),
        }
    }

    pub fn noent() -> Self {
        FsError::new(libc::ENOENT, "no such entry")
    }

    /// An I/O error on a named original or scratch path; keeps the OS errno.
    pub fn io(context: impl std::fmt::Display, e: io::Error) -> Self {
        FsError::new(
            e.raw_os_error().unwrap_or(libc::EIO),
            format!("{context}: {e}"),
        )
    }

    /// A failed write-back: the caller learns that data did not reach the original. A full
    /// disk, an exhausted quota, a read-only or too-large file keep their errno, as a writer
    /// on a native filesystem would see them; anything else is EIO.
    pub fn write_back(context: impl std::fmt::Display, e: io::Error) -> Self {
        let errno = match e.raw_os_error() {
            Some(n @ (libc::ENOSPC | libc::EDQUOT | libc::EROFS | libc::EFBIG)) => n,
            _ => libc::EIO,
        };
        FsError::new(errno, format!("{context}: {e}"))
    }

    /// Like [`FsError::io`] but always EIO: used where the caller must learn that data did
    /// not reach the original, whatever the underlying reason.
    pub fn eio(context: impl std::fmt::Display, e: impl std::fmt::Display) -> Self {
        FsError::new(libc::EIO, format!("{context}: {e}"))
    }
}

impl From<TransformError> for FsError {
    fn from(e: TransformError) -> Self {
        FsError::new(e.errno(), e.to_string())
    }
}
