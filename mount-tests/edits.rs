//! Edits through the view with real tools, each giving exactly the expected `git diff` of
//! the original after unmount, in original names.
//!
//! Expected results are written from the original file (the line that holds a frozen
//! fragment such as ` = 1000`), never by running the transform on the edited view.

use std::fs;
use std::path::PathBuf;
use std::process::Command;

use crate::harness::{git, python3, run_ok, Mount, Repo};

const LEDGER: &str = "bookmobile/ledger.py";

/// A mounted sample with the view path of `bookmobile/ledger.py`.
struct Ctx {
    repo: Repo,
    m: Mount,
    /// View-relative path of `bookmobile/ledger.py`.
    ledger_view: String,
    seed: u64,
}

impl Ctx {
    fn new(test: &str, seed: u64) -> Option<Ctx> {
        let repo = Repo::sample();
        let ledger_view = repo.view_path(seed, LEDGER);
        assert_ne!(ledger_view, LEDGER, "seed {seed} does not rename {LEDGER}");
        let m = repo.mount(test, "mnt", seed)?;
        Some(Ctx {
            repo,
            m,
            ledger_view,
            seed,
        })
    }

    fn ledger(&self) -> PathBuf {
        self.m.path(&self.ledger_view)
    }

    fn orig_ledger(&self) -> String {
        fs::read_to_string(self.repo.orig.join(LEDGER)).unwrap()
    }

    /// The first original line of the ledger holding `frag`, and its view counterpart,
    /// which must differ (the line carries a renamed name). Level 3 moves definitions, so the
    /// view line is found by content: the original line translated to the view, which must
    /// occur exactly once in the view file.
    fn line_with(&self, frag: &str) -> (String, String) {
        let orig = self.orig_ledger();
        let o = orig
            .lines()
            .find(|l| l.contains(frag))
            .unwrap_or_else(|| panic!("no line with `{frag}` in the sample's {LEDGER}"));
        let v = self.repo.translate(self.seed, "view", o);
        let view = fs::read_to_string(self.ledger()).unwrap();
        let hits = view.lines().filter(|l| *l == v).count();
        assert_eq!(hits, 1, "view line `{v}` occurs {hits} times in the view");
        assert!(v.contains(frag), "view line `{v}` lacks `{frag}`");
        assert_ne!(v, o, "the line `{o}` is not renamed in the view");
        (o.to_string(), v)
    }

    /// Unmount; the original's only change is to `LEDGER`, with these removed/added lines.
    /// Returns the repository (dropping it deletes the temp dir).
    fn expect_ledger_diff(self, removed: &[&str], added: &[&str]) -> Repo {
        let log = self.m.log();
        self.m.unmount();
        let d = self.repo.diff();
        assert_eq!(d.files, [LEDGER], "{}\nlog:\n{log}", d.raw);
        assert_eq!(d.removed, removed, "{}", d.raw);
        assert_eq!(d.added, added, "{}", d.raw);
        assert_eq!(
            self.repo.status(),
            format!(" M {LEDGER}\n"),
            "stray files in the original"
        );
        self.repo
    }
}

#[test]
fn edit_sed_in_place() {
    let Some(c) = Ctx::new("edit_sed_in_place", 31) else {
        return;
    };
    let (o, _) = c.line_with(" = 1000");
    run_ok(
        Command::new("sed")
            .args(["-i", "s/ = 1000$/ = 2000/"])
            .arg(c.ledger()),
    );
    c.expect_ledger_diff(&[&o], &[&o.replace(" = 1000", " = 2000")]);
}

#[test]
fn edit_python_open_write() {
    let Some(c) = Ctx::new("edit_python_open_write", 32) else {
        return;
    };
    let (o, _) = c.line_with("max(0, ");
    run_ok(
        python3()
            .args([
                "-c",
                "import sys\np = sys.argv[1]\ns = open(p).read()\n\
                 open(p, 'w').write(s.replace('max(0, ', 'max(1, ', 1))",
            ])
            .arg(c.ledger()),
    );
    c.expect_ledger_diff(&[&o], &[&o.replace("max(0, ", "max(1, ")]);
}

