//! The pure transform core: everything that turns original bytes and names into view bytes
//! and names and back. Nothing here does I/O or knows about FUSE.
//!
//! The filesystem talks to the core only through [`Transform`], so it can be tested with any
//! implementation and the core can grow (Level 3) without touching `fs`.

pub mod bind;
pub mod catalog;
pub mod defs;
pub mod encoded;
pub mod formats;
pub mod layout;
pub mod lexer;
pub mod lexicon;
pub mod lines;
pub mod listed;
pub mod media;
pub mod never_run;
pub mod order;
pub mod patterns;
pub mod pinned;
pub mod policy;
pub mod programs;
pub mod rename;
pub mod reorder;
pub mod rewrite;
pub mod scope;
pub mod statement;
pub mod tokens;

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStringExt;

use std::path::{Path, PathBuf};

/// Why a view name or content cannot be taken back to the original.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum TransformError {
    /// The name is reserved by the view (hidden or private) and cannot exist in the original.
    #[error("name is reserved in the view")]
    Reserved,
    /// The name cannot be expressed in the original's coordinates.
    #[error("name cannot be translated: {0}")]
    Untranslatable(String),
}

impl TransformError {
    /// The errno the filesystem should answer with.
    pub fn errno(&self) -> i32 {
        match self {
            TransformError::Reserved => libc::EACCES,
            TransformError::Untranslatable(_) => libc::EINVAL,
        }
    }
}

/// What the filesystem needs from a view definition.
///
/// Paths given to content methods are relative to the original root, in original names;
/// that is what decides the file kind (Python source, other text, binary).
pub trait Transform: Send + Sync + 'static {
    /// One path component (a file or directory name), original -> view.
    fn name_to_view(&self, name: &OsStr) -> OsString;
    /// One path component, view -> original.
    fn name_to_original(&self, name: &OsStr) -> Result<OsString, TransformError>;
    /// File contents, original -> view.
    fn content_to_view(&self, orig_rel: &Path, original: &[u8]) -> Vec<u8>;
    /// File contents, view -> original. `base_original` is the original's content before the
    /// write, when the file existed (Level 3 needs it to keep untouched bytes).
    fn content_to_original(
        &self,
        orig_rel: &Path,
        view: &[u8],
        base_original: Option<&[u8]>,
    ) -> Vec<u8>;
    /// `content_to_original(orig_rel, view, ..)` for a view that extends `prev_view`, whose
    /// original `prev_original` the caller wrote (it is `content_to_original` of
    /// `prev_view`), computed from the new bytes where the transform can; `None` when it
    /// cannot, and the caller inverts the whole view.
    fn content_to_original_appended(
        &self,
        _orig_rel: &Path,
        _prev_view: &[u8],
        _prev_original: &[u8],
        _view: &[u8],
    ) -> Option<Vec<u8>> {
        None
    }
    /// `content_to_original` for a write-back that must not wait for Level 3's inverse (two
    /// parses of the file): the original in the view's own order, which shows exactly `view`
    /// until [`Transform::settle`] puts it in the order `content_to_original` would have
    /// given. `None` when the transform has no such cheaper form for this path (the caller
    /// inverts the whole view).
    fn content_to_original_unsettled(
        &self,
        _orig_rel: &Path,
        _view: &[u8],
        _base_original: Option<&[u8]>,
    ) -> Option<Vec<u8>> {
        None
    }
    /// The settled form of `orig_rel`, whose original is now `original`, if
    /// `content_to_original_unsettled` wrote it and nothing wrote it since: the bytes
    /// `content_to_original` would have given, which show the same view. Computed without
    /// changing the transform's state; [`Transform::settle_step`] puts it in place.
    fn settle(&self, _orig_rel: &Path, _original: &[u8]) -> Option<layout::Settled> {
        None
    }
    /// A step of putting a settled form in place around the caller's replacing of the
    /// original (`LayoutStore::settle_step`); false when the file was written since `settle`
    /// and the form is stale.
    fn settle_step(
        &self,
        _orig_rel: &Path,
        _settled: &layout::Settled,
        _step: layout::SettleStep,
    ) -> bool {
        false
    }
    /// Paths (original, relative) waiting for [`Transform::settle`].
    fn unsettled(&self) -> Vec<PathBuf> {
        Vec::new()
    }
    /// Whether `orig_rel` waits for [`Transform::settle`].
    fn is_unsettled(&self, _orig_rel: &Path) -> bool {
        false
    }
    /// State to keep across mounts (Level 3 layouts); `None` when stateless.
    fn save_state(&self) -> Option<layout::LayoutState> {
        None
    }
    /// What changed in `save_state` since this was last asked (`LayoutStore::changes`);
    /// `None` when stateless.
    fn state_changes(&self) -> Option<Vec<layout::StateChange>> {
        None
    }
    /// Names (digests) of the blobs the saved state refers to, which are saved apart from it
    /// and never change (Level 3's bases).
    fn state_blobs(&self) -> Vec<String> {
        Vec::new()
    }
    /// The bytes of one of `state_blobs`.
    fn state_blob(&self, _name: &str) -> Option<Vec<u8>> {
        None
    }
    /// A file or directory moved in the original (not over an existing file): per-path state
    /// moves with it.
    fn renamed(&self, _from_orig: &Path, _to_orig: &Path) {}
    /// A file or directory is about to move (then `renamed`, or `rename_abort` if the move
    /// failed): per-path state is known at both paths meanwhile, so a state saved in between
    /// shows the file alike wherever a killed daemon left it.
    fn rename_begin(&self, _from_orig: &Path, _to_orig: &Path) {}
    /// The move announced by `rename_begin` did not happen.
    fn rename_abort(&self, _from_orig: &Path, _to_orig: &Path) {}
    /// Whether the original's previous content changes what `content_to_original` gives
    /// (Level 3 inverts against it); when not, the filesystem need not look for one.
    fn base_matters(&self, _orig_rel: &Path) -> bool {
        false
    }
    /// Whether writes of an earlier session left state (Level 3 layouts) that makes the view
    /// differ from a fresh transform of the same bundle.
    fn remembers_state(&self) -> bool {
        false
    }
    /// Whether this path's view depends on state that writes or renames left (a remembered
    /// Level 3 layout), so that a fresh transform of the same bytes may give another view.
    fn remembers(&self, _orig_rel: &Path) -> bool {
        false
    }
    /// Whether a content holding a NUL byte (binary) passes unchanged in both directions for
    /// this path, so that a write to it may go to the original in place.
    fn passes_binary(&self, _orig_rel: &Path) -> bool {
        false
    }
}

