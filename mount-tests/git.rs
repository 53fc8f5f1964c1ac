//! The view's `.git` (the shadow repository) with real git and the exact command sequences of
//! agent harnesses: every command succeeds as in a clone, `git status` in the view says what it
//! says in the original, work-tree writes git makes reach the original, and nothing git shows
//! or stores in the view holds an original owned name or the original's path.

use std::collections::BTreeSet;
use std::fs;
use std::process::Command;

use crate::harness::{assert_no_original, git, run_ok, sh, sh_ok, Mount, Repo};

/// The owned runs the bundle renames that no text of the view shows (original names).
pub(crate) fn owned(repo: &Repo, seed: u64) -> BTreeSet<String> {
    repo.never_shown(seed)
}

/// Make the original's work tree differ from HEAD in every way git reports.
fn dirty_the_original(repo: &Repo) {
    let o = &repo.orig;
    fs::write(
        o.join(".gitignore"),
        "bookmobile/ledger_scratch.txt\n*.log\n",
    )
    .unwrap();
    run_ok(git(o).args(["add", ".gitignore"]));
    run_ok(git(o).args(["commit", "-q", "-m", "ignore rules"]));
    let ledger = o.join("bookmobile/ledger.py");
    let mut text = fs::read_to_string(&ledger).unwrap();
    text.push_str("\n\ndef ledger_total(ledger):\n    return len(ledger)\n");
    fs::write(&ledger, text).unwrap();
    fs::remove_file(o.join("bookmobile/audit.py")).unwrap();
    let desk = o.join("bookmobile/desk.py");
    let mut text = fs::read_to_string(&desk).unwrap();
    text.push_str("\nDESK_STAGED = True\n");
    fs::write(&desk, text).unwrap();
    run_ok(git(o).args(["add", "bookmobile/desk.py"]));
    fs::write(o.join("bookmobile/loan_notes.py"), "LOAN_NOTES = []\n").unwrap();
    run_ok(git(o).args(["add", "bookmobile/loan_notes.py"]));
    fs::write(o.join("bookmobile/patron_draft.py"), "patron_draft = 1\n").unwrap();
    fs::write(o.join("bookmobile/ledger_scratch.txt"), "scratch\n").unwrap();
    fs::write(o.join("debug.log"), "log\n").unwrap();
}

const STATUS: &str = "git status --porcelain=v1 --untracked-files=all --ignored";

#[test]
fn status_in_the_view_says_what_the_original_says() {
    let test = "status_in_the_view_says_what_the_original_says";
    let seed = 21;
    let repo = Repo::sample();
    dirty_the_original(&repo);
    let names = owned(&repo, seed);
    let want = sh_ok(&repo.orig, STATUS);
    assert!(
        want.contains("?? bookmobile/patron_draft.py") && want.contains("!! debug.log"),
        "the set-up must give every kind of status line: {want}"
    );
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let got = sh_ok(&m.point, STATUS);
    assert_no_original("git status", got.as_bytes(), &names, &repo.orig);
    // The same lines; git orders them by name, and names differ in the view.
    let sorted = |s: &str| {
        let mut l: Vec<String> = s.lines().map(str::to_string).collect();
        l.sort();
        l
    };
    assert_eq!(
        sorted(&repo.translate(seed, "original", &got)),
        sorted(&want),
        "view status:\n{got}"
    );
    // The long form and `git diff --stat` agree too (branch line included).
    let want_long = sh_ok(&repo.orig, "git status");
    let got_long = sh_ok(&m.point, "git status");
    assert_eq!(
        sorted(&repo.translate(seed, "original", &got_long)),
        sorted(&want_long)
    );
    // A second status is served from the index it refreshed, and still agrees.
    assert_eq!(sh_ok(&m.point, STATUS), got);
    m.unmount();
}

