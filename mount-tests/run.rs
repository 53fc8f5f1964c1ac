//! `schrodinger run` in a container: `unshare --mount --pid --fork --mount-proc` plays the
//! container (no docker engine needed), `run` is its first process, and the agent command is
//! a shell script that looks for the original the ways a curious agent would, then edits.
//! Checked from the agent's side, as root and as an unprivileged user: `ps` and `/proc` show
//! only the agent's processes, `/proc/mounts` and `find / -xdev` show no path of the original
//! or of schrodinger's work directory, the original's path, `GIT_DIR` tricks, the scan cache,
//! the run records and the binary give nothing, and the environment imports the view's
//! package only. Checked afterwards: the exit status is the agent's, and the patches in both
//! coordinates say what the agent did.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{
    assert_no_original, can_mount, git, never_shown, output, run_ok, translate_with, Repo, BIN,
};

/// A file whose name exists nowhere else: if `find / -xdev` printed it, the original (or a
/// copy) would be reachable on the container's root filesystem. One per test: tests run in
/// parallel, and each one's original is on the same root filesystem as the others.
fn marker(repo: &Repo) -> String {
    let dir = repo.dir.path().file_name().unwrap().to_string_lossy();
    let tag: String = dir
        .chars()
        .filter(|c| c.is_ascii_alphabetic())
        .map(|c| c.to_ascii_lowercase())
        .collect();
    format!("quokka{tag}")
}

struct Ran {
    status: i32,
    stdout: String,
    stderr: String,
    work: PathBuf,
    out: PathBuf,
}

/// `schrodinger run ARGS REPO -- sh -c SCRIPT` as the first process of a new container.
fn run_in_container(repo: &Repo, args: &[&str], script: &str) -> Ran {
    let work = repo.dir.path().join("work");
    let out = repo.dir.path().join("out");
    let o = output(
        container()
            .arg(BIN)
            .arg("run")
            .arg("--work")
            .arg(&work)
            .arg("--out")
            .arg(&out)
            .args(args)
            .arg(&repo.orig)
            .args(["--", "sh", "-c", script])
            .current_dir(&repo.orig)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1"),
    );
    Ran {
        status: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        work,
        out,
    }
}

/// Original names the run's own view renamed.
fn renamed(work: &Path) -> BTreeSet<String> {
    let b: serde_json::Value =
        serde_json::from_slice(&fs::read(work.join("state/bundle.json")).unwrap()).unwrap();
    never_shown(&b)
}

/// `translate --state --to DIRECTION` with the run's own map.
fn translate(work: &Path, repo: &Repo, to: &str, text: &str) -> String {
    let state = work.join("state");
    translate_with(
        &[OsStr::new("--state"), state.as_os_str()],
        &repo.orig,
        to,
        text,
    )
}

/// `unshare` playing a fresh container: its own mount and PID namespaces and `/proc`, then
/// the command given with `args`. A container starts from its own root, without the host's
/// mounts; this one starts with a private copy of them, which holds the views that tests
/// running beside it have mounted, and a copy keeps a view's daemon alive after its test
/// unmounts it (that test's `unmount` then fails waiting for the daemon). So the copies of
/// schrodinger views are detached first.
fn container() -> Command {
    let mut c = Command::new("unshare");
    c.args([
        "--mount",
        "--propagation",
        "private",
        "--pid",
        "--fork",
        "--mount-proc",
        "sh",
        "-c",
        r#"awk '$0 ~ / - fuse[.a-z]* schrodinger / {print $5}' /proc/self/mountinfo |
           while read -r m; do umount -l "$m" 2>/dev/null; done; exec "$@""#,
        "container",
    ]);
    c
}

