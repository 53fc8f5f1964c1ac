//! Subcommands. Argument types live here so every subcommand parses views the same way.

pub mod demo;
pub mod export;
pub mod map;
pub mod mount;
pub mod patch;
pub mod repoint;
pub mod run;
pub mod scan_env;
pub mod statement;
pub mod trace;
pub mod translate;
pub mod verify;
pub mod views;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::bundle::{self, BuildOptions, Bundle, Tree, Wanted};
use crate::transform::layout::LayoutStore;
use crate::transform::rename::Renamer;
use crate::transform::Composite;

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
    /// Transform levels: 2 renames identifiers and paths, 3 reorders definitions inside files,
    /// 4 restates function bodies outside tests by behaviour-preserving rewrites (see
    /// --rewrite-rules) [default: 2,3]. `0` is the
    /// identity view: the same daemon, write path and shadow `.git` with nothing transformed,
    /// the baseline to compare a transformed run with.
    #[arg(long)]
    pub levels: Option<String>,
    /// Level 4: percent of functions (outside tests) the seed picks for rewriting [default:
    /// 50].
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub rewrite_share: Option<u8>,
    /// Level 4: file of regions of the original that must be rewritten, one `PATH:FIRST-LAST`
    /// per line (original path, 1-based lines; for example the functions a gold patch
    /// touches). Every function overlapping a region is rewritten with every rule.
    #[arg(long, value_name = "FILE")]
    pub rewrite_regions: Option<PathBuf>,
    /// Level 4: the rules to use, comma-separated [default: all]: invert_if, swap_equality,
    /// fold_negation, de_morgan, invert_conditional, membership_literal, swap_quotes
    /// (docs/design-notes.md, "Level 4", says what each does and why it keeps behaviour).
    #[arg(long, value_name = "RULES")]
    pub rewrite_rules: Option<String>,
    /// Level 4: file of functions kept as written, `PATH::QUALNAME` per line (original path;
    /// `verify --auto-skip-rewrites` writes one).
    #[arg(long, value_name = "FILE")]
    pub rewrite_skip: Option<PathBuf>,
    /// Python interpreter the view will run under; its stdlib and site-packages are scanned
    /// so that names outside code defines are never renamed [default: python3].
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// File of extra names or tokens to never rename, one per line, `#` comments.
    #[arg(long)]
    pub freeze: Option<PathBuf>,
    /// Use a bundle saved by `schrodinger map --out` instead of building one; it must have
    /// been built for this same tree.
    #[arg(long, conflicts_with_all = ["python", "freeze", "levels", "rename_pure_locals", "rewrite_share", "rewrite_regions", "rewrite_rules", "rewrite_skip"])]
    pub bundle: Option<PathBuf>,
    /// Also rename names outside code defines when the repository only uses them as local
    /// variables (stronger view, same behaviour of the repository). Off by default: new code
    /// written in the view that uses such a word for an outside API (`text=True`) is swapped
    /// on write-back like any renamed word, so the patch in the original is wrong there.
    #[arg(long)]
    pub rename_pure_locals: bool,
}

impl ViewArgs {
    /// The interpreter, resolved through PATH (not through symlinks: a virtual
    /// environment's `python` is a link to the base interpreter, with other site-packages).
    pub fn python_path(&self) -> PathBuf {
        resolve_program(self.python.as_deref().unwrap_or(Path::new("python3")))
    }

    /// The options given on the command line, as far as they were given.
    pub fn wanted(&self) -> Result<Wanted, CliError> {
        Ok(Wanted {
            seed: self.seed,
            levels: self.levels.as_deref().map(parse_levels).transpose()?,
            python: self
                .python
                .as_ref()
                .map(|_| self.python_path().to_string_lossy().into_owned()),
            freeze: self
                .freeze
                .as_deref()
                .map(bundle::read_freeze_file)
                .transpose()?,
            rename_pure_locals: self.rename_pure_locals.then_some(true),
            rewrite_share: self.rewrite_share,
            rewrite_rules: rewrite_rules(self)?.map(Some),
        })
    }
}

