//! Where views live, and which map a command uses (law 10: one map per view).
//!
//! Guarantees:
//! - A mount saves the bundle it serves in its state directory (`STATE/bundle.json`, written
//!   atomically before the view answers) with the original it shows (`STATE/view.json`). A
//!   remount with that state directory serves that same bundle, whatever was added to the
//!   tree since; options that disagree with it stop the mount.
//! - Each mount leaves a record `/run/schrodinger/<hash of MOUNTPOINT>.json` naming its
//!   original and state directory (kept after unmount), so `--mount MOUNTPOINT` finds a
//!   custom `--state` too; without a record the default state directory is derived from the
//!   mountpoint as `mount` derives it.
//! - A command given only ORIGINAL (no `--mount`, `--state` or `--bundle`) looks up the live
//!   views of ORIGINAL (records whose daemon is alive). When one was built with the same
//!   options, the command's map must be that view's: it is used when a fresh build gives the
//!   same bundle, and otherwise the command says what changed (tree, environment) and stops,
//!   never answering with other names than the view shows.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::CliError;
use crate::bundle::{self, Bundle, Wanted};

pub const RUN_DIR: &str = "/run/schrodinger";
pub const STATE_BASE: &str = "/var/tmp/schrodinger";
/// The bundle a mount serves, in its state directory.
pub const BUNDLE_FILE: &str = "bundle.json";
/// What the state directory is the view of.
pub const VIEW_FILE: &str = "view.json";

pub fn hash_of(p: &Path) -> String {
    let d = Sha256::digest(p.as_os_str().as_bytes());
    d.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

pub fn pid_file(mountpoint: &Path) -> PathBuf {
    Path::new(RUN_DIR).join(format!("{}.pid", hash_of(mountpoint)))
}

fn record_file(mountpoint: &Path) -> PathBuf {
    Path::new(RUN_DIR).join(format!("{}.json", hash_of(mountpoint)))
}

/// The state directory `mount` uses for `mountpoint` when not given `--state`.
pub fn default_state(mountpoint: &Path) -> PathBuf {
    Path::new(STATE_BASE).join(hash_of(mountpoint))
}

/// A mount's record in [`RUN_DIR`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub mountpoint: PathBuf,
    pub original: PathBuf,
    pub state: PathBuf,
}

/// Write the record of a mount (atomically); failures are logged, not fatal.
pub fn write_record(rec: &Record) {
    let path = record_file(&rec.mountpoint);
    let write = || -> std::io::Result<()> {
        fs::create_dir_all(RUN_DIR)?;
        let json = serde_json::to_vec_pretty(rec).map_err(std::io::Error::other)?;
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        fs::write(&tmp, json)?;
        fs::rename(&tmp, &path)
    };
    if let Err(e) = write() {
        tracing::warn!("record {}: {e}", path.display());
    }
}

fn read_record(mountpoint: &Path) -> Option<Record> {
    let bytes = fs::read(record_file(mountpoint)).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// The state directory of the view mounted (now or before) at `mountpoint`.
pub fn state_of(mountpoint: &Path) -> PathBuf {
    read_record(mountpoint)
        .map(|r| r.state)
        .unwrap_or_else(|| default_state(mountpoint))
}

pub fn read_pid(mountpoint: &Path) -> Option<i32> {
    fs::read_to_string(pid_file(mountpoint))
        .ok()?
        .trim()
        .parse()
        .ok()
}

pub fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence and permission; it sends nothing.
    let exists = unsafe { libc::kill(pid, 0) == 0 || *libc::__errno_location() == libc::EPERM };
    // A daemon that has exited but whose parent (`run`, which started it) has not reaped it
    // yet is a zombie: it serves nothing any more.
    exists && !zombie(pid)
}

fn zombie(pid: i32) -> bool {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the command name, which is in parentheses and may contain any byte.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next())
        == Some('Z')
}

