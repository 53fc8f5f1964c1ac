//! Building the bundle: everything that defines one view of a tree.
//!
//! Guarantee (law 8): the same tree, seed and options give the same bundle on any machine.
//! Every collection is sorted (BTree*), the tree is walked in sorted order, and the only
//! randomness is ChaCha seeded from the seed. The environment scan (names outside code
//! defines) is cached per environment fingerprint, so a second mount does not repeat it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::transform::policy::{self, FreezeReason, PolicyInput};
use crate::transform::rename::{file_kind, FileKind, Renamer};
use crate::transform::{hidden_in_original, is_generated, lexicon, order};

/// The embedded environment scanner (run with the view's Python).
const ENVSCAN: &str = include_str!("envscan.py");

/// Why a bundle could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Python(String),
    #[error("{0}")]
    Invalid(String),
}

fn io_err(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> BundleError {
    let context = context.into();
    move |source| BundleError::Io { context, source }
}

/// Options of a view besides the tree.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub seed: u64,
    pub levels: Vec<u8>,
    /// Interpreter whose stdlib and site-packages are scanned.
    pub python: PathBuf,
    /// User freeze list entries.
    pub freeze: Vec<String>,
    /// Where the environment scan is cached (`None`: no cache).
    pub cache_dir: Option<PathBuf>,
    /// Rename outside names the repository only uses as locals (`policy::is_pure_local`).
    pub rename_pure_locals: bool,
    /// Level 4's choices (used when `levels` has 4).
    pub rewrite: RewriteOptions,
}

/// What Level 4 rewrites, as asked on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewriteOptions {
    /// Percent of functions rewritten.
    pub share: u8,
    /// Regions that must be rewritten (`--rewrite-regions`).
    pub regions: Vec<crate::transform::rewrite::regions::Region>,
    /// The rules in use, comma-separated names (`None`: all).
    pub rules: Option<String>,
    /// Functions kept as written (`--rewrite-skip`): original path -> qualified names.
    pub skip: BTreeMap<String, BTreeSet<String>>,
}

impl Default for RewriteOptions {
    fn default() -> Self {
        RewriteOptions {
            share: crate::transform::rewrite::DEFAULT_SHARE,
            regions: Vec::new(),
            rules: None,
            skip: BTreeMap::new(),
        }
    }
}

fn default_rewrite_share() -> u8 {
    crate::transform::rewrite::DEFAULT_SHARE
}

/// Everything that defines a view, serializable and deterministic.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bundle {
    pub tool_version: String,
    pub seed: u64,
    pub levels: Vec<u8>,
    /// Hash of every visible path and file content of the tree.
    pub tree_fingerprint: String,
    /// Original token -> virtual word (lowercase).
    pub tokens: BTreeMap<String, String>,
    /// Owned tokens left unrenamed because the vocabulary ran out.
    pub unmapped_tokens: Vec<String>,
    /// Frozen tokens with their reason.
    pub frozen_tokens: BTreeMap<String, FreezeReason>,
    /// Frozen runs that occur in the repository, with their reason.
    pub frozen_runs: BTreeMap<String, FreezeReason>,
    /// Names outside code defines (frozen wherever they appear, also in new code).
    pub outside_names: BTreeSet<String>,
    /// Runs the repository's code uses: strings and comments rename these.
    pub code_idents: BTreeSet<String>,
    /// Owned runs (defined by the repository) that the view renames.
    pub owned_runs: BTreeSet<String>,
    /// Owned runs that stay (frozen, or no token long enough to rename).
    pub frozen_owned: BTreeSet<String>,
    /// Owned runs renamed although they are in `outside_names`: the repository only uses
    /// them as local variables (`policy::is_pure_local`).
    #[serde(default)]
    pub local_runs: BTreeSet<String>,
    /// Plain words the code only uses as local variables (`policy::Findings::local_words`):
    /// renamed in code, kept as written in strings, comments and text, which is law 7's
    /// written exception for prose (docs/design-notes.md). Listed so that checks of the view
    /// know which owned runs text may still show.
    #[serde(default)]
    pub local_words: BTreeSet<String>,
    /// Extensions of the tree's file and directory names (each dot-separated part after a
    /// name's first dot): text keeps them where it shows them as extensions.
    #[serde(default)]
    pub extensions: BTreeSet<String>,
    /// Stems of the tree's file and directory names that join words with `_`: text reads a
    /// compound that names a file for the code names it carries (`Renamer::with_path_stems`).
    #[serde(default)]
    pub path_stems: BTreeSet<String>,
    /// Fingerprint of the Python environment whose scan the bundle used (`env_scan`).
    #[serde(default)]
    pub env_fingerprint: String,
    /// The interpreter that environment belongs to, as given (resolved through PATH).
    #[serde(default)]
    pub python: String,
    /// The user freeze list the bundle was built with.
    #[serde(default)]
    pub freeze: Vec<String>,
    /// Built with `--rename-pure-locals`.
    #[serde(default)]
    pub rename_pure_locals: bool,
    /// Names whose definitions keep their relative order in the view
    /// (`policy::Findings::ordered`).
    #[serde(default)]
    pub ordered: BTreeSet<String>,
    /// Original paths of Python files that Level 3 shows in their own order, because a file
    /// of the tree records their line numbers (`transform::pinned`).
    #[serde(default)]
    pub pinned: BTreeSet<String>,
    /// Level 4: percent of functions rewritten (`transform::rewrite`).
    #[serde(default = "default_rewrite_share")]
    pub rewrite_share: u8,
    /// Level 4: the rules in use, comma-separated (`None`: all of them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite_rules: Option<String>,
    /// Level 4: functions always rewritten, original path -> qualified names
    /// (`--rewrite-regions`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rewrite_forced: BTreeMap<String, BTreeSet<String>>,
    /// Level 4: functions kept as written because their rewrite changed a test's outcome
    /// (`--rewrite-skip`, as `verify --auto-skip-rewrites` writes it).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rewrite_skipped: BTreeMap<String, BTreeSet<String>>,
}

/// The options a command asks of a view, as far as they were given (`None`: not given).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wanted {
    pub seed: Option<u64>,
    pub levels: Option<Vec<u8>>,
    pub python: Option<String>,
    pub freeze: Option<Vec<String>>,
    pub rename_pure_locals: Option<bool>,
    /// Level 4's share and rules (the rules as `Rule::names_of` spells them; `Some(None)`:
    /// all rules).
    pub rewrite_share: Option<u8>,
    pub rewrite_rules: Option<Option<String>>,
}

impl Bundle {
    /// How the options in `want` disagree with what this bundle was built with, one phrase
    /// per option (empty: they agree).
    pub fn disagreements(&self, want: &Wanted) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(s) = want.seed.filter(|s| *s != self.seed) {
            out.push(format!("seed {s} (the view has seed {})", self.seed));
        }
        if let Some(l) = want.levels.as_ref().filter(|l| **l != self.levels) {
            out.push(format!(
                "levels {} (the view has levels {})",
                levels_text(l),
                levels_text(&self.levels)
            ));
        }
        if let Some(p) = want.python.as_ref().filter(|p| **p != self.python) {
            out.push(format!(
                "python {p} (the view was built for {})",
                if self.python.is_empty() {
                    "an unrecorded interpreter"
                } else {
                    &self.python
                }
            ));
        }
        if let Some(f) = want.freeze.as_ref() {
            let mut a = f.clone();
            let mut b = self.freeze.clone();
            a.sort();
            a.dedup();
            b.sort();
            b.dedup();
            if a != b {
                out.push(format!(
                    "a freeze list of {} names (the view froze {} names of its own)",
                    a.len(),
                    b.len()
                ));
            }
        }
        if let Some(s) = want.rewrite_share.filter(|s| *s != self.rewrite_share) {
            out.push(format!(
                "--rewrite-share {s} (the view rewrites {}% of functions)",
                self.rewrite_share
            ));
        }
        if let Some(r) = want
            .rewrite_rules
            .as_ref()
            .filter(|r| **r != self.rewrite_rules)
        {
            let text = |r: &Option<String>| r.clone().unwrap_or_else(|| "all".into());
            out.push(format!(
                "--rewrite-rules {} (the view uses {})",
                text(r),
                text(&self.rewrite_rules)
            ));
        }
        if let Some(r) = want
            .rename_pure_locals
            .filter(|r| *r != self.rename_pure_locals)
        {
            out.push(format!(
                "{} (the view was built {})",
                if r {
                    "--rename-pure-locals"
                } else {
                    "without --rename-pure-locals"
                },
                if self.rename_pure_locals {
                    "with it"
                } else {
                    "without it"
                }
            ));
        }
        out
    }

    /// The Level 2 map of this bundle; without Level 2 (`--levels 3`, the identity view
    /// `--levels 0`) a map that renames nothing, so text translates as the view shows it.
    pub fn renamer(&self) -> Result<Renamer, BundleError> {
        if !self.levels.contains(&2) {
            return Ok(Renamer::default());
        }
        level2_renamer(
            &self.tokens,
            &self.frozen_tokens,
            &self.frozen_runs,
            &self.outside_names,
            &self.local_runs,
            &self.code_idents,
            TreeNames {
                extensions: &self.extensions,
                path_stems: &self.path_stems,
            },
        )
        .map_err(BundleError::Invalid)
    }

    /// The Level 4 rewriter of this bundle (used when `levels` has 4).
    pub fn rewriter(&self) -> crate::transform::rewrite::Rewriter {
        let bytes = |m: &BTreeMap<String, BTreeSet<String>>| {
            m.iter()
                .map(|(p, names)| (p.as_bytes().to_vec(), names.clone()))
                .collect()
        };
        let r = crate::transform::rewrite::Rewriter::new(self.seed, self.rewrite_share);
        // Names were checked when the bundle was built; an unknown one (a bundle of a later
        // version) uses no rule rather than guess.
        let r = match &self.rewrite_rules {
            Some(list) => r.using(crate::transform::rewrite::Rule::mask_of(list).unwrap_or(0)),
            None => r,
        };
        r.forcing(bytes(&self.rewrite_forced))
            .skipping(bytes(&self.rewrite_skipped))
            .keeping_text_of(self.pinned.iter().map(|p| p.as_bytes().to_vec()))
    }
}

/// What the tree's own names fix in text: their extensions and their compound stems.
#[derive(Clone, Copy)]
struct TreeNames<'a> {
    extensions: &'a BTreeSet<String>,
    path_stems: &'a BTreeSet<String>,
}

/// The Level 2 map of a token map and the runs that decide how it applies: frozen runs and
/// outside names (those only locals use released) never change, code runs swap in data.
fn level2_renamer<V>(
    tokens: &BTreeMap<String, String>,
    frozen_tokens: &BTreeMap<String, FreezeReason>,
    frozen_runs: &BTreeMap<String, V>,
    outside_names: &BTreeSet<String>,
    local_runs: &BTreeSet<String>,
    code_idents: &BTreeSet<String>,
    tree: TreeNames,
) -> Result<Renamer, String> {
    Renamer::new(
        tokens.iter().map(|(a, b)| (a.as_str(), b.as_str())),
        frozen_runs
            .keys()
            .chain(outside_names.difference(local_runs))
            .map(String::as_str),
        code_idents.iter().map(String::as_str),
    )
    .map(|r| {
        r.with_extensions(tree.extensions.iter().map(String::as_str))
            .with_path_stems(tree.path_stems.iter().map(String::as_str))
            .with_fragments(
                frozen_tokens
                    .iter()
                    .filter(|(_, why)| **why == FreezeReason::Dynamic)
                    .map(|(t, _)| t.as_str()),
            )
    })
}

fn levels_text(l: &[u8]) -> String {
    if l.is_empty() {
        return "0".into();
    }
    l.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}

/// Write `bundle` to `path` atomically (temporary file in the same directory, synced, then
/// renamed), so a reader never sees half a bundle.
pub fn save(bundle: &Bundle, path: &Path) -> Result<(), BundleError> {
    use std::io::Write;
    let json = serde_json::to_vec_pretty(bundle)
        .map_err(|e| BundleError::Invalid(format!("serializing the bundle: {e}")))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .map_err(io_err(format!("creating a file in {}", dir.display())))?;
    tmp.write_all(&json)
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(io_err(format!("writing {}", path.display())))?;
    tmp.persist(path).map_err(|e| BundleError::Io {
        context: format!("writing {}", path.display()),
        source: e.error,
    })?;
    Ok(())
}

/// Read a bundle saved by [`save`] or `map --out`, without checking it against a tree.
pub fn read(path: &Path) -> Result<Bundle, BundleError> {
    let bytes =
        std::fs::read(path).map_err(io_err(format!("reading bundle {}", path.display())))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| BundleError::Invalid(format!("{} is not a bundle: {e}", path.display())))
}

