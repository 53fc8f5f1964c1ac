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

/// Render one original entry for the view. `None` when the view does not show it.
fn render(
    t: &dyn Transform,
    roots: &Roots,
    path: &[u8],
    mode: u32,
    oid: &str,
    blobs: &HashMap<String, Vec<u8>>,
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

/// Build the shadow repository of `original` at `target` (which must not exist yet).
/// `Ok(None)`: the original is not the top of a git work tree, so the view has no `.git`.
/// Called for every unchanged work-tree file with its metadata and its rendered view.
pub type Prime<'a> = dyn Fn(&Path, &std::fs::Metadata, Arc<Vec<u8>>) + Sync + 'a;

pub fn build(
    original: &Path,
    target: &Path,
    t: &dyn Transform,
    roots: &Roots,
    prime: &Prime<'_>,
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
    let rendered: HashMap<(Vec<u8>, String, u32), Rendered> = jobs
        .into_par_iter()
        .filter_map(|k| {
            let r = render(t, roots, &k.0, k.2, &k.1, &blobs)?;
            Some((k, r))
        })
        .collect();
    tracing::debug!(elapsed = ?started.elapsed(), "shadow: rendered");

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
                if e.mode & 0o170000 == 0o100000 {
                    prime(Path::new(OsStr::from_bytes(&e.path)), m, c.clone());
                }
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
        .args(["fast-import", "--quiet", "--done", "--date-format=raw"])
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
