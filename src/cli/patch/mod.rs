//! `schrodinger patch`: a diff in git's format from one coordinate system to the other.
//!
//! Guarantee (law 10): the patch a harness collects in the view (`git diff` of the view
//! against its base), translated `--to original`, is byte for byte the `git diff` of the
//! original after unmount; an original patch translated `--to view` applies with `git apply`
//! in the view, and writing its result through the view gives the patched original.
//!
//! How: hunks are never translated line by line (a line's meaning depends on the lines around
//! it, and with Level 3 the lines are elsewhere). For every file the patch touches:
//! 1. the base is found in the original (HEAD, else the working tree) whose rendering in the
//!    patch's coordinates has the blob id of the patch's `index` line, with the layout the
//!    view showed it in (the mount's saved layouts, else a fresh plan);
//! 2. git applies the patch to those bases (`git apply --cached` on a private index), which
//!    reads hunks, renames, modes and binary data exactly as git does;
//! 3. each result is taken to the other coordinates as the mount does it: to the original by
//!    `Transform::content_to_original`'s steps against the base (rename back, then invert the
//!    layout: what the mount's write-back writes); to the view by renaming and a layout that
//!    writes back to exactly the patched original;
//! 4. git itself prints the diff of the two trees, in a private repository whose objects and
//!    configuration are the original's (`git.rs`), with the options the input shows (prefixes,
//!    context lines, binary data, full ids, renames and copies).

mod git;
pub mod parse;
mod rebuild;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sha1::Digest as _;

use self::parse::FilePatch;
use super::{resolve_map, transform_of, CliError, Direction, PinArgs, ViewArgs};
use crate::transform::layout;

/// `schrodinger patch`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = PATCH_HELP)]
pub struct PatchArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub pin: PinArgs,
    /// The coordinate system of the output: `original` for a patch made in the view (an
    /// agent's `git diff`), `view` for a patch in original names (a gold or test patch).
    #[arg(long, value_enum)]
    pub to: Direction,
    /// Write the translated patch here instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The original checkout.
    pub original: PathBuf,
    /// Patch files to translate, one after the other (default: standard input; `-` is
    /// standard input too).
    #[arg(value_name = "PATCH")]
    pub patches: Vec<PathBuf>,
}

const PATCH_HELP: &str = "\
Translates a diff in git's format (`git diff`, `git diff --cached`, `git format-patch`'s body,
with or without --binary, any -U, renames and copies) between view and original coordinates:
paths, hunks, index lines, modes, binary data. The result is printed by git itself from the
two trees, with the original repository's diff configuration, so `--to original` of the
view's `git diff` is byte for byte the original's `git diff` after unmount.

