//! The two sides of a verification: where each runs, with what environment and arguments.
//!
//! Guarantee: nothing is written into ORIGINAL by setting up either side. The view is made by
//! this same binary's `mount` (or `export`) subcommand into a temporary directory, from a
//! bundle file verify built, and is always unmounted when the `View` is dropped (also on
//! errors). The view side's environment is the original side's, except that PYTHONPATH
//! entries pointing into ORIGINAL point to the same place in the view; its command's
//! arguments are translated with the view's map (`Renamer::swap_text`), and absolute paths
//! into ORIGINAL are moved to the view.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::bundle::Bundle;
use crate::transform::rename::Renamer;

use super::super::{views, CliError};
use super::Clock;

/// How the view is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Mount,
    Export,
}

/// A view of ORIGINAL in a temporary directory; unmounted on drop.
pub struct View {
    pub root: PathBuf,
    exe: PathBuf,
    mounted: bool,
}

impl View {
    /// Save `bundle` under `work` as the bundle of a view's state directory (with the Level
    /// 3 layouts saved in `layouts_from`, a mount's state directory, when given) and make
    /// that view with this binary's `mount` or `export`: the view serves exactly `bundle`.
    #[allow(clippy::too_many_arguments)]
    pub fn create(
        exe: &Path,
        original: &Path,
        bundle: &Bundle,
        layouts_from: Option<&Path>,
        work: &Path,
        mode: Mode,
        clock: &Clock,
        label: &str,
    ) -> Result<View, CliError> {
        std::fs::create_dir_all(work)
            .map_err(|e| CliError::io(format!("creating {}", work.display()), e))?;
        let state = work.join("state");
        let info = views::ViewInfo {
            original: original.to_path_buf(),
            head: views::head_of(original),
        };
        views::pin(&state, bundle, &info)?;
        if let Some(from) = layouts_from {
            crate::fs::saved_state::copy(from, &state).map_err(|e| {
                CliError::io(format!("copying the layouts of {}", from.display()), e)
            })?;
        }
        let root = work.join("root");
        let mut cmd = Command::new(exe);
        match mode {
            Mode::Mount => {
                std::fs::create_dir_all(&root)
                    .map_err(|e| CliError::io(format!("creating {}", root.display()), e))?;
                clock.say(label, &format!("mounting at {}", root.display()));
                cmd.arg("mount")
                    .arg("--state")
                    .arg(&state)
                    .arg(original)
                    .arg(&root);
            }
            Mode::Export => {
                clock.say(label, &format!("exporting to {}", root.display()));
                cmd.arg("export")
                    .arg("--state")
                    .arg(&state)
                    .arg(original)
                    .arg(&root);
            }
        }
        let out = cmd
            .stdin(Stdio::null())
            .output()
            .map_err(|e| CliError::io(format!("running {}", exe.display()), e))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let hint = if mode == Mode::Mount {
                "\n(where FUSE is not available, pass --export to verify an exported copy)"
            } else {
                ""
            };
            return Err(CliError::Msg(format!(
                "making the view failed: {}{hint}",
                err.trim()
            )));
        }
        Ok(View {
            root,
            exe: exe.to_path_buf(),
            mounted: mode == Mode::Mount,
        })
    }

    /// Unmount now and report failure (drop does the same silently).
    pub fn close(mut self) -> Result<(), CliError> {
        self.unmount()
    }

    fn unmount(&mut self) -> Result<(), CliError> {
        if !self.mounted {
            return Ok(());
        }
        self.mounted = false;
        let out = Command::new(&self.exe)
            .arg("unmount")
            .arg(&self.root)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| CliError::io("running unmount", e))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(CliError::Msg(format!(
                "unmounting {} failed: {}",
                self.root.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
    }
}

impl Drop for View {
    fn drop(&mut self) {
        if let Err(e) = self.unmount() {
            eprintln!("schrodinger verify: {e}");
        }
    }
}

/// `p` (absolute, inside ORIGINAL) at the same place in the view.
pub fn to_view_path(p: &Path, original: &Path, view: &Path, renamer: &Renamer) -> Option<PathBuf> {
    let abs = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let rel = abs.strip_prefix(original).ok()?;
    let mut out = view.to_path_buf();
    for c in rel.components() {
        let name = c.as_os_str().as_encoded_bytes();
        let swapped = renamer.swap_name(name);
        // Swapping replaces ASCII runs by ASCII runs, so the bytes stay valid OS string bytes.
        out.push(String::from_utf8_lossy(&swapped).as_ref());
    }
    Some(out)
}

/// The command's arguments for the view: argv[0] (the program) kept; others translated with
/// the view's map, with ORIGINAL's absolute path moved to the view.
pub fn translate_args(
    argv: &[String],
    original: &Path,
    view: &Path,
    renamer: &Renamer,
) -> Vec<String> {
    let orig_s = original.to_string_lossy().into_owned();
    let orig_swapped = renamer.swap_text(&orig_s);
    argv.iter()
        .enumerate()
        .map(|(i, a)| {
            if i == 0 {
                return a.clone();
            }
            let p = Path::new(a);
            if p.is_absolute() {
                if let Some(v) = to_view_path(p, original, view, renamer) {
                    return v.to_string_lossy().into_owned();
                }
            }
            let t = renamer.swap_text(a);
            if orig_s.len() > 1 && t.contains(&orig_swapped) {
                // `--rootdir=/path/to/original/x`: the translated tail, the view's root.
                return t.replace(&orig_swapped, &view.to_string_lossy());
            }
            t
        })
        .collect()
}

/// Environment changes shared by both sides: no byte-code written (the original stays clean).
pub fn common_env() -> Vec<(OsString, OsString)> {
    let mut env = Vec::new();
    if std::env::var_os("PYTHONDONTWRITEBYTECODE").is_none() {
        env.push(("PYTHONDONTWRITEBYTECODE".into(), "1".into()));
    }
    env
}

/// The view side's environment changes: PYTHONPATH entries into ORIGINAL moved to the view.
pub fn view_env(original: &Path, view: &Path, renamer: &Renamer) -> Vec<(OsString, OsString)> {
    let mut env = common_env();
    if let Some(pp) = std::env::var_os("PYTHONPATH") {
        let entries: Vec<PathBuf> = std::env::split_paths(&pp)
            .map(|e| {
                let abs = if e.is_absolute() {
                    e.clone()
                } else {
                    // Relative entries resolve against each side's own cwd already.
                    return e;
                };
                to_view_path(&abs, original, view, renamer).unwrap_or(e)
            })
            .collect();
        if let Ok(joined) = std::env::join_paths(entries) {
            env.push(("PYTHONPATH".into(), joined));
        }
    }
    env
}

/// Top-level packages of ORIGINAL (directories with `__init__.py` at the root or in `src/`),
/// in original names.
pub fn top_packages(original: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for base in [original.to_path_buf(), original.join("src")] {
        let Ok(rd) = std::fs::read_dir(&base) else {
            continue;
        };
        let mut names: Vec<String> = rd
            .filter_map(Result::ok)
            .filter(|e| e.path().join("__init__.py").is_file())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| n != "tests" && n != "test")
            .collect();
        names.sort();
        out.extend(names);
    }
    out
}