/// Prefix of the temporary files that write-back creates beside an original file (then
/// renames over it). Hidden like the rest, so a write-back cut short never shows in the view,
/// the bundle or an export.
pub const WRITEBACK_TMP_PREFIX: &str = ".schrodinger-tmp.";

// The names the view treats specially, in one place: what it hides in the original, what
// always lives in the scratch area, and what tools generate.

/// A byte-code file.
fn is_bytecode(name: &[u8]) -> bool {
    name.ends_with(b".pyc") || name.ends_with(b".pyo")
}

/// Names in the original that the view never shows: version control, byte-code caches, tool
/// caches and write-back temporaries. Their content would leak original names, and tools
/// recreate them anyway. The one definition for the mount, the bundle and `export`.
pub fn hidden_in_original(name: &[u8]) -> bool {
    always_in_scratch(name) || name.starts_with(WRITEBACK_TMP_PREFIX.as_bytes())
}

/// Names that live in the scratch area whatever the original has: byte-code and pytest's
/// cache (generated, and full of original names), and `.git`, the view's shadow repository.
/// The original's own entries of these names are hidden ([`hidden_in_original`]).
pub fn always_in_scratch(name: &[u8]) -> bool {
    matches!(name, b".git" | b"__pycache__" | b".pytest_cache") || is_bytecode(name)
}

/// The extensions of a file or directory name, as `Renamer::swap_name` keeps them: every
/// dot-separated part after the first dot that is not the first byte, when it is an identifier
/// (`tar` and `gz` of `data.tar.gz`; none for `.coveragerc`).
pub fn name_extensions(name: &str) -> impl Iterator<Item = &str> {
    let rest = name
        .get(1..)
        .and_then(|n| n.find('.'))
        .map_or("", |dot| &name[dot + 2..]);
    rest.split('.').filter(|part| {
        let b = part.as_bytes();
        !b.is_empty()
            && !b[0].is_ascii_digit()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
    })
}

/// Names of what tools generate in a Python checkout: byte-code, build and packaging output,
/// test, coverage and lint caches. The one definition for the filesystem (such names created
/// in the view live in the scratch area), the bundle (they are never part of the tree it is
/// built from) and `export`.
///
/// `pytest-cache-files-*` is the temporary directory pytest creates beside `.pytest_cache`
/// and then renames into place; `.coverage.*` are the per-process data files of parallel
/// coverage runs.
pub fn is_tool_output(name: &[u8]) -> bool {
    matches!(
        name,
        b"__pycache__"
            | b".eggs"
            | b"build"
            | b".tox"
            | b".nox"
            | b".hypothesis"
            | b".coverage"
            | b"htmlcov"
            | b".mypy_cache"
            | b".ruff_cache"
            | b".pytest_cache"
    ) || is_bytecode(name)
        || name.ends_with(b".egg-info")
        || name.starts_with(b".coverage.")
        || name.starts_with(b"pytest-cache-files-")
}