/// Make the test's temp dir reachable by another user (tempdirs are 0700).
fn open_up(repo: &Repo) {
    fs::set_permissions(repo.dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
}

fn marked_repo() -> Repo {
    let repo = Repo::sample();
    fs::write(
        repo.orig.join(format!("bookmobile/{}.py", marker(&repo))),
        "def quokka_count(shelf):\n    return len(shelf)\n",
    )
    .unwrap();
    run_ok(git(&repo.orig).args(["add", "-A"]));
    run_ok(git(&repo.orig).args(["commit", "-q", "-m", "marker"]));
    repo
}

/// What a curious agent tries; every line of output is checked for original names.
fn probe_script(repo: &Repo, work: &Path) -> String {
    let repo_p = repo.orig.display();
    let w = work.display();
    // The script is on the agent's command line: it must not spell the marker out.
    let marker = marker(repo);
    let (head, tail) = marker.split_at(3);
    format!(
        r#"
echo "== ps"; ps -eo pid,args
echo "== proc"; for p in /proc/[0-9]*; do tr '\0' ' ' < $p/cmdline; echo; done
echo "== mounts"; cat /proc/mounts /proc/self/mountinfo
echo "== find"; m={head}; find / -xdev -name "${{m}}{tail}*" 2>/dev/null; find / -xdev -path '{w}/*' 2>/dev/null | head
echo "== work"; ls -A {w} 2>&1
echo "== records"; ls -A /run/schrodinger 2>&1
echo "== cache"; ls -A "$HOME/.cache/schrodinger" 2>&1
echo "== binary"; wc -c < {BIN} 2>&1; {BIN} --help 2>&1 | head -3
echo "== exe"; ls -l /proc/1/exe 2>&1
echo "== git"; GIT_DIR={repo_p}/.git GIT_WORK_TREE=. git status --short 2>&1; git log --format='%H %s' 2>&1
echo "== tree"; ls -R {repo_p} | head -40
echo "== grep"; grep -rn "qu""okka" {repo_p} 2>&1 | head
"#
    )
}

/// The lines after a line `== NAME` up to the next such line (the script's own text, which
/// ps shows, has these words mid-line).
fn section(stdout: &str, name: &str) -> String {
    let lines: Vec<&str> = stdout.lines().collect();
    let head = format!("== {name}");
    let i = lines
        .iter()
        .position(|l| *l == head)
        .unwrap_or_else(|| panic!("no section {name} in:\n{stdout}"));
    let body: Vec<&str> = lines[i + 1..]
        .iter()
        .take_while(|l| !l.starts_with("== "))
        .copied()
        .collect();
    body.join("\n")
}

/// `ps -eo pid,args` lists the agent's shell as PID 1 and what it runs, nothing else.
fn only_the_agents_processes(ps: &str) {
    let procs: Vec<&str> = ps
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("PID") && !l.starts_with("=="))
        .collect();
    assert!(
        procs.first().is_some_and(|p| p.starts_with("1 sh -c")),
        "{ps}"
    );
    for p in &procs[1..] {
        let args = p.split_once(' ').map(|x| x.1).unwrap_or("");
        assert!(
            args.starts_with("ps ") || args.starts_with("sh -c"),
            "a process that is not the agent's: {p}\n{ps}"
        );
    }
}