/// Where the view's own packages must come from when the environment has ORIGINAL installed
/// editable (a SWE-bench image): for each import root of ORIGINAL (the root, `src/`) holding
/// a top-level package that the environment imports from inside ORIGINAL, the same place in
/// the view. Put first on the view side's PYTHONPATH, they make the view's tests import the
/// view's code under its view names, as the original's tests import the original's through
/// the install (path entries come before editable finders and `.pth` entries).
pub fn editable_roots(
    python: &Path,
    original: &Path,
    view: &Path,
    renamer: &Renamer,
) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    for base in [original.to_path_buf(), original.join("src")] {
        let installed = top_packages(&base).into_iter().any(|pkg| {
            let code = format!("import {pkg}; print({pkg}.__file__ or '')");
            Command::new(python)
                .arg("-c")
                .arg(&code)
                .current_dir("/")
                .env_remove("PYTHONPATH")
                .stdin(Stdio::null())
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                .is_some_and(|f| !f.is_empty() && Path::new(&f).starts_with(original))
        });
        if installed {
            if let Some(v) = to_view_path(&base, original, view, renamer) {
                roots.push(v);
            }
        }
    }
    roots
}

/// `env` with `first` put before the PYTHONPATH it sets (or the process's own).
pub fn with_path_first(
    mut env: Vec<(OsString, OsString)>,
    first: &[PathBuf],
) -> Vec<(OsString, OsString)> {
    if first.is_empty() {
        return env;
    }
    let current = env
        .iter()
        .position(|(k, _)| k == "PYTHONPATH")
        .map(|i| env.remove(i).1)
        .or_else(|| std::env::var_os("PYTHONPATH"));
    let mut entries: Vec<PathBuf> = first.to_vec();
    if let Some(c) = current {
        entries.extend(std::env::split_paths(&c));
    }
    if let Ok(joined) = std::env::join_paths(entries) {
        env.push(("PYTHONPATH".into(), joined));
    }
    env
}

/// Warnings when the view's Python would import a package from ORIGINAL (an editable
/// install, a `.pth` file or PYTHONPATH), which would make the view test the original code.
pub fn shadow_warnings(
    python: &Path,
    original: &Path,
    view: &View,
    env: &[(OsString, OsString)],
    renamer: &Renamer,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for pkg in top_packages(original) {
        // The view's code imports the view name; that one must not come from ORIGINAL.
        for name in [renamer.swap_text(&pkg)] {
            let code = format!("import {name}; print({name}.__file__ or '')");
            let Ok(out) = Command::new(python)
                .arg("-c")
                .arg(&code)
                .current_dir(&view.root)
                .envs(env.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::null())
                .output()
            else {
                continue;
            };
            let file = String::from_utf8_lossy(&out.stdout).trim().to_string();
            if out.status.success() && !file.is_empty() && Path::new(&file).starts_with(original) {
                warnings.push(format!(
                    "in the view, `import {name}` resolves to {file}, inside ORIGINAL \
                     (an editable install or a path entry): the view's tests may run the \
                     original code; uninstall it (`pip uninstall`) or run verify in an \
                     environment without it"
                ));
            }
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamer() -> Renamer {
        Renamer::new(
            [("shop", "lamp"), ("basket", "violin")],
            [],
            ["shop", "Basket"],
        )
        .unwrap()
    }

    #[test]
    fn args_translate_and_move_into_the_view() {
        let r = renamer();
        let o = Path::new("/nonexistent/orig");
        let v = Path::new("/tmp/v");
        let a: Vec<String> = [
            "python",
            "-m",
            "pytest",
            "tests/test_basket.py::BasketTests::test_total",
            "/nonexistent/orig/shop/x.py",
            "--rootdir=/nonexistent/orig",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let t = translate_args(&a, o, v, &r);
        assert_eq!(t[3], "tests/test_violin.py::ViolinTests::test_total");
        assert_eq!(t[4], "/tmp/v/lamp/x.py");
        assert_eq!(t[5], "--rootdir=/tmp/v");
        // The involution takes view ids back.
        assert_eq!(r.swap_text(&t[3]), a[3]);
    }
}