Which map: --mount MOUNTPOINT or --state DIR use that view's bundle and the Level 3 layouts it
saved (use them for an agent's patch: its pre-image is what that view showed). Given only view
options, the map is built from ORIGINAL (and checked against a live view of it).

The patch's pre-image must be ORIGINAL's HEAD (or its working tree) as seen in the input's
coordinates; the `index` line says which, and a patch that fits neither is refused. Binary
files are the same bytes in both coordinate systems: a `Binary files differ` section (no
--binary data) needs the new blob in ORIGINAL's repository or working tree.

Examples:
  git -C /testbed diff > view.patch        # in the view (its shadow .git), before unmount
  schrodinger patch --to original --mount /testbed /testbed.orig view.patch > model.patch
  schrodinger patch --to view --mount /testbed /testbed.orig < gold.patch | git -C /testbed apply";

pub fn patch(args: &PatchArgs) -> Result<(), CliError> {
    let original = args
        .original
        .canonicalize()
        .map_err(|e| CliError::io(format!("ORIGINAL {}", args.original.display()), e))?;
    let map = resolve_map(&original, &args.view, &args.pin)?;
    let t = transform_of(&map.bundle, map.state.as_deref())?;
    let coords = Coords {
        original: &original,
        transform: &t,
        seed: map.bundle.seed,
    };
    let mut inputs = Vec::new();
    if args.patches.is_empty() {
        inputs.push(PathBuf::from("-"));
    }
    inputs.extend(args.patches.iter().cloned());
    let mut out = Vec::new();
    for p in &inputs {
        let bytes = if p.as_os_str() == "-" {
            let mut v = Vec::new();
            std::io::stdin()
                .read_to_end(&mut v)
                .map_err(|e| CliError::io("reading standard input", e))?;
            v
        } else {
            std::fs::read(p).map_err(|e| CliError::io(format!("reading {}", p.display()), e))?
        };
        let translated = translate_patch(&coords, &bytes, args.to).map_err(|e| match e {
            CliError::Msg(m) if inputs.len() > 1 => CliError::Msg(format!("{}: {m}", p.display())),
            e => e,
        })?;
        out.extend_from_slice(&translated);
    }
    match &args.output {
        Some(f) => {
            std::fs::write(f, &out).map_err(|e| CliError::io(format!("writing {}", f.display()), e))
        }
        None => std::io::stdout()
            .write_all(&out)
            .map_err(|e| CliError::io("writing standard output", e)),
    }
}

pub use self::rebuild::Coords;
use self::rebuild::{Base, LINK};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Git's blob id of `content` (SHA-1, or SHA-256 for repositories in that format).
fn blob_id(content: &[u8], sha256: bool) -> String {
    let header = format!("blob {}\0", content.len());
    if sha256 {
        let mut h = sha2::Sha256::new();
        h.update(header.as_bytes());
        h.update(content);
        hex(&h.finalize())
    } else {
        let mut h = sha1::Sha1::new();
        h.update(header.as_bytes());
        h.update(content);
        hex(&h.finalize())
    }
}

fn id_matches(want: &Option<String>, content: &[u8]) -> bool {
    match want {
        None => true,
        Some(w) => {
            let w = w.to_ascii_lowercase();
            blob_id(content, w.len() == 64).starts_with(&w)
        }
    }
}

/// One section with its paths in both coordinate systems and its base.
struct Section {
    f: FilePatch,
    /// Paths in the input's coordinates.
    old_src: Option<Vec<u8>>,
    new_src: Option<Vec<u8>>,
    /// Original paths.
    old_orig: Option<Vec<u8>>,
    new_orig: Option<Vec<u8>>,
    base: Option<Base>,
}

/// Translate one diff (see the module note).
pub fn translate_patch(c: &Coords<'_>, input: &[u8], to: Direction) -> Result<Vec<u8>, CliError> {
    let diff = parse::parse(input).map_err(CliError::Msg)?;
    if diff.files.is_empty() {
        return Ok(Vec::new());
    }
    let repo = git::Repo::new(c.original)?;
    let from_view = to == Direction::Original;
    let orig_of = |p: &Vec<u8>| -> Result<Vec<u8>, CliError> {
        if from_view {
            c.path_to_original(p)
        } else {
            Ok(p.clone())
        }
    };
    let mut sections = Vec::new();
    for f in diff.files.iter().cloned() {
        for p in f.old.iter().chain(f.new.iter()) {
            let plain = p
                .split(|&b| b == b'/')
                .all(|c| !c.is_empty() && c != b"." && c != b"..");
            if !plain {
                return Err(CliError::Msg(format!(
                    "`{}` is not a path inside the repository",
                    String::from_utf8_lossy(p)
                )));
            }
        }
        let old_orig = f.old.as_ref().map(orig_of).transpose()?;
        let new_orig = f.new.as_ref().map(orig_of).transpose()?;
        sections.push(Section {
            old_src: f.old.clone(),
            new_src: f.new.clone(),
            old_orig,
            new_orig,
            f,
            base: None,
        });
    }

    // 1. Bases: HEAD, then the working tree.
    let wanted: Vec<Vec<u8>> = {
        let mut v: Vec<Vec<u8>> = sections.iter().filter_map(|s| s.old_orig.clone()).collect();
        v.sort();
        v.dedup();
        v
    };
    let heads: Vec<Option<Vec<u8>>> = if repo.original_git.is_some() {
        let names: Vec<Vec<u8>> = wanted
            .iter()
            .map(|p| [&b"HEAD:./"[..], p].concat())
            .collect();
        repo.cat(&names, true)?
    } else {
        vec![None; wanted.len()]
    };
    let head_modes: BTreeMap<Vec<u8>, String> = repo.head_modes(&wanted)?.into_iter().collect();
    let mut bases: BTreeMap<Vec<u8>, Vec<(Vec<u8>, String)>> = BTreeMap::new();
    for (p, head) in wanted.iter().zip(heads) {
        let mut cands = Vec::new();
        if let Some(h) = head {
            let mode = head_modes
                .get(p)
                .cloned()
                .unwrap_or_else(|| "100644".into());
            cands.push((h, mode));
        }
        if let Some(w) = worktree(c.original, p) {
            if !cands.iter().any(|(h, m)| *h == w.0 && *m == w.1) {
                cands.push(w);
            }
        }
        bases.insert(p.clone(), cands);
    }
    for s in &mut sections {
        let Some(op) = &s.old_orig else { continue };
        let mut chosen = None;
        'find: for (content, mode) in bases.get(op).map(Vec::as_slice).unwrap_or(&[]) {
            let mode = s.f.old_mode.clone().unwrap_or_else(|| mode.clone());
            let layouts = if mode == LINK {
                vec![None]
            } else {
                c.layouts(op, content)
            };
            for layout in layouts {
                let base = Base {
                    content: content.clone(),
                    layout,
                    mode: mode.clone(),
                };
                let src_old = if from_view {
                    c.view_of(op, &base)
                } else {
                    base.content.clone()
                };
                if id_matches(&s.f.old_id, &src_old) {
                    chosen = Some(base);
                    break 'find;
                }
            }
        }
        let Some(base) = chosen else {
            return Err(CliError::Msg(format!(
                "{}: the patch's pre-image (index {}) is not {} ORIGINAL's HEAD or working \
                 tree version of {}",
                String::from_utf8_lossy(s.old_src.as_deref().unwrap_or(b"")),
                s.f.old_id.as_deref().unwrap_or("?"),
                if from_view { "the view of" } else { "" },
                String::from_utf8_lossy(op)
            )));
        };
        s.base = Some(base);
    }

    // 2. git applies the patch to the bases, in the input's coordinates.
    let mut pre: BTreeMap<Vec<u8>, (String, Vec<u8>)> = BTreeMap::new();
    for s in &sections {
        if let (Some(src), Some(op), Some(b)) = (&s.old_src, &s.old_orig, &s.base) {
            let content = if from_view {
                c.view_of(op, b)
            } else {
                b.content.clone()
            };
            pre.insert(src.clone(), (b.mode.clone(), content));
        }
    }
    let pre_index = write_index(&repo, "pre", &pre)?;
    // Sections that say `Binary files differ` carry no data, and git cannot apply them: the
    // new blob is the same in both coordinate systems, so it is looked up by its id.
    let mut to_apply = Vec::new();
    let mut by_id = Vec::new();
    for s in &sections {
        let (a, b) = s.f.range;
        if s.f.binary_marker && !s.f.binary_data {
            by_id.push(s);
        } else {
            to_apply.extend_from_slice(&input[a..b]);
        }
    }
    if !to_apply.is_empty() {
        repo.apply_cached(&pre_index, &to_apply).map_err(|e| {
            CliError::Msg(format!(
                "the patch does not apply to {}ORIGINAL's base: {e}",
                if from_view { "the view of " } else { "" }
            ))
        })?;
    }
    let mut post: BTreeMap<Vec<u8>, (String, String)> = repo
        .entries(&pre_index)?
        .into_iter()
        .map(|(m, id, p)| (p, (m, id)))
        .collect();
    for s in by_id {
        if let Some(os) = &s.old_src {
            if s.new_src.as_ref() != Some(os) && !s.f.copy {
                post.remove(os);
            }
        }
        let (Some(ns), Some(np)) = (&s.new_src, &s.new_orig) else {
            continue;
        };
        let content = binary_by_id(c, &repo, s.f.new_id.as_deref(), np)?;
        let mode =
            s.f.new_mode
                .clone()
                .or_else(|| s.base.as_ref().map(|b| b.mode.clone()))
                .unwrap_or_else(|| "100644".into());
        let id = repo.write_blobs(&[&content])?.remove(0);
        post.insert(ns.clone(), (mode, id));
    }
    let mut post_ids = Vec::new();
    for s in &sections {
        if let Some(ns) = &s.new_src {
            let (_, id) = post.get(ns).ok_or_else(|| {
                CliError::Msg(format!("git apply gave no {}", String::from_utf8_lossy(ns)))
            })?;
            post_ids.push(id.as_bytes().to_vec());
        }
    }
    let post_contents = repo.cat(&post_ids, false)?;

    // 3. Both sides in the target coordinates.
    let target_path = |orig: &Vec<u8>| -> Vec<u8> {
        if from_view {
            orig.clone()
        } else {
            c.path_to_view(orig)
        }
    };
    let mut old_tree: BTreeMap<Vec<u8>, (String, Vec<u8>)> = BTreeMap::new();
    for s in &sections {
        if let (Some(op), Some(b)) = (&s.old_orig, &s.base) {
            let content = if from_view {
                b.content.clone()
            } else {
                c.view_of(op, b)
            };
            old_tree.insert(target_path(op), (b.mode.clone(), content));
        }
    }
    let mut new_tree = old_tree.clone();
    let mut contents = post_contents.into_iter();
    for s in &sections {
        if let Some(op) = &s.old_orig {
            if !s.f.copy && s.new_orig.as_ref() != Some(op) {
                new_tree.remove(&target_path(op));
            }
        }
        let (Some(ns), Some(np)) = (&s.new_src, &s.new_orig) else {
            continue;
        };
        let (mode, _) = post.get(ns).cloned().unwrap_or_default();
        let content = contents
            .next()
            .flatten()
            .ok_or_else(|| CliError::Msg("git cat-file lost a blob".into()))?;
        let base = if s.f.copy { None } else { s.base.as_ref() };
        let out = if from_view {
            c.to_original(np, &content, &mode, base)
        } else {
            c.to_view(np, &content, &mode, base)?
        };
        new_tree.insert(target_path(np), (mode, out));
    }

    // 4. git prints the diff, with the original's configuration and attributes.
    prepare_attributes(c, &repo, from_view, &new_tree)?;
    let old_index = write_index(&repo, "old", &old_tree)?;
    let new_index = write_index(&repo, "new", &new_tree)?;
    let old_id = repo.write_tree(&old_index)?;
    let new_id = repo.write_tree(&new_index)?;
    let mut args = Vec::new();
    let (pa, pb) = &diff.prefixes;
    if pa.is_empty() && pb.is_empty() {
        args.push("--no-prefix".to_string());
    } else {
        args.push(format!("--src-prefix={}", String::from_utf8_lossy(pa)));
        args.push(format!("--dst-prefix={}", String::from_utf8_lossy(pb)));
    }
    if diff.has_binary_data() {
        args.push("--binary".into());
    }
    if diff.full_index {
        args.push("--full-index".into());
    }
    if diff.has_copies() {
        args.push("-C".into());
    } else if diff.has_renames() {
        args.push("-M".into());
    } else if diff.files.iter().any(|f| f.old.is_none())
        && diff.files.iter().any(|f| f.new.is_none())
    {
        args.push("--no-renames".into());
    }
    let lines_before: Vec<Option<usize>> = sections
        .iter()
        .map(|s| {
            let (op, b) = (s.old_orig.as_ref()?, s.base.as_ref()?);
            let src = if from_view {
                c.view_of(op, b)
            } else {
                b.content.clone()
            };
            Some(layout::split_lines(&src).len())
        })
        .collect();
    if let Some(n) = parse::context_lines(&diff, &|k| lines_before.get(k).copied().flatten()) {
        args.push(format!("-U{n}"));
    }
    repo.diff(&old_id, &new_id, &args)
}