#[test]
fn edit_written_in_small_pieces() {
    // Every write request is written back as it arrives, so the original goes through many
    // partial states (truncated, half a file); the final diff must still be the one line.
    let Some(c) = Ctx::new("edit_written_in_small_pieces", 38) else {
        return;
    };
    let (o, _) = c.line_with("max(0, ");
    run_ok(
        python3()
            .args([
                "-c",
                "import os, sys\np = sys.argv[1]\ns = open(p, 'rb').read()\n\
                 s = s.replace(b'max(0, ', b'max(1, ', 1)\n\
                 fd = os.open(p, os.O_WRONLY | os.O_TRUNC)\n\
                 for i in range(0, len(s), 61):\n    os.write(fd, s[i:i + 61])\n\
                 os.close(fd)",
            ])
            .arg(c.ledger()),
    );
    c.expect_ledger_diff(&[&o], &[&o.replace("max(0, ", "max(1, ")]);
}

#[test]
fn edit_vim_save() {
    let Some(c) = Ctx::new("edit_vim_save", 33) else {
        return;
    };
    let (o, _) = c.line_with("deque(maxlen=");
    // -es: silent Ex mode, no terminal; -u NONE: no user config; the swap and backup files
    // vim makes next to the file go through the view too.
    run_ok(
        Command::new("vim")
            .args(["-es", "-u", "NONE", "-i", "NONE", "-c"])
            .arg("%s/deque(maxlen=/deque(maxlen=1 + /")
            .args(["-c", "wq"])
            .arg(c.ledger())
            .env("TERM", "dumb"),
    );
    c.expect_ledger_diff(&[&o], &[&o.replace("deque(maxlen=", "deque(maxlen=1 + ")]);
}

#[test]
fn edit_shell_append() {
    let Some(c) = Ctx::new("edit_shell_append", 34) else {
        return;
    };
    let (o, v) = c.line_with(" = 1000");
    let orig_name = o.strip_suffix(" = 1000").unwrap();
    let view_name = v.strip_suffix(" = 1000").unwrap();
    run_ok(
        Command::new("sh")
            .args(["-c", "printf '%s\\n' \"$1\" >> \"$2\"", "sh"])
            .arg(format!("{view_name} += 1"))
            .arg(c.ledger()),
    );
    c.expect_ledger_diff(&[], &[&format!("{orig_name} += 1")]);
}

#[test]
fn edit_truncate() {
    let Some(c) = Ctx::new("edit_truncate", 35) else {
        return;
    };
    let orig = c.orig_ledger();
    let view = fs::read_to_string(c.ledger()).unwrap();
    let keep = 8;
    let view_prefix: usize = view.split_inclusive('\n').take(keep).map(str::len).sum();
    let orig_lines: Vec<&str> = orig.lines().collect();
    assert!(orig_lines.len() > keep + 2);
    run_ok(
        Command::new("truncate")
            .args(["-s", &view_prefix.to_string()])
            .arg(c.ledger()),
    );
    assert_eq!(fs::metadata(c.ledger()).unwrap().len(), view_prefix as u64);
    let expected: String = orig.split_inclusive('\n').take(keep).collect();
    let repo = c.expect_ledger_diff(&orig_lines[keep..], &[]);
    assert_eq!(
        fs::read_to_string(repo.orig.join(LEDGER)).unwrap(),
        expected
    );
}

/// `mv` of a module to a new name made of view words: the original gets the same file under
/// the original words, content unchanged.
#[test]
fn edit_mv_module() {
    let test = "edit_mv_module";
    let seed = 36;
    let repo = Repo::sample();
    let names = repo.translate_many(seed, "view", &[LEDGER, "bookmobile/loan_ledger.py"]);
    let (from, to) = (&names[0], &names[1]);
    assert!(!to.contains("loan") && !to.contains("ledger"), "{to}");
    let before = fs::read(repo.orig.join(LEDGER)).unwrap();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    run_ok(Command::new("mv").arg(m.path(from)).arg(m.path(to)));
    assert!(m.path(to).is_file());
    m.unmount();
    assert_eq!(
        repo.status(),
        format!(" D {LEDGER}\n?? bookmobile/loan_ledger.py\n")
    );
    assert_eq!(
        fs::read(repo.orig.join("bookmobile/loan_ledger.py")).unwrap(),
        before
    );
}

#[test]
fn edit_rm_file() {
    let test = "edit_rm_file";
    let seed = 37;
    let repo = Repo::sample();
    let desk = repo.view_path(seed, "bookmobile/desk.py");
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    run_ok(Command::new("rm").arg(m.path(&desk)));
    assert!(!m.path(&desk).exists());
    m.unmount();
    assert_eq!(repo.status(), " D bookmobile/desk.py\n");
}

