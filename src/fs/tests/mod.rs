//! ViewFs without a kernel, over a temp dir, with the alpha<->omega test transform.

use super::testing::SwapTransform;
use super::*;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod basics;
mod edges;
mod handleless;
mod nodes;
mod state;
mod watching;

struct Fixture {
    _dir: tempfile::TempDir,
    orig: PathBuf,
    state: PathBuf,
    fs: ViewFs,
}

fn write(p: &Path, b: &[u8]) {
    if let Some(d) = p.parent() {
        fs::create_dir_all(d).unwrap();
    }
    fs::write(p, b).unwrap();
}

/// A filesystem over `orig` with the transform `t`, whose original is watched (changes from
/// outside arrive as events), as a mount sets it up.
fn watched_fs(orig: &Path, state: &Path, t: impl Transform + 'static) -> ViewFs {
    let fs = ViewFs::new(orig, state, Arc::new(t), Options::default()).unwrap();
    fs.set_watched();
    fs
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let orig = dir.path().join("orig");
    let state = dir.path().join("state");
    write(&orig.join("alpha.py"), b"def alpha():\n    return omega\n");
    write(&orig.join("pkg/__init__.py"), b"");
    write(&orig.join("pkg/alpha_mod.py"), b"import alpha\n");
    write(
        &orig.join("pkg/__pycache__/alpha.cpython-311.pyc"),
        b"\0bytecode",
    );
    write(&orig.join("pkg/old.pyc"), b"\0old");
    write(&orig.join(".git/HEAD"), b"ref: refs/heads/main\n");
    write(&orig.join(".pytest_cache/v"), b"x");
    write(&orig.join("data.bin"), b"\0alpha\xff");
    write(&orig.join("README"), b"omega and alpha\n");
    let fs = ViewFs::new(&orig, &state, Arc::new(SwapTransform), Options::default()).unwrap();
    Fixture {
        _dir: dir,
        orig,
        state,
        fs,
    }
}

impl Fixture {
    fn names(&self, view: &str) -> Vec<String> {
        let a = self.fs.lookup_path(Path::new(view)).unwrap();
        let fh = self.fs.opendir(a.ino).unwrap();
        let v = self
            .fs
            .readdir(fh, 0)
            .unwrap()
            .into_iter()
            .map(|(_, e)| e.name.to_string_lossy().into_owned())
            .collect();
        self.fs.releasedir(fh);
        v
    }

    fn read(&self, view: &str) -> Vec<u8> {
        let a = self.fs.lookup_path(Path::new(view)).unwrap();
        let o = self.fs.open(a.ino, libc::O_RDONLY).unwrap();
        let mut out = Vec::new();
        loop {
            let chunk = self
                .fs
                .read(a.ino, o.fh, out.len() as u64, 1 << 20)
                .unwrap();
            if chunk.is_empty() {
                break;
            }
            out.extend_from_slice(&chunk);
        }
        self.fs.release(a.ino, o.fh).unwrap();
        assert_eq!(
            a.size,
            out.len() as u64,
            "getattr size == bytes served for {view}"
        );
        out
    }

    /// open O_WRONLY|O_TRUNC, write, close (as `echo > file` does).
    fn write(&self, view: &str, data: &[u8]) -> FsResult<()> {
        let a = self.fs.lookup_path(Path::new(view))?;
        let o = self.fs.open(a.ino, libc::O_WRONLY | libc::O_TRUNC)?;
        self.fs.write(a.ino, o.fh, 0, data)?;
        self.fs.flush(a.ino, o.fh)?;
        self.fs.release(a.ino, o.fh)
    }

    fn create(&self, dir: &str, name: &str, data: &[u8]) -> FsResult<()> {
        let p = self.fs.lookup_path(Path::new(dir))?;
        let (a, o) = self.fs.create(
            p.ino,
            OsStr::new(name),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )?;
        self.fs.write(a.ino, o.fh, 0, data)?;
        self.fs.release(a.ino, o.fh)
    }
}

fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in fs::read_dir(&d).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                dirs.push(e.path());
            } else {
                out.push((e.path(), fs::read(e.path()).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// Records the base each write-back inverts against (contents pass unchanged).
#[derive(Default)]
struct BaseRecorder {
    bases: parking_lot::Mutex<Vec<Option<Vec<u8>>>>,
    /// How many times a view was computed from an original.
    views: std::sync::atomic::AtomicUsize,
    moves: parking_lot::Mutex<Vec<(PathBuf, PathBuf)>>,
}

impl Transform for BaseRecorder {
    fn name_to_view(&self, name: &OsStr) -> std::ffi::OsString {
        name.to_owned()
    }
    fn name_to_original(
        &self,
        name: &OsStr,
    ) -> Result<std::ffi::OsString, crate::transform::TransformError> {
        Ok(name.to_owned())
    }
    fn content_to_view(&self, _: &Path, original: &[u8]) -> Vec<u8> {
        self.views.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        original.to_vec()
    }
    fn content_to_original(&self, _: &Path, view: &[u8], base: Option<&[u8]>) -> Vec<u8> {
        self.bases.lock().push(base.map(<[u8]>::to_vec));
        view.to_vec()
    }
    // Like Level 3: what a file held before decides how its view goes back.
    fn base_matters(&self, _: &Path) -> bool {
        true
    }
    fn renamed(&self, from: &Path, to: &Path) {
        self.moves
            .lock()
            .push((from.to_path_buf(), to.to_path_buf()));
    }
}

/// A view over the files of `orig` whose transform records what it is asked (`BaseRecorder`).
fn recording_view(dir: &Path, orig: &Path) -> (Arc<BaseRecorder>, ViewFs) {
    let t = Arc::new(BaseRecorder::default());
    let fs = ViewFs::new(orig, &dir.join("state"), t.clone(), Options::default()).unwrap();
    (t, fs)
}

/// Create `name` in the view's root holding `bytes`, through a handle.
fn create_in_root(fs: &ViewFs, name: &str, bytes: &[u8]) {
    let (a, o) = fs
        .create(
            ROOT_INO,
            OsStr::new(name),
            0o644,
            0o022,
            libc::O_WRONLY,
            Caller::daemon(),
        )
        .unwrap();
    fs.write(a.ino, o.fh, 0, bytes).unwrap();
    fs.release(a.ino, o.fh).unwrap();
}