/// The content of a binary file's new blob `id` (abbreviated), from the original's objects
/// or its working tree at `orig` (binary files are the same bytes in the view).
fn binary_by_id(
    c: &Coords<'_>,
    repo: &git::Repo,
    id: Option<&str>,
    orig: &[u8],
) -> Result<Vec<u8>, CliError> {
    let Some(id) = id else {
        return Err(CliError::Msg(format!(
            "{}: a binary change without an index line cannot be rebuilt",
            String::from_utf8_lossy(orig)
        )));
    };
    if let Some(Some(b)) = repo.cat(&[id.as_bytes().to_vec()], false)?.pop() {
        if id_matches(&Some(id.to_string()), &b) {
            return Ok(b);
        }
    }
    if let Some((w, _)) = worktree(c.original, orig) {
        if id_matches(&Some(id.to_string()), &w) {
            return Ok(w);
        }
    }
    Err(CliError::Msg(format!(
        "{}: `Binary files differ` carries no data, and ORIGINAL has no blob {id} (neither in \
         its repository nor in its working tree); make the patch with `git diff --binary`",
        String::from_utf8_lossy(orig)
    )))
}

fn write_index(
    repo: &git::Repo,
    name: &str,
    files: &BTreeMap<Vec<u8>, (String, Vec<u8>)>,
) -> Result<PathBuf, CliError> {
    let contents: Vec<&[u8]> = files.values().map(|(_, c)| c.as_slice()).collect();
    let ids = repo.write_blobs(&contents)?;
    let entries: Vec<git::Entry> = files
        .iter()
        .zip(ids)
        .map(|((p, (m, _)), id)| (m.clone(), id, p.clone()))
        .collect();
    repo.index_of(name, &entries)
}

