//! `schrodinger export`: write the view as a plain directory, byte for byte what the mount
//! serves, for machines without FUSE.

use std::path::{Path, PathBuf};

use super::{build_bundle_and_tree, bundle_map, resolve_map, transform_of, CliError, ExportArgs};
use crate::fs::links::{self, Roots};
use crate::transform::{hidden_in_original, Transform};

pub fn export(args: &ExportArgs) -> Result<(), CliError> {
    let out = &args.outdir;
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map_err(|e| CliError::io(format!("reading {}", out.display()), e))?
            .next()
            .is_none();
        if !empty {
            return Err(CliError::Msg(format!(
                "{} is not empty; export writes into a new or empty directory",
                out.display()
            )));
        }
    }
    let orig = args
        .original
        .canonicalize()
        .map_err(|e| CliError::io(format!("opening ORIGINAL {}", args.original.display()), e))?;
    if let Ok(o) = out.canonicalize() {
        if o.starts_with(&orig) {
            return Err(CliError::Msg("OUTDIR must not be inside ORIGINAL".into()));
        }
    }
    // The map of a view (`--mount`/`--state`), or of the live view of ORIGINAL it must be.
    let (map, tree) = if args.pin.mount.is_some() || args.pin.state.is_some() {
        let map = resolve_map(&orig, &args.view, &args.pin)?;
        (map, crate::bundle::read_tree(&orig)?)
    } else {
        let (bundle, tree) = build_bundle_and_tree(&orig, &args.view)?;
        (bundle_map(&orig, &args.view, bundle)?, tree)
    };
    let t = transform_of(&map.bundle, map.state.as_deref())?;
    let view_path = |rel: &Path| -> PathBuf {
        rel.components()
            .map(|c| t.name_to_view(c.as_os_str()))
            .collect()
    };
    std::fs::create_dir_all(out)
        .map_err(|e| CliError::io(format!("creating {}", out.display()), e))?;
    // Links are shown as the mount shows them (`fs::links`), the export's directory standing
    // for the mountpoint: a target inside the original points inside the export.
    let roots = Roots {
        original: orig.clone(),
        view: Some(
            out.canonicalize()
                .map_err(|e| CliError::io(format!("opening {}", out.display()), e))?,
        ),
    };
    for d in &tree.dirs {
        let src = orig.join(d);
        let dst = out.join(view_path(d));
        let meta = std::fs::symlink_metadata(&src)
            .map_err(|e| CliError::io(format!("reading {}", src.display()), e))?;
        if meta.file_type().is_symlink() {
            export_link(&src, &dst, &t, &roots)?;
        } else if meta.is_dir() {
            std::fs::create_dir_all(&dst)
                .map_err(|e| CliError::io(format!("creating {}", dst.display()), e))?;
        }
    }
    // Tool output the original already holds is shown by the mount as it is today (names
    // and contents through the same map); it is not in the bundle's tree, so walk it here.
    let mut generated = 0usize;
    for g in &tree.generated {
        generated += export_subtree(&orig, g, out, &t, &roots, &view_path)?;
    }
    for f in &tree.files {
        let dst = out.join(view_path(&f.rel));
        let bytes = t.content_to_view(&f.rel, &f.content);
        std::fs::write(&dst, &bytes)
            .map_err(|e| CliError::io(format!("writing {}", dst.display()), e))?;
        if let Ok(m) = std::fs::metadata(orig.join(&f.rel)) {
            let _ = std::fs::set_permissions(&dst, m.permissions());
        }
    }
    eprintln!(
        "exported {} files and {} directories ({} entries of tool output) to {}",
        tree.files.len(),
        tree.dirs.len(),
        generated,
        out.display()
    );
    Ok(())
}

/// Export the entry `rel` of the original (and everything below it) as the mount shows it;
/// returns how many entries were written. Names the view hides stay out.
fn export_subtree(
    orig: &Path,
    rel: &Path,
    out: &Path,
    t: &crate::transform::Composite,
    roots: &Roots,
    view_path: &dyn Fn(&Path) -> PathBuf,
) -> Result<usize, CliError> {
    let src = orig.join(rel);
    let dst = out.join(view_path(rel));
    let meta = std::fs::symlink_metadata(&src)
        .map_err(|e| CliError::io(format!("reading {}", src.display()), e))?;
    let ft = meta.file_type();
    if ft.is_symlink() {
        export_link(&src, &dst, t, roots)?;
        return Ok(1);
    }
    if ft.is_file() {
        let content = std::fs::read(&src)
            .map_err(|e| CliError::io(format!("reading {}", src.display()), e))?;
        std::fs::write(&dst, t.content_to_view(rel, &content))
            .map_err(|e| CliError::io(format!("writing {}", dst.display()), e))?;
        let _ = std::fs::set_permissions(&dst, meta.permissions());
        return Ok(1);
    }
    if !ft.is_dir() {
        return Ok(0);
    }
    std::fs::create_dir_all(&dst)
        .map_err(|e| CliError::io(format!("creating {}", dst.display()), e))?;
    let mut names: Vec<_> = std::fs::read_dir(&src)
        .map_err(|e| CliError::io(format!("reading {}", src.display()), e))?
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .filter(|n| !hidden_in_original(n.as_encoded_bytes()))
        .collect();
    names.sort();
    let mut n = 1;
    for name in names {
        n += export_subtree(orig, &rel.join(name), out, t, roots, view_path)?;
    }
    Ok(n)
}

/// The link `src` of the original written at `dst` with its target as the view shows it.
fn export_link(
    src: &Path,
    dst: &Path,
    t: &crate::transform::Composite,
    roots: &Roots,
) -> Result<(), CliError> {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let target = std::fs::read_link(src)
        .map_err(|e| CliError::io(format!("reading link {}", src.display()), e))?;
    let shown = links::to_view(t, target.into_os_string().into_vec().as_slice(), roots);
    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(&shown), dst)
        .map_err(|e| CliError::io(format!("creating {}", dst.display()), e))
}