/// One visible file of the tree.
pub struct TreeFile {
    /// Path relative to the root, original names.
    pub rel: PathBuf,
    pub content: Vec<u8>,
}

/// The visible part of a tree: files (with contents) and every path component name.
pub struct Tree {
    pub files: Vec<TreeFile>,
    pub dirs: Vec<PathBuf>,
    /// Tool output the view shows (an existing `build/`, `*.egg-info`, `.tox`...): listed
    /// for `export`, never read, never part of the bundle or its fingerprint.
    pub generated: Vec<PathBuf>,
}

/// Walk `root` in sorted order, skipping what the view hides, and read every regular file
/// (in parallel). Symlinks are listed by name only and never followed. Tool output
/// (`transform::is_generated`) is listed apart and not entered, so the bundle never depends
/// on its presence, content or order.
pub fn read_tree(root: &Path) -> Result<Tree, BundleError> {
    let mut paths = Vec::new();
    let mut dirs = Vec::new();
    let mut generated = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let abs = root.join(&rel);
        let rd = std::fs::read_dir(&abs).map_err(io_err(format!("reading {}", abs.display())))?;
        let mut entries: Vec<_> = rd.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let name = e.file_name();
            if hidden_in_original(name.as_encoded_bytes()) {
                continue;
            }
            let Ok(ft) = e.file_type() else { continue };
            let r = rel.join(&name);
            let package = || ft.is_dir() && abs.join(&name).join("__init__.py").is_file();
            if is_generated(name.as_encoded_bytes(), package) {
                generated.push(r);
                continue;
            }
            if ft.is_dir() {
                dirs.push(r.clone());
                stack.push(r);
            } else if ft.is_file() {
                paths.push(r);
            } else {
                dirs.push(r); // symlinks and others: names only
            }
        }
    }
    paths.sort();
    dirs.sort();
    generated.sort();
    let files = paths
        .into_par_iter()
        .map(|rel| {
            let abs = root.join(&rel);
            let content =
                std::fs::read(&abs).map_err(io_err(format!("reading {}", abs.display())))?;
            Ok(TreeFile { rel, content })
        })
        .collect::<Result<Vec<_>, BundleError>>()?;
    Ok(Tree {
        files,
        dirs,
        generated,
    })
}

/// Names from the Python environment, grouped by their top-level package.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EnvScan {
    /// "" for the stdlib and builtins, else a site-packages entry.
    pub groups: BTreeMap<String, Vec<String>>,
    /// For each site-packages group, the top-level modules its code imports.
    #[serde(default)]
    pub imports: BTreeMap<String, Vec<String>>,
    pub modules: Vec<String>,
    pub files: usize,
    /// The interpreter's builtin names (`dir(builtins)`), sorted.
    #[serde(default)]
    pub builtins: Vec<String>,
    /// Words of Unicode character names, lower case, and the names of the interpreter's codecs
    /// as codec lookup normalizes them (`iso_8859_1`): `policy::PolicyInput::data_words`.
    #[serde(default)]
    pub unicode_words: Vec<String>,
    /// For each group ("" for the stdlib), the dotted paths of its modules and packages.
    #[serde(default)]
    pub module_paths: BTreeMap<String, Vec<String>>,
    /// For each entry point group of the installed distributions (`pytest11`,
    /// `console_scripts`), the groups holding its plugins.
    #[serde(default)]
    pub entry_points: BTreeMap<String, Vec<String>>,
    /// For each group, the entry point groups its code names (and so loads).
    #[serde(default)]
    pub loads: BTreeMap<String, Vec<String>>,
    /// For each group, per top-level module it imports from outside the stdlib and itself,
    /// the names its code uses on that module (see `module_uses` in the scan script).
    #[serde(default)]
    pub uses: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    /// For each module (dotted), the name parts its code picks names by (see
    /// `Collector.compared` in the scan script and `policy::PolicyInput::compared_parts`).
    #[serde(default)]
    pub compared_parts: BTreeMap<String, Vec<(String, bool)>>,
    /// For each module in `compared_parts`, the identifiers its code spells as strings.
    #[serde(default)]
    pub compared_words: BTreeMap<String, Vec<String>>,
    /// For each module, the modules of `compared_parts` that importing it runs (see
    /// `reaching` in the scan script).
    #[serde(default)]
    pub compared_reach: BTreeMap<String, Vec<String>>,
    /// Which environment this is (see [`env_fingerprint`]); not part of the cached scan.
    #[serde(skip)]
    pub fingerprint: String,
    /// Names of the programs on `PATH` and beside the interpreter (`cpp`, `git`, `openssl`),
    /// read at every build, not cached: a string that spells one whole is the name an
    /// outside program is run by (`policy::PolicyInput::data_words`).
    #[serde(skip)]
    pub executables: Vec<String>,
}

/// The programs a subprocess can be started by name with: executable files in the
/// directories of `PATH` and in the interpreter's own directory (a venv's `bin`), whose names
/// are identifiers of three characters or more (`cpp`, `openssl`; not `x86_64-linux-gnu-gcc`
/// or `[`), sorted.
pub fn executables_on_path(python: &Path) -> Vec<String> {
    use std::os::unix::fs::PermissionsExt;
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(d) = python.parent().filter(|d| !d.as_os_str().is_empty()) {
        dirs.push(d.to_path_buf());
    }
    let mut out = BTreeSet::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let ident = name.len() >= 3
                && name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
            let runs = std::fs::metadata(e.path())
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
            if ident && runs {
                out.insert(name);
            }
        }
    }
    out.into_iter().collect()
}

