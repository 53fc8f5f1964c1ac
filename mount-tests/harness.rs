//! What every mount test needs: a private copy of the sample repository under git, the
//! `schrodinger` binary, a mount guard that always unmounts, and small tree/git helpers.
//!
//! Skipping: outside CI, a machine without `/dev/fuse` (or where mounting fails) prints a loud
//! SKIPPED line and the test returns early. Under `CI=true` the same situations fail.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use sha2::{Digest, Sha256};

pub const BIN: &str = env!("CARGO_BIN_EXE_schrodinger");

fn in_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// The same rule as `tests/fs_mount_smoke.rs`: no `/dev/fuse` fails under CI, skips loudly
/// otherwise.
pub fn can_mount(test: &str) -> bool {
    if Path::new("/dev/fuse").exists() {
        return true;
    }
    if in_ci() {
        panic!("{test}: /dev/fuse is missing but CI=true: mount tests must run");
    }
    eprintln!("\n!!!!! {test} SKIPPED: no /dev/fuse (set CI=true to make this fail) !!!!!\n");
    false
}

/// Path of the sample repository shipped with the crate.
pub fn sample_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample")
}

/// `schrodinger translate MAP_ARGS --to TO ORIG` of `text` (the map given by `--bundle`,
/// `--state` or `--mount`).
pub fn translate_with(map_args: &[&OsStr], orig: &Path, to: &str, text: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .arg("translate")
        .args(map_args)
        .args(["--to", to])
        .arg(orig)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "translate failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Run a command, return its output (never panics on a non-zero exit).
pub fn output(cmd: &mut Command) -> Output {
    cmd.stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// Run a command that must succeed; return its stdout.
pub fn run_ok(cmd: &mut Command) -> String {
    let out = output(cmd);
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `git` in `dir`, with a fixed identity and no user configuration.
pub fn git(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
        .args(["-c", "core.quotepath=off"])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    c
}

/// `python3` with byte-code writing on, whatever the caller's environment says: tests that
/// want `PYTHONDONTWRITEBYTECODE` set it themselves.
pub fn python3() -> Command {
    let mut c = Command::new("python3");
    c.env_remove("PYTHONDONTWRITEBYTECODE");
    c
}

/// Copy a directory tree (regular files and directories only), without byte-code caches and
/// `.git` (a view's shadow repository is not part of its work tree).
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let ft = e.file_type().unwrap();
        let dst = to.join(e.file_name());
        if ft.is_dir() {
            if e.file_name() == "__pycache__" || e.file_name() == ".git" {
                continue;
            }
            copy_tree(&e.path(), &dst);
        } else if ft.is_file() {
            fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// One test's private world: the original checkout (a committed copy of `sample/`), a
/// mountpoint parent, and state directories. Everything lives in one temp dir.
pub struct Repo {
    pub dir: tempfile::TempDir,
    pub orig: PathBuf,
}

impl Repo {
    /// A fresh copy of the sample, `git init` and one commit.
    pub fn sample() -> Repo {
        let dir = tempfile::Builder::new()
            .prefix("schrodinger-mt-")
            .tempdir()
            .unwrap();
        let orig = dir.path().join("orig");
        copy_tree(&sample_dir(), &orig);
        run_ok(git(&orig).args(["init", "-q", "-b", "main"]));
        run_ok(git(&orig).args(["add", "-A"]));
        run_ok(git(&orig).args(["commit", "-q", "-m", "sample"]));
        Repo { dir, orig }
    }

    /// A repository of the given files (relative path, contents), `git init` and one commit.
    pub fn with_files(files: &[(&str, &str)]) -> Repo {
        let dir = tempfile::Builder::new()
            .prefix("schrodinger-mt-")
            .tempdir()
            .unwrap();
        let orig = dir.path().join("orig");
        for (rel, text) in files {
            let p = orig.join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        run_ok(git(&orig).args(["init", "-q", "-b", "main"]));
        run_ok(git(&orig).args(["add", "-A"]));
        run_ok(git(&orig).args(["commit", "-q", "-m", "files"]));
        Repo { dir, orig }
    }

    /// Save the bundle of `seed` (built from the tree as it is now) and return its path.
    pub fn bundle(&self, seed: u64) -> PathBuf {
        let out = self.dir.path().join(format!("bundle-{seed}.json"));
        if !out.exists() {
            run_ok(
                Command::new(BIN)
                    .args(["map", "--seed", &seed.to_string(), "--out"])
                    .args([out.as_os_str(), self.orig.as_os_str()]),
            );
        }
        out
    }

    /// The bundle of `seed` as JSON.
    pub fn bundle_json(&self, seed: u64) -> serde_json::Value {
        serde_json::from_slice(&fs::read(self.bundle(seed)).unwrap()).unwrap()
    }

    /// The original names a view of `seed` may show nowhere: [`never_shown`].
    pub fn never_shown(&self, seed: u64) -> BTreeSet<String> {
        never_shown(&self.bundle_json(seed))
    }

    /// `schrodinger translate` with the saved bundle of `seed`. Call it before editing the
    /// original (the bundle is tied to the tree it was built from).
    pub fn translate(&self, seed: u64, to: &str, text: &str) -> String {
        let bundle = self.bundle(seed);
        translate_with(
            &[OsStr::new("--bundle"), bundle.as_os_str()],
            &self.orig,
            to,
            text,
        )
    }

    /// Translate several texts with one call (they must not contain the separator line).
    pub fn translate_many(&self, seed: u64, to: &str, texts: &[&str]) -> Vec<String> {
        const SEP: &str = "\n=====8<=====\n";
        let joined = texts.join(SEP);
        let out: Vec<String> = self
            .translate(seed, to, &joined)
            .split(SEP)
            .map(str::to_string)
            .collect();
        assert_eq!(out.len(), texts.len(), "translate kept the separator lines");
        out
    }

    /// The view path of an original relative path (`/`-separated).
    pub fn view_path(&self, seed: u64, orig_rel: &str) -> String {
        self.translate(seed, "view", orig_rel)
    }

    /// Mount the view of the original with `seed` at a new mountpoint named `name`.
    /// `None` means the test is skipped (outside CI only).
    pub fn mount(&self, test: &str, name: &str, seed: u64) -> Option<Mount> {
        Mount::new(test, &self.orig, &self.dir.path().join(name), seed)
    }

    /// [`Repo::mount`] with extra `schrodinger mount` arguments.
    pub fn mount_with(&self, test: &str, name: &str, seed: u64, extra: &[&str]) -> Option<Mount> {
        Mount::with_args(test, &self.orig, &self.dir.path().join(name), seed, extra)
    }

    /// `git status --porcelain` of the original (untracked files listed one by one).
    pub fn status(&self) -> String {
        run_ok(git(&self.orig).args(["status", "--porcelain", "--untracked-files=all"]))
    }

    /// `git diff` of the original, without context lines: (removed lines, added lines, files).
    pub fn diff(&self) -> Diff {
        Diff::parse(&run_ok(git(&self.orig).args([
            "diff",
            "--no-color",
            "--no-ext-diff",
            "-U0",
        ])))
    }
}

/// The lines a `git diff -U0` removes and adds, and the files it touches.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Diff {
    pub files: Vec<String>,
    pub removed: Vec<String>,
    pub added: Vec<String>,
    pub raw: String,
}

impl Diff {
    fn parse(text: &str) -> Diff {
        let mut d = Diff {
            raw: text.to_string(),
            ..Diff::default()
        };
        for line in text.lines() {
            if let Some(f) = line.strip_prefix("+++ ") {
                if f != "/dev/null" {
                    d.files.push(f.trim_start_matches("b/").to_string());
                }
            } else if let Some(f) = line.strip_prefix("--- ") {
                if f != "/dev/null" && !d.files.contains(&f.trim_start_matches("a/").to_string()) {
                    d.files.push(f.trim_start_matches("a/").to_string());
                }
            } else if let Some(l) = line.strip_prefix('+') {
                d.added.push(l.to_string());
            } else if let Some(l) = line.strip_prefix('-') {
                d.removed.push(l.to_string());
            }
        }
        d.files.dedup();
        d
    }
}

/// A mounted view. Dropping it unmounts (quietly, lazily if it must), so a failing test
/// never leaves a mount behind; [`Mount::unmount`] unmounts and asserts success.
pub struct Mount {
    pub point: PathBuf,
    pub state: PathBuf,
    mounted: bool,
}

impl Mount {
    pub fn new(test: &str, orig: &Path, point: &Path, seed: u64) -> Option<Mount> {
        Mount::with_args(test, orig, point, seed, &[])
    }

    pub fn with_args(
        test: &str,
        orig: &Path,
        point: &Path,
        seed: u64,
        extra: &[&str],
    ) -> Option<Mount> {
        if !can_mount(test) {
            return None;
        }
        let state = point.with_file_name(format!(
            "{}.state",
            point.file_name().unwrap().to_string_lossy()
        ));
        fs::create_dir_all(point).unwrap();
        let out = output(
            Command::new(BIN)
                .args(["mount", "--seed", &seed.to_string()])
                .args(extra)
                .arg("--state")
                .arg(&state)
                .arg(orig)
                .arg(point),
        );
        if !out.status.success() {
            let msg = String::from_utf8_lossy(&out.stderr).into_owned();
            if in_ci() {
                panic!("{test}: cannot mount (CI=true): {msg}");
            }
            eprintln!("\n!!!!! {test} SKIPPED: cannot mount: {msg} !!!!!\n");
            return None;
        }
        Some(Mount {
            point: point.to_path_buf(),
            state,
            mounted: true,
        })
    }

    /// Absolute path in the view of a `/`-separated view-relative path.
    pub fn path(&self, view_rel: &str) -> PathBuf {
        self.point.join(view_rel)
    }

    /// Flush, unmount, wait for the daemon; panics if that fails.
    pub fn unmount(mut self) {
        self.mounted = false;
        let out = output(Command::new(BIN).arg("unmount").arg(&self.point));
        if !out.status.success() {
            force_unmount(&self.point);
            panic!(
                "schrodinger unmount {} failed: {}\nlog:\n{}",
                self.point.display(),
                String::from_utf8_lossy(&out.stderr),
                self.log()
            );
        }
        assert!(
            fs::read_dir(&self.point).unwrap().next().is_none(),
            "the mountpoint is not empty after unmount"
        );
    }

    /// The daemon's log (for failure messages).
    pub fn log(&self) -> String {
        fs::read_to_string(self.state.join("schrodinger.log")).unwrap_or_default()
    }
}

fn force_unmount(point: &Path) {
    for (prog, args) in [
        ("fusermount3", "-uz"),
        ("fusermount", "-uz"),
        ("umount", "-l"),
    ] {
        if let Ok(o) = Command::new(prog)
            .arg(args)
            .arg(point)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
        {
            if o.status.success() {
                return;
            }
        }
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        if !self.mounted {
            return;
        }
        let ok = Command::new(BIN)
            .arg("unmount")
            .arg(&self.point)
            .stdin(Stdio::null())
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        if !ok {
            eprintln!(
                "guard: schrodinger unmount {} failed; forcing",
                self.point.display()
            );
            force_unmount(&self.point);
        }
    }
}

/// One entry of a walked tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir,
    File(Vec<u8>),
    Symlink(Vec<u8>),
    Other,
}

/// Walk `root` (without following symlinks): relative path bytes -> entry with contents.
/// `skip` names (e.g. `.git`) are left out with everything below them.
pub fn walk(root: &Path, skip: &[&str]) -> BTreeMap<Vec<u8>, Entry> {
    let mut out = BTreeMap::new();
    walk_into(root, Path::new(""), skip, &mut out);
    out
}

fn walk_into(root: &Path, rel: &Path, skip: &[&str], out: &mut BTreeMap<Vec<u8>, Entry>) {
    let dir = root.join(rel);
    for e in fs::read_dir(&dir).unwrap_or_else(|e| panic!("read_dir {}: {e}", dir.display())) {
        let e = e.unwrap();
        let name = e.file_name();
        if skip.iter().any(|s| OsStr::new(s) == name) {
            continue;
        }
        let r = rel.join(&name);
        let key = r.as_os_str().as_bytes().to_vec();
        let ft = e.file_type().unwrap();
        let p = root.join(&r);
        if ft.is_dir() {
            out.insert(key, Entry::Dir);
            walk_into(root, &r, skip, out);
        } else if ft.is_symlink() {
            let t = fs::read_link(&p).unwrap();
            out.insert(key, Entry::Symlink(t.as_os_str().as_bytes().to_vec()));
        } else if ft.is_file() {
            let c = fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()));
            out.insert(key, Entry::File(c));
        } else {
            out.insert(key, Entry::Other);
        }
    }
}

/// sha256 of every file (and symlink target) under `root`, skipping `.git`.
pub fn hashes(root: &Path) -> BTreeMap<Vec<u8>, String> {
    walk(root, &[".git"])
        .into_iter()
        .map(|(k, e)| {
            let h = match e {
                Entry::Dir => "dir".to_string(),
                Entry::File(c) => format!("file {}", sha256(&c)),
                Entry::Symlink(t) => format!("symlink {}", String::from_utf8_lossy(&t)),
                Entry::Other => "other".to_string(),
            };
            (k, h)
        })
        .collect()
}

pub fn sha256(b: &[u8]) -> String {
    Sha256::digest(b)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Lossy display of a path key.
pub fn show(k: &[u8]) -> String {
    String::from_utf8_lossy(k).into_owned()
}

/// A PyPI source distribution, downloaded once into the target directory's cache. `None`
/// (with a loud SKIPPED line) when the registry cannot be reached outside CI; under CI=true
/// that fails the test instead.
pub fn sdist(test: &str, name: &str, version: &str) -> Option<PathBuf> {
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sdists");
    fs::create_dir_all(&cache).unwrap();
    let find = || {
        fs::read_dir(&cache)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| {
                let f = p.file_name().unwrap().to_string_lossy().to_lowercase();
                f.starts_with(&format!(
                    "{}-{version}.",
                    name.to_lowercase().replace('-', "_")
                )) || f.starts_with(&format!("{}-{version}.", name.to_lowercase()))
            })
    };
    if let Some(p) = find() {
        return Some(p);
    }
    let out = output(
        Command::new("python3")
            .args([
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
            ])
            .arg(format!("{name}=={version}"))
            .arg("-d")
            .arg(&cache),
    );
    match find() {
        Some(p) if out.status.success() => Some(p),
        _ => {
            let msg = String::from_utf8_lossy(&out.stderr).into_owned();
            if in_ci() {
                panic!("{test}: cannot download {name}=={version} (CI=true): {msg}");
            }
            eprintln!("\n!!!!! {test} SKIPPED: cannot download {name}=={version}: {msg} !!!!!\n");
            None
        }
    }
}

/// Unpack a `.tar.gz` sdist into `dir` (its top folder stripped).
pub fn unpack(sdist: &Path, dir: &Path) {
    fs::create_dir_all(dir).unwrap();
    run_ok(
        Command::new("tar")
            .arg("xzf")
            .arg(sdist)
            .arg("-C")
            .arg(dir)
            .arg("--strip-components=1"),
    );
}

/// A virtual environment with pytest and setuptools (for tests that run real tools in the
/// view), made once per target directory from PyPI. `None` (outside CI only, with a loud
/// SKIPPED line) when it cannot be made; under `CI=true` that fails.
pub fn tool_python(test: &str) -> Option<PathBuf> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _g = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tool-venv");
    let python = dir.join("bin/python");
    let marker = dir.join(".ready-pytest-8.3.3");
    if marker.exists() {
        return Some(python);
    }
    let _ = fs::remove_dir_all(&dir);
    let steps: [Vec<&std::ffi::OsStr>; 2] = [
        vec!["-m".as_ref(), "venv".as_ref(), dir.as_os_str()],
        vec![
            "-m".as_ref(),
            "pip".as_ref(),
            "install".as_ref(),
            "-q".as_ref(),
            "pytest==8.3.3".as_ref(),
            "setuptools".as_ref(),
        ],
    ];
    for (k, args) in steps.iter().enumerate() {
        let prog = if k == 0 {
            PathBuf::from("python3")
        } else {
            python.clone()
        };
        let out = Command::new(&prog).args(args).stdin(Stdio::null()).output();
        let ok = out.as_ref().map(|o| o.status.success()).unwrap_or(false);
        if !ok {
            let why = match out {
                Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
                Err(e) => e.to_string(),
            };
            if in_ci() {
                panic!("{test}: cannot make the pytest environment (CI=true): {why}");
            }
            eprintln!("\n!!!!! {test} SKIPPED: cannot make the pytest environment: {why} !!!!!\n");
            return None;
        }
    }
    fs::write(&marker, "").unwrap();
    Some(python)
}

