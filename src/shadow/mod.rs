//! The shadow repository: the `.git` the view shows.
//!
//! Guarantees:
//! - Nothing original is in it: one commit whose tree is the view of the original's HEAD
//!   (every path, blob and symlink target rendered by the view's own transform, modes kept),
//!   an index rendered from the original's index, and no other commit, tag, remote, reflog or
//!   object. The original's `.git` is only ever read, never written.
//! - `git status` in the view says what `git status` in the original says, in view names: the
//!   index holds the view blob of every original index entry, and where the original's own
//!   stat data proves the work-tree file unchanged, the stat data the view shows for it, so
//!   git trusts it without reading the file; every other entry gets stat data that cannot
//!   match, so git compares contents instead (never a false "clean").
//! - The original HEAD's id names the view commit (`refs/replace/<id>`), so harnesses that
//!   run `git diff <base>` or `git checkout <base>` work. Branch names follow the view.
//! - Built in a temporary directory and renamed into place, so a killed build leaves no
//!   half-made repository behind; a shadow that exists is never rebuilt (it is the agent's
//!   repository from then on, commits included).
//!
//! The objects are written by `git fast-import` (one pack); the original is read with
//! `git ls-tree`, `git cat-file --batch` and a direct parse of its index file ([`index`]).
//! Each file is transformed once: for a work-tree file the index proves unchanged, the build
//! takes the view the live view already computed, or gives the live view the one it renders
//! as soon as it is made ([`LiveViews`]), so the build and the agent's first requests (which
//! wait for it when they enter `.git`) share the work.

pub mod index;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use rayon::prelude::*;

use crate::fs::inode::view_path;
use crate::fs::links::{self, Roots};
use crate::transform::Transform;

/// The fixed identity of the view commit: no person's name from the original's history.
const IDENT: &str = "Developer <developer@example.com>";
const MESSAGE: &str = "Initial commit\n";

/// Settings of the shadow repository. `checkStat = minimal`: the view's inode and device
/// numbers are the filesystem's own and change between mounts, so git compares only mtime
/// and size (the index above provides both exactly).
const CONFIG: &str = "[core]\n\
\trepositoryformatversion = 0\n\
\tfilemode = true\n\
\tbare = false\n\
\tlogallrefupdates = true\n\
\tcheckStat = minimal\n\
[log]\n\
\texcludeDecoration = refs/replace/\n";

#[derive(Debug, thiserror::Error)]
pub enum ShadowError {
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    #[error("git {0}")]
    Git(String),
}

fn io(ctx: impl Into<String>) -> impl FnOnce(std::io::Error) -> ShadowError {
    let ctx = ctx.into();
    move |e| ShadowError::Io(ctx, e)
}

/// What was built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The original HEAD commit, when there is one.
    pub base: Option<String>,
    /// The view commit that `base` names in the shadow.
    pub commit: Option<String>,
    pub tree_entries: usize,
    pub index_entries: usize,
    /// Index entries whose stat data could be carried over (the rest git re-reads once).
    pub trusted: usize,
}

/// A git command with no user or system configuration and none of the caller's repository
/// variables, so only the repository named on the command line counts.
fn git() -> Command {
    let mut c = Command::new("git");
    for v in [
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_NAMESPACE",
        "GIT_CEILING_DIRECTORIES",
        "GIT_REPLACE_REF_BASE",
    ] {
        c.env_remove(v);
    }
    c.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .args(["-c", "safe.directory=*"])
        .stdin(Stdio::null());
    c
}