/// The working tree's version of original `rel`: content (a symlink's target) and mode.
fn worktree(root: &Path, rel: &[u8]) -> Option<(Vec<u8>, String)> {
    let p = root.join(std::ffi::OsStr::from_bytes(rel));
    let m = std::fs::symlink_metadata(&p).ok()?;
    if m.file_type().is_symlink() {
        let t = std::fs::read_link(&p).ok()?;
        return Some((t.as_os_str().as_bytes().to_vec(), LINK.into()));
    }
    if !m.is_file() {
        return None;
    }
    let mode = if m.permissions().mode() & 0o111 != 0 {
        "100755"
    } else {
        "100644"
    };
    Some((std::fs::read(&p).ok()?, mode.into()))
}

/// Put the `.gitattributes` files git would read for the target side into the private work
/// tree (the original's, or their view), so hunk headers and binary decisions are git's own.
fn prepare_attributes(
    c: &Coords<'_>,
    repo: &git::Repo,
    to_original: bool,
    new_tree: &BTreeMap<Vec<u8>, (String, Vec<u8>)>,
) -> Result<(), CliError> {
    let mut found = Vec::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(c.original.join(&rel)) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name();
            let b = name.as_bytes();
            if crate::transform::hidden_in_original(b) || crate::transform::is_tool_output(b) {
                continue;
            }
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(rel.join(&name));
            } else if b == b".gitattributes" && ft.is_file() {
                found.push(rel.join(&name));
            }
        }
    }
    let mut files: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    for rel in found {
        let Ok(bytes) = std::fs::read(c.original.join(&rel)) else {
            continue;
        };
        let orig = rel.as_os_str().as_bytes().to_vec();
        if to_original {
            files.insert(orig, bytes);
        } else {
            files.insert(c.path_to_view(&orig), c.swap(&orig, &bytes));
        }
    }
    for (p, (_, content)) in new_tree {
        if p == b".gitattributes" || p.ends_with(b"/.gitattributes") {
            files.insert(p.clone(), content.clone());
        }
    }
    for (p, bytes) in files {
        let dst = repo.work.join(std::ffi::OsStr::from_bytes(&p));
        if let Some(d) = dst.parent() {
            std::fs::create_dir_all(d).map_err(|e| CliError::io("attributes", e))?;
        }
        std::fs::write(&dst, bytes).map_err(|e| CliError::io("attributes", e))?;
    }
    if let Some(info) = repo.original_info_attributes() {
        let bytes = if to_original {
            info
        } else {
            c.swap(b".gitattributes", &info)
        };
        repo.set_info_attributes(&bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::Composite;

    #[test]
    fn paths_that_leave_the_repository_are_refused() {
        let t = Composite {
            l2: None,
            l3: None,
            l4: None,
        };
        let dir = tempfile::tempdir().unwrap();
        let c = Coords {
            original: dir.path(),
            transform: &t,
            seed: 0,
        };
        for bad in ["../etc/passwd", "a//b", "./x"] {
            let p = format!(
                "diff --git a/{bad} b/{bad}\n--- a/{bad}\n+++ b/{bad}\n@@ -1 +1 @@\n-a\n+b\n"
            );
            let err = translate_patch(&c, p.as_bytes(), Direction::Original).unwrap_err();
            assert!(
                err.to_string().contains("not a path inside"),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin`
        assert_eq!(
            blob_id(b"hello\n", false),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert!(id_matches(&Some("ce01362".into()), b"hello\n"));
        assert!(!id_matches(&Some("ce01363".into()), b"hello\n"));
    }
}