/// SWE-agent's reset (sweagent/environment/repo.py, `_get_git_reset_commands`, run with
/// `check="raise"` from swe_env.py) and its submit tool (tools/submit/bin/submit), at
/// SWE-agent 3ea751c.
#[test]
fn swe_agent_reset_and_submit() {
    let test = "swe_agent_reset_and_submit";
    let seed = 22;
    let repo = Repo::sample();
    let base = run_ok(git(&repo.orig).args(["rev-parse", "HEAD"]))
        .trim()
        .to_string();
    // Left over in the original before the run: a local edit and an untracked file, which
    // the reset must undo in the original itself.
    fs::write(repo.orig.join("stray.py"), "stray = 1\n").unwrap();
    let names = owned(&repo, seed);
    let view_ledger = repo.view_path(seed, "bookmobile/ledger.py");
    let view_tests = repo.view_path(seed, "tests/test_desk.py");
    let ledger_orig = fs::read(repo.orig.join("bookmobile/ledger.py")).unwrap();
    let mut edited = ledger_orig.clone();
    edited.extend_from_slice(b"# local edit\n");
    fs::write(repo.orig.join("bookmobile/ledger.py"), &edited).unwrap();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let reset = format!(
        "git fetch && git status && git restore . && git reset --hard && git checkout {base} && git clean -fdq"
    );
    let out = sh_ok(&m.point, &reset);
    assert_no_original("the reset", out.as_bytes(), &names, &repo.orig);
    assert_eq!(
        fs::read(repo.orig.join("bookmobile/ledger.py")).unwrap(),
        ledger_orig,
        "git restore in the view must restore the original file"
    );
    assert!(
        !repo.orig.join("stray.py").exists(),
        "git clean must remove it"
    );
    assert_eq!(repo.status(), "", "the original is clean after the reset");

    // The agent edits, adds a file; a test patch was applied and is reverted by submit.
    sh_ok(
        &m.point,
        &format!("printf '\\ndef agent_helper():\\n    return 1\\n' >> {view_ledger} && printf 'x = 1\\n' > new_module.py"),
    );
    let tp = m.point.parent().unwrap().join("test.patch");
    sh_ok(
        &m.point,
        &format!(
            "printf '# test patch line\\n' >> {view_tests} && git diff -- {view_tests} > {tp} && test -s {tp}",
            tp = tp.display()
        ),
    );
    let model = m.point.parent().unwrap().join("model.patch");
    let submit = format!(
        "if [ -s {tp} ]; then git apply -R < {tp}; fi; git add -A && git diff --cached > {model}",
        tp = tp.display(),
        model = model.display()
    );
    sh_ok(&m.point, &submit);
    let patch = fs::read(&model).unwrap();
    assert_no_original("model.patch", &patch, &names, &repo.orig);
    let patch = String::from_utf8(patch).unwrap();
    assert!(patch.contains("+def agent_helper():"), "{patch}");
    assert!(patch.contains("new_module.py"), "{patch}");
    assert!(
        !patch.contains("test patch line"),
        "apply -R reverted it: {patch}"
    );
    let point = m.point.clone();
    m.unmount();
    // The harness's patch, translated with the map of the view it came from, is the diff of
    // the original after unmount, byte for byte.
    let translated = crate::harness::schrodinger_ok(
        &[
            "patch".as_ref(),
            "--to".as_ref(),
            "original".as_ref(),
            "--mount".as_ref(),
            point.as_os_str(),
            repo.orig.as_os_str(),
        ],
        patch.as_bytes(),
    );
    run_ok(git(&repo.orig).args(["add", "-A"]));
    let orig_diff = run_ok(git(&repo.orig).args(["diff", "--cached"]));
    run_ok(git(&repo.orig).args(["reset", "-q"]));
    assert_eq!(String::from_utf8(translated).unwrap(), orig_diff);
    // What the agent did is in the original, in original names.
    let d = repo.diff();
    assert_eq!(d.files, ["bookmobile/ledger.py"], "{}", d.raw);
    assert!(
        d.added.iter().any(|l| l == "def agent_helper():"),
        "{}",
        d.raw
    );
    assert!(repo.orig.join("new_module.py").exists());
    // The agent's index stays in the view: the original's index still matches its HEAD.
    let staged = run_ok(git(&repo.orig).args(["diff", "--cached", "--name-only"]));
    assert_eq!(staged, "");
}

/// mini-swe-agent's SWE-bench submission step (src/minisweagent/config/benchmarks/
/// swebench.yaml at a83fcae: `git diff -- path/to/file1 path/to/file2 > patch.txt`, then
/// `cat patch.txt`), and the older `git add -A && git diff --cached`.
#[test]
fn mini_swe_agent_diff() {
    let test = "mini_swe_agent_diff";
    let seed = 23;
    let repo = Repo::sample();
    let names = owned(&repo, seed);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let f = repo.view_path(seed, "bookmobile/catalog.py");
    sh_ok(&m.point, &format!("sed -i '1i # agent was here' {f}"));
    let out = sh_ok(
        &m.point,
        &format!("git diff -- {f} > patch.txt && cat patch.txt"),
    );
    assert_no_original("git diff", out.as_bytes(), &names, &repo.orig);
    assert!(out.contains("+# agent was here"), "{out}");
    let out = sh_ok(&m.point, "git add -A && git diff --cached");
    assert!(out.contains("patch.txt") && out.contains("+# agent was here"));
    m.unmount();
}