fn run_envscan(python: &Path, args: &[&str]) -> Result<Vec<u8>, BundleError> {
    let out = Command::new(python)
        .arg("-I")
        .arg("-c")
        .arg(ENVSCAN)
        .args(args)
        .output()
        .map_err(|e| {
            BundleError::Python(format!(
                "cannot run {} ({e}); pass --python PATH to the interpreter the view runs under",
                python.display()
            ))
        })?;
    if !out.status.success() {
        return Err(BundleError::Python(format!(
            "{} failed to scan its environment: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

/// The fingerprint of the environment of `python` (interpreter, stdlib and site-packages
/// contents as the scanner sees them): a package installed or removed changes it.
pub fn env_fingerprint(python: &Path) -> Result<String, BundleError> {
    // `-c` makes sys.argv[0] "-c"; the script reads argv[1:].
    let fp = run_envscan(python, &["fingerprint"])?;
    let mut h = Sha256::new();
    h.update(ENVSCAN.as_bytes());
    h.update(&fp);
    Ok(hex(&h.finalize()[..16]))
}

/// Where the scan of the environment with fingerprint `key` is cached in `cache_dir`.
pub fn env_scan_cache_file(cache_dir: &Path, key: &str) -> PathBuf {
    cache_dir.join(format!("env-{key}.json"))
}

/// A scan of the environment of `python` that ignores every cache: the bytes
/// [`env_scan`] caches.
pub fn env_scan_fresh(python: &Path) -> Result<Vec<u8>, BundleError> {
    run_envscan(python, &["scan"])
}

/// Scan (or load from the cache) the names the environment of `python` defines.
pub fn env_scan(python: &Path, cache_dir: Option<&Path>) -> Result<EnvScan, BundleError> {
    let key = env_fingerprint(python)?;
    let cached = cache_dir.map(|d| env_scan_cache_file(d, &key));
    let loaded = cached
        .as_ref()
        .and_then(|c| std::fs::read(c).ok())
        .and_then(|bytes| serde_json::from_slice::<EnvScan>(&bytes).ok());
    let mut scan = match loaded {
        Some(scan) => scan,
        None => {
            tracing::info!("scanning the Python environment of {}", python.display());
            let out = env_scan_fresh(python)?;
            let scan: EnvScan = serde_json::from_slice(&out).map_err(|e| {
                BundleError::Python(format!("environment scan gave bad output: {e}"))
            })?;
            if let Some(c) = &cached {
                if let Some(d) = c.parent() {
                    let _ = std::fs::create_dir_all(d);
                }
                let tmp = c.with_extension(format!("tmp{}", std::process::id()));
                if std::fs::write(&tmp, &out).is_ok() {
                    let _ = std::fs::rename(&tmp, c);
                }
            }
            scan
        }
    };
    // Not part of the fingerprint: a shell with one more directory on `PATH` would make every
    // rebuilt bundle differ from a live view's; what the programs decide is in the bundle,
    // which commands compare whole.
    scan.fingerprint = key;
    scan.executables = executables_on_path(python);
    Ok(scan)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Module names the repository provides at its import roots (the root and `src/`): packages,
/// namespace directories holding Python files, and top-level modules.
fn own_modules(tree: &Tree) -> BTreeSet<String> {
    let mut own = BTreeSet::new();
    for f in &tree.files {
        let comps: Vec<_> = f.rel.components().collect();
        let comps: &[_] = if comps.len() > 1 && comps[0].as_os_str() == "src" {
            &comps[1..]
        } else {
            &comps[..]
        };
        let Some(first) = comps.first().and_then(|c| c.as_os_str().to_str()) else {
            continue;
        };
        let is_py = f.rel.extension().is_some_and(|e| e == "py");
        if !is_py {
            continue;
        }
        if comps.len() == 1 {
            if let Some(stem) = first.strip_suffix(".py") {
                own.insert(stem.to_string());
            }
        } else {
            own.insert(first.to_string());
        }
    }
    own
}

/// Every module name in the tree: Python file stems and directories holding Python files.
fn tree_modules(tree: &Tree) -> BTreeSet<String> {
    let mut m = BTreeSet::new();
    for f in &tree.files {
        if f.rel.extension().is_some_and(|e| e == "py") {
            if let Some(s) = f.rel.file_stem().and_then(|s| s.to_str()) {
                m.insert(s.to_string());
            }
            for a in f.rel.ancestors().skip(1) {
                if let Some(n) = a.file_name().and_then(|s| s.to_str()) {
                    m.insert(n.to_string());
                }
            }
        }
    }
    m.retain(|s| is_identifier(s));
    m
}

fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && !b[0].is_ascii_digit()
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// The outside programs the repository's Python files start by name
/// (`transform::programs`), among the environment's programs (`EnvScan::executables`): for
/// each, the files that start it and the bytes of its file and libraries. Not the
/// repository's own commands (named after its import roots or its definitions, as an
/// editable install puts them on `PATH`) nor a Python interpreter (whose names the scan
/// already has).
fn programs_run_by<'a>(
    python: &[(&'a str, &[u8])],
    env: &EnvScan,
    interpreter: &Path,
    own: &BTreeSet<String>,
    defined: &BTreeSet<String>,
) -> Vec<(Vec<&'a str>, Vec<Vec<u8>>)> {
    let runs: Vec<(&str, BTreeSet<String>)> = python
        .par_iter()
        .map(|(path, src)| (*path, crate::transform::programs::programs_run(src)))
        .filter(|(_, found)| !found.is_empty())
        .collect();
    let mut by_program: BTreeMap<&str, Vec<&'a str>> = BTreeMap::new();
    for (path, found) in &runs {
        for name in found {
            by_program.entry(name).or_default().push(path);
        }
    }
    by_program
        .into_iter()
        .filter(|(n, _)| {
            env.executables
                .binary_search_by(|e| e.as_str().cmp(n))
                .is_ok()
        })
        .filter(|(n, _)| !own.contains(*n) && !defined.contains(*n) && !n.starts_with("python"))
        .filter_map(|(n, files)| {
            let p = crate::programs::locate(n, interpreter)?;
            tracing::info!(program = %p.display(), "reading a program the repository runs");
            Some((files, crate::programs::program_bytes(&p)))
        })
        .collect()
}

/// Fingerprint of the visible tree: paths and contents.
pub fn tree_fingerprint(tree: &Tree) -> String {
    let mut h = Sha256::new();
    for f in &tree.files {
        h.update(f.rel.as_os_str().as_encoded_bytes());
        h.update([0]);
        h.update(Sha256::digest(&f.content));
    }
    for d in &tree.dirs {
        h.update(d.as_os_str().as_encoded_bytes());
        h.update([1]);
    }
    hex(&h.finalize())
}

/// Read a `--freeze` file: one name or token per line, `#` starts a comment.
pub fn read_freeze_file(path: &Path) -> Result<Vec<String>, BundleError> {
    let text = std::fs::read_to_string(path)
        .map_err(io_err(format!("reading freeze list {}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if !is_identifier(line) {
            return Err(BundleError::Invalid(format!(
                "{}:{}: `{line}` is not an identifier",
                path.display(),
                i + 1
            )));
        }
        out.push(line.to_string());
    }
    Ok(out)
}

/// Build the bundle of a tree with a given environment scan.
pub fn build_with_env(
    tree: &Tree,
    env: &EnvScan,
    opts: &BuildOptions,
    progress: &Progress,
) -> Bundle {
    let own = own_modules(tree);
    let tmods = tree_modules(tree);
    let env_modules: BTreeSet<String> = env.modules.iter().cloned().collect();
    let builtins: BTreeSet<String> = env.builtins.iter().cloned().collect();
    let mut python = Vec::new();
    let mut text = Vec::new();
    let mut binary = Vec::new();
    for f in &tree.files {
        let name = f.rel.as_os_str().as_encoded_bytes();
        match file_kind(name, &f.content) {
            FileKind::Python => python.push((f.rel.to_str().unwrap_or(""), f.content.as_slice())),
            FileKind::Text => text.push((f.rel.to_str().unwrap_or(""), f.content.as_slice())),
            FileKind::Binary => binary.push(f.content.as_slice()),
        }
    }
    let python_paths: Vec<&str> = python.iter().map(|(p, _)| *p).collect();
    let mut names: Vec<&str> = Vec::new();
    for p in tree.files.iter().map(|f| &f.rel).chain(tree.dirs.iter()) {
        if let Some(n) = p.file_name().and_then(|n| n.to_str()) {
            names.push(n);
        }
    }
    progress.phase("parsing", python.len() as u64);
    let t = std::time::Instant::now();
    // Independent, and the first is mostly one thread's work (set inserts): the two run side
    // by side.
    // The import statements are read once, beside the definitions, for the environment's
    // reach and for `never_run` below.
    let ((mut env_names, imports), defs) = rayon::join(
        || {
            let imports: Vec<Vec<policy::Import>> = python
                .par_iter()
                .map(|(_, src)| policy::imports(src))
                .collect();
            let names = reachable_env_names(env, &python, &imports, &own, &tmods, &env_modules);
            (names, imports)
        },
        || input_defined(&python, progress),
    );
    let InputDefs {
        defined,
        listed,
        fields,
    } = defs;
    // Module names the environment provides stay too: code names them in strings
    // (`importorskip("tomllib")`, `import_module("json")`).
    env_names.extend(env_modules.iter().filter(|m| !own.contains(*m)).cloned());
    tracing::info!(elapsed = ?t.elapsed(), "definitions parsed");
    progress.phase("choosing names", 0);
    // A program's name is data outside code looks up, like a Unicode word: a string that
    // spells one whole stays (pycparser runs `'cpp'`). The repository's own commands (an
    // editable install puts `flask` on `PATH`) are named after its import roots: those, and
    // what it defines, are its names, not outside ones.
    let data_words: BTreeSet<String> = env
        .unicode_words
        .iter()
        .cloned()
        .chain(
            env.executables
                .iter()
                .filter(|e| !own.contains(*e) && !defined.contains(*e))
                .map(|e| e.to_ascii_lowercase()),
        )
        .collect();
    let programs = programs_run_by(&python, env, &opts.python, &own, &defined);
    let input = PolicyInput {
        python,
        text,
        binary,
        programs: programs
            .iter()
            .map(|(files, bytes)| (files.clone(), bytes.iter().map(Vec::as_slice).collect()))
            .collect(),
        names,
        dirs: tree.dirs.iter().filter_map(|d| d.to_str()).collect(),
        own_modules: &own,
        env_modules: &env_modules,
        env_names: &env_names,
        builtins: &builtins,
        release_locals: opts.rename_pure_locals,
        tree_modules: &tmods,
        user: &opts.freeze,
        defined: &defined,
        data_words: &data_words,
        compared_parts: &env.compared_parts,
        compared_words: &env.compared_words,
        compared_reach: &env.compared_reach,
        fields: &fields,
    };
    let t = std::time::Instant::now();
    // The outside names' words (below) depend on the environment alone: found while the
    // policy's one-thread stretches leave a core free.
    let (found, outside_words) =
        rayon::join(|| policy::analyze(&input), || outside_words(&env_names));
    tracing::info!(elapsed = ?t.elapsed(), "policy analyzed");
    let t = std::time::Instant::now();

    // Never use as a virtual word: any token of the repository, any word of an outside name
    // in any case, keywords. A word whose upper-case or capitalised spelling is an outside
    // name (`CLIPBOARD`) would render a renamed word in that shape (`BYWEEKDAY`) as a
    // frozen run: strings would keep it while compounds in code change it. A word of a longer
    // outside name (`cape` of the time zone `Cape_Verde`) would be read back as the token it
    // stands for wherever text is translated word by word (arrow's test ids
    // `[Atlantic/Cape_Verde]` came back as `Date_Verde`), and in a new name an agent writes
    // with it.
    let mut excluded = found.seen_tokens.clone();
    excluded.extend(outside_words);
    excluded.extend(env_modules.iter().map(|m| m.to_ascii_lowercase()));
    excluded.extend(policy::KEYWORDS.iter().map(|k| k.to_ascii_lowercase()));
    // A tool's fixed name (`manage`, `fixture`) must not appear as a renamed word either.
    excluded.extend(policy::TOOL_RUNS.iter().map(|k| k.to_ascii_lowercase()));
    excluded.extend(policy::TOOL_TOKENS.iter().map(|k| k.to_string()));
    // Nor a name setuptools skips when it looks for top-level packages and modules.
    excluded.extend(
        policy::FLAT_LAYOUT_SKIPPED_DIRS
            .iter()
            .chain(policy::FLAT_LAYOUT_SKIPPED_MODULES)
            .map(|k| k.to_string()),
    );
    // Frozen tokens that are no token of the repository (top-level domains) are no virtual
    // word either.
    excluded.extend(found.frozen_tokens.keys().cloned());
    let (mut tokens, unmapped) = lexicon::assign(&found.owned_tokens, &excluded, opts.seed);
    tracing::info!(elapsed = ?t.elapsed(), "words drawn");
    let extensions = tree_extensions(tree);
    let path_stems = tree_path_stems(tree);
    let mut pinned = crate::transform::pinned::recorded_files(
        &python_paths,
        tree.files.iter().map(|f| f.content.as_slice()),
    );
    pinned.extend(crate::transform::never_run::text_files(
        &python_paths,
        &imports,
    ));
    keep_sibling_order(
        order_groups(tree, listed),
        &found,
        &env_names,
        TreeNames {
            extensions: &extensions,
            path_stems: &path_stems,
        },
        &excluded,
        opts.seed,
        &mut tokens,
    );
    // Lower-case joins of CamelCase names (`logentry` of `LogEntry`) map with them and count
    // as names the code uses, so strings holding them change alike.
    let path_tokens: BTreeSet<String> = tree
        .files
        .iter()
        .map(|f| &f.rel)
        .chain(tree.dirs.iter())
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()))
        .flat_map(|n| policy::all_tokens(n).collect::<Vec<_>>())
        .collect();
    let joined = lexicon::joined_pairs(
        &found.owned_runs,
        &tokens,
        &excluded,
        |j| {
            found.frozen_tokens.contains_key(j)
                || found.frozen_runs.contains_key(j)
                || env_names.contains(j)
        },
        |j| path_tokens.contains(j),
    );
    let mut code_idents = text_names(&found);
    code_idents.extend(joined.keys().cloned());
    tokens.extend(joined);

    // Only the frozen runs relevant to this repository are listed by reason; outside names
    // are kept whole because new code written in the view may use any of them.
    Bundle {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        seed: opts.seed,
        levels: opts.levels.clone(),
        tree_fingerprint: tree_fingerprint(tree),
        tokens,
        unmapped_tokens: unmapped,
        frozen_tokens: found.frozen_tokens,
        frozen_runs: found.frozen_runs,
        outside_names: env_names,
        code_idents,
        owned_runs: found.owned_runs,
        frozen_owned: found.frozen_owned,
        local_runs: found.local_runs,
        local_words: found.local_words,
        extensions,
        path_stems,
        env_fingerprint: env.fingerprint.clone(),
        python: opts.python.to_string_lossy().into_owned(),
        freeze: opts.freeze.clone(),
        rename_pure_locals: opts.rename_pure_locals,
        ordered: found.ordered,
        pinned,
        rewrite_share: opts.rewrite.share,
        rewrite_rules: opts.rewrite.rules.clone(),
        rewrite_forced: BTreeMap::new(),
        rewrite_skipped: opts.rewrite.skip.clone(),
    }
}

/// The words of outside names (letters only), in lower case.
fn outside_words(names: &BTreeSet<String>) -> Vec<String> {
    let mut words: Vec<String> = names
        .par_iter()
        .flat_map_iter(|n| {
            policy::all_tokens(n).filter(|w| w.bytes().all(|b| b.is_ascii_alphabetic()))
        })
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// The runs strings, comments and text swap as names: what the code uses, less the plain
/// words it only uses as locals (`policy::Findings::local_words`).
fn text_names(found: &policy::Findings) -> BTreeSet<String> {
    found
        .code_runs
        .difference(&found.local_words)
        .cloned()
        .collect()
}

/// What must sort in the view as in the original (law 5): the entries of each directory of
/// the tree (generated entries are left out, as everywhere in the bundle), each group of
/// names the code lists side by side, and the attributes of each tag written sorted
/// (`transform::listed`).
fn order_groups(tree: &Tree, listed: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let mut dirs: BTreeMap<&Path, Vec<String>> = BTreeMap::new();
    for p in tree.files.iter().map(|f| &f.rel).chain(tree.dirs.iter()) {
        if let (Some(parent), Some(name)) = (p.parent(), p.file_name().and_then(|n| n.to_str())) {
            dirs.entry(parent).or_default().push(name.to_string());
        }
    }
    // Tags whose attributes are written sorted, in any file that is not binary; the same
    // group appears in hundreds of expected outputs, so each is kept once.
    let tags: BTreeSet<Vec<String>> = tree
        .files
        .par_iter()
        .filter(|f| {
            let name = f.rel.as_os_str().as_encoded_bytes();
            crate::transform::rename::file_kind(name, &f.content)
                != crate::transform::rename::FileKind::Binary
        })
        .map(|f| {
            crate::transform::listed::sorted_attributes(&f.content)
                .into_iter()
                .map(|g| g.into_iter().map(str::to_string).collect::<Vec<_>>())
                .collect::<BTreeSet<_>>()
        })
        .reduce(BTreeSet::new, |mut a, b| {
            a.extend(b);
            a
        });
    dirs.into_values().chain(listed).chain(tags).collect()
}

/// Law 5 (`transform::order`): move the drawn words so that every group of `order_groups`
/// sorts the same in the view.
fn keep_sibling_order(
    groups: Vec<Vec<String>>,
    found: &policy::Findings,
    env_names: &BTreeSet<String>,
    tree: TreeNames,
    excluded: &BTreeSet<String>,
    seed: u64,
    tokens: &mut BTreeMap<String, String>,
) {
    let Ok(mut renamer) = level2_renamer(
        tokens,
        &found.frozen_tokens,
        &found.frozen_runs,
        env_names,
        &found.local_runs,
        &text_names(found),
        tree,
    ) else {
        return;
    };
    let spare = lexicon::spare(&found.owned_tokens, excluded, tokens, seed);
    let t = std::time::Instant::now();
    // A word made up for a redraw passes the draw's own test.
    let free = |w: &str| lexicon::is_free(w, &found.owned_tokens, excluded);
    let repair = order::keep_sibling_order(&mut renamer, &groups, &spare, &free);
    tracing::info!(elapsed = ?t.elapsed(), "order repaired");
    for (token, word) in tokens.iter_mut() {
        if let Some(w) = renamer.word_of(token) {
            *word = w.to_string();
        }
    }
    tracing::info!(?repair, "directory order kept");
}

/// The stems of the tree's names (before the first dot that is not the first byte, as
/// `Renamer::swap_name` splits them) that join two or more words with `_`.
fn tree_path_stems(tree: &Tree) -> BTreeSet<String> {
    tree.files
        .iter()
        .map(|f| &f.rel)
        .chain(tree.dirs.iter())
        .filter_map(|p| p.file_name().and_then(|n| n.to_str()))
        .map(|n| &n[..crate::transform::rename::stem_len(n.as_bytes())])
        .filter(|stem| stem.trim_matches('_').contains('_'))
        .map(str::to_string)
        .collect()
}

/// The extensions of every name in the tree, as `Renamer::swap_name` keeps them: the parts
/// after the first dot that is not the first byte (`tar` and `gz` of `data.tar.gz`).
fn tree_extensions(tree: &Tree) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for p in tree.files.iter().map(|f| &f.rel).chain(tree.dirs.iter()) {
        if let Some(name) = p.file_name().and_then(|n| n.to_str()) {
            out.extend(crate::transform::name_extensions(name).map(str::to_string));
        }
    }
    out
}

/// Names defined or used by outside code that can touch the repository:
///
/// - the stdlib and builtins, always;
/// - every name of the *reached* site-packages groups: those the repository imports, the
///   plugins of every entry point group that reached code names (pytest's `pytest11`
///   plugins, loaded by name from metadata and never imported by the repository), and,
///   transitively, everything those import;
/// - from every group that imports the repository itself (pytest importing `iniconfig`, a
///   plugin importing the repository's API), the names its code uses on the repository's
///   modules (`EnvScan::uses`): such code calls the repository by those names whether or not
///   the repository imports it;
/// - every component of the module paths of the stdlib and of the reached groups
///   (`"urllib.robotparser"` keeps `robotparser`), since code names modules in strings.
///
/// Groups the repository never reaches cannot call its code, so their other names need not be
/// frozen (a large environment would otherwise freeze most English words); a reverse
/// dependency contributes only the names it uses on the repository for the same reason.
fn reachable_env_names(
    env: &EnvScan,
    python: &[(&str, &[u8])],
    imports: &[Vec<policy::Import>],
    own: &BTreeSet<String>,
    tree_modules: &BTreeSet<String>,
    env_modules: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut start = BTreeSet::new();
    for file_imports in imports {
        for imp in file_imports {
            if imp.level == 0 {
                if let Some(top) = imp.module.first() {
                    let outside = !own.contains(top)
                        && (env_modules.contains(top) || !tree_modules.contains(top));
                    if outside {
                        start.insert(top.clone());
                    }
                }
            }
        }
    }
    // A module the code loads by its name held in a string (jsonpickle's
    // `load_backend('simplejson')`, `importlib.import_module("yaml")`) is imported all the
    // same: its names are outside names (its `use_decimal=`, passed on in a mapping).
    let named: BTreeSet<String> = python
        .par_iter()
        .flat_map_iter(|(_, src)| module_strings(src))
        .filter(|top| !own.contains(top) && env_modules.contains(top))
        .collect();
    start.extend(named);
    let reverse = reverse_dependencies(env, own);
    let reach = reached_groups(env, start, own);
    let mut names = BTreeSet::new();
    for (group, list) in &env.groups {
        if group.is_empty() || reach.contains(group) {
            names.extend(list.iter().cloned());
        }
    }
    for g in &reverse {
        if let Some(per) = env.uses.get(*g) {
            for m in own {
                names.extend(per.get(m).into_iter().flatten().cloned());
            }
        }
    }
    for (group, paths) in &env.module_paths {
        if group.is_empty() || reach.contains(group) {
            for p in paths {
                names.extend(p.split('.').map(str::to_string));
            }
        }
    }
    names
}

/// The top-level modules of the dotted names that string literals of `src` spell whole
/// (`'simplejson'`, `"yaml.constructor"`).
fn module_strings(src: &[u8]) -> BTreeSet<String> {
    static WHOLE: std::sync::LazyLock<regex::bytes::Regex> = std::sync::LazyLock::new(|| {
        regex::bytes::Regex::new(r#"['"]([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z_][A-Za-z0-9_]*)*['"]"#)
            .expect("a valid pattern")
    });
    WHOLE
        .captures_iter(src)
        .filter_map(|c| std::str::from_utf8(&c[1]).ok().map(str::to_string))
        .collect()
}

/// Whether a group is a copy of the repository itself: installed into the environment
/// (group `mine`) or vendored inside another package (`setuptools._vendor.more_itertools`).
/// Such a copy is the repository's own code, not outside code.
fn is_copy_of_repository(group: &str, own: &BTreeSet<String>) -> bool {
    own.contains(group.rsplit('.').next().unwrap_or(group))
}

/// The groups whose code imports one of the repository's top-level modules.
fn reverse_dependencies<'e>(env: &'e EnvScan, own: &BTreeSet<String>) -> BTreeSet<&'e str> {
    env.imports
        .iter()
        .filter(|(g, imps)| {
            !g.is_empty() && !is_copy_of_repository(g, own) && imps.iter().any(|m| own.contains(m))
        })
        .map(|(g, _)| g.as_str())
        .collect()
}

/// The groups reachable from the repository's imports `start`: followed through what each
/// group imports, and through the plugins of each entry point group that the stdlib or a
/// reached group names. Only code that runs in the repository's process loads plugins into
/// it: a reverse dependency that is not reached (setuptools naming `console_scripts`, whose
/// programs include pip) would reach programs that never meet the repository.
fn reached_groups(
    env: &EnvScan,
    start: BTreeSet<String>,
    own: &BTreeSet<String>,
) -> BTreeSet<String> {
    let mut reach = BTreeSet::new();
    let mut loaded: BTreeSet<&str> = BTreeSet::new();
    let mut todo: Vec<String> = start.into_iter().collect();
    loop {
        while let Some(g) = todo.pop() {
            if is_copy_of_repository(&g, own)
                || !env.groups.contains_key(&g)
                || !reach.insert(g.clone())
            {
                continue;
            }
            if let Some(next) = env.imports.get(&g) {
                todo.extend(next.iter().filter(|n| !reach.contains(*n)).cloned());
            }
        }
        for (consumer, eps) in &env.loads {
            if !(consumer.is_empty() || reach.contains(consumer)) {
                continue;
            }
            for ep in eps {
                if loaded.insert(ep.as_str()) {
                    let plugins = env.entry_points.get(ep).into_iter().flatten();
                    todo.extend(plugins.filter(|p| !reach.contains(*p)).cloned());
                }
            }
        }
        if todo.is_empty() {
            return reach;
        }
    }
}

/// What the Python files define, list together and annotate (`defs::file_defs`), over all
/// files, read in parallel.
#[derive(Default)]
struct InputDefs {
    defined: BTreeSet<String>,
    listed: Vec<Vec<String>>,
    fields: BTreeSet<String>,
}

fn input_defined(python: &[(&str, &[u8])], progress: &Progress) -> InputDefs {
    let owned = |s: std::collections::HashSet<&str>| -> BTreeSet<String> {
        s.into_iter().map(str::to_string).collect()
    };
    python
        .par_iter()
        .map(|(_, src)| {
            let d = crate::transform::defs::file_defs(src);
            progress.inc();
            InputDefs {
                defined: owned(d.defined),
                listed: d
                    .listed
                    .into_iter()
                    .map(|g| g.into_iter().map(str::to_string).collect())
                    .collect(),
                fields: owned(d.fields),
            }
        })
        .reduce(InputDefs::default, |mut a, b| {
            a.defined.extend(b.defined);
            a.listed.extend(b.listed);
            a.fields.extend(b.fields);
            a
        })
}

/// Build the bundle of the tree at `root`; the tree read for it comes back too, so a caller
/// that needs the files (map, export) does not read them twice.
pub fn build(root: &Path, opts: &BuildOptions) -> Result<(Bundle, Tree), BundleError> {
    let progress = Progress::new();
    let t = std::time::Instant::now();
    progress.phase("scanning the Python environment and reading the tree", 0);
    // The two are independent: the scan (or its cache's fingerprint) waits on a Python
    // process while the tree is read.
    let (env, tree) = std::thread::scope(|s| {
        let env = s.spawn(|| {
            let env = env_scan(&opts.python, opts.cache_dir.as_deref());
            tracing::info!(elapsed = ?t.elapsed(), "environment scan ready");
            env
        });
        let tree = read_tree(root);
        tracing::info!(elapsed = ?t.elapsed(), "tree read");
        let env = env.join().unwrap_or_else(|_| {
            Err(BundleError::Python(
                "the environment scan's thread panicked".into(),
            ))
        });
        (env, tree)
    });
    let (env, tree) = (env?, tree?);
    tracing::info!(files = tree.files.len(), "tree and environment ready");
    let mut b = build_with_env(&tree, &env, opts, &progress);
    if !opts.rewrite.regions.is_empty() {
        b.rewrite_forced =
            crate::transform::rewrite::regions::resolve(&opts.rewrite.regions, |p| {
                tree.files
                    .iter()
                    .find(|f| f.rel.as_os_str().as_encoded_bytes() == p.as_bytes())
                    .filter(|_| p.ends_with(".py"))
                    .map(|f| f.content.clone())
            })
            .map_err(BundleError::Invalid)?;
    }
    tracing::info!(elapsed = ?t.elapsed(), "bundle built");
    progress.finish();
    Ok((b, tree))
}

/// Load a saved bundle and check that it was made for this tree (read for the check and
/// returned).
pub fn load(path: &Path, root: &Path) -> Result<(Bundle, Tree), BundleError> {
    let b = read(path)?;
    let tree = read_tree(root)?;
    let fp = tree_fingerprint(&tree);
    if fp != b.tree_fingerprint {
        return Err(BundleError::Invalid(format!(
            "bundle {} was built for another tree (fingerprint {}…, this tree {}…); \
             rebuild it with `schrodinger map --out` on this tree",
            path.display(),
            &b.tree_fingerprint[..12.min(b.tree_fingerprint.len())],
            &fp[..12]
        )));
    }
    Ok((b, tree))
}

/// A progress bar on standard error that shows itself only on a terminal and only once the
/// work has taken longer than half a second.
pub struct Progress {
    bar: indicatif::ProgressBar,
    start: std::time::Instant,
    shown: std::sync::atomic::AtomicBool,
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

impl Progress {
    pub fn new() -> Self {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::hidden());
        Progress {
            bar,
            start: std::time::Instant::now(),
            shown: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// A silent progress (for tests and library callers).
    pub fn hidden() -> Self {
        let p = Self::new();
        p.shown.store(true, std::sync::atomic::Ordering::Relaxed);
        p
    }

    fn maybe_show(&self) {
        use std::io::IsTerminal;
        use std::sync::atomic::Ordering;
        if !self.shown.load(Ordering::Relaxed)
            && self.start.elapsed() > std::time::Duration::from_millis(500)
            && !self.shown.swap(true, Ordering::Relaxed)
            && std::io::stderr().is_terminal()
        {
            self.bar
                .set_draw_target(indicatif::ProgressDrawTarget::stderr());
        }
    }

    /// Start a phase; `len` 0 shows a spinner.
    pub fn phase(&self, msg: &str, len: u64) {
        let style = if len == 0 {
            indicatif::ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
        } else {
            indicatif::ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} [{elapsed}]")
        };
        if let Ok(st) = style {
            self.bar.set_style(st.progress_chars("=> "));
        }
        self.bar.set_length(len);
        self.bar.set_position(0);
        self.bar.set_message(msg.to_string());
        self.maybe_show();
        self.bar.tick();
    }

    pub fn inc(&self) {
        self.bar.inc(1);
        self.maybe_show();
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Default cache directory for environment scans.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(x).join("schrodinger"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("schrodinger"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn imports_of(python: &[(&str, &[u8])]) -> Vec<Vec<policy::Import>> {
        python.iter().map(|(_, src)| policy::imports(src)).collect()
    }

    #[test]
    fn read_tree_skips_what_the_view_hides() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("pkg/__pycache__")).unwrap();
        std::fs::create_dir_all(r.join(".git")).unwrap();
        std::fs::write(r.join("pkg/mod.py"), "x = 1\n").unwrap();
        std::fs::write(r.join("pkg/__pycache__/mod.cpython-311.pyc"), "\0").unwrap();
        std::fs::write(r.join("pkg/old.pyc"), "\0").unwrap();
        std::fs::write(r.join(".git/HEAD"), "ref\n").unwrap();
        // A write-back cut short by a killed daemon leaves its temporary file behind.
        std::fs::write(
            r.join(format!("pkg/{}1.2", crate::transform::WRITEBACK_TMP_PREFIX)),
            "",
        )
        .unwrap();
        let t = read_tree(r).unwrap();
        let files: Vec<_> = t.files.iter().map(|f| f.rel.clone()).collect();
        assert_eq!(files, [PathBuf::from("pkg/mod.py")]);
        assert_eq!(t.dirs, [PathBuf::from("pkg")]);
    }

    /// Law 8: tool output anywhere in the tree (a hypothesis database, an egg-info, a
    /// build directory, coverage data, pytest's temporary cache) changes nothing in the
    /// bundle; a source package that happens to be named `build` is part of it.
    #[test]
    fn tool_output_never_enters_the_bundle() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        let put = |p: &str, b: &str| {
            let p = r.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, b).unwrap();
        };
        put("pkg/__init__.py", "");
        put(
            "pkg/ledger.py",
            "class LoanLedger:\n    def settle(self):\n        return 1\n",
        );
        put(
            "tests/test_ledger.py",
            "from pkg.ledger import LoanLedger\n",
        );
        put("docs/conf.py", "project = 'pkg'\n");
        std::fs::create_dir_all(r.join("src")).unwrap();
        let opts = BuildOptions {
            seed: 4,
            levels: vec![2, 3],
            python: PathBuf::from("python3"),
            freeze: vec![],
            cache_dir: None,
            rename_pure_locals: false,
            rewrite: Default::default(),
        };
        let bundle = || {
            let tree = read_tree(r).unwrap();
            build_with_env(&tree, &EnvScan::default(), &opts, &Progress::hidden())
        };
        let clean = bundle();
        put(".hypothesis/examples/a1/b2", "\0\x01LoanLedger");
        put("tests/.hypothesis/unicode_data/13.0.0/charmap.json.gz", "x");
        put(
            "pkg.egg-info/SOURCES.txt",
            "pkg/ledger.py\nsettle_account\n",
        );
        put("src/other.egg-info/PKG-INFO", "Name: other\n");
        put(
            "build/lib/pkg/ledger.py",
            "class LoanLedger:\n    def settle_all(self): pass\n",
        );
        put("docs/build/html/index.html", "<p>rebuild_everything</p>");
        put(".coverage", "\0sqlite");
        put(".coverage.host.1.2", "\0sqlite");
        put("htmlcov/index.html", "cover_me");
        put(".tox/py311/lib/x.py", "def tox_only(): pass\n");
        put(".mypy_cache/3.11/pkg.json", "{}");
        put("pytest-cache-files-abc123/v/cache/nodeids", "[]");
        put("pkg/__pycache__/ledger.cpython-311.pyc", "\0");
        let dirty = bundle();
        assert_eq!(clean, dirty);
        let tree = read_tree(r).unwrap();
        assert!(
            tree.generated.contains(&PathBuf::from("pkg.egg-info"))
                && tree.generated.contains(&PathBuf::from("docs/build")),
            "{:?}",
            tree.generated
        );
        // A package named build is source.
        put("src/build/__init__.py", "def make_wheel(): pass\n");
        let with_package = bundle();
        assert_ne!(clean.tree_fingerprint, with_package.tree_fingerprint);
        assert!(with_package.owned_runs.contains("make_wheel"));
    }

    #[test]
    fn disagreements_name_each_option_given_that_differs() {
        let tree = one_file_tree("m.py", "def loan_total(x):\n    return x\n");
        let opts = BuildOptions {
            seed: 7,
            levels: vec![2, 3],
            python: PathBuf::from("/usr/bin/python3"),
            freeze: vec!["loan".into()],
            cache_dir: None,
            rename_pure_locals: false,
            rewrite: Default::default(),
        };
        let b = build_with_env(&tree, &EnvScan::default(), &opts, &Progress::hidden());
        assert!(
            b.disagreements(&Wanted::default()).is_empty(),
            "nothing given"
        );
        let same = Wanted {
            seed: Some(7),
            levels: Some(vec![2, 3]),
            python: Some("/usr/bin/python3".into()),
            freeze: Some(vec!["loan".into(), "loan".into()]),
            rename_pure_locals: Some(false),
            rewrite_share: Some(crate::transform::rewrite::DEFAULT_SHARE),
            rewrite_rules: Some(None),
        };
        assert!(
            b.disagreements(&same).is_empty(),
            "{:?}",
            b.disagreements(&same)
        );
        let other = Wanted {
            seed: Some(8),
            levels: Some(vec![2]),
            python: Some("/opt/venv/bin/python".into()),
            freeze: Some(vec![]),
            rename_pure_locals: Some(true),
            rewrite_share: Some(100),
            rewrite_rules: Some(Some("swap_quotes".into())),
        };
        let d = b.disagreements(&other);
        assert_eq!(d.len(), 7, "{d:?}");
        assert!(
            d[0].starts_with("seed 8") && d[1].starts_with("levels 2"),
            "{d:?}"
        );
        let json = serde_json::to_vec(&b).unwrap();
        let back: Bundle = serde_json::from_slice(&json).unwrap();
        assert_eq!(back, b);
    }

    #[test]
    fn the_view_renames_outside_names_that_are_only_locals() {
        let src = "def shuffle_cards(deck):\n    remaining = list(deck)\n    values = remaining\n    len = 3\n    return values, len\n\ndef show(d):\n    return d.values()\n";
        let tree = one_file_tree("pkg/cards.py", src);
        let env = EnvScan {
            groups: [(
                String::new(),
                ["remaining", "values", "len", "list"]
                    .map(String::from)
                    .to_vec(),
            )]
            .into_iter()
            .collect(),
            builtins: vec!["len".into(), "list".into()],
            ..EnvScan::default()
        };
        let opts = BuildOptions {
            rename_pure_locals: true,
            ..level2(3)
        };
        let off = BuildOptions {
            rename_pure_locals: false,
            ..opts.clone()
        };
        let b = build_with_env(&tree, &env, &off, &Progress::hidden());
        assert!(b.local_runs.is_empty(), "released without the option");
        let b = build_with_env(&tree, &env, &opts, &Progress::hidden());
        assert!(b.local_runs.contains("remaining"), "{:?}", b.local_runs);
        // `values` is also an attribute, `len` a builtin: both stay.
        assert!(!b.local_runs.contains("values") && !b.local_runs.contains("len"));
        let r = b.renamer().unwrap();
        let view = r.swap_content(b"pkg/cards.py", src.as_bytes()).into_owned();
        let view = String::from_utf8(view).unwrap();
        assert!(!view.contains("remaining"), "{view}");
        assert!(
            view.contains("values = ") && view.contains("len = 3"),
            "{view}"
        );
        assert_eq!(
            r.swap_content(b"pkg/cards.py", view.as_bytes()),
            src.as_bytes()
        );
    }
    /// No virtual word is an outside name of one word in another case: dateutil's test
    /// string `"BYWEEKDAY"` stayed while the handler `_handle_BYWEEKDAY` changed, because
    /// `byweekday` drew `clipboard` and `CLIPBOARD` is a name outside code defines (a frozen
    /// run, which strings keep). Here every other vocabulary word is an outside name, in
    /// upper case or capitalised; without the rule about half the draws land on one.
    #[test]
    fn no_virtual_word_is_an_outside_name_in_another_case() {
        let src = "ORDER_BY = 'BYWEEKDAY'\n\ndef handle_byweekday(sprocket, gadget, widget):\n    return sprocket + gadget + widget\n\nclass Flywheel:\n    flange_count = 3\n    def rotate_flywheel(self, torque_value):\n        return torque_value\n";
        let tree = one_file_tree("pkg/wheel.py", src);
        let outside: Vec<String> = crate::transform::lexicon::vocabulary()
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(i, w)| {
                if i % 4 == 0 {
                    w.to_ascii_uppercase()
                } else {
                    let mut c = w.to_string();
                    c[..1].make_ascii_uppercase();
                    c
                }
            })
            .collect();
        let env = EnvScan {
            groups: [(String::new(), outside.clone())].into_iter().collect(),
            ..EnvScan::default()
        };
        let b = build_with_env(&tree, &env, &level2(11), &Progress::hidden());
        assert!(b.tokens.len() >= 10, "{:?}", b.tokens);
        let outside_lower: BTreeSet<String> =
            outside.iter().map(|w| w.to_ascii_lowercase()).collect();
        for (token, word) in &b.tokens {
            assert!(
                !outside_lower.contains(word),
                "{token} -> {word}, an outside name in another case"
            );
        }
    }

    /// No virtual word is a word of a longer outside name (`cape` of `Cape_Verde`, `hill` of
    /// `Broken_Hill`): word-by-word translation would read it back as the token it stands
    /// for. Here every other vocabulary word is a word of an outside compound, in snake,
    /// camel or upper case; without the rule about half the draws land on one.
    #[test]
    fn no_virtual_word_is_a_word_of_an_outside_name() {
        let src = "def handle_byweekday(sprocket, gadget, widget):\n    return sprocket + gadget + widget\n\nclass Flywheel:\n    flange_count = 3\n    def rotate_flywheel(self, torque_value):\n        return torque_value\n";
        let tree = one_file_tree("pkg/wheel.py", src);
        let words: Vec<&str> = crate::transform::lexicon::vocabulary()
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, w)| w)
            .collect();
        let outside: Vec<String> = words
            .chunks(2)
            .enumerate()
            .map(|(i, pair)| {
                let (a, b) = (pair[0], pair.get(1).copied().unwrap_or("zone"));
                let cap = |w: &str| w[..1].to_ascii_uppercase() + &w[1..];
                match i % 3 {
                    0 => format!("{}_{}", cap(a), cap(b)),
                    1 => format!("{}{}", cap(a), cap(b)),
                    _ => format!("{}_{}", a.to_ascii_uppercase(), b.to_ascii_uppercase()),
                }
            })
            .collect();
        let env = EnvScan {
            groups: [(String::new(), outside)].into_iter().collect(),
            ..EnvScan::default()
        };
        let b = build_with_env(&tree, &env, &level2(11), &Progress::hidden());
        assert!(b.tokens.len() >= 10, "{:?}", b.tokens);
        for (token, word) in &b.tokens {
            assert!(
                !words.contains(&word.as_str()),
                "{token} -> {word}, a word of an outside name"
            );
        }
    }

    /// PLY collects its lexer rules by the start of their names (`f[:2] == 't_'`), splits
    /// each name at underscores and matches the parts with the strings of its `tokens` and
    /// `states` tuples: the view renamed `t_MINUS` but kept `'MINUS'` ("Rule 't_BADLY'
    /// defined for an unspecified token BADLY"), so pycparser's lexer did not build. The
    /// strings that spell a rest change with the names; `t_error`, whose rest is an outside
    /// name the code compares with, keeps it. A string that spells no rest (`'GOLF'`) is
    /// data as before.
    #[test]
    fn strings_spelling_the_rest_of_names_picked_by_their_start_change_with_them() {
        let src = "tokens = ('PLUS', 'NUMBER', 'GOLF')\nstates = (('comment', 'exclusive'),)\n\n\
                   def collect(ldict):\n    rules = [f for f in ldict if f[:2] == 't_']\n    \
                   out = {}\n    for f in rules:\n        parts = f.split('_')\n        \
                   if parts[-1] == 'error':\n            continue\n        out[f] = parts\n    \
                   return out\n\n\
                   class Lexer:\n    t_PLUS = r'\\+'\n    t_comment_ignore = ' '\n\n    \
                   def t_NUMBER(self, t):\n        return t\n\n    \
                   def t_comment_end(self, t):\n        t.lexer.begin('INITIAL')\n\n    \
                   def t_error(self, t):\n        return t\n";
        let tree = one_file_tree("pkg/lexer.py", src);
        let env = EnvScan {
            groups: [(String::new(), vec!["error".to_string()])]
                .into_iter()
                .collect(),
            ..EnvScan::default()
        };
        let b = build_with_env(&tree, &env, &level2(7), &Progress::hidden());
        let r = b.renamer().unwrap();
        let view = String::from_utf8(r.swap_content(b"pkg/lexer.py", src.as_bytes()).into_owned())
            .unwrap();
        let image = |w: &str| -> String {
            let line = format!("{w}\n");
            let v = r
                .swap_content(b"pkg/lexer.py", line.as_bytes())
                .into_owned();
            String::from_utf8(v).unwrap().trim_end().to_string()
        };
        let (plus, number, comment) = (image("t_PLUS"), image("t_NUMBER"), image("t_comment_end"));
        assert!(plus != "t_PLUS" && number != "t_NUMBER", "{view}");
        let plus = plus.strip_prefix("t_").unwrap();
        let number = number.strip_prefix("t_").unwrap();
        let comment = comment
            .strip_prefix("t_")
            .unwrap()
            .split('_')
            .next()
            .unwrap();
        assert_ne!(comment, "comment", "{view}");
        assert!(
            view.contains(&format!(" = ('{plus}', '{number}', 'GOLF')")),
            "{view}"
        );
        assert!(
            view.contains(&format!("(('{comment}', 'exclusive'),)")),
            "{view}"
        );
        assert!(
            view.contains("def t_error(") && view.contains("== 'error'"),
            "{view}"
        );
        assert_eq!(
            r.swap_content(b"pkg/lexer.py", view.as_bytes()),
            src.as_bytes()
        );
    }

    /// A string that spells a program's name whole is the name an outside program is run
    /// by: pycparser runs the C preprocessor as `'cpp'`, and the view made it `'elk'` while
    /// `cpp_path` was renamed for its other word. The repository's own command (named after
    /// its import root, on `PATH` after an editable install) stays one of its names.
    #[test]
    fn strings_naming_a_program_on_the_path_stay() {
        let src = "import subprocess\n\ndef preprocess(cpp_path='cpp', gadget='gadget'):\n    \
                   return subprocess.run([cpp_path, 'pkg', gadget])\n\ndef gadget_cpp():\n    return 1\n";
        // PLY's preprocessor is a module of the tree named `cpp`: a name the code uses.
        let tree = tree_of(&[
            ("pkg/run.py", src.as_bytes()),
            ("pkg/cpp.py", b"def expand(text):\n    return text\n"),
        ]);
        let env = EnvScan {
            groups: [(
                String::new(),
                vec!["subprocess".to_string(), "run".to_string()],
            )]
            .into_iter()
            .collect(),
            executables: vec!["cpp".into(), "pkg".into()],
            ..EnvScan::default()
        };
        let b = build_with_env(&tree, &env, &level2(7), &Progress::hidden());
        let r = b.renamer().unwrap();
        let view =
            String::from_utf8(r.swap_content(b"pkg/run.py", src.as_bytes()).into_owned()).unwrap();
        assert!(view.contains("='cpp'"), "{view}");
        assert!(!view.contains("cpp_path"), "the name is renamed: {view}");
        assert!(
            !view.contains("'pkg'"),
            "the repository's own command: {view}"
        );
        let without = EnvScan {
            executables: vec![],
            ..env
        };
        let b = build_with_env(&tree, &without, &level2(7), &Progress::hidden());
        let view = b
            .renamer()
            .unwrap()
            .swap_content(b"pkg/run.py", src.as_bytes())
            .into_owned();
        assert!(!String::from_utf8(view).unwrap().contains("'cpp'"));
    }

    /// Programs are found on `PATH` and beside the interpreter, by identifier-like names.
    #[test]
    fn programs_beside_the_interpreter_are_found() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        for (name, mode) in [("flywheel", 0o755), ("notes", 0o644), ("x86-gcc", 0o755)] {
            let p = dir.path().join(name);
            std::fs::write(&p, b"#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let found = executables_on_path(&dir.path().join("python"));
        assert!(found.contains(&"flywheel".to_string()), "{found:?}");
        assert!(!found.contains(&"notes".to_string()), "not executable");
        assert!(!found.contains(&"x86-gcc".to_string()), "not an identifier");
    }

    #[test]
    fn words_only_locals_use_stay_in_strings_and_comments() {
        // parso keeps its message word in a local named after it
        // (`cannot = "can't" if old else "cannot"`) and compares the message with CPython's.
        // The local is renamed in code; the data and the prose keep the English word. A word
        // that code exposes elsewhere (`loaded`, an attribute in another file) is a name
        // strings follow.
        let files = vec![
            TreeFile {
                rel: PathBuf::from("pkg/errors.py"),
                content: b"def message(old):\n    cannot = 'cant' if old else 'cannot'\n    \
                           # cannot happen\n    loaded = cannot\n    return cannot + ' assign', loaded\n"
                    .to_vec(),
            },
            TreeFile {
                rel: PathBuf::from("pkg/state.py"),
                content: b"class Flags:\n    def mark(self):\n        self.loaded = 'loaded'\n".to_vec(),
            },
        ];
        let tree = Tree {
            files,
            dirs: vec![PathBuf::from("pkg")],
            generated: vec![],
        };
        let b = build_with_env(&tree, &EnvScan::default(), &level2(7), &Progress::hidden());
        let r = b.renamer().unwrap();
        let view = String::from_utf8(
            r.swap_content(b"errors.py", &tree.files[0].content)
                .into_owned(),
        )
        .unwrap();
        assert!(!view.contains("cannot ="), "the local is renamed:\n{view}");
        assert!(view.contains("else 'cannot'"), "{view}");
        assert!(view.contains("# cannot happen"), "{view}");
        let state = String::from_utf8(
            r.swap_content(b"state.py", &tree.files[1].content)
                .into_owned(),
        )
        .unwrap();
        assert!(
            !state.contains("'loaded'"),
            "an exposed name's string follows it: {state}"
        );
    }

    #[test]
    fn every_directory_sorts_in_the_view_as_in_the_original() {
        // Twelve test modules and a kept `conftest.py`: a seeded draw alone puts twelve
        // random words in sorted order about once in 479 million times.
        let stems = [
            "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
            "juliet", "kilo", "lima",
        ];
        let mut files: Vec<TreeFile> = stems
            .iter()
            .map(|s| TreeFile {
                rel: PathBuf::from(format!("tests/{s}_test.py")),
                content: format!("def {s}_case():\n    return 1\n").into_bytes(),
            })
            .collect();
        files.push(TreeFile {
            rel: PathBuf::from("tests/conftest.py"),
            content: b"\n".to_vec(),
        });
        let tree = Tree {
            files,
            dirs: vec![PathBuf::from("tests")],
            generated: vec![],
        };
        let opts = level2(7);
        let b = build_with_env(&tree, &EnvScan::default(), &opts, &Progress::hidden());
        let r = b.renamer().unwrap();
        let mut orig: Vec<String> = tree
            .files
            .iter()
            .map(|f| f.rel.file_name().unwrap().to_str().unwrap().to_string())
            .collect();
        orig.sort();
        let view: Vec<String> = orig
            .iter()
            .map(|n| String::from_utf8(r.swap_name(n.as_bytes()).into_owned()).unwrap())
            .collect();
        assert_ne!(view, orig, "the names are renamed");
        let mut sorted = view.clone();
        sorted.sort();
        assert_eq!(view, sorted);
    }

    /// The real scan script over a made-up site-packages: a package's vendored copy of another
    /// package is a group of its own, named by its import path and reached through its host.
    #[test]
    fn env_scan_keeps_vendored_copies_apart() {
        let d = tempfile::tempdir().unwrap();
        let stdlib = d.path().join("stdlib");
        let site = d.path().join("site");
        let vendored = site.join("host/_vendor/mine");
        std::fs::create_dir_all(&stdlib).unwrap();
        std::fs::create_dir_all(&vendored).unwrap();
        std::fs::write(site.join("host/__init__.py"), "def host_api(x): pass\n").unwrap();
        std::fs::write(vendored.join("__init__.py"), "def mine_only(y): pass\n").unwrap();
        std::fs::write(d.path().join("envscan.py"), ENVSCAN).unwrap();
        let script = format!(
            "import json, sys; sys.path.insert(0, {dir:?}); import envscan\n\
             envscan.roots = lambda: ({stdlib:?}, [{site:?}])\n\
             print(json.dumps(envscan.scan()))",
            dir = d.path().to_str().unwrap(),
            stdlib = stdlib.to_str().unwrap(),
            site = site.to_str().unwrap(),
        );
        let out = Command::new("python3")
            .args(["-I", "-c", &script])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let scan: EnvScan = serde_json::from_slice(&out.stdout).unwrap();
        let group = |g: &str| scan.groups.get(g).cloned().unwrap_or_default();
        assert!(group("host").contains(&"host_api".to_string()));
        assert!(!group("host").contains(&"mine_only".to_string()));
        assert!(group("host._vendor.mine").contains(&"mine_only".to_string()));
        assert_eq!(
            scan.imports.get("host"),
            Some(&vec!["host._vendor.mine".to_string()])
        );
    }

    #[test]
    fn a_vendored_copy_of_the_repository_is_not_outside_code() {
        let env = EnvScan {
            groups: [
                ("host".to_string(), vec!["host_api".to_string()]),
                (
                    "host._vendor.mine".to_string(),
                    vec!["mine_only".to_string()],
                ),
                (
                    "host._vendor.other".to_string(),
                    vec!["other_api".to_string()],
                ),
            ]
            .into_iter()
            .collect(),
            imports: [(
                "host".to_string(),
                vec![
                    "host._vendor.mine".to_string(),
                    "host._vendor.other".to_string(),
                ],
            )]
            .into_iter()
            .collect(),
            ..EnvScan::default()
        };
        let src: &[u8] = b"import host\n";
        let python = [("mine/use.py", src)];
        let modules: BTreeSet<String> = ["host".to_string()].into_iter().collect();
        let names = |own: &[&str]| {
            let own: BTreeSet<String> = own.iter().map(|s| s.to_string()).collect();
            reachable_env_names(
                &env,
                &python,
                &imports_of(&python),
                &own,
                &BTreeSet::new(),
                &modules,
            )
        };
        let as_repo = names(&["mine"]);
        assert!(as_repo.contains("host_api") && as_repo.contains("other_api"));
        assert!(!as_repo.contains("mine_only"), "{as_repo:?}");
        // For any other repository the copy is outside code, reached through its host.
        assert!(names(&["elsewhere"]).contains("mine_only"));
    }

    /// Law 7 for binary files: the view serves them unchanged, so a name stored in one must
    /// not be a name the view renames, or the original name would show through (documents,
    /// images and fonts excepted: `a_document_may_show_a_name_the_view_renames`).
    #[test]
    fn no_renamed_name_is_stored_in_a_binary_file() {
        let py = b"class LoanLedger:\n    pass\n\nclass ShelfCode:\n    pass\n";
        let blob = b"\x00\x01LoanLedger\x00\xff".to_vec();
        let tree = Tree {
            files: vec![
                TreeFile {
                    rel: PathBuf::from("pkg/data.bin"),
                    content: blob.clone(),
                },
                TreeFile {
                    rel: PathBuf::from("pkg/ledger.py"),
                    content: py.to_vec(),
                },
            ],
            dirs: vec![PathBuf::from("pkg")],
            generated: vec![],
        };
        let opts = level2(2);
        let b = build_with_env(&tree, &EnvScan::default(), &opts, &Progress::hidden());
        let r = b.renamer().unwrap();
        assert_eq!(r.swap_content(b"pkg/data.bin", &blob), &blob[..]);
        let view = String::from_utf8(r.swap_content(b"pkg/ledger.py", py).into_owned()).unwrap();
        assert!(view.contains("class LoanLedger:"), "{view}");
        assert!(
            !view.contains("ShelfCode"),
            "the test needs a renamed name: {view}"
        );
        for run in &b.owned_runs {
            assert!(
                !blob.windows(run.len()).any(|w| w == run.as_bytes()),
                "{run} is renamed but stored in a binary file"
            );
        }
    }

    /// The written exception to law 7 (docs/design-notes.md, "Deliberate differences"): a
    /// document, an image or a font is served unchanged like every binary file, but the names
    /// it stores do not freeze (`transform::media`), so the view renames a class whose
    /// original spelling the file still shows. Any other binary file keeps the rule above.
    #[test]
    fn a_document_may_show_a_name_the_view_renames() {
        let py = b"class LoanLedger:\n    pass\n";
        let pdf = b"%PDF-1.4\n\x00 /Title (LoanLedger diagram)".to_vec();
        let tree = tree_of(&[("docs/ledger.pdf", &pdf), ("pkg/ledger.py", py)]);
        let b = build_with_env(&tree, &EnvScan::default(), &level2(2), &Progress::hidden());
        let r = b.renamer().unwrap();
        assert_eq!(r.swap_content(b"docs/ledger.pdf", &pdf), &pdf[..]);
        let view = String::from_utf8(r.swap_content(b"pkg/ledger.py", py).into_owned()).unwrap();
        assert!(!view.contains("LoanLedger"), "{view}");
        assert!(b.owned_runs.contains("LoanLedger"));
    }

    /// The Level 2+3 bundle of `files`, and a check that with its `pinned` list Level 3
    /// shows `kept` as it is and `moved` (the same text) in another order, under a seed that
    /// reorders `moved`.
    fn level3_bundle(files: &[(&str, &[u8])]) -> Bundle {
        let mut opts = level2(4);
        opts.levels = vec![2, 3];
        build_with_env(
            &tree_of(files),
            &EnvScan::default(),
            &opts,
            &Progress::hidden(),
        )
    }

    fn assert_pinned_keeps_order(b: &Bundle, kept: &str, moved: &str, text: &[u8]) {
        use crate::transform::layout::LayoutStore;
        let seed = (0..64)
            .find(|&s| LayoutStore::new(s).to_view(moved.as_bytes(), text) != text)
            .expect("some seed reorders four functions");
        let store = LayoutStore::new(seed).keeping_lines_of(b.pinned.iter().cloned());
        assert_eq!(store.to_view(kept.as_bytes(), text), text);
        assert_ne!(store.to_view(moved.as_bytes(), text), text);
    }

    const FOUR_FUNCTIONS: &[u8] = b"import sys\n\n\ndef alpha():\n    return 1\n\n\ndef beta():\n    return 2\n\n\ndef gamma():\n    return 3\n\n\ndef delta():\n    return 4\n";

    /// A script whose traceback the tree keeps as an expected output (loguru compares
    /// `File "tests/source/crash.py", line 9, in b` with what the script prints) is shown in
    /// its own order by Level 3; the same text under a name nothing records still moves.
    #[test]
    fn scripts_whose_lines_the_tree_records_keep_their_order() {
        let expected: &[u8] =
            b"Traceback (most recent call last):\n  File \"tests/source/crash.py\", line 9, in beta\n";
        let b = level3_bundle(&[
            ("tests/output/crash.txt", expected),
            ("tests/source/__init__.py", b""),
            ("tests/source/crash.py", FOUR_FUNCTIONS),
            ("tests/source/quiet.py", FOUR_FUNCTIONS),
        ]);
        assert_eq!(b.pinned, set(&["tests/source/crash.py"]));
        let (kept, moved) = ("tests/source/crash.py", "tests/source/quiet.py");
        assert_pinned_keeps_order(&b, kept, moved, FOUR_FUNCTIONS);
    }

    /// A `.py` file outside any package that nothing imports or collects is data to the
    /// tree (a formatter's case: an input and its expected output in one file): Level 3 shows
    /// it in its own order; a module of a package with the same text still moves.
    #[test]
    fn python_files_nothing_runs_keep_their_order() {
        let reader: &[u8] = b"from pathlib import Path\n\n\ndef read_case(name):\n    return Path('tests/cases', name + '.py').read_text()\n";
        let b = level3_bundle(&[
            ("fmt/__init__.py", b""),
            ("fmt/steps.py", FOUR_FUNCTIONS),
            ("tests/cases/steps.py", FOUR_FUNCTIONS),
            ("tests/test_cases.py", reader),
        ]);
        assert_eq!(b.pinned, set(&["tests/cases/steps.py"]));
        assert_pinned_keeps_order(&b, "tests/cases/steps.py", "fmt/steps.py", FOUR_FUNCTIONS);
    }

    /// Python 2 byte code left in a tree (Django's `0001_initial.pyc-tpl`, a fixture of a
    /// stale `.pyc`) is never loaded by a Python 3 interpreter: it keeps no name from being
    /// renamed, and its view shows none of the original names (law 7), its magic intact and
    /// its bytes given back exactly (law 3).
    #[test]
    fn python2_byte_code_freezes_nothing_and_shows_no_original_name() {
        let py = b"from shelf.ledger import LoanLedger\n";
        let lib = b"class LoanLedger:\n    pass\n";
        let mut pyc = vec![0x03, 0xf3, b'\r', b'\n', 0, 0, 0, 0, b'c'];
        pyc.extend_from_slice(b"\x00\x00shelf.ledger\x00LoanLedger\x00t\x04\x00\x00\x00shelf");
        let mut py3 = pyc.clone();
        py3[0..2].copy_from_slice(&3413u16.to_le_bytes());
        let file = |rel: &str, content: &[u8]| TreeFile {
            rel: PathBuf::from(rel),
            content: content.to_vec(),
        };
        let tree = |stale: &[u8]| Tree {
            files: vec![
                file("app.py", py),
                file("fixtures/0001_initial.pyc-tpl", stale),
                file("shelf/__init__.py", b""),
                file("shelf/ledger.py", lib),
            ],
            dirs: vec![PathBuf::from("fixtures"), PathBuf::from("shelf")],
            generated: vec![],
        };
        let b = build_with_env(
            &tree(&pyc),
            &EnvScan::default(),
            &level2(2),
            &Progress::hidden(),
        );
        let r = b.renamer().unwrap();
        let name = b"fixtures/0001_initial.pyc-tpl";
        let view = r.swap_content(name, &pyc).into_owned();
        assert_eq!(&view[..4], &pyc[..4], "the magic stays");
        assert_eq!(r.swap_content(name, &view), &pyc[..]);
        for run in ["shelf", "ledger", "LoanLedger"] {
            assert!(b.owned_runs.contains(run), "{run} is renamed");
            assert!(
                !view.windows(run.len()).any(|w| w == run.as_bytes()),
                "{run} shows in the view of the byte code"
            );
        }
        // Byte code a Python 3 interpreter may load keeps what it stores.
        let b3 = build_with_env(
            &tree(&py3),
            &EnvScan::default(),
            &level2(2),
            &Progress::hidden(),
        );
        assert!(!b3.owned_runs.contains("shelf"));
        let r3 = b3.renamer().unwrap();
        assert_eq!(r3.swap_content(name, &py3), &py3[..]);
    }

    /// A tree of these files (path, content), their directories listed.
    #[test]
    fn top_level_entries_setuptools_skips_keep_their_names_in_a_flat_layout() {
        let files: &[(&str, &[u8])] = &[
            (
                "inflect/__init__.py",
                b"def plural(word):\n    return word\n",
            ),
            ("docs/conf.py", b"project = 'inflect'\n"),
            ("docs/index.rst", b"Plurals\n=======\n"),
            (
                "tools/release.py",
                b"def bump(version):\n    return version\n",
            ),
            ("tasks.py", b"def lint():\n    pass\n"),
            ("pyproject.toml", b"[project]\nname = 'inflect'\n"),
        ];
        let view_names = |tree: &Tree| -> Vec<String> {
            let b = build_with_env(tree, &EnvScan::default(), &level2(7), &Progress::hidden());
            let r = b.renamer().unwrap();
            tree.dirs
                .iter()
                .map(|d| d.to_str().unwrap())
                .chain(tree.files.iter().map(|f| f.rel.to_str().unwrap()))
                .filter(|p| !p.contains('/'))
                .map(|p| String::from_utf8(r.swap_name(p.as_bytes()).into_owned()).unwrap())
                .collect()
        };
        let flat = view_names(&tree_of(files));
        for kept in ["docs", "tools", "tasks.py", "pyproject.toml"] {
            assert!(flat.iter().any(|n| n == kept), "{kept} in {flat:?}");
        }
        assert!(!flat.iter().any(|n| n == "inflect"), "{flat:?}");
        // With the package under `src/`, setuptools looks there: the names at the top are free.
        let moved: Vec<(String, &[u8])> = files
            .iter()
            .map(|(p, c)| match p.strip_prefix("inflect/") {
                Some(rest) => (format!("src/inflect/{rest}"), *c),
                None => (p.to_string(), *c),
            })
            .collect();
        let moved: Vec<(&str, &[u8])> = moved.iter().map(|(p, c)| (p.as_str(), *c)).collect();
        let src = view_names(&tree_of(&moved));
        assert!(
            !src.iter().any(|n| n == "tools" || n == "tasks.py"),
            "{src:?}"
        );
    }

    /// An installed lexer module that picks names by `t_` (as PLY does) and spells `ignore`
    /// as a string: in the repository, a subclass in a file that does not import it keeps
    /// the token a string of its `tokens` list spells (`'BUCKET'` and `t_BUCKET` change
    /// together), rests the module spells keep their words (`t_ignore`), rests nothing spells
    /// are free, and every picked name keeps its place relative to the others.
    #[test]
    fn names_an_outside_module_picks_by_a_part_keep_what_it_reads() {
        let mut env = made_up_env(&[("", &[]), ("lexkit", &["lex", "token"])], &[]);
        env.compared_parts = [("lexkit".to_string(), vec![("t_".to_string(), true)])]
            .into_iter()
            .collect();
        env.compared_words = [("lexkit".to_string(), strs(&["ignore", "token"]))]
            .into_iter()
            .collect();
        env.compared_reach = [("lexkit".to_string(), strs(&["lexkit"]))]
            .into_iter()
            .collect();
        // A picker of the same package that the repository's imports do not run.
        env.compared_parts
            .insert("lexkit.guess".to_string(), vec![("is_".to_string(), true)]);
        env.compared_reach
            .insert("lexkit.guess".to_string(), strs(&["lexkit.guess"]));
        let files: &[(&str, &[u8])] = &[
            (
                "ledger/lexer.py",
                b"import lexkit


class BaseLexer:
    tokens = ['PAIL']
    t_ignore = ' '

    def t_PAIL(self, t):
        return t

    def build(self):
        return lexkit.lex(module=self)

    def is_lonely(self):
        return False
",
            ),
            (
                "ledger/ext.py",
                b"from . import lexer


class MoreLexer(lexer.BaseLexer):
    tokens = lexer.BaseLexer.tokens + ['BUCKET']

    def t_BUCKET(self, t):
        return t

    def t_sorrow_mark(self, t):
        return t
",
            ),
        ];
        let tree = tree_of(files);
        let b = build_with_env(&tree, &env, &level2(7), &Progress::hidden());
        let r = b.renamer().unwrap();
        let swap = |n: &str| String::from_utf8(r.swap_name(n.as_bytes()).into_owned()).unwrap();
        assert_eq!(swap("t_ignore"), "t_ignore");
        assert_ne!(swap("BUCKET"), "BUCKET");
        assert_eq!(swap("t_BUCKET"), format!("t_{}", swap("BUCKET")));
        let ext = String::from_utf8(r.swap_content(b"ext.py", files[1].1).into_owned()).unwrap();
        assert!(ext.contains(&format!("['{}']", swap("BUCKET"))), "{ext}");
        assert_ne!(swap("t_sorrow_mark"), "t_sorrow_mark");
        for name in ["t_ignore", "t_PAIL", "t_BUCKET", "t_sorrow_mark"] {
            assert!(b.ordered.contains(name), "{name}: {:?}", b.ordered);
        }
        assert!(!b.ordered.contains("build"));
        assert!(!b.ordered.contains("is_lonely"));
    }

    /// Sphinx reads the globals of `conf.py` by name and calls `setup(app)` positionally:
    /// the globals keep their names, the parameters and locals of its functions are free.
    #[test]
    fn sphinx_conf_keeps_its_globals_not_its_locals() {
        let files: &[(&str, &[u8])] = &[
            (
                "src/ledger/__init__.py",
                b"def make_app(rawtext):\n    app = rawtext\n    return app\n\n\ndef html_theme():\n    pass\n",
            ),
            (
                "docs/conf.py",
                b"html_theme = 'alabaster'\nif True:\n    pygments_style = 'sphinx'\n\n\ndef role(name, rawtext):\n    app = rawtext.env.app\n    return app\n\n\ndef setup(app):\n    app.add_role('gh', role)\n",
            ),
            ("docs/index.rst", b"Ledger\n======\n"),
        ];
        let tree = tree_of(files);
        let b = build_with_env(&tree, &EnvScan::default(), &level2(7), &Progress::hidden());
        let r = b.renamer().unwrap();
        let swap = |n: &str| String::from_utf8(r.swap_name(n.as_bytes()).into_owned()).unwrap();
        for kept in ["html_theme", "pygments_style", "setup", "role"] {
            assert_eq!(swap(kept), kept);
        }
        for free in ["app", "rawtext", "make_app"] {
            assert_ne!(swap(free), free);
        }
    }

    /// Fourteen names that sort in alphabetical order, for the order tests.
    const FRUITS: [&str; 14] = [
        "apple", "banana", "cherry", "damson", "elder", "fig", "grape", "hazel", "kiwi", "lemon",
        "mango", "nectar", "olive", "peach",
    ];

    #[test]
    fn names_listed_together_sort_in_the_view_as_in_the_original() {
        let names = FRUITS;
        let mut src = String::new();
        for n in names {
            src.push_str(&format!("def {n}():\n    return '{n}'\n\n"));
        }
        let listed: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
        src.push_str(&format!(
            "def test_order():\n    assert sorted(n for n in globals() if n in ALL) == [{}]\n",
            listed.join(", ")
        ));
        src.push_str(&format!("ALL = {{{}}}\n", listed.join(", ")));
        let tree = tree_of(&[("fruit.py", src.as_bytes())]);
        for seed in 1..=8 {
            let view = view_names(&tree, seed, &names);
            let mut sorted = view.clone();
            sorted.sort();
            assert_eq!(view, sorted, "seed {seed}");
        }
    }

    #[test]
    fn attributes_of_a_tag_written_sorted_sort_in_the_view_as_in_the_original() {
        // A writer that sorts a node's attributes, and the expected output beside it.
        let names = FRUITS;
        let mut src = String::from("class Node:\n    def __init__(self):\n");
        for n in names {
            src.push_str(&format!("        self.{n} = '{n}'\n"));
        }
        src.push_str("    def dump(self):\n        return ' '.join(f'{k}=\"1\"' for k in sorted(vars(self)))\n");
        let attrs: Vec<String> = names.iter().map(|n| format!("{n}=\"1\"")).collect();
        let expected = format!("<node {}>\n", attrs.join(" "));
        let tree = tree_of(&[
            ("node.py", src.as_bytes()),
            ("expected.xml", expected.as_bytes()),
        ]);
        for seed in 1..=8 {
            let view = view_names(&tree, seed, &names);
            let mut sorted = view.clone();
            sorted.sort();
            assert_eq!(view, sorted, "seed {seed}");
        }
    }

    #[test]
    fn unittest_methods_and_classes_sort_in_the_view_as_in_the_original() {
        let words = FRUITS;
        let mut src = String::from("import unittest\n\n");
        for (i, w) in words.iter().enumerate() {
            if i % 7 == 0 {
                src.push_str(&format!(
                    "class {}Case(unittest.TestCase):\n",
                    capitalise(w)
                ));
            }
            src.push_str(&format!(
                "    def test_{w}(self):\n        self.assertTrue(1)\n\n"
            ));
        }
        let tree = tree_of(&[("tests/test_fruit.py", src.as_bytes())]);
        let names: Vec<String> = words
            .iter()
            .map(|w| format!("test_{w}"))
            .chain([0, 7].map(|i| format!("{}Case", capitalise(words[i]))))
            .collect();
        for seed in 1..=8 {
            let view = view_names(&tree, seed, &names);
            let (tests, classes) = view.split_at(words.len());
            assert!(
                tests.windows(2).all(|p| p[0] < p[1]),
                "seed {seed}: {tests:?}"
            );
            assert!(classes[0] < classes[1], "seed {seed}: {classes:?}");
        }
    }

    /// The view's spelling of each of `names` under `seed` (Level 2, no environment); each
    /// must be renamed.
    fn view_names(tree: &Tree, seed: u64, names: &[impl AsRef<str>]) -> Vec<String> {
        let b = build_with_env(
            tree,
            &EnvScan::default(),
            &level2(seed),
            &Progress::hidden(),
        );
        let r = b.renamer().unwrap();
        let view: Vec<String> = names
            .iter()
            .map(|n| String::from_utf8(r.swap_name(n.as_ref().as_bytes()).into_owned()).unwrap())
            .collect();
        assert!(
            view.iter().zip(names).all(|(v, n)| v != n.as_ref()),
            "{view:?}"
        );
        view
    }

    fn capitalise(w: &str) -> String {
        let mut c = w.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    }

    fn tree_of(files: &[(&str, &[u8])]) -> Tree {
        let mut dirs: Vec<PathBuf> = files
            .iter()
            .flat_map(|(rel, _)| Path::new(rel).ancestors().skip(1))
            .filter(|d| !d.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .collect();
        dirs.sort();
        dirs.dedup();
        Tree {
            dirs,
            files: files
                .iter()
                .map(|(rel, content)| TreeFile {
                    rel: PathBuf::from(rel),
                    content: content.to_vec(),
                })
                .collect(),
            generated: vec![],
        }
    }

    /// A tree of one file at `rel`.
    fn one_file_tree(rel: &str, src: &str) -> Tree {
        tree_of(&[(rel, src.as_bytes())])
    }

    fn strs(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    fn set(xs: &[&str]) -> BTreeSet<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    /// A made-up scan: groups with their names, and what each group imports.
    /// Level 2 at a seed, with the defaults of the command line.
    fn level2(seed: u64) -> BuildOptions {
        BuildOptions {
            seed,
            levels: vec![2],
            python: PathBuf::from("python3"),
            freeze: vec![],
            cache_dir: None,
            rename_pure_locals: false,
            rewrite: Default::default(),
        }
    }

    fn made_up_env(groups: &[(&str, &[&str])], imports: &[(&str, &[&str])]) -> EnvScan {
        EnvScan {
            groups: groups
                .iter()
                .map(|(g, n)| (g.to_string(), strs(n)))
                .collect(),
            imports: imports
                .iter()
                .map(|(g, n)| (g.to_string(), strs(n)))
                .collect(),
            modules: groups
                .iter()
                .filter(|(g, _)| !g.is_empty())
                .map(|(g, _)| g.to_string())
                .collect(),
            ..EnvScan::default()
        }
    }

    /// The plugins of an entry point group are reached when reached code names the group
    /// (pytest naming `pytest11`), though nothing imports them; the plugins of a group that no
    /// running code names are not.
    #[test]
    fn plugins_of_groups_that_reached_code_loads_are_reached() {
        let mut env = made_up_env(
            &[
                ("", &[]),
                ("host", &["host_api"]),
                ("plug", &["plug_word"]),
                ("idle", &["idle_word"]),
            ],
            &[],
        );
        env.entry_points = [
            ("host_plugins".to_string(), strs(&["plug"])),
            ("unnamed".to_string(), strs(&["idle"])),
        ]
        .into_iter()
        .collect();
        env.loads = [("host".to_string(), strs(&["host_plugins"]))]
            .into_iter()
            .collect();
        let modules = set(&["host", "plug", "idle"]);
        let names = |src: &'static [u8]| {
            let python = [("mine/use.py", src)];
            reachable_env_names(
                &env,
                &python,
                &imports_of(&python),
                &set(&["mine"]),
                &BTreeSet::new(),
                &modules,
            )
        };
        let with_host = names(b"import host\n");
        assert!(with_host.contains("host_api") && with_host.contains("plug_word"));
        assert!(!with_host.contains("idle_word"), "{with_host:?}");
        assert!(!names(b"import json\n").contains("plug_word"));
    }

    /// A program the repository runs is read where the environment's programs are (here
    /// beside the interpreter): its words stay in the strings of the file that runs it. A
    /// program named after the repository's own package (its command, once installed) is
    /// the repository's, and one missing from the environment's programs is not read.
    #[test]
    fn programs_the_repository_runs_keep_their_words() {
        let d = tempfile::tempdir().unwrap();
        for (name, words) in [("sslkit", "\0outform\0pem\0"), ("ledger", "\0settle\0")] {
            std::fs::write(d.path().join(name), format!("#!/bin/sh\n{words}")).unwrap();
        }
        let tree = tree_of(&[
            ("ledger/__init__.py", b""),
            ("ledger/pem.py", b"def settle(text):\n    return text\n"),
            (
                "tests/test_pem.py",
                b"import subprocess\nfrom ledger import pem\n\ndef test_it():\n    subprocess.run(['sslkit', '-outform', 'pem'])\n    subprocess.run(['ledger', 'settle'])\n",
            ),
        ]);
        let opts = BuildOptions {
            python: d.path().join("python"),
            ..level2(7)
        };
        let env = |executables: &[&str]| EnvScan {
            executables: strs(executables),
            ..made_up_env(&[("", &[])], &[])
        };
        let b = build_with_env(
            &tree,
            &env(&["ledger", "sslkit"]),
            &opts,
            &Progress::hidden(),
        );
        assert_eq!(b.frozen_runs.get("pem"), Some(&FreezeReason::Program));
        assert_eq!(
            b.frozen_runs.get("settle"),
            None,
            "the repository's own command"
        );
        let b = build_with_env(&tree, &env(&["ledger"]), &opts, &Progress::hidden());
        assert_eq!(
            b.frozen_runs.get("pem"),
            None,
            "not one of the environment's programs"
        );
    }

    /// A module the repository loads by a name held in a string (jsonpickle's
    /// `load_backend('simplejson')`) is reached as an import of it is; a string that names no
    /// module of the environment, or names the repository itself, reaches nothing.
    #[test]
    fn modules_named_in_strings_are_reached() {
        let env = made_up_env(
            &[
                ("", &[]),
                ("simplejson", &["use_decimal"]),
                ("yaml", &["safe_load"]),
            ],
            &[],
        );
        let modules = set(&["simplejson", "yaml", "mine"]);
        let names = |src: &'static [u8]| {
            let python = [("mine/backend.py", src)];
            reachable_env_names(
                &env,
                &python,
                &imports_of(&python),
                &set(&["mine"]),
                &BTreeSet::new(),
                &modules,
            )
        };
        let named = names(b"def setup(self):\n    self.load_backend('simplejson')\n    x = \"yaml.constructor\"\n");
        assert!(
            named.contains("use_decimal") && named.contains("safe_load"),
            "{named:?}"
        );
        let unnamed = names(b"x = 'simplejson backend'\ny = 'mine'\n");
        assert!(!unnamed.contains("use_decimal"), "{unnamed:?}");
    }

    /// Code that imports the repository (a reverse dependency) adds the names it uses on the
    /// repository, not the rest of its vocabulary nor the plugins it loads (it is not reached,
    /// so it loads them in processes of its own); an installed copy of the repository is no
    /// reverse dependency of it.
    #[test]
    fn code_that_imports_the_repository_freezes_what_it_uses_on_it() {
        let mut env = made_up_env(
            &[
                ("", &[]),
                ("user", &["user_private", "mine_api", "flag_word"]),
                ("uplug", &["uplug_word"]),
                ("mine", &["copy_private"]),
            ],
            &[("user", &["mine"]), ("mine", &["mine"])],
        );
        env.uses = [
            ("user", "mine", &["mine_api", "flag_word"][..]),
            ("mine", "mine", &["copy_private"][..]),
        ]
        .into_iter()
        .map(|(g, m, n)| {
            (
                g.to_string(),
                [(m.to_string(), strs(n))].into_iter().collect(),
            )
        })
        .collect();
        env.entry_points = [("user_plugins".to_string(), strs(&["uplug"]))]
            .into_iter()
            .collect();
        env.loads = [("user".to_string(), strs(&["user_plugins"]))]
            .into_iter()
            .collect();
        let modules = set(&["user", "uplug", "mine"]);
        let src: &[u8] = b"def mine_api(flag_word=1):\n    pass\n";
        let python = [("mine/__init__.py", src)];
        let names = |own: &[&str]| {
            reachable_env_names(
                &env,
                &python,
                &imports_of(&python),
                &set(own),
                &BTreeSet::new(),
                &modules,
            )
        };
        let as_mine = names(&["mine"]);
        for n in ["mine_api", "flag_word"] {
            assert!(as_mine.contains(n), "{n} missing: {as_mine:?}");
        }
        for n in ["user_private", "copy_private", "uplug_word"] {
            assert!(!as_mine.contains(n), "{n} is not used on the repository");
        }
        let other = names(&["elsewhere"]);
        assert!(!other.contains("mine_api") && !other.contains("uplug_word"));
    }

    /// Every component of an environment module path stays, wherever it appears: a six-style
    /// move table names `urllib.robotparser` in strings, and the repository's own code names
    /// `robotparser` too.
    #[test]
    fn components_of_environment_module_paths_stay() {
        let moves = "class MovedModule:\n    def __init__(self, name, old, new):\n        self.mod = new\n\n\
                     MOVES = [MovedModule(\"urllib_robotparser\", \"robotparser\", \"urllib.robotparser\")]\n";
        let user = "from pkg.moves import robotparser\n\n\
                    def read_rules(robotparser_text):\n    return robotparser, robotparser_text\n";
        let tree = Tree {
            files: vec![
                TreeFile {
                    rel: PathBuf::from("pkg/moves.py"),
                    content: moves.as_bytes().to_vec(),
                },
                TreeFile {
                    rel: PathBuf::from("pkg/user.py"),
                    content: user.as_bytes().to_vec(),
                },
            ],
            dirs: vec![PathBuf::from("pkg")],
            generated: vec![],
        };
        let mut env = made_up_env(&[("", &[])], &[]);
        env.modules = strs(&["urllib"]);
        env.module_paths = [(String::new(), strs(&["urllib", "urllib.robotparser"]))]
            .into_iter()
            .collect();
        let opts = level2(5);
        let b = build_with_env(&tree, &env, &opts, &Progress::hidden());
        let r = b.renamer().unwrap();
        let view = |name: &str, src: &str| {
            String::from_utf8(r.swap_content(name.as_bytes(), src.as_bytes()).into_owned()).unwrap()
        };
        let v = view("pkg/moves.py", moves);
        assert!(
            v.contains("\"robotparser\", \"urllib.robotparser\")"),
            "{v}"
        );
        let v = view("pkg/user.py", user);
        assert!(v.contains("import robotparser\n"), "{v}");
        assert!(
            !v.contains("read_rules"),
            "the test needs a renamed name: {v}"
        );
    }
}