fn run(cmd: &mut Command) -> Result<Vec<u8>, ShadowError> {
    let out = cmd
        .output()
        .map_err(|e| ShadowError::Git(format!("cannot run: {e}")))?;
    if !out.status.success() {
        return Err(ShadowError::Git(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    Ok(out.stdout)
}

/// Like `run`, but a failure is an answer (`None`), not an error.
fn query(cmd: &mut Command) -> Option<Vec<u8>> {
    let out = cmd.output().ok()?;
    out.status.success().then_some(out.stdout)
}

fn trim(mut v: Vec<u8>) -> Vec<u8> {
    while v.last().is_some_and(|b| b.is_ascii_whitespace()) {
        v.pop();
    }
    v
}

/// The original's git directory, when `root` is the top of a work tree.
pub fn original_git_dir(root: &Path) -> Option<PathBuf> {
    let out = query(git().arg("-C").arg(root).args([
        "rev-parse",
        "--show-toplevel",
        "--absolute-git-dir",
    ]))?;
    let text = String::from_utf8(out).ok()?;
    let mut lines = text.lines();
    let top = PathBuf::from(lines.next()?);
    let dir = PathBuf::from(lines.next()?);
    let same = top.canonicalize().ok()? == root.canonicalize().ok()?;
    same.then_some(dir)
}

/// A reader of the original's committed content: the bytes of a path at the commit the
/// original's HEAD is at now (the view's base), read with `git cat-file`. `None` when the
/// original has no commit.
pub fn committed(root: &Path) -> Option<crate::fs::Committed> {
    original_git_dir(root)?;
    let base =
        query(
            git()
                .arg("-C")
                .arg(root)
                .args(["rev-parse", "-q", "--verify", "HEAD^{commit}"]),
        )
        .map(trim)
        .and_then(|v| String::from_utf8(v).ok())?;
    let root = root.to_path_buf();
    Some(Arc::new(move |rel: &Path| {
        let spec = format!("{base}:{}", rel.to_str()?);
        query(git().arg("-C").arg(&root).args(["cat-file", "blob", &spec]))
    }))
}

/// One entry of a tree listing.
struct TreeEntry {
    mode: u32,
    oid: String,
    path: Vec<u8>,
}

fn ls_tree(root: &Path) -> Result<Vec<TreeEntry>, ShadowError> {
    let out = run(git()
        .arg("-C")
        .arg(root)
        .args(["ls-tree", "-r", "-z", "--full-tree", "HEAD"]))?;
    let mut entries = Vec::new();
    for rec in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let tab = rec
            .iter()
            .position(|b| *b == b'\t')
            .ok_or_else(|| ShadowError::Git("ls-tree: bad line".into()))?;
        let meta = std::str::from_utf8(&rec[..tab])
            .map_err(|_| ShadowError::Git("ls-tree: bad line".into()))?;
        let mut f = meta.split(' ');
        let (Some(mode), Some(_kind), Some(oid)) = (f.next(), f.next(), f.next()) else {
            return Err(ShadowError::Git("ls-tree: bad line".into()));
        };
        let mode = u32::from_str_radix(mode, 8)
            .map_err(|_| ShadowError::Git("ls-tree: bad mode".into()))?;
        entries.push(TreeEntry {
            mode,
            oid: oid.to_string(),
            path: rec[tab + 1..].to_vec(),
        });
    }
    Ok(entries)
}

/// Contents of the given blobs, read through one `git cat-file --batch`.
fn read_blobs(root: &Path, oids: &[String]) -> Result<HashMap<String, Vec<u8>>, ShadowError> {
    let mut child = git()
        .arg("-C")
        .arg(root)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| ShadowError::Git(format!("cat-file: {e}")))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| ShadowError::Git("cat-file: no stdin".into()))?;
    let list: Vec<u8> = oids
        .iter()
        .flat_map(|o| format!("{o}\n").into_bytes())
        .collect();
    // A writer thread: git answers while we are still asking, and a full pipe both ways
    // would deadlock.
    let writer = std::thread::spawn(move || stdin.write_all(&list));
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| ShadowError::Git("cat-file: no stdout".into()))?;
    let mut r = BufReader::new(stdout);
    let mut blobs = HashMap::with_capacity(oids.len());
    let mut header = String::new();
    for oid in oids {
        header.clear();
        r.read_line(&mut header)
            .map_err(io("reading git cat-file output"))?;
        let fields: Vec<&str> = header.split_whitespace().collect();
        match fields.as_slice() {
            [_, "missing"] => continue,
            [_, _, size] => {
                let size: usize = size
                    .parse()
                    .map_err(|_| ShadowError::Git("cat-file: bad size".into()))?;
                let mut buf = vec![0u8; size + 1];
                r.read_exact(&mut buf)
                    .map_err(io("reading git cat-file output"))?;
                buf.pop();
                blobs.insert(oid.clone(), buf);
            }
            _ => return Err(ShadowError::Git(format!("cat-file: bad header {header:?}"))),
        }
    }
    let _ = writer.join();
    let _ = child.wait();
    Ok(blobs)
}