/// `mkdir` with a view name, then a file in it: the original gets the directory under the
/// original words. (A compound with a piece frozen on its own, such as `shelf_loan` with the
/// stdlib's `Shelf`, stays as it is in names and strings: see `Renamer::swap_run`.)
#[test]
fn edit_mkdir() {
    let test = "edit_mkdir";
    let seed = 38;
    let repo = Repo::sample();
    let dir = repo.view_path(seed, "bookmobile/ledger_shelves");
    assert!(!dir.contains("ledger") && !dir.contains("shelves"), "{dir}");
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    run_ok(Command::new("mkdir").arg(m.path(&dir)));
    assert!(m.path(&dir).is_dir());
    assert!(repo.orig.join("bookmobile/ledger_shelves").is_dir());
    run_ok(
        Command::new("sh")
            .args(["-c", "echo '# 1' > \"$1/__init__.py\"", "sh"])
            .arg(m.path(&dir)),
    );
    m.unmount();
    assert_eq!(repo.status(), "?? bookmobile/ledger_shelves/__init__.py\n");
    assert_eq!(
        fs::read_to_string(repo.orig.join("bookmobile/ledger_shelves/__init__.py")).unwrap(),
        "# 1\n"
    );
}

/// A new module named and written with view words (`<view of ledger>_helpers.py`, using the
/// view names of existing code) appears in the original under the original words, and it
/// imports and runs in the view.
#[test]
fn edit_new_module_in_view_words() {
    let test = "edit_new_module_in_view_words";
    let seed = 39;
    let repo = Repo::sample();
    let orig_text = "from .ledger import LoanLedger\n\
                     \n\
                     \n\
                     def ledger_helpers_tally(loan_ledger):\n    \
                         return len(loan_ledger.loans_held_by(None)) + len(LoanLedger().closed_loans)\n";
    let t = repo.translate_many(
        seed,
        "view",
        &[
            "bookmobile/ledger_helpers.py",
            orig_text,
            "bookmobile.ledger_helpers",
            "ledger_helpers_tally",
            "LoanLedger",
        ],
    );
    let (path, view_text, module, func, class) = (&t[0], &t[1], &t[2], &t[3], &t[4]);
    for (o, v) in [
        ("ledger", path),
        ("LoanLedger", view_text),
        ("ledger", func),
    ] {
        assert!(!v.contains(o), "`{o}` is not renamed in `{v}`");
    }
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    fs::write(m.path(path), view_text).unwrap();
    assert_eq!(fs::read_to_string(m.path(path)).unwrap(), *view_text);
    let script = format!(
        "from {module} import {func}\nfrom {} import {class}\nprint({func}({class}()))",
        module.rsplit_once('.').unwrap().0
    );
    let printed = run_ok(python3().args(["-c", &script]).current_dir(&m.point));
    assert_eq!(printed, "0\n");
    m.unmount();
    assert_eq!(repo.status(), "?? bookmobile/ledger_helpers.py\n");
    assert_eq!(
        fs::read_to_string(repo.orig.join("bookmobile/ledger_helpers.py")).unwrap(),
        orig_text
    );
}

/// A non-UTF-8 byte written into a Python file of the view (a Latin-1 comment) is still a
/// small edit of the original: the rest of the file comes back in original names.
#[test]
fn edit_latin1_comment_in_python_file() {
    let Some(c) = Ctx::new("edit_latin1_comment_in_python_file", 40) else {
        return;
    };
    run_ok(
        Command::new("sh")
            .args(["-c", "printf '# caf\\351\\n' >> \"$1\"", "sh"])
            .arg(c.ledger()),
    );
    let log = c.m.log();
    c.m.unmount();
    let raw = run_ok(git(&c.repo.orig).args(["diff", "--no-color", "-U0", "--text"]));
    let added: Vec<&str> = raw
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .collect();
    let removed = raw
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .count();
    assert!(
        removed == 0 && added.len() == 1,
        "a one-line append became a diff of {removed} removed and {} added lines \
         (the file was written back untranslated):\n{}...\nlog:\n{log}",
        added.len(),
        raw.chars().take(1500).collect::<String>()
    );
}