#[test]
fn run_walls_a_root_agent_off_and_writes_both_patches() {
    let test = "run_walls_a_root_agent_off_and_writes_both_patches";
    if !can_mount(test) {
        return;
    }
    let repo = marked_repo();
    fs::write(repo.orig.join("pyproject.toml"), crate::install::PYPROJECT).unwrap();
    run_ok(git(&repo.orig).args(["add", "-A"]));
    run_ok(git(&repo.orig).args(["commit", "-q", "-m", "packaging"]));
    let env = repo.dir.path().join("venv");
    let py = crate::install::venv(&env);
    crate::install::install_editable(&py, &repo.orig);
    let work = repo.dir.path().join("work");
    let mut script = probe_script(&repo, &work);
    script.push_str(&format!(
        r#"
echo "== walls"; umount {repo_p} 2>&1; umount -l {repo_p} 2>&1; mount -t tmpfs none /mnt 2>&1; ls {repo_p} | head -3
echo "== python"; cd / && {py} -c 'import sys, pkgutil; print(sys.path); print(sorted(m.name for m in pkgutil.iter_modules()))'
{py} -m pip list 2>&1
cd {repo_p}
f=$(grep -rl '^def ' --include='*.py' . | grep -v test | head -1)
echo "== edit $f"
printf '\n\ndef added_by_agent():\n    return 42\n' >> "$f"
printf 'fresh = 1\n' > fresh_module.py
exit 7
"#,
        py = py.display(),
        repo_p = repo.orig.display()
    ));
    let ran = run_in_container(
        &repo,
        &["--seed", "7", "--python", py.to_str().unwrap()],
        &script,
    );
    assert_eq!(
        ran.status, 7,
        "stdout:\n{}\nstderr:\n{}",
        ran.stdout, ran.stderr
    );
    let names = renamed(&ran.work);
    assert!(
        names.contains("bookmobile") && names.contains("quokka_count"),
        "{names:?}"
    );
    // The work directory's path may show (an empty read-only mount covers it); its state
    // may not.
    assert_no_original(
        "what the agent saw",
        ran.stdout.as_bytes(),
        &names,
        &ran.work.join("state"),
    );
    let view_pkg = translate(&ran.work, &repo, "view", "bookmobile");
    let fresh = translate(&ran.work, &repo, "original", "fresh_module.py");
    let section = |name: &str| section(&ran.stdout, name);
    // Only the agent's own processes, and none of them is schrodinger.
    only_the_agents_processes(&section("ps"));
    // Nothing of the original or of the work directory on the root filesystem; the work
    // directory, the run records and the scan cache are empty where they exist.
    assert_eq!(section("find").trim(), "");
    for s in ["work", "records", "cache"] {
        let text = section(s);
        assert!(
            text.trim().is_empty() || text.contains("No such file or directory"),
            "{s}: {text}"
        );
    }
    let binary = section("binary");
    assert_eq!(binary.lines().next().map(str::trim), Some("0"), "{binary}");
    assert!(!binary.contains("Usage"), "{binary}");
    assert!(section("tree").contains(&view_pkg), "{}", section("tree"));
    // A root agent cannot take the view away or mount anything: it has no CAP_SYS_ADMIN.
    let walls = section("walls");
    assert!(walls.contains(&view_pkg), "{walls}");
    let refused = walls.matches("must be superuser").count()
        + walls.matches("ermission denied").count()
        + walls.matches("not permitted").count();
    assert!(refused >= 3, "{walls}");
    // The environment knows the view's package, not the original's.
    let python = section("python");
    assert!(
        python.contains(&format!("__editable__.{view_pkg}-")),
        "{python}"
    );

    // The patches: in original coordinates, exactly what the original's git now shows
    // (the agent's edit and its new file), and the view's patch says the same in view names.
    let orig_patch = fs::read_to_string(ran.out.join("original.patch")).unwrap();
    let view_patch = fs::read_to_string(ran.out.join("view.patch")).unwrap();
    // The name the agent wrote, as the code rule takes it back (a free-text translation may
    // keep a compound whose piece is an outside name, and that depends on the seed's words).
    let state = ran.work.join("state");
    let code = translate_with(
        &[
            OsStr::new("--state"),
            state.as_os_str(),
            OsStr::new("--path"),
            OsStr::new("fresh_module.py"),
        ],
        &repo.orig,
        "original",
        "def added_by_agent():\n    return 42\n",
    );
    let added = code
        .strip_prefix("def ")
        .and_then(|r| r.split('(').next())
        .unwrap_or_else(|| panic!("translated code: {code:?}"))
        .to_string();
    assert!(
        orig_patch.contains(&format!("+def {added}():")),
        "{orig_patch}"
    );
    assert!(
        orig_patch.contains(&format!("+++ b/{fresh}")),
        "{orig_patch}"
    );
    assert!(
        view_patch.contains("+def added_by_agent():"),
        "{view_patch}"
    );
    assert_no_original("view.patch", view_patch.as_bytes(), &names, &repo.orig);
    let untracked = run_ok(git(&repo.orig).args(["status", "--short"]));
    assert!(untracked.contains(&format!("?? {fresh}")), "{untracked}");
    let mut status = run_ok(git(&repo.orig).args(["diff", "--stat"]));
    status.retain(|c| c != ' ');
    assert!(status.contains("1filechanged"), "{status}");
    // The view's patch translated back is the original's.
    let child = Command::new(BIN)
        .arg("patch")
        .arg("--state")
        .arg(ran.work.join("state"))
        .args(["--to", "original"])
        .arg(&repo.orig)
        .arg(ran.out.join("view.patch"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let back = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&back.stdout), orig_patch);
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(ran.out.join("run.json")).unwrap()).unwrap();
    assert_eq!(json["status"], 7);
    assert_eq!(json["timed_out"], false);
    // Nothing is left mounted or running.
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(!mounts.contains(ran.work.to_str().unwrap()), "{mounts}");
}

