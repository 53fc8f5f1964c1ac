//! Subcommands. Argument types live here so every subcommand parses views the same way.

pub mod demo;
pub mod export;
pub mod map;
pub mod mount;
pub mod repoint;
pub mod translate;
pub mod verify;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::bundle::{self, BuildOptions, Bundle, Tree};
use crate::transform::layout::{LayoutState, LayoutStore};
use crate::transform::{Composite, Transform};

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

impl From<bundle::BundleError> for CliError {
    fn from(e: bundle::BundleError) -> Self {
        CliError::Msg(e.to_string())
    }
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
    /// Transform levels: 2 renames identifiers and paths, 3 reorders definitions inside files.
    #[arg(long, default_value = "2,3")]
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
    #[arg(long, conflicts_with_all = ["python", "freeze", "levels", "rename_pure_locals"])]
    pub bundle: Option<PathBuf>,
    /// Also rename names outside code defines when the repository only uses them as local
    /// variables (stronger view, same behaviour of the repository). Off by default: new code
    /// written in the view that uses such a word for an outside API (`text=True`) is swapped
    /// on write-back like any renamed word, so the patch in the original is wrong there.
    #[arg(long)]
    pub rename_pure_locals: bool,
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
    /// Do not watch the original for changes made outside the view (for an original on a
    /// network filesystem, where inotify sees nothing, or when inotify watches run out). The
    /// view then revalidates names and attributes every second and serves files through
    /// handles, written back at close: slower, since every open reaches the daemon.
    #[arg(long)]
    pub no_watch: bool,
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

/// Parse `--levels` ("2", "3", "2,3").
pub fn parse_levels(s: &str) -> Result<Vec<u8>, CliError> {
    let mut levels = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "2" => levels.push(2),
            "3" => levels.push(3),
            other => {
                return Err(CliError::Msg(format!(
                    "--levels takes a comma-separated list of levels: 2 (rename), 3 (reorder); got `{other}`"
                )))
            }
        }
    }
    if levels.is_empty() {
        return Err(CliError::Msg("--levels is empty; use --levels 2,3".into()));
    }
    levels.sort_unstable();
    levels.dedup();
    Ok(levels)
}

/// Build the bundle that defines the view of `original` under `view`.
pub fn build_bundle(original: &Path, view: &ViewArgs) -> Result<Bundle, CliError> {
    build_bundle_and_tree(original, view).map(|(b, _)| b)
}

/// `build_bundle`, also giving back the tree that was read for it.
pub fn build_bundle_and_tree(original: &Path, view: &ViewArgs) -> Result<(Bundle, Tree), CliError> {
    if !original.is_dir() {
        return Err(CliError::Msg(format!(
            "{} is not a directory (ORIGINAL must be the checkout to show)",
            original.display()
        )));
    }
    if let Some(path) = &view.bundle {
        let (b, tree) = bundle::load(path, original)?;
        if let Some(seed) = view.seed {
            if seed != b.seed {
                return Err(CliError::Msg(format!(
                    "--seed {seed} disagrees with the bundle's seed {}; drop one of them",
                    b.seed
                )));
            }
        }
        return Ok((b, tree));
    }
    let levels = parse_levels(&view.levels)?;
    let freeze = match &view.freeze {
        Some(p) => bundle::read_freeze_file(p)?,
        None => Vec::new(),
    };
    let opts = BuildOptions {
        seed: view.seed.unwrap_or(0),
        levels,
        python: view.python.clone(),
        freeze,
        cache_dir: bundle::default_cache_dir(),
        rename_pure_locals: view.rename_pure_locals,
    };
    Ok(bundle::build(original, &opts)?)
}

/// Build the transform that defines the view of `original` under `view`. With a state
/// directory, Level 3 layouts saved by an earlier mount are taken up again, so the view reads
/// back exactly what was written through it.
pub fn build_transform(
    original: &Path,
    view: &ViewArgs,
    state: Option<&Path>,
) -> Result<Arc<dyn Transform>, CliError> {
    let b = build_bundle(original, view)?;
    Ok(Arc::new(transform_of(&b, state)?))
}

/// The transform of a bundle (see `build_transform`).
pub fn transform_of(b: &Bundle, state: Option<&Path>) -> Result<Composite, CliError> {
    let l2 = if b.levels.contains(&2) {
        Some(b.renamer()?)
    } else {
        None
    };
    let l3 = if b.levels.contains(&3) {
        let saved = state
            .map(|s| s.join(crate::fs::TRANSFORM_STATE_FILE))
            .and_then(|p| std::fs::read(p).ok())
            .and_then(|bytes| serde_json::from_slice::<LayoutState>(&bytes).ok())
            .filter(|st| st.seed == b.seed);
        Some(match saved {
            Some(st) => LayoutStore::from_state(st),
            None => LayoutStore::new(b.seed),
        })
    } else {
        None
    };
    Ok(Composite { l2, l3 })
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