/// Whether an entry of a tree is tool output ([`is_tool_output`]), except for a directory
/// named like one that is a Python package (`src/build/__init__.py` is source, not setuptools'
/// build directory). `is_package` is asked only for such a directory.
pub fn is_generated(name: &[u8], is_package: impl FnOnce() -> bool) -> bool {
    is_tool_output(name) && !(name == b"build" && is_package())
}

fn bytes_to_os(b: Vec<u8>) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(b)
}

/// The view of a bundle: Level 4 (rewriting) innermost, then Level 3 (reordering), Level 2
/// (renaming) outside.
///
/// To the view: rewrite function bodies, reorder the lines, then rename. Back: rename (an
/// involution), invert the layout, then rewrite (an involution too). Levels 3 and 4 parse text
/// in original names, so their checks see the names the original really has; Level 3 sees
/// rewritten text, whose units and lines are the original's (Level 4 keeps both).
pub struct Composite {
    pub l2: Option<std::sync::Arc<rename::Renamer>>,
    pub l3: Option<layout::LayoutStore>,
    pub l4: Option<rewrite::Rewriter>,
}

impl Composite {
    /// Level 4's text of an original (or, the same function, the original of a rewritten
    /// text).
    fn rewritten<'a>(&self, path: &[u8], text: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        match &self.l4 {
            Some(r) if layout::is_python_name(path) => std::borrow::Cow::Owned(r.apply(path, text)),
            _ => std::borrow::Cow::Borrowed(text),
        }
    }

    /// Level 3's step `f` of a move from `from` to `to`, when there is a Level 3.
    fn on_moved_paths(&self, from: &Path, to: &Path, f: fn(&layout::LayoutStore, &[u8], &[u8])) {
        if let Some(store) = &self.l3 {
            f(
                store,
                from.as_os_str().as_encoded_bytes(),
                to.as_os_str().as_encoded_bytes(),
            );
        }
    }
}

impl Transform for Composite {
    fn name_to_view(&self, name: &OsStr) -> OsString {
        match &self.l2 {
            Some(r) => bytes_to_os(r.swap_name(name.as_encoded_bytes()).into_owned()),
            None => name.to_owned(),
        }
    }

    fn name_to_original(&self, name: &OsStr) -> Result<OsString, TransformError> {
        let orig = match &self.l2 {
            Some(r) => bytes_to_os(r.swap_name(name.as_encoded_bytes()).into_owned()),
            None => name.to_owned(),
        };
        if hidden_in_original(orig.as_encoded_bytes()) {
            return Err(TransformError::Reserved);
        }
        Ok(orig)
    }

    fn content_to_view(&self, orig_rel: &Path, original: &[u8]) -> Vec<u8> {
        let path = orig_rel.as_os_str().as_encoded_bytes();
        let rewritten = self.rewritten(path, original);
        let ordered = match &self.l3 {
            Some(store) if layout::is_python_name(path) => store.to_view(path, &rewritten),
            _ => rewritten.into_owned(),
        };
        match &self.l2 {
            Some(r) => r.swap_content(path, &ordered).into_owned(),
            None => ordered,
        }
    }

    fn content_to_original(
        &self,
        orig_rel: &Path,
        view: &[u8],
        base_original: Option<&[u8]>,
    ) -> Vec<u8> {
        let path = orig_rel.as_os_str().as_encoded_bytes();
        let renamed = match &self.l2 {
            Some(r) => r.swap_content(path, view).into_owned(),
            None => view.to_vec(),
        };
        let ordered = match &self.l3 {
            Some(store) if layout::is_python_name(path) => {
                let base = base_original.map(|b| self.rewritten(path, b));
                store.to_original(path, &renamed, base.as_deref())
            }
            _ => renamed,
        };
        self.rewritten(path, &ordered).into_owned()
    }

    /// Levels 3 and 4 touch only Python files; for any other, the original is Level 2's
    /// swap, which a plain text file can extend line by line (`Renamer::swap_appended`).
    fn content_to_original_appended(
        &self,
        orig_rel: &Path,
        prev_view: &[u8],
        prev_original: &[u8],
        view: &[u8],
    ) -> Option<Vec<u8>> {
        let path = orig_rel.as_os_str().as_encoded_bytes();
        if layout::is_python_name(path) {
            return None;
        }
        self.l2
            .as_ref()?
            .swap_appended(path, prev_view, prev_original, view)
    }

