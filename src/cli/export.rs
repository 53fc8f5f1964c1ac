//! `schrodinger export`: write the view as a plain directory, byte for byte what the mount
//! serves, for machines without FUSE.

use std::path::Path;

use super::{build_bundle_and_tree, transform_of, CliError, ExportArgs};
use crate::transform::Transform;

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
    let (bundle, tree) = build_bundle_and_tree(&orig, &args.view)?;
    let t = transform_of(&bundle, None)?;
    let view_path = |rel: &Path| -> std::path::PathBuf {
        rel.components()
            .map(|c| t.name_to_view(c.as_os_str()))
            .collect()
    };
    std::fs::create_dir_all(out)
        .map_err(|e| CliError::io(format!("creating {}", out.display()), e))?;
    for d in &tree.dirs {
        let src = orig.join(d);
        let dst = out.join(view_path(d));
        let meta = std::fs::symlink_metadata(&src)
            .map_err(|e| CliError::io(format!("reading {}", src.display()), e))?;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&src)
                .map_err(|e| CliError::io(format!("reading link {}", src.display()), e))?;
            std::os::unix::fs::symlink(&target, &dst)
                .map_err(|e| CliError::io(format!("creating {}", dst.display()), e))?;
        } else if meta.is_dir() {
            std::fs::create_dir_all(&dst)
                .map_err(|e| CliError::io(format!("creating {}", dst.display()), e))?;
        }
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
        "exported {} files and {} directories to {}",
        tree.files.len(),
        tree.dirs.len(),
        out.display()
    );
    Ok(())
}