/// `p` as the shell would run it: a bare name is looked up in PATH, a relative path is made
/// absolute; symlinks are kept.
pub fn resolve_program(p: &Path) -> PathBuf {
    if p.components().count() > 1 || p.is_absolute() {
        return std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let c = dir.join(p);
            if c.is_file() {
                return std::path::absolute(&c).unwrap_or(c);
            }
        }
    }
    p.to_path_buf()
}

/// Which existing view a command renders for: a mount's (`--mount`), or the one saved in a
/// state directory (`--state`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PinArgs {
    /// Use the map of the view mounted (now or before) at MOUNTPOINT: the bundle it serves
    /// and, for Level 3, the layouts it saved.
    #[arg(long, value_name = "MOUNTPOINT", conflicts_with_all = ["state", "bundle"])]
    pub mount: Option<PathBuf>,
    /// Use the map of the view whose state directory is DIR (`mount --state DIR`).
    #[arg(long, value_name = "DIR", conflicts_with = "bundle")]
    pub state: Option<PathBuf>,
}

/// The map a command renders with: a bundle and, when it is a mount's, that mount's state
/// directory (its Level 3 layouts).
pub struct ViewMap {
    pub bundle: Bundle,
    pub state: Option<PathBuf>,
}

/// The map for `original` under `view` and `pin` (see `views`): a mount's saved bundle, a
/// `--bundle` file, or a fresh build checked against the live views of `original`.
pub fn resolve_map(original: &Path, view: &ViewArgs, pin: &PinArgs) -> Result<ViewMap, CliError> {
    let state = match (&pin.mount, &pin.state) {
        (Some(m), _) => {
            let m = m.canonicalize().unwrap_or_else(|_| m.clone());
            Some((
                views::state_of(&m),
                format!("the view mounted at {}", m.display()),
            ))
        }
        (None, Some(s)) => Some((
            s.clone(),
            format!("the view with state directory {}", s.display()),
        )),
        _ => None,
    };
    if let Some((state, whose)) = state {
        let orig = original
            .canonicalize()
            .map_err(|e| CliError::io(format!("ORIGINAL {}", original.display()), e))?;
        let Some((b, info)) = views::pinned(&state)? else {
            return Err(CliError::Msg(format!(
                "no view was made with state directory {} (it has no {}); mount one first, or                  give the view options instead",
                state.display(),
                views::BUNDLE_FILE
            )));
        };
        views::check_same_original(&state, &info, &orig)?;
        views::check_options(&b, &view.wanted()?, &whose)?;
        return Ok(ViewMap {
            bundle: b,
            state: Some(state),
        });
    }
    let (bundle, _) = build_bundle_and_tree(original, view)?;
    bundle_map(original, view, bundle)
}

