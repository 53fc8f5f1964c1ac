//! Subcommands. Argument types live here so every subcommand parses views the same way.

pub mod mount;

use std::path::PathBuf;
use std::sync::Arc;

use crate::transform::Transform;

/// An error a subcommand reports to the user; the message says what to do.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Msg(String),
}

impl CliError {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        CliError::Io {
            context: context.into(),
            source,
        }
    }
}

/// Options that define a view: the same flags for mount, export and translate.
#[derive(Debug, Clone, clap::Args)]
pub struct ViewArgs {
    /// Seed of the view: the same tree and seed always give the same view.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Transform levels: 2 renames identifiers and paths (3, reordering, is not available yet).
    #[arg(long, default_value = "2")]
    pub levels: String,
    /// Python interpreter the view will run under; its stdlib and site-packages are scanned
    /// so that names outside code defines are never renamed.
    #[arg(long, default_value = "python3")]
    pub python: PathBuf,
    /// File of extra names or tokens to never rename, one per line, `#` comments.
    #[arg(long)]
    pub freeze: Option<PathBuf>,
}

/// `schrodinger mount`.
#[derive(Debug, Clone, clap::Args)]
pub struct MountArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    /// Directory for private state (scratch files such as byte-code caches, the log).
    /// Never inside ORIGINAL or MOUNTPOINT. Default: /var/tmp/schrodinger/<hash of MOUNTPOINT>.
    #[arg(long)]
    pub state: Option<PathBuf>,
    /// Stay attached to the terminal; Ctrl-C unmounts cleanly.
    #[arg(long)]
    pub foreground: bool,
    /// The original checkout.
    pub original: PathBuf,
    /// Where the view appears (an existing empty directory).
    pub mountpoint: PathBuf,
    /// Internal: file descriptor on which a daemon reports readiness to its parent.
    #[arg(long, hide = true)]
    pub ready_fd: Option<i32>,
}

/// `schrodinger unmount`.
#[derive(Debug, Clone, clap::Args)]
pub struct UnmountArgs {
    /// The mountpoint given to `schrodinger mount`.
    pub mountpoint: PathBuf,
}

/// Build the transform that defines the view of `original` under `view`.
pub fn build_transform(
    original: &std::path::Path,
    view: &ViewArgs,
) -> Result<Arc<dyn Transform>, CliError> {
    let _ = (original, view);
    Err(CliError::Msg("not implemented yet".into()))
}
