//! `schrodinger repoint`: move a Python environment's editable install of the original to
//! the view.
//!
//! A SWE-bench image has the project installed editable from the checkout, so once the view
//! is mounted, `import <original package>`, `pip list`, `sys.path` and tracebacks would still
//! show the original's names and path. `repoint` finds every editable install of the original
//! (or of the view's own path: in a container the view takes the original's place), uninstalls
//! it with pip, installs the view editable in its place (`pip install --no-deps -e VIEW`,
//! without build isolation first, so no network is needed when the build backend is already
//! installed), and then checks the environment: no `.pth` file, editable finder or install
//! metadata of the project may still name the original's path or its original package names.
//! It fails, saying which file, when one does.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde::Deserialize;

use super::CliError;

const SCRIPT: &str = include_str!("../repoint.py");

/// `schrodinger repoint`.
#[derive(Debug, Clone, clap::Args)]
pub struct RepointArgs {
    /// Interpreter of the environment to re-point (its pip does the work).
    #[arg(long, default_value = "python3")]
    pub python: PathBuf,
    /// Also count installs made from this directory as the original's (where the checkout
    /// was when it was installed, if it has moved since). May be repeated.
    #[arg(long)]
    pub was: Vec<PathBuf>,
    /// Only say what would be uninstalled and installed.
    #[arg(long)]
    pub dry_run: bool,
    /// Do nothing when the environment has no editable install of the original (by default
    /// the view is then installed editable anyway).
    #[arg(long)]
    pub if_installed: bool,
    /// The original checkout.
    pub original: PathBuf,
    /// The view (a mounted view, or an export).
    pub view: PathBuf,
}

#[derive(Debug, Deserialize)]
struct Found {
    name: String,
    version: String,
    location: String,
}

#[derive(Debug, Deserialize)]
struct Hit {
    file: String,
    names: String,
}

fn run_script(python: &Path, args: &[String]) -> Result<Vec<u8>, CliError> {
    let out = Command::new(python)
        .arg("-I")
        .arg("-c")
        .arg(SCRIPT)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| CliError::Msg(format!("cannot run {}: {e}", python.display())))?;
    if !out.status.success() {
        return Err(CliError::Msg(format!(
            "{} failed to inspect its environment: {}",
            python.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
}

fn pip(python: &Path, cwd: &Path, args: &[&str]) -> Result<Output, CliError> {
    Command::new(python)
        .args(["-m", "pip"])
        .args(args)
        .current_dir(cwd)
        .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
        .env("PIP_NO_INPUT", "1")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| CliError::Msg(format!("cannot run pip of {}: {e}", python.display())))
}

fn path_arg(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// Top-level modules of a tree at its import roots (the root and `src/`).
fn top_modules(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for base in [root.to_path_buf(), root.join("src")] {
        let Ok(rd) = std::fs::read_dir(&base) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let p = e.path();
            if p.is_dir() && p.join("__init__.py").exists() {
                out.push(name);
            } else if let Some(stem) = name.strip_suffix(".py") {
                if stem != "setup" && stem != "conftest" {
                    out.push(stem.to_string());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

pub fn repoint(args: &RepointArgs) -> Result<(), CliError> {
    // pip runs in the view, so a relative interpreter path must be made absolute (but not
    // resolved: a venv's python is a symlink whose location is what selects the venv).
    let python = if args.python.components().count() > 1 {
        std::path::absolute(&args.python)
            .map_err(|e| CliError::io(format!("python {}", args.python.display()), e))?
    } else {
        args.python.clone()
    };
    let args = &RepointArgs {
        python,
        ..args.clone()
    };
    let original = args
        .original
        .canonicalize()
        .map_err(|e| CliError::io(format!("original {}", args.original.display()), e))?;
    let view = args
        .view
        .canonicalize()
        .map_err(|e| CliError::io(format!("view {}", args.view.display()), e))?;
    let mut roots = vec![path_arg(&original)];
    roots.extend(args.was.iter().map(|w| path_arg(w)));
    let mut find = vec!["find".to_string()];
    find.extend(roots.iter().cloned());
    find.push(path_arg(&view));
    let found: Vec<Found> = serde_json::from_slice(&run_script(&args.python, &find)?)
        .map_err(|e| CliError::Msg(format!("bad answer from the environment: {e}")))?;
    if found.is_empty() && args.if_installed {
        eprintln!(
            "schrodinger: no editable install of {} in {}'s environment; nothing to re-point",
            original.display(),
            args.python.display()
        );
        return Ok(());
    }
    if found.is_empty() {
        eprintln!(
            "schrodinger: no editable install of {} in {}'s environment; installing the view",
            original.display(),
            args.python.display()
        );
    }
    for f in &found {
        eprintln!(
            "schrodinger: {} {} is installed editable from {}{}",
            f.name,
            f.version,
            f.location,
            if args.dry_run { "" } else { ": uninstalling" }
        );
    }
    if args.dry_run {
        eprintln!("schrodinger: would install {} editable", view.display());
        return Ok(());
    }
    if !found.is_empty() {
        let mut a = vec!["uninstall", "-y", "-q"];
        a.extend(found.iter().map(|f| f.name.as_str()));
        let out = pip(&args.python, &view, &a)?;
        if !out.status.success() {
            return Err(CliError::Msg(format!(
                "pip uninstall failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
    }
    let view_s = path_arg(&view);
    let mut out = pip(
        &args.python,
        &view,
        &[
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-e",
            &view_s,
        ],
    )?;
    if !out.status.success() {
        // The build backend may not be installed in the environment: let pip fetch it.
        out = pip(
            &args.python,
            &view,
            &["install", "-q", "--no-deps", "-e", &view_s],
        )?;
    }
    if !out.status.success() {
        return Err(CliError::Msg(format!(
            "pip install -e {view_s} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    // What must no longer be seen: the original's path, the names of what was uninstalled,
    // and the original's package names that the view renames.
    let view_mods = top_modules(&view);
    let mut names: Vec<String> = found.iter().map(|f| f.name.clone()).collect();
    names.extend(top_modules(&original));
    names.retain(|n| !view_mods.contains(n));
    names.sort();
    names.dedup();
    let mut check = vec!["check".to_string()];
    check.extend(roots.iter().cloned());
    check.push("--view".into());
    check.push(view_s.clone());
    check.push("--".into());
    check.extend(names);
    let hits: Vec<Hit> = serde_json::from_slice(&run_script(&args.python, &check)?)
        .map_err(|e| CliError::Msg(format!("bad answer from the environment: {e}")))?;
    if !hits.is_empty() {
        let list: Vec<String> = hits
            .iter()
            .map(|h| format!("  {} ({})", h.file, h.names))
            .collect();
        return Err(CliError::Msg(format!(
            "the view is installed, but the environment still names the original:\n{}",
            list.join("\n")
        )));
    }
    eprintln!("schrodinger: {view_s} is installed editable");
    Ok(())
}