/// A bundle built from ORIGINAL and view options, and the state of the live view it is the
/// map of, if any (see `views::against_live_views`).
pub fn bundle_map(original: &Path, view: &ViewArgs, bundle: Bundle) -> Result<ViewMap, CliError> {
    if view.bundle.is_some() {
        return Ok(ViewMap {
            bundle,
            state: None,
        });
    }
    let orig = original
        .canonicalize()
        .unwrap_or_else(|_| original.to_path_buf());
    let state = views::against_live_views(&orig, &bundle)?;
    let bundle = match &state {
        Some(s) => views::pinned(s)?.map(|(b, _)| b).unwrap_or(bundle),
        None => bundle,
    };
    Ok(ViewMap { bundle, state })
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
    /// Show every file of the view as owned by UID:GID (numbers), for an agent that runs as
    /// that user while the checkout belongs to another: with the kernel's permission checks
    /// it may then edit the tree. The original keeps its owners; files the agent creates
    /// belong to it.
    #[arg(long, value_parser = parse_owner)]
    pub owner: Option<(u32, u32)>,
    /// Record the requests the view serves in FILE, one JSON line each (time, operation,
    /// view path, bytes, errno; view names only), for `schrodinger trace summarize`. FILE
    /// must be outside the original and the mountpoint. Lines are written every 200 ms and
    /// at unmount. The kernel caches what it was served, so the trace holds each file's and
    /// each directory's first reads and listings, every write and every change of the tree,
    /// at no cost to warm reads; --trace-opens records every open too, at a cost.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// With --trace: serve files through handles (as --no-watch does) so that every open of
    /// a file reaches the daemon and is recorded (repeated reads and searches show), at the
    /// cost of a request per open and of one-second timeouts (docs/performance.md).
    #[arg(long, requires = "trace")]
    pub trace_opens: bool,
    /// Prepare the state directory and exit, mounting nothing (no FUSE needed, e.g. while
    /// an image is built): save the bundle, build the view's `.git` and render every file,
    /// so that a later `mount --state` of the same directory answers at once and serves each
    /// file's first read without transforming it. Give the same ORIGINAL, MOUNTPOINT, --state
    /// and view options as the later mount.
    #[arg(long, conflicts_with_all = ["foreground", "trace"])]
    pub prepare: bool,
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

/// Parse `UID:GID` (numbers).
pub fn parse_owner(s: &str) -> Result<(u32, u32), String> {
    let (u, g) = s
        .split_once(':')
        .ok_or_else(|| format!("{s:?}: expected UID:GID, two numbers"))?;
    let num = |x: &str| {
        x.parse::<u32>()
            .map_err(|_| format!("{s:?}: expected UID:GID, two numbers"))
    };
    Ok((num(u)?, num(g)?))
}

/// Parse `--levels` ("2", "3", "2,3", "2,3,4"; "0" alone for the identity view, no level).
pub fn parse_levels(s: &str) -> Result<Vec<u8>, CliError> {
    let mut levels = Vec::new();
    let mut identity = false;
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part {
            "0" => identity = true,
            "2" => levels.push(2),
            "3" => levels.push(3),
            "4" => levels.push(4),
            other => {
                return Err(CliError::Msg(format!(
                    "--levels takes a comma-separated list of levels: 2 (rename), 3 (reorder), \
                     4 (rewrite function bodies), or 0 alone (the identity view); got `{other}`"
                )))
            }
        }
    }
    if identity && !levels.is_empty() {
        return Err(CliError::Msg(
            "--levels 0 is the identity view and combines with no other level".into(),
        ));
    }
    if levels.is_empty() && !identity {
        return Err(CliError::Msg(
            "--levels is empty; use --levels 2,3 (or 0 for the identity view)".into(),
        ));
    }
    levels.sort_unstable();
    levels.dedup();
    Ok(levels)
}

/// Build the bundle that defines the view of `original` under `view`, checked against the
/// live views of `original` (`views::against_live_views`).
pub fn build_bundle(original: &Path, view: &ViewArgs) -> Result<Bundle, CliError> {
    let (b, _) = build_bundle_and_tree(original, view)?;
    Ok(bundle_map(original, view, b)?.bundle)
}

/// Build (or load, with `--bundle`) the bundle of `original` under `view`, also giving back
/// the tree that was read for it. No check against live views: see [`build_bundle`].
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
    let levels = parse_levels(view.levels.as_deref().unwrap_or("2,3"))?;
    let freeze = match &view.freeze {
        Some(p) => bundle::read_freeze_file(p)?,
        None => Vec::new(),
    };
    let rewrite = rewrite_options(view, &levels)?;
    let opts = BuildOptions {
        seed: view.seed.unwrap_or(0),
        levels,
        python: view.python_path(),
        freeze,
        cache_dir: bundle::default_cache_dir(),
        rename_pure_locals: view.rename_pure_locals,
        rewrite,
    };
    Ok(bundle::build(original, &opts)?)
}

