//! The agent's patch as `git diff` shows it, new files included, without touching the
//! repository's index: the work tree is staged into a copy of the index, and that copy is
//! diffed against the base commit. In the view the base commit's id names the view commit
//! (its shadow repository's replace ref), so one function serves both coordinates.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::cli::CliError;

fn git(dir: &Path, index: Option<&Path>, args: &[&str]) -> Result<Output, CliError> {
    let mut c = Command::new("git");
    c.arg("-c")
        .arg("safe.directory=*")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(Stdio::null());
    if let Some(i) = index {
        c.env("GIT_INDEX_FILE", i);
    }
    let out = c
        .output()
        .map_err(|e| CliError::io("run git (is it installed?)", e))?;
    if !out.status.success() {
        return Err(CliError::Msg(format!(
            "git {} in {} failed: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out)
}

/// `git diff <base>` of `dir`'s work tree with untracked, not ignored files as new files;
/// binary changes as git's binary patches. `scratch` holds the index copy.
pub fn worktree_diff(dir: &Path, base: &str, scratch: &Path) -> Result<Vec<u8>, CliError> {
    let index = git(
        dir,
        None,
        &["rev-parse", "--path-format=absolute", "--git-path", "index"],
    )?;
    let index = String::from_utf8_lossy(&index.stdout).trim().to_string();
    let copy = tempfile::Builder::new()
        .prefix("index-")
        .tempfile_in(scratch)
        .map_err(|e| CliError::io(format!("index copy in {}", scratch.display()), e))?;
    if Path::new(&index).exists() {
        std::fs::copy(&index, copy.path()).map_err(|e| CliError::io(format!("copy {index}"), e))?;
    }
    git(dir, Some(copy.path()), &["add", "-A"])?;
    let out = git(
        dir,
        Some(copy.path()),
        &[
            "diff",
            "--cached",
            "--binary",
            "--no-color",
            "--no-ext-diff",
            base,
        ],
    )?;
    Ok(out.stdout)
}