/// `author`/`committer` time and zone of the original HEAD (dates carry no name; keeping
/// them makes the view commit as old as the checkout it shows).
fn head_date(root: &Path) -> Result<String, ShadowError> {
    let raw = run(git()
        .arg("-C")
        .arg(root)
        .args(["cat-file", "commit", "HEAD"]))?;
    let text = String::from_utf8_lossy(&raw);
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("committer ") {
            let f: Vec<&str> = rest.rsplitn(3, ' ').collect();
            if f.len() == 3 {
                return Ok(format!("{} {}", f[1], f[0]));
            }
        }
        if line.is_empty() {
            break;
        }
    }
    Ok("0 +0000".to_string())
}

/// A path as fast-import reads it: C-quoted when it would otherwise be misread.
fn fi_path(p: &[u8]) -> Vec<u8> {
    let needs = p.first() == Some(&b'"') || p.iter().any(|&b| b == b'\n' || b == b'\\');
    if !needs {
        return p.to_vec();
    }
    let mut out = vec![b'"'];
    for &b in p {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            _ => out.push(b),
        }
    }
    out.push(b'"');
    out
}

/// A rendered file: its view path, mode and view bytes (None for a gitlink).
struct Rendered {
    view: Vec<u8>,
    mode: u32,
    content: Option<Arc<Vec<u8>>>,
    oid: [u8; 20],
}

/// Render one original entry for the view. `None` when the view does not show it. `known`:
/// the blob's view, already computed by the live view.
fn render(
    t: &dyn Transform,
    roots: &Roots,
    path: &[u8],
    mode: u32,
    oid: &str,
    blobs: &HashMap<String, Vec<u8>>,
    known: Option<Arc<Vec<u8>>>,
) -> Option<Rendered> {
    let rel = Path::new(OsStr::from_bytes(path));
    let view = view_path(t, rel)?.into_os_string().into_vec_bytes();
    if mode == 0o160000 {
        return Some(Rendered {
            view,
            mode,
            content: None,
            oid: index::from_hex(oid)?,
        });
    }
    if let Some(content) = known {
        return Some(Rendered {
            oid: index::blob_oid(&content),
            view,
            mode,
            content: Some(content),
        });
    }
    let blob = blobs.get(oid)?;
    let content = catch_unwind(AssertUnwindSafe(|| {
        if mode == 0o120000 {
            links::to_view(t, blob, roots)
        } else {
            t.content_to_view(rel, blob)
        }
    }))
    .ok()?;
    Some(Rendered {
        oid: index::blob_oid(&content),
        view,
        mode,
        content: Some(Arc::new(content)),
    })
}

trait IntoVecBytes {
    fn into_vec_bytes(self) -> Vec<u8>;
}

impl IntoVecBytes for std::ffi::OsString {
    fn into_vec_bytes(self) -> Vec<u8> {
        use std::os::unix::ffi::OsStringExt;
        self.into_vec()
    }
}

/// Whether the original's index entry still describes the work-tree file exactly (git's own
/// test, racy entries excluded), so the file's view is the entry's blob rendered.
fn stat_trusted(e: &index::Entry, m: &std::fs::Metadata, index_mtime: (i64, i64)) -> bool {
    let mtime = (m.mtime(), m.mtime_nsec());
    let same = e.mtime == (mtime.0 as u32, mtime.1 as u32)
        && e.ctime == (m.ctime() as u32, m.ctime_nsec() as u32)
        && e.ino == m.ino() as u32
        && e.size == m.size() as u32;
    // Racy: modified in the same instant the index was written, or later.
    same && mtime < index_mtime
}