#[test]
fn run_as_an_unprivileged_user_edits_and_owns_what_it_creates() {
    let test = "run_as_an_unprivileged_user_edits_and_owns_what_it_creates";
    if !can_mount(test) {
        return;
    }
    let repo = marked_repo();
    open_up(&repo);
    let work = repo.dir.path().join("work");
    let mut script = probe_script(&repo, &work);
    script.push_str(&format!(
        r#"
echo "== id"; id -u
cd {repo_p}
f=$(grep -rl '^def ' --include='*.py' . | grep -v test | head -1)
sed -i 's/^def /def  /' "$f" && echo "edited"
mkdir made_dir && printf 'x = 1\n' > made_dir/made.py && echo "created"
umount {repo_p} 2>&1 || true
exit 0
"#,
        repo_p = repo.orig.display()
    ));
    let ran = run_in_container(
        &repo,
        &["--seed", "3", "--no-repoint", "--user", "nobody"],
        &script,
    );
    assert_eq!(
        ran.status, 0,
        "stdout:\n{}\nstderr:\n{}",
        ran.stdout, ran.stderr
    );
    let names = renamed(&ran.work);
    // The work directory's path may show (an empty read-only mount covers it); its state
    // may not.
    assert_no_original(
        "what the agent saw",
        ran.stdout.as_bytes(),
        &names,
        &ran.work.join("state"),
    );
    assert!(ran.stdout.contains("== id\n65534\n"), "{}", ran.stdout);
    assert!(ran.stdout.contains("edited\ncreated\n"), "{}", ran.stdout);
    only_the_agents_processes(&section(&ran.stdout, "ps"));
    let made_rel = translate(&ran.work, &repo, "original", "made_dir/made.py");
    let made = fs::metadata(repo.orig.join(&made_rel)).unwrap();
    assert_eq!((made.uid(), made.gid()), (65534, 65534));
    let orig_patch = fs::read_to_string(ran.out.join("original.patch")).unwrap();
    assert!(orig_patch.contains("+def  "), "{orig_patch}");
    assert!(
        orig_patch.contains("+++ b/made_dir/made.py"),
        "{orig_patch}"
    );
    // The original's files keep their owner.
    let kept = fs::metadata(repo.orig.join("bookmobile/desk.py")).unwrap();
    assert_eq!(kept.uid(), 0);
}