/// `schrodinger` with `args`, standard input `input`; returns the output.
pub fn schrodinger(args: &[&OsStr], input: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let w = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    w.join().unwrap();
    out
}

/// [`schrodinger`] that must succeed; its standard output.
pub fn schrodinger_ok(args: &[&OsStr], input: &[u8]) -> Vec<u8> {
    let out = schrodinger(args, input);
    assert!(
        out.status.success(),
        "schrodinger {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `sh -c script` in `dir` with git isolated from the machine's configuration (fixed
/// identity, no pager) and pip quiet about its version; returns (exit code, stdout + stderr).
pub fn sh(dir: &Path, script: &str) -> (i32, String) {
    let out = output(
        Command::new("sh")
            .arg("-c")
            .arg(script)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "agent")
            .env("GIT_AUTHOR_EMAIL", "agent@localhost")
            .env("GIT_COMMITTER_NAME", "agent")
            .env("GIT_COMMITTER_EMAIL", "agent@localhost")
            .env("GIT_PAGER", "cat")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
    );
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// [`sh`] that must succeed; returns its output.
pub fn sh_ok(dir: &Path, script: &str) -> String {
    let (code, text) = sh(dir, script);
    assert_eq!(code, 0, "`{script}` failed in {}:\n{text}", dir.display());
    text
}

/// Panics when `text` shows the original's path or one of `names` (original owned names) as
/// a whole identifier run. Words holding a URL or an e-mail address are skipped: the view
/// keeps those whole by design (docs/design-notes.md, "URLs, addresses...").
pub fn assert_no_original(
    what: &str,
    text: &[u8],
    names: &std::collections::BTreeSet<String>,
    orig: &Path,
) {
    let s = String::from_utf8_lossy(text);
    let orig = orig.to_string_lossy();
    assert!(
        !s.contains(orig.as_ref()),
        "{what} shows the original's path {orig}"
    );
    for word in s.split(|c: char| c.is_whitespace() || "<>()[]\"'`".contains(c)) {
        if word.contains("://") || word.contains('@') {
            continue;
        }
        for run in word.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            assert!(
                !names.contains(run),
                "{what} shows the original name `{run}`: {word}\n{}",
                &s[..s.len().min(4000)]
            );
        }
    }
}

/// The owned runs a bundle renames, less the plain words the code only uses as locals, which
/// strings, comments and text keep as written (law 7's written exception for prose,
/// docs/design-notes.md; the code renames them, `bundle::tests::words_only_locals_use_stay_in_strings_and_comments`).
pub fn never_shown(bundle: &serde_json::Value) -> BTreeSet<String> {
    let list = |key: &str| -> BTreeSet<String> {
        bundle[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    assert!(
        bundle["owned_runs"].is_array(),
        "bundle has an owned_runs list"
    );
    let locals = list("local_words");
    list("owned_runs").difference(&locals).cloned().collect()
}