    /// Level 4 rewrites the text Level 3 orders, so only views without it settle later.
    fn content_to_original_unsettled(
        &self,
        orig_rel: &Path,
        view: &[u8],
        base_original: Option<&[u8]>,
    ) -> Option<Vec<u8>> {
        let path = orig_rel.as_os_str().as_encoded_bytes();
        let store = self.l3.as_ref().filter(|_| self.l4.is_none())?;
        if !layout::is_python_name(path) {
            return None;
        }
        let renamed = match &self.l2 {
            Some(r) => r.swap_content(path, view),
            None => std::borrow::Cow::Borrowed(view),
        };
        Some(store.to_original_unsettled(path, &renamed, base_original))
    }

    fn settle(&self, orig_rel: &Path, original: &[u8]) -> Option<layout::Settled> {
        let store = self.l3.as_ref().filter(|_| self.l4.is_none())?;
        store.settle(orig_rel.as_os_str().as_encoded_bytes(), original)
    }

    fn settle_step(
        &self,
        orig_rel: &Path,
        settled: &layout::Settled,
        step: layout::SettleStep,
    ) -> bool {
        self.l3.as_ref().is_some_and(|store| {
            store.settle_step(orig_rel.as_os_str().as_encoded_bytes(), settled, step)
        })
    }

    fn is_unsettled(&self, orig_rel: &Path) -> bool {
        self.l3
            .as_ref()
            .is_some_and(|s| s.is_unsettled(orig_rel.as_os_str().as_encoded_bytes()))
    }

    fn unsettled(&self) -> Vec<PathBuf> {
        self.l3
            .as_ref()
            .map(|s| {
                s.unsettled()
                    .into_iter()
                    .map(|p| PathBuf::from(OsString::from_vec(p)))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn base_matters(&self, orig_rel: &Path) -> bool {
        self.l3.is_some() && layout::is_python_name(orig_rel.as_os_str().as_encoded_bytes())
    }

    /// Level 2 passes binary contents unchanged (`rename::file_kind`), but for Python 2 byte
    /// code, which it swaps (`rename::is_python2_bytecode`; excluded by name here); Level 3
    /// only touches Python files, which are excluded here.
    fn passes_binary(&self, orig_rel: &Path) -> bool {
        let name = orig_rel.as_os_str().as_encoded_bytes();
        !self.base_matters(orig_rel) && !rename::may_swap_binary(name)
    }

    fn remembers_state(&self) -> bool {
        self.l3
            .as_ref()
            .is_some_and(layout::LayoutStore::remembers_any)
    }

    fn remembers(&self, orig_rel: &Path) -> bool {
        self.l3
            .as_ref()
            .is_some_and(|s| s.remembers(orig_rel.as_os_str().as_encoded_bytes()))
    }

    fn save_state(&self) -> Option<layout::LayoutState> {
        Some(self.l3.as_ref()?.state())
    }

    fn state_changes(&self) -> Option<Vec<layout::StateChange>> {
        Some(self.l3.as_ref()?.changes())
    }

    fn state_blobs(&self) -> Vec<String> {
        self.l3
            .as_ref()
            .map(layout::LayoutStore::base_blobs)
            .unwrap_or_default()
    }

    fn state_blob(&self, name: &str) -> Option<Vec<u8>> {
        self.l3.as_ref()?.base_blob(name)
    }

    fn renamed(&self, from_orig: &Path, to_orig: &Path) {
        self.on_moved_paths(from_orig, to_orig, layout::LayoutStore::rename);
    }

    fn rename_begin(&self, from_orig: &Path, to_orig: &Path) {
        self.on_moved_paths(from_orig, to_orig, layout::LayoutStore::rename_begin);
    }

    fn rename_abort(&self, from_orig: &Path, to_orig: &Path) {
        self.on_moved_paths(from_orig, to_orig, layout::LayoutStore::rename_abort);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_output_names() {
        for n in [
            "__pycache__",
            "mod.cpython-311.pyc",
            "old.pyo",
            "pkg.egg-info",
            ".eggs",
            "build",
            ".tox",
            ".nox",
            ".hypothesis",
            ".coverage",
            ".coverage.host.123.456",
            "htmlcov",
            ".mypy_cache",
            ".ruff_cache",
            ".pytest_cache",
            "pytest-cache-files-a1b2c3",
        ] {
            assert!(is_tool_output(n.as_bytes()), "{n}");
        }
        for n in [
            "builder.py",
            "build.py",
            "rebuild",
            "coverage",
            ".coveragerc",
            "tox.ini",
            "egg-info.txt",
            "hypothesis",
            "pytest-cache",
            "src",
        ] {
            assert!(!is_tool_output(n.as_bytes()), "{n}");
        }
        assert!(is_generated(b"build", || false));
        assert!(!is_generated(b"build", || true));
        assert!(
            is_generated(b".tox", || true),
            "only build can be a package"
        );
    }
}
