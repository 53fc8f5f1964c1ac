//! A private git repository for translating a patch: its objects borrow the original's as
//! alternates and its configuration includes the original's, so the diff it prints is the
//! one `git diff` in the original prints for the same two trees (same abbreviations, same
//! hunk headers, same options). Nothing is written into the original: new objects, indexes
//! and attribute files live in a temporary directory.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::super::CliError;

/// One tree entry: mode, blob id, path.
pub type Entry = (String, String, Vec<u8>);

pub struct Repo {
    dir: tempfile::TempDir,
    git_dir: PathBuf,
    /// The work tree git reads attributes from (only `.gitattributes` files live there).
    pub work: PathBuf,
    /// The original's repository, when it is a git checkout.
    pub original_git: Option<PathBuf>,
    original: PathBuf,
}

fn fail(what: &str, out: &std::process::Output) -> CliError {
    CliError::Msg(format!(
        "git {what} failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

impl Repo {
    pub fn new(original: &Path) -> Result<Repo, CliError> {
        let dir = tempfile::Builder::new()
            .prefix("schrodinger-patch-")
            .tempdir()
            .map_err(|e| CliError::io("creating a temporary directory", e))?;
        let git_dir = dir.path().join("git");
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).map_err(|e| CliError::io("creating a work tree", e))?;
        let common = rev_parse(original, "--git-common-dir");
        let format = rev_parse(original, "--show-object-format")
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sha1".into());
        let out = Command::new("git")
            .args(["init", "-q", "--bare", "--object-format", &format])
            .arg(&git_dir)
            .output()
            .map_err(|e| CliError::io("running git (patch needs git installed)", e))?;
        if !out.status.success() {
            return Err(fail("init", &out));
        }
        if let Some(common) = &common {
            let objects = common.join("objects");
            std::fs::write(
                git_dir.join("objects/info/alternates"),
                format!("{}\n", objects.display()),
            )
            .map_err(|e| CliError::io("writing alternates", e))?;
            // The original's diff configuration (renames, context, prefixes, drivers...).
            let cfg = git_dir.join("config");
            let mut text = std::fs::read_to_string(&cfg).unwrap_or_default();
            text.push_str(&format!(
                "[include]\n\tpath = {}\n[core]\n\tbare = false\n",
                common.join("config").display()
            ));
            std::fs::write(&cfg, text).map_err(|e| CliError::io("writing config", e))?;
        }
        Ok(Repo {
            dir,
            git_dir,
            work,
            original_git: common,
            original: original.to_path_buf(),
        })
    }

    /// The original repository's `info/attributes`, if any.
    pub fn original_info_attributes(&self) -> Option<Vec<u8>> {
        std::fs::read(self.original_git.as_ref()?.join("info/attributes")).ok()
    }

    pub fn set_info_attributes(&self, bytes: &[u8]) -> Result<(), CliError> {
        let d = self.git_dir.join("info");
        std::fs::create_dir_all(&d).map_err(|e| CliError::io("creating info", e))?;
        std::fs::write(d.join("attributes"), bytes).map_err(|e| CliError::io("attributes", e))
    }

    /// `git` on this repository, with `index` as its index file.
    pub fn git(&self, index: Option<&Path>) -> Command {
        let mut c = Command::new("git");
        c.current_dir(&self.work)
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.work)
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env_remove("GIT_INDEX_FILE")
            .env_remove("GIT_OBJECT_DIRECTORY")
            .env_remove("GIT_ALTERNATE_OBJECT_DIRECTORIES");
        if let Some(i) = index {
            c.env("GIT_INDEX_FILE", i);
        }
        c
    }

    fn run(&self, mut cmd: Command, input: &[u8], what: &str) -> Result<Vec<u8>, CliError> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| CliError::io("running git", e))?;
        let mut stdin = child.stdin.take();
        let data = input.to_vec();
        let writer = std::thread::spawn(move || {
            if let Some(s) = stdin.as_mut() {
                let _ = s.write_all(&data);
            }
            drop(stdin);
        });
        let out = child
            .wait_with_output()
            .map_err(|e| CliError::io("running git", e))?;
        let _ = writer.join();
        if !out.status.success() {
            return Err(fail(what, &out));
        }
        Ok(out.stdout)
    }

    /// Write blobs; their ids, in order.
    pub fn write_blobs(&self, contents: &[&[u8]]) -> Result<Vec<String>, CliError> {
        if contents.is_empty() {
            return Ok(Vec::new());
        }
        let tmp = self.dir.path().join("blobs");
        std::fs::create_dir_all(&tmp).map_err(|e| CliError::io("blobs", e))?;
        let mut list = Vec::new();
        for (k, c) in contents.iter().enumerate() {
            let p = tmp.join(k.to_string());
            std::fs::write(&p, c).map_err(|e| CliError::io("blobs", e))?;
            list.extend_from_slice(p.as_os_str().as_encoded_bytes());
            list.push(b'\n');
        }
        let mut cmd = self.git(None);
        cmd.args(["hash-object", "-w", "--no-filters", "--stdin-paths"]);
        let out = self.run(cmd, &list, "hash-object")?;
        let ids: Vec<String> = String::from_utf8_lossy(&out)
            .lines()
            .map(str::to_string)
            .collect();
        if ids.len() != contents.len() {
            return Err(CliError::Msg("git hash-object gave too few ids".into()));
        }
        Ok(ids)
    }

    /// An index file holding exactly `entries`.
    pub fn index_of(&self, name: &str, entries: &[Entry]) -> Result<PathBuf, CliError> {
        let index = self.dir.path().join(name);
        let _ = std::fs::remove_file(&index);
        let mut input = Vec::new();
        for (mode, id, path) in entries {
            input.extend_from_slice(format!("{mode} {id}\t").as_bytes());
            input.extend_from_slice(path);
            input.push(0);
        }
        let mut cmd = self.git(Some(&index));
        cmd.args(["update-index", "-z", "--index-info"]);
        self.run(cmd, &input, "update-index")?;
        Ok(index)
    }

    /// The tree of an index file.
    pub fn write_tree(&self, index: &Path) -> Result<String, CliError> {
        let mut cmd = self.git(Some(index));
        cmd.arg("write-tree");
        let out = self.run(cmd, b"", "write-tree")?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    }

    /// `git apply --cached` of `patch` onto the index file.
    pub fn apply_cached(&self, index: &Path, patch: &[u8]) -> Result<(), CliError> {
        let mut cmd = self.git(Some(index));
        cmd.args([
            "apply",
            "--cached",
            "--whitespace=nowarn",
            "--unidiff-zero",
            "--allow-empty",
            "-",
        ]);
        self.run(cmd, patch, "apply").map(|_| ())
    }

    /// The entries of an index file.
    pub fn entries(&self, index: &Path) -> Result<Vec<Entry>, CliError> {
        let mut cmd = self.git(Some(index));
        cmd.args(["ls-files", "-s", "-z"]);
        let out = self.run(cmd, b"", "ls-files")?;
        let mut v = Vec::new();
        for rec in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
            let Some(tab) = rec.iter().position(|&b| b == b'\t') else {
                continue;
            };
            let head = String::from_utf8_lossy(&rec[..tab]).into_owned();
            let mut parts = head.split(' ');
            let (Some(mode), Some(id)) = (parts.next(), parts.next()) else {
                continue;
            };
            v.push((mode.to_string(), id.to_string(), rec[tab + 1..].to_vec()));
        }
        Ok(v)
    }

    /// Contents of blobs (or `rev:path` names) through `cat-file --batch`; `None` for a name
    /// that does not resolve. With `in_original`, asks the original's repository.
    pub fn cat(
        &self,
        names: &[Vec<u8>],
        in_original: bool,
    ) -> Result<Vec<Option<Vec<u8>>>, CliError> {
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut cmd = if in_original {
            let mut c = Command::new("git");
            c.arg("-C").arg(&self.original);
            c
        } else {
            self.git(None)
        };
        cmd.args(["cat-file", "--batch"]);
        let mut input = Vec::new();
        for n in names {
            input.extend_from_slice(n);
            input.push(b'\n');
        }
        let out = self.run(cmd, &input, "cat-file")?;
        let mut res = Vec::new();
        let mut rest = &out[..];
        for _ in names {
            let nl = rest
                .iter()
                .position(|&b| b == b'\n')
                .ok_or_else(|| CliError::Msg("git cat-file: short output".into()))?;
            let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
            rest = &rest[nl + 1..];
            let fields: Vec<&str> = header.split(' ').collect();
            if fields.len() == 3 && fields[1] == "blob" {
                let size: usize = fields[2]
                    .parse()
                    .map_err(|_| CliError::Msg("git cat-file: bad size".into()))?;
                if rest.len() < size + 1 {
                    return Err(CliError::Msg("git cat-file: short output".into()));
                }
                res.push(Some(rest[..size].to_vec()));
                rest = &rest[size + 1..];
            } else if fields.len() == 3 {
                // Not a blob: skip its contents.
                let size: usize = fields[2].parse().unwrap_or(0);
                rest = rest.get(size + 1..).unwrap_or(&[]);
                res.push(None);
            } else {
                res.push(None);
            }
        }
        Ok(res)
    }

    /// Modes of `paths` in the original's HEAD tree.
    pub fn head_modes(&self, paths: &[Vec<u8>]) -> Result<Vec<(Vec<u8>, String)>, CliError> {
        if self.original_git.is_none() || paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut cmd = Command::new("git");
        cmd.arg("-C")
            .arg(&self.original)
            .env("GIT_LITERAL_PATHSPECS", "1")
            .args(["ls-tree", "-r", "-z", "--full-tree", "HEAD", "--"]);
        for p in paths {
            cmd.arg(OsString::from(String::from_utf8_lossy(p).into_owned()));
        }
        let out = match self.run(cmd, b"", "ls-tree") {
            Ok(o) => o,
            Err(_) => return Ok(Vec::new()),
        };
        let mut v = Vec::new();
        for rec in out.split(|&b| b == 0).filter(|r| !r.is_empty()) {
            if let Some(tab) = rec.iter().position(|&b| b == b'\t') {
                let head = String::from_utf8_lossy(&rec[..tab]).into_owned();
                if let Some(mode) = head.split(' ').next() {
                    v.push((rec[tab + 1..].to_vec(), mode.to_string()));
                }
            }
        }
        Ok(v)
    }

    /// `git diff` of two trees with `args`, as the original's own `git diff` would print it.
    pub fn diff(&self, old: &str, new: &str, args: &[String]) -> Result<Vec<u8>, CliError> {
        let mut cmd = self.git(None);
        cmd.args(["diff", "--no-color", "--no-ext-diff", "--no-textconv"])
            .args(args)
            .arg(old)
            .arg(new);
        self.run(cmd, b"", "diff")
    }
}

fn rev_parse(dir: &Path, what: &str) -> Option<PathBuf> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--path-format=absolute", what])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| PathBuf::from(s))
}