/// The live view's cache, for the work-tree files the original's index proves unchanged
/// (`stat_trusted`): the view of such a file is its index blob rendered, so the build and
/// the live view can share that work. A live view whose transform may render differently
/// from the fresh one (layouts remembered from an earlier session) shares nothing.
pub trait LiveViews: Sync {
    /// The view of `rel` the live view already computed for the stamp of `m`, if it is the
    /// one a fresh transform renders.
    fn known(&self, rel: &Path, m: &std::fs::Metadata) -> Option<Arc<Vec<u8>>>;
    /// The rendered view of the unchanged file `rel` (metadata `m`), offered to the live
    /// view as soon as it is made, so a request for it waits for no second transform.
    fn prime(&self, rel: &Path, m: &std::fs::Metadata, view: Arc<Vec<u8>>);
}

/// Shares nothing (a live view that may differ, or none).
pub struct NoLiveViews;

impl LiveViews for NoLiveViews {
    fn known(&self, _: &Path, _: &std::fs::Metadata) -> Option<Arc<Vec<u8>>> {
        None
    }
    fn prime(&self, _: &Path, _: &std::fs::Metadata, _: Arc<Vec<u8>>) {}
}

impl LiveViews for crate::fs::ViewFs {
    fn known(&self, rel: &Path, m: &std::fs::Metadata) -> Option<Arc<Vec<u8>>> {
        self.known_view(rel, m)
    }
    fn prime(&self, rel: &Path, m: &std::fs::Metadata, view: Arc<Vec<u8>>) {
        crate::fs::ViewFs::prime(self, rel, m, view);
    }
}

