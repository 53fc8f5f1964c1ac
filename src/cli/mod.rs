//! Subcommands. Argument types live here so every subcommand parses views the same way.

pub mod demo;
pub mod export;
pub mod map;
pub mod mount;
pub mod translate;
pub mod verify;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::bundle::{self, BuildOptions, Bundle};
use crate::transform::{Level2, Transform};

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
    /// Seed of the view: the same tree and seed always give the same view [default: 0].
    #[arg(long)]
    pub seed: Option<u64>,
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
    /// Use a bundle saved by `schrodinger map --out` instead of building one; it must have
    /// been built for this same tree.
    #[arg(long, conflicts_with_all = ["python", "freeze", "levels"])]
    pub bundle: Option<PathBuf>,
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

/// Parse `--levels` ("2", "2,3", ...). Level 3 is not available yet: say so plainly.
pub fn parse_levels(s: &str) -> Result<Vec<u8>, CliError> {
    let mut levels = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "2" => levels.push(2),
            "3" => {
                return Err(CliError::Msg(
                    "--levels 3 (reordering definitions) is not available in this version; use --levels 2"
                        .into(),
                ))
            }
            other => {
                return Err(CliError::Msg(format!(
                    "--levels takes a comma-separated list of levels (2); got `{other}`"
                )))
            }
        }
    }
    if levels.is_empty() {
        return Err(CliError::Msg("--levels is empty; use --levels 2".into()));
    }
    levels.sort_unstable();
    levels.dedup();
    Ok(levels)
}

/// Build the bundle that defines the view of `original` under `view`.
pub fn build_bundle(original: &Path, view: &ViewArgs) -> Result<Bundle, CliError> {
    if !original.is_dir() {
        return Err(CliError::Msg(format!(
            "{} is not a directory (ORIGINAL must be the checkout to show)",
            original.display()
        )));
    }
    if let Some(path) = &view.bundle {
        let b = bundle::load(path, original).map_err(|e| CliError::Msg(e.to_string()))?;
        if let Some(seed) = view.seed {
            if seed != b.seed {
                return Err(CliError::Msg(format!(
                    "--seed {seed} disagrees with the bundle's seed {}; drop one of them",
                    b.seed
                )));
            }
        }
        return Ok(b);
    }
    let levels = parse_levels(&view.levels)?;
    let freeze = match &view.freeze {
        Some(p) => bundle::read_freeze_file(p).map_err(|e| CliError::Msg(e.to_string()))?,
        None => Vec::new(),
    };
    let opts = BuildOptions {
        seed: view.seed.unwrap_or(0),
        levels,
        python: view.python.clone(),
        freeze,
        cache_dir: bundle::default_cache_dir(),
    };
    bundle::build(original, &opts).map_err(|e| CliError::Msg(e.to_string()))
}

/// Build the transform that defines the view of `original` under `view`.
pub fn build_transform(original: &Path, view: &ViewArgs) -> Result<Arc<dyn Transform>, CliError> {
    let b = build_bundle(original, view)?;
    let renamer = b.renamer().map_err(|e| CliError::Msg(e.to_string()))?;
    Ok(Arc::new(Level2 { renamer }))
}

/// `schrodinger export`.
#[derive(Debug, Clone, clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    /// The original checkout.
    pub original: PathBuf,
    /// Directory to write the view into (must not exist, or be empty).
    pub outdir: PathBuf,
}

/// Direction of `schrodinger translate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Direction {
    /// Original names -> view names (a problem statement to give the agent).
    View,
    /// View names -> original names (a log or test id the agent produced).
    Original,
}

/// `schrodinger translate`.
#[derive(Debug, Clone, clap::Args)]
pub struct TranslateArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    /// Which coordinate system the output is in.
    #[arg(long, value_enum)]
    pub to: Direction,
    /// The original checkout (the map is built from it).
    pub original: PathBuf,
}