/// Level 4's options from the command line; asking for them without Level 4 is an error
/// (they would silently do nothing).
fn rewrite_options(view: &ViewArgs, levels: &[u8]) -> Result<bundle::RewriteOptions, CliError> {
    let asked = view.rewrite_share.is_some()
        || view.rewrite_regions.is_some()
        || view.rewrite_rules.is_some()
        || view.rewrite_skip.is_some();
    if asked && !levels.contains(&4) {
        return Err(CliError::Msg(
            "--rewrite-share, --rewrite-regions, --rewrite-rules and --rewrite-skip choose what \
             Level 4 rewrites; add 4 to --levels (for example --levels 2,3,4)"
                .into(),
        ));
    }
    Ok(bundle::RewriteOptions {
        share: view
            .rewrite_share
            .unwrap_or(crate::transform::rewrite::DEFAULT_SHARE),
        regions: read_list(
            &view.rewrite_regions,
            crate::transform::rewrite::regions::parse,
        )?
        .unwrap_or_default(),
        rules: rewrite_rules(view)?,
        skip: read_list(&view.rewrite_skip, verify::skip::parse_skip_file)?.unwrap_or_default(),
    })
}

/// `--rewrite-rules` in the spelling the bundle keeps (`Rule::names_of`), checked.
fn rewrite_rules(view: &ViewArgs) -> Result<Option<String>, CliError> {
    use crate::transform::rewrite::Rule;
    view.rewrite_rules
        .as_deref()
        .map(|l| {
            Rule::mask_of(l)
                .map(Rule::names_of)
                .map_err(|e| CliError::Msg(format!("--rewrite-rules: {e}")))
        })
        .transpose()
}

/// A list file given on the command line, read and parsed; errors name the file.
fn read_list<T>(
    path: &Option<PathBuf>,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Option<T>, CliError> {
    let Some(p) = path else { return Ok(None) };
    let text = std::fs::read_to_string(p)
        .map_err(|e| CliError::io(format!("reading {}", p.display()), e))?;
    parse(&text)
        .map(Some)
        .map_err(|e| CliError::Msg(format!("{}: {e}", p.display())))
}

/// The transform of a bundle. With a state directory, Level 3 layouts saved by a mount are
/// taken up again, so the view reads back exactly what was written through it.
pub fn transform_of(b: &Bundle, state: Option<&Path>) -> Result<Composite, CliError> {
    transform_sharing(b, renamer_of(b)?, state, None)
}

/// The live transform of a mount (with the state directory's layouts) and a fresh one (for
/// rendering the original's `HEAD` into the view's `.git`), sharing their fresh Level 3
/// plans (`layout::PlanCache`): the live one's first write-back of a file the fresh one
/// rendered then plans nothing again. They share one Level 2 map too, which holds no
/// state: building it takes 0.1-0.2 s on Django, and a second copy costs memory.
pub fn live_and_fresh_transforms(
    b: &Bundle,
    state: &Path,
) -> Result<(Composite, Composite), CliError> {
    let plans = crate::transform::layout::PlanCache::default();
    let l2 = renamer_of(b)?;
    Ok((
        transform_sharing(b, l2.clone(), Some(state), Some(plans.clone()))?,
        transform_sharing(b, l2, None, Some(plans))?,
    ))
}

/// The Level 2 map of `b`, when its levels have 2.
fn renamer_of(b: &Bundle) -> Result<Option<Arc<Renamer>>, CliError> {
    Ok(if b.levels.contains(&2) {
        Some(Arc::new(b.renamer()?))
    } else {
        None
    })
}

fn transform_sharing(
    b: &Bundle,
    l2: Option<Arc<Renamer>>,
    state: Option<&Path>,
    plans: Option<crate::transform::layout::PlanCache>,
) -> Result<Composite, CliError> {
    let l3 = if b.levels.contains(&3) {
        let saved = state
            .and_then(crate::fs::saved_state::load)
            .filter(|st| st.seed == b.seed);
        let blobs = state.map(|s| s.join(crate::fs::TRANSFORM_BLOBS_DIR));
        let blob = |name: &str| {
            blobs
                .as_ref()
                .and_then(|d| std::fs::read(d.join(name)).ok())
        };
        Some({
            let store = match saved {
                Some(st) => LayoutStore::from_state(st, &blob),
                None => LayoutStore::new(b.seed),
            }
            .keeping_order_of(b.ordered.clone())
            .keeping_lines_of(b.pinned.iter().cloned());
            match plans {
                Some(p) => store.sharing_plans(p),
                None => store,
            }
        })
    } else {
        None
    };
    let l4 = b.levels.contains(&4).then(|| b.rewriter());
    Ok(Composite { l2, l3, l4 })
}

/// `schrodinger export`.
#[derive(Debug, Clone, clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub pin: PinArgs,
    /// The original checkout.
    pub original: PathBuf,
    /// Directory to write the view into (must not exist, or be empty).
    pub outdir: PathBuf,
}