/// Build the shadow repository of `original` at `target` (which must not exist yet).
/// `Ok(None)`: the original is not the top of a git work tree, so the view has no `.git`.
/// Views are shared with `live` (see [`LiveViews`]).
pub fn build(
    original: &Path,
    target: &Path,
    t: &dyn Transform,
    roots: &Roots,
    live: &dyn LiveViews,
) -> Result<Option<Built>, ShadowError> {
    let Some(orig_git) = original_git_dir(original) else {
        return Ok(None);
    };
    let started = std::time::Instant::now();
    let base =
        query(
            git()
                .arg("-C")
                .arg(original)
                .args(["rev-parse", "-q", "--verify", "HEAD^{commit}"]),
        )
        .map(trim)
        .and_then(|v| String::from_utf8(v).ok());
    let branch = query(
        git()
            .arg("-C")
            .arg(original)
            .args(["symbolic-ref", "-q", "HEAD"]),
    )
    .map(trim)
    .and_then(|v| String::from_utf8(v).ok())
    .and_then(|r| r.strip_prefix("refs/heads/").map(str::to_string));

    let tree = if base.is_some() {
        ls_tree(original)?
    } else {
        Vec::new()
    };
    let index_path = orig_git.join("index");
    let (orig_index, index_mtime) = match std::fs::read(&index_path) {
        Ok(bytes) => {
            let m = std::fs::metadata(&index_path).map_err(io("stat of the original's index"))?;
            let (_, entries) = index::parse(&bytes).map_err(|e| {
                ShadowError::Git(format!("the original's index is unreadable: {e}"))
            })?;
            (entries, (m.mtime(), m.mtime_nsec()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), (0, 0)),
        Err(e) => return Err(ShadowError::Io("reading the original's index".into(), e)),
    };

    // Every blob either side needs, read once.
    let mut wanted: Vec<String> = tree
        .iter()
        .filter(|e| e.mode != 0o160000)
        .map(|e| e.oid.clone())
        .chain(
            orig_index
                .iter()
                .filter(|e| e.mode != 0o160000)
                .map(|e| index::hex(&e.oid)),
        )
        .collect();
    wanted.sort();
    wanted.dedup();
    let blobs = read_blobs(original, &wanted)?;
    tracing::debug!(elapsed = ?started.elapsed(), blobs = blobs.len(), "shadow: blobs read");

    // Render each distinct (path, blob, mode) once, in parallel.
    let mut jobs: BTreeMap<(Vec<u8>, String, u32), ()> = BTreeMap::new();
    for e in &tree {
        jobs.insert((e.path.clone(), e.oid.clone(), e.mode), ());
    }
    for e in &orig_index {
        jobs.insert((e.path.clone(), index::hex(&e.oid), e.mode), ());
    }
    let jobs: Vec<(Vec<u8>, String, u32)> = jobs.into_keys().collect();
    // The index entries whose work-tree file may be unchanged: their view is shared with
    // the live view (taken from it when a request computed it first, else given to it).
    let in_index: HashMap<(&[u8], String, u32), &index::Entry> = orig_index
        .iter()
        .filter(|e| e.mode & 0o170000 == 0o100000)
        .map(|e| ((e.path.as_slice(), index::hex(&e.oid), e.mode), e))
        .collect();
    let taken = std::sync::atomic::AtomicUsize::new(0);
    let rendered: HashMap<(Vec<u8>, String, u32), Rendered> = jobs
        .into_par_iter()
        .filter_map(|k| {
            let unchanged = in_index
                .get(&(k.0.as_slice(), k.1.clone(), k.2))
                .and_then(|e| {
                    let rel = Path::new(OsStr::from_bytes(&e.path));
                    let m = std::fs::symlink_metadata(original.join(rel)).ok()?;
                    stat_trusted(e, &m, index_mtime).then_some((rel, m))
                });
            let known = unchanged.as_ref().and_then(|(rel, m)| live.known(rel, m));
            let shared = known.is_some();
            if shared {
                taken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            let r = render(t, roots, &k.0, k.2, &k.1, &blobs, known)?;
            if let (Some((rel, m)), Some(c), false) = (&unchanged, &r.content, shared) {
                live.prime(rel, m, c.clone());
            }
            Some((k, r))
        })
        .collect();
    tracing::debug!(
        elapsed = ?started.elapsed(),
        taken_from_the_live_view = taken.into_inner(),
        "shadow: rendered"
    );

    let parent = target
        .parent()
        .ok_or_else(|| ShadowError::Git("shadow target has no parent".into()))?;
    std::fs::create_dir_all(parent).map_err(io(format!("creating {}", parent.display())))?;
    let tmp = parent.join(format!(".schrodinger-shadow.{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    run(git()
        .arg("init")
        .arg("-q")
        .arg("--bare")
        .arg("--template=")
        .arg(&tmp))?;
    std::fs::create_dir_all(tmp.join("info")).map_err(io("creating info/"))?;
    if let Ok(ex) = std::fs::read(orig_git.join("info/exclude")) {
        let v = t.content_to_view(Path::new("exclude"), &ex);
        std::fs::write(tmp.join("info/exclude"), v).map_err(io("writing info/exclude"))?;
    }

    let view_branch = branch.as_deref().map(|b| view_ref_name(t, b));
    let mut commit = None;
    if let Some(base) = &base {
        let refname = format!(
            "refs/heads/{}",
            view_branch.as_deref().unwrap_or("tmp-build")
        );
        let entries: Vec<&Rendered> = tree
            .iter()
            .filter_map(|e| rendered.get(&(e.path.clone(), e.oid.clone(), e.mode)))
            .collect();
        let date = head_date(original)?;
        let v = fast_import(&tmp, &refname, &date, &entries)?;
        run(git().arg("--git-dir").arg(&tmp).args([
            "update-ref",
            &format!("refs/replace/{base}"),
            &v,
        ]))?;
        if view_branch.is_none() {
            run(git()
                .arg("--git-dir")
                .arg(&tmp)
                .args(["update-ref", "--no-deref", "HEAD", &v]))?;
            run(git()
                .arg("--git-dir")
                .arg(&tmp)
                .args(["update-ref", "-d", &refname]))?;
        }
        commit = Some(v);
        tracing::debug!(elapsed = ?started.elapsed(), "shadow: objects written");
    }
    let head = match &view_branch {
        Some(b) => format!("ref: refs/heads/{b}\n"),
        None => match &commit {
            Some(c) => format!("{c}\n"),
            None => "ref: refs/heads/main\n".to_string(),
        },
    };
    std::fs::write(tmp.join("HEAD"), head).map_err(io("writing HEAD"))?;
    // Written last, so that building left no reflog: the repository starts with none.
    std::fs::write(tmp.join("config"), CONFIG).map_err(io("writing the shadow config"))?;

    // The index, in view names, with stat data only where it is proven.
    let mut trusted = 0;
    let mut entries = Vec::with_capacity(orig_index.len());
    for e in &orig_index {
        let Some(r) = rendered.get(&(e.path.clone(), index::hex(&e.oid), e.mode)) else {
            continue;
        };
        let disk = original.join(OsStr::from_bytes(&e.path));
        let meta = std::fs::symlink_metadata(&disk).ok();
        let mut v = index::Entry {
            ctime: (0, 0),
            mtime: (0, 0),
            dev: 0,
            ino: 0,
            mode: e.mode,
            uid: e.uid,
            gid: e.gid,
            // Never a size a non-empty file has: git must look at the contents.
            size: 0,
            oid: r.oid,
            stage: e.stage,
            extended: e.extended,
            path: r.view.clone(),
        };
        if let (Some(m), Some(c)) = (&meta, &r.content) {
            if stat_trusted(e, m, index_mtime) {
                v.ctime = (m.ctime() as u32, m.ctime_nsec() as u32);
                v.mtime = (m.mtime() as u32, m.mtime_nsec() as u32);
                v.uid = m.uid();
                v.gid = m.gid();
                v.size = c.len() as u32;
                trusted += 1;
            }
        }
        // An untrusted empty file would match on size 0; its mtime (0, 0) cannot.
        entries.push(v);
    }
    let index_entries = entries.len();
    std::fs::write(tmp.join("index"), index::write(&entries)).map_err(io("writing the index"))?;
    // A non-bare repository: the view is its work tree.
    std::fs::rename(&tmp, target)
        .map_err(io(format!("moving the shadow to {}", target.display())))?;
    tracing::info!(
        elapsed = ?started.elapsed(),
        tree = tree.len(),
        index = index_entries,
        trusted,
        "shadow repository built"
    );
    Ok(Some(Built {
        base,
        commit,
        tree_entries: tree.len(),
        index_entries,
        trusted,
    }))
}

/// A branch name in view names: each `/`-separated part translated like a path component.
fn view_ref_name(t: &dyn Transform, name: &str) -> String {
    name.split('/')
        .map(|c| t.name_to_view(OsStr::new(c)).to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Write the view commit (blobs, trees, commit) with one `git fast-import`; its id.
fn fast_import(
    git_dir: &Path,
    refname: &str,
    date: &str,
    entries: &[&Rendered],
) -> Result<String, ShadowError> {
    let mut child = git()
        .arg("--git-dir")
        .arg(git_dir)
        // No deltas and the fastest compression: the objects (and so every id) are the
        // same, the pack about 15% larger, and the build that the view's `.git` (and with
        // it an agent's first `grep -r`) waits for about a second shorter on Django.
        .args(["-c", "pack.compression=1"])
        .args([
            "fast-import",
            "--quiet",
            "--done",
            "--date-format=raw",
            "--depth=0",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ShadowError::Git(format!("fast-import: {e}")))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| ShadowError::Git("fast-import: no stdin".into()))?;
    let mut stream: Vec<u8> = Vec::new();
    let mut marks: HashMap<[u8; 20], usize> = HashMap::new();
    let feed = |stream: &mut Vec<u8>, stdin: &mut std::process::ChildStdin| {
        if stream.len() > 8 << 20 {
            let r = stdin.write_all(stream);
            stream.clear();
            r
        } else {
            Ok(())
        }
    };
    for e in entries {
        let Some(c) = &e.content else { continue };
        if marks.contains_key(&e.oid) {
            continue;
        }
        let mark = marks.len() + 1;
        marks.insert(e.oid, mark);
        stream.extend_from_slice(format!("blob\nmark :{mark}\ndata {}\n", c.len()).as_bytes());
        stream.extend_from_slice(c.as_slice());
        stream.push(b'\n');
        feed(&mut stream, &mut stdin).map_err(io("writing to git fast-import"))?;
    }
    stream.extend_from_slice(
        format!(
            "commit {refname}\nauthor {IDENT} {date}\ncommitter {IDENT} {date}\ndata {}\n{MESSAGE}",
            MESSAGE.len()
        )
        .as_bytes(),
    );
    for e in entries {
        let dataref = match e.content {
            Some(_) => format!(":{}", marks[&e.oid]),
            None => index::hex(&e.oid),
        };
        stream.extend_from_slice(format!("M {:o} {dataref} ", e.mode).as_bytes());
        stream.extend_from_slice(&fi_path(&e.view));
        stream.push(b'\n');
    }
    stream.extend_from_slice(b"\ndone\n");
    stdin
        .write_all(&stream)
        .map_err(io("writing to git fast-import"))?;
    drop(stdin);
    let out = child
        .wait_with_output()
        .map_err(io("waiting for git fast-import"))?;
    if !out.status.success() {
        return Err(ShadowError::Git(format!(
            "fast-import: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let id = run(git()
        .arg("--git-dir")
        .arg(git_dir)
        .args(["rev-parse", refname]))?;
    String::from_utf8(trim(id)).map_err(|_| ShadowError::Git("rev-parse: not text".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::testing::SwapTransform;
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A live view that knows the views in `known` and records what the build offers it.
    #[derive(Default)]
    struct Recorder {
        known: HashMap<PathBuf, Arc<Vec<u8>>>,
        taken: AtomicUsize,
        primed: std::sync::Mutex<HashMap<PathBuf, Arc<Vec<u8>>>>,
    }

    impl LiveViews for Recorder {
        fn known(&self, rel: &Path, _: &std::fs::Metadata) -> Option<Arc<Vec<u8>>> {
            let v = self.known.get(rel).cloned();
            if v.is_some() {
                self.taken.fetch_add(1, Ordering::SeqCst);
            }
            v
        }
        fn prime(&self, rel: &Path, _: &std::fs::Metadata, view: Arc<Vec<u8>>) {
            self.primed.lock().unwrap().insert(rel.to_path_buf(), view);
        }
    }

    /// The view's `.git` is the same whether the build renders every file itself or takes
    /// the views the live view already computed; what it renders, it offers to the live view.
    #[test]
    fn views_shared_with_the_live_view_build_the_same_repository() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path().join("repo");
        run(git().arg("init").arg("-q").arg(&r)).unwrap();
        let files = [
            ("alpha.py", "def alpha():\n    return 'omega'\n"),
            ("pkg/omega.txt", "alpha and omega\n"),
            ("pkg/plain.cfg", "nothing to swap\n"),
        ];
        let past = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
        for (p, c) in files {
            let f = r.join(p);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(&f, c).unwrap();
            // Older than the index, so the index proves them unchanged (not racy).
            let h = std::fs::File::options().write(true).open(&f).unwrap();
            h.set_modified(past).unwrap();
        }
        run(git().arg("-C").arg(&r).args(["add", "-A"])).unwrap();
        run(git()
            .arg("-C")
            .arg(&r)
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(["commit", "-q", "-m", "one"]))
        .unwrap();
        let t = SwapTransform;
        let roots = Roots {
            original: r.clone(),
            view: None,
        };
        let head_and_index = |target: &Path| {
            let head = run(git()
                .arg("--git-dir")
                .arg(target)
                .args(["rev-parse", "HEAD"]))
            .unwrap();
            (head, std::fs::read(target.join("index")).unwrap())
        };

        let first = Recorder::default();
        let a = d.path().join("a/.git");
        let built = build(&r, &a, &t, &roots, &first).unwrap().unwrap();
        assert_eq!(built.trusted, files.len());
        let primed = first.primed.into_inner().unwrap();
        let want: HashMap<PathBuf, Arc<Vec<u8>>> = files
            .iter()
            .map(|(p, c)| {
                (
                    PathBuf::from(p),
                    Arc::new(t.content_to_view(Path::new(p), c.as_bytes())),
                )
            })
            .collect();
        assert_eq!(
            primed, want,
            "each rendered view is offered under its original path"
        );

        let second = Recorder {
            known: primed,
            ..Recorder::default()
        };
        let b = d.path().join("b/.git");
        build(&r, &b, &t, &roots, &second).unwrap().unwrap();
        assert_eq!(second.taken.load(Ordering::SeqCst), files.len());
        assert!(
            second.primed.lock().unwrap().is_empty(),
            "a view taken is not offered back"
        );
        assert_eq!(head_and_index(&a), head_and_index(&b));

        // A view the live view knows is taken as it is, not rendered again.
        let third = Recorder {
            known: HashMap::from([(
                PathBuf::from("pkg/plain.cfg"),
                Arc::new(b"as the live view has it\n".to_vec()),
            )]),
            ..Recorder::default()
        };
        let c = d.path().join("c/.git");
        build(&r, &c, &t, &roots, &third).unwrap().unwrap();
        let shown =
            run(git()
                .arg("--git-dir")
                .arg(&c)
                .args(["cat-file", "blob", "HEAD:pkg/plain.cfg"]))
            .unwrap();
        assert_eq!(shown, b"as the live view has it\n");
        assert_eq!(third.primed.lock().unwrap().len(), files.len() - 1);
    }

    /// The parser reads what real git writes, in every index version git can write.
    #[test]
    fn parses_real_git_indexes_of_every_version() {
        for version in ["2", "3", "4"] {
            let d = tempfile::tempdir().unwrap();
            let r = d.path();
            run(git().arg("init").arg("-q").arg(r)).unwrap();
            for (p, c) in [
                ("a.py", "a\n"),
                ("dir/b.txt", "b\n"),
                ("dir/sub/c d.py", ""),
            ] {
                let f = r.join(p);
                std::fs::create_dir_all(f.parent().unwrap()).unwrap();
                std::fs::write(&f, c).unwrap();
            }
            run(git().arg("-C").arg(r).args(["add", "-A"])).unwrap();
            run(git()
                .arg("-C")
                .arg(r)
                .args(["update-index", "--index-version", version]))
            .unwrap();
            // An intent-to-add entry carries extended flags (version 3 and up).
            std::fs::write(r.join("later.py"), "x\n").unwrap();
            run(git().arg("-C").arg(r).args(["add", "-N", "later.py"])).unwrap();
            let (v, entries) = index::parse(&std::fs::read(r.join(".git/index")).unwrap()).unwrap();
            let listed = run(git().arg("-C").arg(r).args(["ls-files", "-s", "-z"])).unwrap();
            let want: Vec<(u32, String, Vec<u8>)> = listed
                .split(|b| *b == 0)
                .filter(|l| !l.is_empty())
                .map(|l| {
                    let tab = l.iter().position(|b| *b == b'\t').unwrap();
                    let meta = std::str::from_utf8(&l[..tab]).unwrap();
                    let f: Vec<&str> = meta.split(' ').collect();
                    (
                        u32::from_str_radix(f[0], 8).unwrap(),
                        f[1].to_string(),
                        l[tab + 1..].to_vec(),
                    )
                })
                .collect();
            let got: Vec<(u32, String, Vec<u8>)> = entries
                .iter()
                .map(|e| (e.mode, index::hex(&e.oid), e.path.clone()))
                .collect();
            assert_eq!(got, want, "index version {version}");
            assert!(v >= version.parse().unwrap());
            assert!(
                entries.iter().any(|e| e.extended != 0),
                "intent-to-add flag read"
            );
            // And git reads back what `write` makes of them.
            std::fs::write(r.join(".git/index"), index::write(&entries)).unwrap();
            let again = run(git().arg("-C").arg(r).args(["ls-files", "-s", "-z"])).unwrap();
            assert_eq!(
                again, listed,
                "git reads the written index (version {version})"
            );
        }
    }
}
