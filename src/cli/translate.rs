//! `schrodinger translate`: text from one coordinate system to the other.
//!
//! Level 2 is an involution, so free text goes both ways through the same map (the prose
//! rule). With `--path FILE`, standard input is the content of FILE and goes through the
//! view's transform for that file, as the mount would: to the view, the bytes the view serves
//! for it; to the original, what the mount would write back if those bytes were written to
//! FILE in the view (Level 3 inverted against the original's current content).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::{resolve_map, transform_of, CliError, Direction, TranslateArgs};
use crate::transform::Transform;

pub fn translate(args: &TranslateArgs) -> Result<(), CliError> {
    let map = resolve_map(&args.original, &args.view, &args.pin)?;
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| CliError::io("reading standard input", e))?;
    let out = match &args.path {
        Some(path) => {
            let t = transform_of(&map.bundle, map.state.as_deref())?;
            render_file(&t, &args.original, path, args.to, &input)?
        }
        None if args.statement => {
            let text = String::from_utf8(input)
                .map_err(|_| CliError::Msg("standard input is not UTF-8 text".into()))?;
            super::statement::translate_statement(args, &map.bundle, &text)?.into_bytes()
        }
        None => {
            let text = String::from_utf8(input).map_err(|_| {
                CliError::Msg(
                    "standard input is not UTF-8 text (give --path FILE to render a file's \
                     content)"
                        .into(),
                )
            })?;
            let r = map.bundle.renamer()?;
            match args.to {
                Direction::View => r.swap_text(&text),
                Direction::Original => r.view_text_to_original(&text),
            }
            .into_bytes()
        }
    };
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| CliError::io("writing standard output", e))
}

/// `path` (relative to the root, or absolute inside `original`) as plain components.
pub fn relative_path(original: &Path, path: &Path) -> Result<PathBuf, CliError> {
    let rel = if path.is_absolute() {
        let orig = original
            .canonicalize()
            .unwrap_or_else(|_| original.to_path_buf());
        path.strip_prefix(&orig)
            .or_else(|_| path.strip_prefix(original))
            .map(Path::to_path_buf)
            .map_err(|_| {
                CliError::Msg(format!(
                    "--path {} is not inside ORIGINAL; give it relative to the repository root",
                    path.display()
                ))
            })?
    } else {
        path.to_path_buf()
    };
    let mut out = PathBuf::new();
    for c in rel.components() {
        match c {
            std::path::Component::Normal(n) => out.push(n),
            std::path::Component::CurDir => {}
            _ => {
                return Err(CliError::Msg(format!(
                    "--path {} must name a file below the repository root",
                    path.display()
                )))
            }
        }
    }
    if out.as_os_str().is_empty() {
        return Err(CliError::Msg("--path names no file".into()));
    }
    Ok(out)
}

/// The original path of view path `rel`, component by component.
pub fn original_path(t: &dyn Transform, rel: &Path) -> Result<PathBuf, CliError> {
    rel.components()
        .map(|c| {
            t.name_to_original(c.as_os_str()).map_err(|e| {
                CliError::Msg(format!(
                    "{}: `{}` has no original name ({e})",
                    rel.display(),
                    c.as_os_str().to_string_lossy()
                ))
            })
        })
        .collect()
}

fn render_file(
    t: &dyn Transform,
    original: &Path,
    path: &Path,
    to: Direction,
    input: &[u8],
) -> Result<Vec<u8>, CliError> {
    let rel = relative_path(original, path)?;
    Ok(match to {
        Direction::View => t.content_to_view(&rel, input),
        Direction::Original => {
            let orig_rel = original_path(t, &rel)?;
            let base = std::fs::read(original.join(&orig_rel)).ok();
            t.content_to_original(&orig_rel, input, base.as_deref())
        }
    })
}