#[test]
fn run_stops_an_agent_at_its_timeout_and_keeps_its_work() {
    let test = "run_stops_an_agent_at_its_timeout_and_keeps_its_work";
    if !can_mount(test) {
        return;
    }
    let repo = Repo::sample();
    let start = std::time::Instant::now();
    let ran = run_in_container(
        &repo,
        &[
            "--seed",
            "5",
            "--no-repoint",
            "--timeout",
            "2",
            "--grace",
            "1",
        ],
        "printf 'print(42)\\n' > 4242.py; sleep 60; echo never",
    );
    let took = start.elapsed();
    assert_eq!(ran.status, 124, "{}\n{}", ran.stdout, ran.stderr);
    assert!(!ran.stdout.contains("never"));
    assert!(took.as_secs() < 30, "took {took:?}");
    let orig_patch = fs::read_to_string(ran.out.join("original.patch")).unwrap();
    assert!(
        orig_patch.contains("+++ b/4242.py\n@@ -0,0 +1 @@\n+print(42)"),
        "{orig_patch}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(ran.out.join("run.json")).unwrap()).unwrap();
    assert_eq!(json["timed_out"], true);
}

/// A harness that `docker exec`s each command: the container's command is `run ... --
/// sleep`, and each command goes through `schrodinger enter`, which lands it in the agent's
/// namespaces as the agent's user. Stopping `run` (as `docker stop` does) still writes the
/// patches.
#[test]
fn enter_puts_an_exec_d_command_in_the_agents_namespaces() {
    let test = "enter_puts_an_exec_d_command_in_the_agents_namespaces";
    if !can_mount(test) {
        return;
    }
    let repo = marked_repo();
    open_up(&repo);
    let work = repo.dir.path().join("work");
    let out = repo.dir.path().join("out");
    let probe = probe_script(&repo, &work);
    // A slow interpreter: `enter` is called while `run` still re-points the install (in the
    // agent's mount namespace, but not yet its PID namespace, with the original visible),
    // and must wait for the agent rather than join that.
    let py = repo.dir.path().join("slow-python");
    fs::write(&py, "#!/bin/sh\nsleep 2\nexec python3 \"$@\"\n").unwrap();
    fs::set_permissions(&py, fs::Permissions::from_mode(0o755)).unwrap();
    // The container: `run` in the background as its main process, two exec'd commands, then
    // the stop.
    let script = format!(
        r#"
{bin} run --seed 9 --python {py} --user nobody --grace 1 --work {w} --out {o} {r} -- sleep 600 &
{bin} enter --work {w} {r} -- sh -c "$PROBE"
cd {r} && {bin} enter --work {w} {r} -- sh -c 'id -u; pwd; printf "x = 1\n" > 4242.py'
kill -TERM $!
wait $!
echo "run exited $?"
"#,
        bin = BIN,
        w = work.display(),
        o = out.display(),
        r = repo.orig.display(),
        py = py.display()
    );
    let o = output(container().args(["sh", "-c", &script]).env("PROBE", &probe));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    let names = renamed(&work);
    assert_no_original(
        "what the exec'd command saw",
        stdout.as_bytes(),
        &names,
        &work.join("state"),
    );
    // In the agent's PID namespace: the agent's `sleep` is PID 1, no schrodinger process.
    let ps = section(&stdout, "ps");
    let procs: Vec<&str> = ps.lines().skip(1).map(str::trim).collect();
    assert_eq!(procs.first(), Some(&"1 sleep 600"), "{ps}");
    assert!(
        procs[1..]
            .iter()
            .all(|p| p.contains(" sh -c") || p.contains(" ps -eo")),
        "{ps}"
    );
    assert!(
        stdout.contains(&format!("65534\n{}\n", repo.orig.display())),
        "{stdout}"
    );
    assert!(stdout.contains("run exited 137"), "{stdout}\n{stderr}");
    let orig_patch = fs::read_to_string(out.join("original.patch")).unwrap();
    assert!(
        orig_patch.contains("+++ b/4242.py\n@@ -0,0 +1 @@\n+x = 1"),
        "{orig_patch}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&fs::read(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(json["stopped_by_signal"], true);
    let made = fs::metadata(repo.orig.join("4242.py")).unwrap();
    assert_eq!(made.uid(), 65534);
}

/// A view mounted in the container beside the run (another run, or one an evaluator mounted
/// by hand) is not in the agent's namespace: the agent's mount table lists its own view only,
/// at the repository's path, and the other view's mount point is an empty directory there.
#[test]
fn run_leaves_other_views_out_of_the_agents_namespace() {
    let test = "run_leaves_other_views_out_of_the_agents_namespace";
    if !can_mount(test) {
        return;
    }
    let repo = Repo::sample();
    let other = Repo::sample();
    let point = repo.dir.path().join("beside");
    let state = repo.dir.path().join("beside.state");
    fs::create_dir(&point).unwrap();
    let work = repo.dir.path().join("work");
    let out = repo.dir.path().join("out");
    // Mounted inside the container, so that it is in the namespace `run` copies.
    let outer = r#"b=$1; state=$2; other=$3; point=$4; shift 4
"$b" mount --seed 3 --state "$state" "$other" "$point" >/dev/null || exit 99
ls "$point" | grep -c . | sed 's/^/beside before: /'
"$b" "$@"; s=$?
"$b" unmount "$point" || s=98
exit $s"#;
    let agent = format!(
        "awk '$0 ~ / - fuse[.a-z]* schrodinger / {{print \"view at \" $5}}' /proc/self/mountinfo; \
         echo \"beside: $(ls {} | wc -l)\"",
        point.display()
    );
    let o = output(
        container()
            .args(["sh", "-c", outer, "outer", BIN])
            .arg(&state)
            .arg(&other.orig)
            .arg(&point)
            .arg("run")
            .arg("--work")
            .arg(&work)
            .arg("--out")
            .arg(&out)
            .args(["--seed", "5", "--no-repoint"])
            .arg(&repo.orig)
            .args(["--", "sh", "-c", &agent])
            .current_dir(&repo.orig),
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        o.status.code(),
        Some(0),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    // The other view was there to copy: it shows the sample's files.
    let before = stdout
        .lines()
        .find_map(|l| l.strip_prefix("beside before: "))
        .and_then(|n| n.trim().parse::<u32>().ok());
    assert!(before.is_some_and(|n| n > 0), "{stdout}");
    let views: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("view at "))
        .collect();
    assert_eq!(views, [repo.orig.to_str().unwrap()], "{stdout}\n{stderr}");
    assert!(stdout.contains("beside: 0"), "{stdout}");
}