/// Direction of `schrodinger translate`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Direction {
    /// To the view's names, paths and layouts (a problem statement or a gold patch to give
    /// the agent).
    View,
    /// To the original's (a log, a test id or a patch the agent produced).
    Original,
}

/// `schrodinger translate`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = TRANSLATE_HELP)]
pub struct TranslateArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub pin: PinArgs,
    /// Which coordinate system the output is in.
    #[arg(long, value_enum)]
    pub to: Direction,
    /// Render standard input as the content of this file (in the input's coordinates: an
    /// original path with `--to view`, a view path with `--to original`), by that file's
    /// rule: exactly the bytes the view serves for it, or the original it writes back to.
    #[arg(long, value_name = "FILE")]
    pub path: Option<PathBuf>,
    /// Standard input is a problem statement in Markdown: Python code blocks and inline code
    /// by the code rule, tracebacks line by line, prose, paths and test ids by the prose
    /// rule, URLs untouched. Every name of the repository it mentions, and what it became,
    /// is reported on standard error (or as JSON with --report).
    #[arg(long, conflicts_with = "path")]
    pub statement: bool,
    /// With --statement: write the report of the names mentioned as JSON to FILE.
    #[arg(long, value_name = "FILE", requires = "statement")]
    pub report: Option<PathBuf>,
    /// With --statement: pipe the translated statement through CMD (run by `sh -c`, for
    /// example a call of a model that rewords it) and print CMD's output instead, after
    /// checking it: every renamed name still there in view form, no original name of the
    /// repository, code blocks unchanged. Refuses with the list of what failed otherwise.
    #[arg(long, value_name = "CMD", requires = "statement")]
    pub paraphrase_cmd: Option<String>,
    /// The original checkout (the map is built from it).
    pub original: PathBuf,
}

const TRANSLATE_HELP: &str = "\
Without --path, standard input is free text (a problem statement, a traceback, test ids,
paths) and every name in it is translated by the prose rule. With --path FILE it is the
content of FILE and is rendered as the view renders that file (Python code by the code rule
and, with Level 3, in the view's order; other files by their format), so that
`translate --path F --to view < ORIGINAL/F` is byte for byte what the view serves for F.

Which map: --mount MOUNTPOINT or --state DIR use the bundle (and layouts) of that view, as it
serves them now or served them before unmount. Given only ORIGINAL and view options, the map
is built; if ORIGINAL is mounted with the same options and the build differs from that
view's map (files or the environment changed since), translate says so and stops.

With --statement, standard input is a problem statement in Markdown, rendered piece by piece
with the rule the view uses for that kind of text (see --statement); --paraphrase-cmd hands
the result to a rewriter of yours and checks what comes back.

Examples:
  schrodinger translate --mount /testbed --to view ORIGINAL < problem.txt
  schrodinger translate --mount /testbed --to view --statement --report names.json ORIGINAL < problem.md
  schrodinger translate --mount /testbed --to original ORIGINAL < failing_test_ids.txt
  schrodinger translate --mount /testbed --to view --path pkg/mod.py ORIGINAL < ORIGINAL/pkg/mod.py";