/// OpenHands' SWE-bench flow (evaluation/benchmarks/swe_bench/run_infer.py and
/// binary_patch_utils.py at 156d068): `cp -r /testbed` to the workspace, `git reset --hard`,
/// remove every remote, and at the end `git add -A`, the binary-file filter over
/// `git status --porcelain` with `git check-attr binary`, and
/// `git diff --no-color --cached <base_commit>`.
#[test]
fn openhands_flow() {
    let test = "openhands_flow";
    let seed = 24;
    let repo = Repo::sample();
    let base = run_ok(git(&repo.orig).args(["rev-parse", "HEAD"]))
        .trim()
        .to_string();
    let names = owned(&repo, seed);
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let f = repo.view_path(seed, "bookmobile/patrons.py");
    let flow = format!(
        "git reset --hard && for remote_name in $(git remote); do git remote remove \"${{remote_name}}\"; done && \
         printf '\\nEXTRA = 2\\n' >> {f} && git add -A && \
         for file in $(git status --porcelain | grep -E \"^(M| M|\\?\\?|A| A)\" | cut -c4-); do \
           if [ -f \"$file\" ] && git check-attr binary \"$file\" | grep -q \"binary: set\"; then git rm -f \"$file\"; fi; \
         done && git diff --no-color --cached {base} > patch.diff && cat patch.diff"
    );
    let out = sh_ok(&m.point, &flow);
    assert_no_original("the OpenHands flow", out.as_bytes(), &names, &repo.orig);
    assert!(out.contains("+EXTRA = 2"), "{out}");
    // The workspace copy is a repository of its own that still answers the same way.
    let ws = m.point.parent().unwrap().join("workspace");
    run_ok(Command::new("cp").arg("-r").arg(&m.point).arg(&ws));
    let copied = sh_ok(&ws, &format!("git diff --no-color --cached {base}"));
    assert!(copied.contains("+EXTRA = 2"), "{copied}");
    fs::remove_file(m.path("patch.diff")).unwrap();
    let point = m.point.clone();
    m.unmount();
    // The harness's patch (against the base id, from the workspace copy), translated with the
    // map of the view, is the diff of the original after unmount, byte for byte.
    let translated = crate::harness::schrodinger_ok(
        &[
            "patch".as_ref(),
            "--to".as_ref(),
            "original".as_ref(),
            "--mount".as_ref(),
            point.as_os_str(),
            repo.orig.as_os_str(),
        ],
        copied.as_bytes(),
    );
    run_ok(git(&repo.orig).args(["add", "-A"]));
    let orig_diff = run_ok(git(&repo.orig).args(["diff", "--no-color", "--cached", &base]));
    assert_eq!(String::from_utf8(translated).unwrap(), orig_diff);
}