/// Records of the views of `original` whose daemon is running.
pub fn live_views(original: &Path) -> Vec<Record> {
    let Ok(rd) = fs::read_dir(RUN_DIR) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in rd.flatten() {
        if !e.file_name().as_bytes().ends_with(b".json") {
            continue;
        }
        let Some(r) = fs::read(e.path())
            .ok()
            .and_then(|b| serde_json::from_slice::<Record>(&b).ok())
        else {
            continue;
        };
        let gone = fs::symlink_metadata(&r.mountpoint)
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
        if gone {
            // The mountpoint is gone: nothing can name it again; drop the record.
            let _ = fs::remove_file(e.path());
            continue;
        }
        if r.original == original && read_pid(&r.mountpoint).is_some_and(alive) {
            out.push(r);
        }
    }
    out.sort_by(|a, b| a.mountpoint.cmp(&b.mountpoint));
    out
}

/// What a state directory is the view of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewInfo {
    /// The original, canonical.
    pub original: PathBuf,
    /// The original's HEAD commit when the bundle was built (a git checkout), so that a new
    /// checkout at the same path is not served the old checkout's view.
    pub head: Option<String>,
}

/// The HEAD commit of `original`, if it is a git checkout with one.
pub fn head_of(original: &Path) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(original)
        // An original owned by another user (an unpacked image layer) is still ours to read.
        .args([
            "-c",
            "safe.directory=*",
            "rev-parse",
            "-q",
            "--verify",
            "HEAD",
        ])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// The bundle saved in `state` and what it is the view of, if a view was made there.
pub fn pinned(state: &Path) -> Result<Option<(Bundle, ViewInfo)>, CliError> {
    let path = state.join(BUNDLE_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let b = bundle::read(&path)?;
    let info_path = state.join(VIEW_FILE);
    let info: ViewInfo = fs::read(&info_path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| {
            CliError::Msg(format!(
                "{} has a bundle but no readable {VIEW_FILE}; remove the state directory to \
                 make a new view",
                state.display()
            ))
        })?;
    Ok(Some((b, info)))
}

/// Save `bundle` as the one the view in `state` serves.
pub fn pin(state: &Path, b: &Bundle, info: &ViewInfo) -> Result<(), CliError> {
    fs::create_dir_all(state).map_err(|e| CliError::io(format!("state {}", state.display()), e))?;
    let json = serde_json::to_vec_pretty(info).map_err(|e| CliError::Msg(e.to_string()))?;
    let info_path = state.join(VIEW_FILE);
    let tmp = info_path.with_extension(format!("tmp{}", std::process::id()));
    fs::write(&tmp, json)
        .and_then(|_| fs::rename(&tmp, &info_path))
        .map_err(|e| CliError::io(format!("writing {}", info_path.display()), e))?;
    bundle::save(b, &state.join(BUNDLE_FILE))?;
    Ok(())
}

/// Check that the view saved in `state` is one of `original` (canonical) as it is now.
pub fn check_same_original(state: &Path, info: &ViewInfo, original: &Path) -> Result<(), CliError> {
    if info.original != original {
        return Err(CliError::Msg(format!(
            "state directory {} holds the view of {}, not of {}; pass another --state (or \
             remove that directory) to make a new view",
            state.display(),
            info.original.display(),
            original.display()
        )));
    }
    if let (Some(was), Some(now)) = (&info.head, head_of(original)) {
        if *was != now {
            return Err(CliError::Msg(format!(
                "state directory {} holds the view of {} at commit {}, but its HEAD is now {}: \
                 another checkout is not the tree that view was made for; pass another --state \
                 (or remove that directory) to make a new view",
                state.display(),
                original.display(),
                &was[..12.min(was.len())],
                &now[..12.min(now.len())]
            )));
        }
    }
    Ok(())
}

/// Check that options given on a command line agree with a view's bundle.
pub fn check_options(b: &Bundle, want: &Wanted, whose: &str) -> Result<(), CliError> {
    let d = b.disagreements(want);
    if d.is_empty() {
        return Ok(());
    }
    Err(CliError::Msg(format!(
        "{whose} serves one bundle, and these options ask for another: {}. Drop them to use \
         that view's map (or use another state directory for a new view)",
        d.join("; ")
    )))
}

/// Why a bundle built now differs from a view's, in words.
fn what_changed(live: &Bundle, built: &Bundle) -> Vec<&'static str> {
    let mut what = Vec::new();
    if live.tree_fingerprint != built.tree_fingerprint {
        what.push("its tree changed since the view was made (files added, removed or edited)");
    }
    if live.env_fingerprint != built.env_fingerprint {
        what.push("its Python environment changed (a package installed or removed)");
    }
    if live.tool_version != built.tool_version {
        what.push("another schrodinger version built the view");
    }
    if what.is_empty() {
        what.push("the map built now differs from the view's");
    }
    what
}

