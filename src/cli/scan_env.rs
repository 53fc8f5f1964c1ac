//! `schrodinger scan-env`: scan a Python environment ahead of any mount.
//!
//! The environment scan (every name the stdlib and site-packages define) is the slowest part
//! of a first mount: a minute for an interpreter with 460 MB of site-packages. It is cached
//! under the environment's fingerprint (interpreter, version, scanner, and each
//! site-packages directory's entries and modification time), so running this once when a
//! container image is built, with the cache directory inside the image, makes every mount
//! in every container of that image load the scan instead. A package installed or removed
//! later changes the fingerprint, and the next mount scans again. `--check` scans afresh and
//! compares with the cached scan as data (JSON values: the order of a map's keys may differ
//! between two scans, nothing else): reuse is exact when they are equal.

use std::path::PathBuf;
use std::time::Instant;

use super::CliError;
use crate::bundle;

/// `schrodinger scan-env`.
#[derive(Debug, Clone, clap::Args)]
pub struct ScanEnvArgs {
    /// Python interpreter whose environment is scanned: the one views will run under.
    #[arg(long, default_value = "python3")]
    pub python: PathBuf,
    /// Cache directory; mounts read `$XDG_CACHE_HOME/schrodinger` (else
    /// `$HOME/.cache/schrodinger`), which is the default here too.
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Scan again even when the cache holds this environment, and compare: exit status 1
    /// when the fresh scan differs from the cached one.
    #[arg(long)]
    pub check: bool,
}

/// Run `schrodinger scan-env`.
pub fn scan_env(a: &ScanEnvArgs) -> Result<(), CliError> {
    let dir = a
        .cache_dir
        .clone()
        .or_else(bundle::default_cache_dir)
        .ok_or_else(|| {
            CliError::Msg("no cache directory: set HOME or XDG_CACHE_HOME, or --cache-dir".into())
        })?;
    let key = bundle::env_fingerprint(&a.python)?;
    let file = bundle::env_scan_cache_file(&dir, &key);
    let cached = std::fs::read(&file).ok();
    if cached.is_some() && !a.check {
        println!(
            "environment {key} of {}: already cached at {}",
            a.python.display(),
            file.display()
        );
        return Ok(());
    }
    let t = Instant::now();
    let fresh = bundle::env_scan_fresh(&a.python)?;
    let took = t.elapsed();
    // The scan's maps are written in the order its worker processes finish, so two scans of
    // one environment may differ in bytes and not in data: compared as JSON values.
    let same = |old: &[u8]| {
        let value = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).ok();
        old == fresh.as_slice() || value(old).is_some_and(|v| Some(v) == value(&fresh))
    };
    match cached {
        Some(old) if same(&old) => {
            println!(
                "environment {key} of {}: a fresh scan ({} bytes, {:.1} s) holds the same data as the one cached at {}",
                a.python.display(),
                fresh.len(),
                took.as_secs_f64(),
                file.display()
            );
            Ok(())
        }
        Some(old) => Err(CliError::Msg(format!(
            "environment {key} of {}: a fresh scan ({} bytes) differs from the one cached at {} ({} bytes)",
            a.python.display(),
            fresh.len(),
            file.display(),
            old.len()
        ))),
        None => {
            std::fs::create_dir_all(&dir)
                .map_err(|e| CliError::io(format!("creating {}", dir.display()), e))?;
            let tmp = file.with_extension(format!("tmp{}", std::process::id()));
            std::fs::write(&tmp, &fresh)
                .and_then(|()| std::fs::rename(&tmp, &file))
                .map_err(|e| CliError::io(format!("writing {}", file.display()), e))?;
            println!(
                "environment {key} of {}: scanned in {:.1} s, cached at {}",
                a.python.display(),
                took.as_secs_f64(),
                file.display()
            );
            Ok(())
        }
    }
}