/// History commands agents use, and a look at every byte the shadow repository stores.
#[test]
fn history_and_storage_hold_no_original_name() {
    let test = "history_and_storage_hold_no_original_name";
    let seed = 25;
    let repo = Repo::sample();
    // A second original commit, with a message and an author that name owned things.
    let ledger = repo.orig.join("bookmobile/ledger.py");
    let mut text = fs::read_to_string(&ledger).unwrap();
    text.push_str("\n# LoanLedger keeps the loans\n");
    fs::write(&ledger, text).unwrap();
    run_ok(git(&repo.orig).args(["commit", "-q", "-am", "LoanLedger: note about close_loan"]));
    let first = run_ok(git(&repo.orig).args(["rev-parse", "HEAD~1"]))
        .trim()
        .to_string();
    let names = owned(&repo, seed);
    assert!(names.contains("LoanLedger") && names.contains("close_loan"));
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let f = repo.view_path(seed, "bookmobile/ledger.py");
    for cmd in [
        "git log --all --stat".to_string(),
        "git log -p -S return".to_string(),
        "git show HEAD".to_string(),
        format!("git blame {f}"),
        "git grep -n class".to_string(),
        "git ls-files -s".to_string(),
        "git rev-parse HEAD HEAD^{tree}".to_string(),
        "git branch -a -v".to_string(),
        "git tag".to_string(),
        "git remote -v".to_string(),
        "git reflog".to_string(),
        "git show-ref".to_string(),
        "git for-each-ref".to_string(),
        "git count-objects -v".to_string(),
        "git fsck --no-dangling".to_string(),
    ] {
        let out = sh_ok(&m.point, &cmd);
        assert_no_original(&cmd, out.as_bytes(), &names, &repo.orig);
    }
    // The earlier original commit does not exist in the view.
    let (code, _) = sh(&m.point, &format!("git cat-file -t {first}"));
    assert_ne!(code, 0, "the original's history is reachable from the view");
    // Every stored byte: loose files and every object, decompressed.
    let objects = run_ok(
        Command::new("git")
            .args(["cat-file", "--batch-all-objects", "--batch", "--unordered"])
            .current_dir(&m.point),
    );
    assert_no_original("the objects", objects.as_bytes(), &names, &repo.orig);
    for (k, e) in crate::harness::walk(&m.path(".git"), &[]) {
        if let crate::harness::Entry::File(c) = e {
            if !k.ends_with(b".pack") && !k.ends_with(b".idx") {
                assert_no_original(
                    &format!(".git/{}", String::from_utf8_lossy(&k)),
                    &c,
                    &names,
                    &repo.orig,
                );
            }
        }
    }
    m.unmount();
}

/// Commands that write the work tree (checkout, stash, reset, mv, rm) change the original
/// through the view, and commits stay in the shadow repository.
#[test]
fn work_tree_commands_reach_the_original() {
    let test = "work_tree_commands_reach_the_original";
    let seed = 26;
    let repo = Repo::sample();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    let head_before = run_ok(git(&repo.orig).args(["rev-parse", "HEAD"]));
    let catalog = repo.view_path(seed, "bookmobile/catalog.py");
    let patrons = repo.view_path(seed, "bookmobile/patrons.py");
    let orig_catalog = fs::read(repo.orig.join("bookmobile/catalog.py")).unwrap();
    sh_ok(
        &m.point,
        &format!("echo '# one' >> {catalog} && git checkout -- {catalog}"),
    );
    assert_eq!(
        fs::read(repo.orig.join("bookmobile/catalog.py")).unwrap(),
        orig_catalog
    );
    sh_ok(&m.point, &format!("echo '# two' >> {catalog} && git stash"));
    assert_eq!(repo.status(), "", "stash restores the original");
    sh_ok(&m.point, "git stash pop");
    assert_eq!(repo.status(), " M bookmobile/catalog.py\n");
    sh_ok(&m.point, "git reset --hard -q");
    assert_eq!(repo.status(), "");
    sh_ok(
        &m.point,
        &format!("git mv {patrons} moved.py && git commit -qm 'move it'"),
    );
    assert!(repo.orig.join("moved.py").exists());
    assert!(!repo.orig.join("bookmobile/patrons.py").exists());
    assert_eq!(
        run_ok(git(&repo.orig).args(["rev-parse", "HEAD"])),
        head_before,
        "a commit in the view stays in the view"
    );
    sh_ok(&m.point, "git reset --hard -q HEAD~1");
    assert_eq!(repo.status(), "", "reset --hard brings the moved file back");
    m.unmount();
}

/// A view whose state directory already holds a shadow repository keeps it (the agent's
/// commits survive a remount), and a view of a tree without git has no `.git`.
#[test]
fn shadow_survives_a_remount_and_needs_a_repository() {
    let test = "shadow_survives_a_remount_and_needs_a_repository";
    let seed = 27;
    let repo = Repo::sample();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    sh_ok(&m.point, "git commit -q --allow-empty -m 'agent work'");
    let head = sh_ok(&m.point, "git rev-parse HEAD");
    m.unmount();
    let Some(m) = repo.mount(test, "mnt", seed) else {
        return;
    };
    assert_eq!(sh_ok(&m.point, "git rev-parse HEAD"), head);
    m.unmount();

    let plain = repo.dir.path().join("plain");
    crate::harness::copy_tree(&crate::harness::sample_dir(), &plain);
    let Some(m) = Mount::new(test, &plain, &repo.dir.path().join("mnt2"), seed) else {
        return;
    };
    assert!(!m.path(".git").exists());
    let (code, out) = sh(&m.point, "git status");
    assert_ne!(code, 0, "{out}");
    m.unmount();
}