/// Decide the map of a command given only ORIGINAL and view options, which built `built`:
/// `Some(state)` of a live view whose map it is, `None` when no live view has these options.
/// Stops when a live view has these options but another bundle.
pub fn against_live_views(original: &Path, built: &Bundle) -> Result<Option<PathBuf>, CliError> {
    let mut other_options = Vec::new();
    for rec in live_views(original) {
        let Ok(Some((live, _))) = pinned(&rec.state) else {
            continue;
        };
        let want = Wanted {
            seed: Some(built.seed),
            levels: Some(built.levels.clone()),
            python: Some(built.python.clone()),
            freeze: Some(built.freeze.clone()),
            rename_pure_locals: Some(built.rename_pure_locals),
            rewrite_share: Some(built.rewrite_share),
            rewrite_rules: Some(built.rewrite_rules.clone()),
        };
        let d = live.disagreements(&want);
        if !d.is_empty() {
            other_options.push((rec.mountpoint.clone(), d));
            continue;
        }
        if live == *built {
            return Ok(Some(rec.state));
        }
        let what = what_changed(&live, built);
        return Err(CliError::Msg(format!(
            "{} is mounted at {} with these options, and {}: a map built now would give other \
             names than that view shows. Pass --mount {} to use the view's map",
            original.display(),
            rec.mountpoint.display(),
            what.join(", and "),
            rec.mountpoint.display()
        )));
    }
    for (m, d) in other_options {
        eprintln!(
            "schrodinger: note: {} is also mounted at {} with other options ({}); these names \
             are not that view's (pass --mount {} for them)",
            original.display(),
            m.display(),
            d.join("; "),
            m.display()
        );
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::{build_with_env, BuildOptions, EnvScan, Progress, Tree, TreeFile};

    fn bundle(env_fingerprint: &str, extra_file: bool) -> Bundle {
        let mut files = vec![TreeFile {
            rel: PathBuf::from("m.py"),
            content: b"def loan_total(x):\n    return x\n".to_vec(),
        }];
        if extra_file {
            files.push(TreeFile {
                rel: PathBuf::from("n.py"),
                content: b"def shelf_count(y):\n    return y\n".to_vec(),
            });
        }
        let env = EnvScan {
            fingerprint: env_fingerprint.into(),
            ..EnvScan::default()
        };
        let opts = BuildOptions {
            seed: 1,
            levels: vec![2],
            python: PathBuf::from("python3"),
            freeze: vec![],
            cache_dir: None,
            rename_pure_locals: false,
            rewrite: Default::default(),
        };
        let tree = Tree {
            files,
            dirs: vec![],
            generated: vec![],
        };
        build_with_env(&tree, &env, &opts, &Progress::hidden())
    }

    /// A package installed into the environment or a file added to the tree is reported,
    /// each by name, and never taken for the same map.
    #[test]
    fn a_changed_environment_or_tree_is_named() {
        let live = bundle("env-a", false);
        assert_eq!(live.env_fingerprint, "env-a");
        assert_ne!(live, bundle("env-b", false));
        let env = what_changed(&live, &bundle("env-b", false));
        assert_eq!(env.len(), 1);
        assert!(env[0].contains("environment"), "{env:?}");
        let tree = what_changed(&live, &bundle("env-a", true));
        assert!(tree.len() == 1 && tree[0].contains("tree"), "{tree:?}");
        assert_eq!(what_changed(&live, &bundle("env-b", true)).len(), 2);
    }
}
