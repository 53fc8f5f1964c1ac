//! `schrodinger verify`: run a test command on ORIGINAL and on a fresh view of it and compare
//! the outcomes test by test (law 5).
//!
//! Guarantee: exit status 0 only when every test ran on both sides with the same outcome
//! (test ids translated with the view's map, which is an involution, so one call maps view
//! ids back). Nothing is written into ORIGINAL by verify itself: the view lives in a
//! temporary directory, both sides run with PYTHONDONTWRITEBYTECODE=1 and pytest's cache
//! provider off. `--auto-freeze` searches (ddmin) for a small set of names whose freezing
//! restores equal outcomes, each probe a freshly built view.

mod ddmin;
pub mod outcomes;
mod search;
use search::auto_freeze;
mod side;
pub mod skip;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use self::outcomes::{Outcome, Runner, TestResult};
use self::side::{Mode, View};
use super::{build_bundle_and_tree, resolve_map, CliError, PinArgs, ViewArgs};
use crate::bundle::{self, Bundle};
use crate::transform::lexer::Class;
use crate::transform::rename::Renamer;
use crate::transform::tokens;

/// `schrodinger verify`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = AFTER_HELP)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    #[command(flatten)]
    pub pin: PinArgs,
    /// Make the view with `export` into a temporary directory instead of mounting it (where
    /// FUSE is not available).
    #[arg(long)]
    pub export: bool,
    /// Print the report as JSON on standard output.
    #[arg(long)]
    pub json: bool,
    /// When outcomes differ, find a small set of names whose freezing restores equal outcomes
    /// and write it to FILE (the --freeze format, with the test that motivated each name).
    #[arg(long, value_name = "FILE")]
    pub auto_freeze: Option<PathBuf>,
    /// With Level 4: when outcomes differ, find a small set of rewritten functions whose
    /// rewrites, dropped, restore equal outcomes, and write it to FILE (the --rewrite-skip
    /// format: `PATH::QUALNAME` lines).
    #[arg(long, value_name = "FILE")]
    pub auto_skip_rewrites: Option<PathBuf>,
    /// The original checkout.
    pub original: PathBuf,
    /// The test command, after `--` (e.g. `-- python -m pytest -q tests/`).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

const AFTER_HELP: &str = "\
Runs COMMAND in ORIGINAL and in a fresh view of it (mounted into a temporary directory with a
temporary --state, or exported there with --export), each with cwd = that side's root and the
same environment, and compares the outcome of every test (ids translated with the view's map).
Exit status 0 only when every test has the same outcome on both sides.

Runners: pytest (verify adds --junitxml, -o junit_family=xunit1, -p no:cacheprovider),
`python -m unittest` (adds -v), Django's runtests.py (adds --verbosity=2); any other command
is compared by exit status only, with a warning. COMMAND's arguments are translated to the
view's names; absolute paths into ORIGINAL are moved to the view.

Imports: nothing is written into ORIGINAL (PYTHONDONTWRITEBYTECODE=1 on both sides unless
set). PYTHONPATH entries pointing into ORIGINAL are rewritten to the same place in the view.
An editable install of ORIGINAL (or a .pth / path entry into it) would shadow the view, so
that the view's tests run the original code: verify warns when the view's Python imports a
top-level package of ORIGINAL from ORIGINAL. Uninstall it, or use another environment.

--auto-freeze FILE: when outcomes differ, candidates are the renamed names (and their tokens)
that occur in the differing tests' files and failure texts; delta debugging finds a small
subset whose freezing restores equal outcomes (each probe builds a new view and reruns only
the differing tests when the runner can select them). FILE gets the --freeze format with a
`# motivated by: <test id>` comment per name. Verify with --freeze FILE to confirm.

Example: schrodinger verify --seed 7 ORIGINAL -- python -m pytest -q tests/
See docs/verify.md.";

/// Progress lines on standard error: elapsed time, side, phase.
pub struct Clock {
    start: Instant,
}

impl Clock {
    fn new() -> Self {
        Clock {
            start: Instant::now(),
        }
    }

    pub fn say(&self, side: &str, phase: &str) {
        eprintln!(
            "verify [{:>6.1}s] {side}: {phase}",
            self.start.elapsed().as_secs_f64()
        );
    }
}

/// One run of the test command on one side.
struct RunResult {
    results: Vec<TestResult>,
    success: bool,
    /// The last lines of the command's output, for errors.
    tail: String,
}

/// Everything about a run that does not change between the two sides and the probes.
struct Ctx<'a> {
    args: &'a VerifyArgs,
    original: PathBuf,
    exe: PathBuf,
    runner: Runner,
    mode: Mode,
    work: PathBuf,
    clock: Clock,
    python: PathBuf,
    user_freeze: Vec<String>,
    /// The state directory of the view whose map verify uses (`--mount`/`--state`, or a live
    /// view of ORIGINAL): its Level 3 layouts go to verify's view too.
    layouts_from: Option<PathBuf>,
}

/// A test whose outcome differs.
#[derive(Debug, Clone, Serialize)]
pub struct Different {
    pub id: String,
    pub view_id: String,
    pub original: Outcome,
    pub view: Outcome,
    /// The original side's failure text (original names) and its view translation.
    pub original_detail: String,
    pub original_detail_in_view: String,
    /// The view side's failure text (view names) and its translation to original names.
    pub view_detail: String,
    pub view_detail_in_original: String,
}

/// A test seen on one side only.
#[derive(Debug, Clone, Serialize)]
pub struct OneSide {
    /// In original coordinates.
    pub id: String,
    pub view_id: String,
    pub outcome: Outcome,
}

/// What `--auto-freeze` found.
#[derive(Debug, Clone, Serialize)]
pub struct AutoFreeze {
    pub found: bool,
    pub message: String,
    pub file: Option<PathBuf>,
    pub names: Vec<FrozenName>,
    pub candidates: usize,
    pub probes: usize,
    pub owned_runs: usize,
    pub renamed_before: usize,
    pub renamed_after: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct FrozenName {
    pub name: String,
    pub motivated_by: String,
}

/// The report, printed as text or JSON.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub runner: Runner,
    pub seed: u64,
    pub view_mode: &'static str,
    pub original_tests: usize,
    pub view_tests: usize,
    pub same: usize,
    pub different: Vec<Different>,
    pub only_original: Vec<OneSide>,
    pub only_view: Vec<OneSide>,
    pub warnings: Vec<String>,
    pub auto_freeze: Option<AutoFreeze>,
    pub auto_skip: Option<skip::AutoSkip>,
    pub ok: bool,
}

pub fn verify(args: &VerifyArgs) -> Result<(), CliError> {
    let original = args
        .original
        .canonicalize()
        .map_err(|e| CliError::io(format!("ORIGINAL {}", args.original.display()), e))?;
    if !original.is_dir() {
        return Err(CliError::Msg(format!(
            "{} is not a directory",
            original.display()
        )));
    }
    if args.command.is_empty() {
        return Err(CliError::Msg(
            "no test command: give it after `--` (e.g. `-- python -m pytest -q`)".into(),
        ));
    }
    let pinned = args.view.bundle.is_some() || args.pin.mount.is_some() || args.pin.state.is_some();
    if args.auto_freeze.is_some() && pinned {
        return Err(CliError::Msg(
            "--auto-freeze rebuilds the view with extra frozen names, so it cannot use a saved \
             bundle (--bundle, --mount, --state); pass --seed (and --freeze) instead"
                .into(),
        ));
    }
    let exe = std::env::current_exe().map_err(|e| CliError::io("locating this program", e))?;
    let tmp = tempfile::Builder::new()
        .prefix("schrodinger-verify-")
        .tempdir()
        .map_err(|e| CliError::io("creating a temporary directory", e))?;
    let work = tmp
        .path()
        .canonicalize()
        .map_err(|e| CliError::io("temporary directory", e))?;
    if work.starts_with(&original) {
        return Err(CliError::Msg(
            "the temporary directory is inside ORIGINAL; set TMPDIR elsewhere".into(),
        ));
    }
    let runner = outcomes::detect(&args.command);
    let python = match args.command.first() {
        Some(p)
            if Path::new(p)
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("python")) =>
        {
            PathBuf::from(p)
        }
        _ => args.view.python_path(),
    };
    let user_freeze = match &args.view.freeze {
        Some(p) => bundle::read_freeze_file(p)?,
        None => Vec::new(),
    };
    let mut ctx = Ctx {
        args,
        original,
        exe,
        runner,
        mode: if args.export {
            Mode::Export
        } else {
            Mode::Mount
        },
        work,
        clock: Clock::new(),
        python,
        user_freeze,
        layouts_from: None,
    };
    let mut warnings = Vec::new();
    if runner == Runner::ExitCode {
        warnings.push(format!(
            "`{}` is not a pytest, unittest or Django runtests.py command: comparing its exit \
             status only",
            args.command.join(" ")
        ));
    }

    ctx.clock.say("view", "building the bundle");
    let map = resolve_map(&ctx.original, &args.view, &args.pin)?;
    ctx.layouts_from = map.state.clone();
    let base = map.bundle;
    let renamer = base.renamer()?;

    ctx.clock.say("original", "running the tests");
    let orig = run_side(&ctx, "original", &ctx.original, &args.command, &[], None)?;
    if orig.results.is_empty() && !orig.success {
        // Comparing two failures to start would call a broken command "same behaviour".
        return Err(CliError::Msg(format!(
            "the test command fails on the original before any test outcome can be read \
             (it runs in {}; relative paths in the command resolve there). Its last lines:\n{}",
            ctx.original.display(),
            orig.tail
        )));
    }
    let (view_run, view_raw) = run_view(&ctx, &base, &renamer, "view", None, &mut warnings)?;
    let (orig_results, view_results) = fallback_if_unparsed(orig, view_run, &mut warnings);
    let view_raw = if view_results.len() == 1 && view_results[0].id == outcomes::EXIT_STATUS_ID {
        view_results.clone()
    } else {
        view_raw
    };
    let mut report = compare(&orig_results, &view_results, &view_raw, &renamer);
    report.runner = runner;
    report.seed = base.seed;
    report.view_mode = if args.export { "export" } else { "mount" };
    report.warnings = warnings;

    if !report.ok {
        if let Some(file) = &args.auto_freeze {
            let af = auto_freeze(&ctx, &base, &renamer, &report, &orig_results, file)?;
            report.auto_freeze = Some(af);
        }
        if let Some(file) = &args.auto_skip_rewrites {
            let sk = skip::auto_skip(&ctx, &base, &report, &orig_results, file)?;
            report.auto_skip = Some(sk);
        }
    }
    ctx.clock.say("verify", "done");
    if args.json {
        let s = serde_json::to_string_pretty(&report).map_err(|e| CliError::Msg(e.to_string()))?;
        println!("{s}");
    } else {
        print!("{}", render(&report));
    }
    drop(tmp);
    if report.ok {
        Ok(())
    } else {
        Err(CliError::Msg(format!(
            "{} of {} tests do not have the same outcome on the view",
            report.different.len() + report.only_original.len() + report.only_view.len(),
            report.same
                + report.different.len()
                + report.only_original.len()
                + report.only_view.len()
        )))
    }
}

/// Runs with no parsed test on either side are compared by exit status.
fn fallback_if_unparsed(
    orig: RunResult,
    view: RunResult,
    warnings: &mut Vec<String>,
) -> (Vec<TestResult>, Vec<TestResult>) {
    if orig.results.is_empty() && view.results.is_empty() {
        warnings.push(
            "no per-test outcome could be read on either side: comparing exit status only".into(),
        );
        return (
            vec![outcomes::exit_code_result(orig.success, "")],
            vec![outcomes::exit_code_result(view.success, "")],
        );
    }
    (orig.results, view.results)
}

/// Make the view of `bundle`, run the command there (only `select`, original ids, if given)
/// and return the results in original ids, plus the raw results in view ids.
fn run_view(
    ctx: &Ctx<'_>,
    bundle: &Bundle,
    renamer: &Renamer,
    label: &str,
    select: Option<&[String]>,
    warnings: &mut Vec<String>,
) -> Result<(RunResult, Vec<TestResult>), CliError> {
    let dir = ctx.work.join(label);
    let view = View::create(
        &ctx.exe,
        &ctx.original,
        bundle,
        ctx.layouts_from.as_deref(),
        &dir,
        ctx.mode,
        &ctx.clock,
        label,
    )?;
    let env = side::view_env(&ctx.original, &view.root, renamer);
    let first = side::editable_roots(&ctx.python, &ctx.original, &view.root, renamer);
    if !first.is_empty() && select.is_none() {
        ctx.clock.say(
            label,
            "ORIGINAL is installed editable: the view's packages come first on its PYTHONPATH",
        );
    }
    let env = side::with_path_first(env, &first);
    if select.is_none() {
        warnings.extend(side::shadow_warnings(
            &ctx.python,
            &ctx.original,
            &view,
            &env,
            renamer,
        ));
    }
    let argv = side::translate_args(&ctx.args.command, &ctx.original, &view.root, renamer);
    let sel: Option<Vec<String>> = select.map(|s| s.iter().map(|i| renamer.swap_text(i)).collect());
    ctx.clock.say(label, "running the tests");
    let run = run_side(ctx, label, &view.root.clone(), &argv, &env, sel.as_deref());
    view.close()?;
    let run = run?;
    let raw = run.results.clone();
    let translated = run
        .results
        .into_iter()
        .map(|r| in_original(renamer, r))
        .collect();
    Ok((
        RunResult {
            results: translated,
            success: run.success,
            tail: renamer.view_text_to_original(&run.tail),
        },
        raw,
    ))
}

/// A result the view's run reported, in original names: its id goes back word by word
/// (`Renamer::view_text_to_original`), since runners build ids from data the view renamed
/// (a test made per data file). The detail stays as the view printed it.
fn in_original(renamer: &Renamer, r: TestResult) -> TestResult {
    TestResult {
        id: renamer.view_text_to_original(&r.id),
        outcome: r.outcome,
        detail: r.detail,
    }
}

/// Run the command (prepared for the runner) with cwd = `root`, `env` added.
fn run_side(
    ctx: &Ctx<'_>,
    label: &str,
    root: &Path,
    argv: &[String],
    env: &[(OsString, OsString)],
    select: Option<&[String]>,
) -> Result<RunResult, CliError> {
    let junit = ctx
        .work
        .join(format!("{}-junit.xml", label.replace('/', "-")));
    let _ = std::fs::remove_file(&junit);
    let cmd = outcomes::prepare(ctx.runner, argv, &junit, select, root);
    let mut env: Vec<(OsString, OsString)> = env.to_vec();
    if env.is_empty() {
        env = side::common_env();
    }
    let (success, output) = run_command(&cmd, root, &env, label, &ctx.clock)?;
    let junit_text = std::fs::read_to_string(&junit).ok();
    let results = match outcomes::parse(ctx.runner, &output, junit_text.as_deref()) {
        Some(r) => r,
        None if ctx.runner == Runner::ExitCode => {
            vec![outcomes::exit_code_result(success, &output)]
        }
        None => Vec::new(),
    };
    ctx.clock.say(
        label,
        &format!(
            "{} tests, command {}",
            results.len(),
            if success { "succeeded" } else { "failed" }
        ),
    );
    let lines: Vec<&str> = output.lines().collect();
    let tail = lines[lines.len().saturating_sub(15)..].join("\n");
    Ok(RunResult {
        results,
        success,
        tail,
    })
}

/// Run a command, collecting standard output and error; say every 30 s that it still runs.
fn run_command(
    argv: &[String],
    cwd: &Path,
    env: &[(OsString, OsString)],
    label: &str,
    clock: &Clock,
) -> Result<(bool, String), CliError> {
    let Some((prog, rest)) = argv.split_first() else {
        return Err(CliError::Msg("empty command".into()));
    };
    // Each side runs in its own root, so a relative program path (`venv/bin/python`) means
    // the one relative to where verify was started.
    let prog = if prog.contains('/') && !prog.starts_with('/') {
        std::env::current_dir()
            .map(|d| d.join(prog).into_os_string())
            .unwrap_or_else(|_| prog.into())
    } else {
        prog.into()
    };
    let mut child = Command::new(&prog)
        .args(rest)
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            CliError::io(
                format!("running `{}` in {}", argv.join(" "), cwd.display()),
                e,
            )
        })?;
    let mut readers = Vec::new();
    if let Some(mut o) = child.stdout.take() {
        readers.push(std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = o.read_to_end(&mut b);
            b
        }));
    }
    if let Some(mut e) = child.stderr.take() {
        readers.push(std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = e.read_to_end(&mut b);
            b
        }));
    }
    let started = Instant::now();
    let mut next_note = Duration::from_secs(30);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) => {}
            Err(e) => return Err(CliError::io("waiting for the test command", e)),
        }
        if started.elapsed() >= next_note {
            clock.say(
                label,
                &format!("tests still running ({}s)", started.elapsed().as_secs()),
            );
            next_note += Duration::from_secs(30);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut output = String::new();
    for r in readers {
        let b = r.join().unwrap_or_default();
        output.push_str(&String::from_utf8_lossy(&b));
    }
    Ok((status.success(), output))
}

/// Compare results (view ids already translated to original ids).
fn compare(
    orig: &[TestResult],
    view: &[TestResult],
    view_raw: &[TestResult],
    renamer: &Renamer,
) -> Report {
    let vmap: HashMap<&str, (&TestResult, Option<&TestResult>)> = view
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), (r, view_raw.get(i))))
        .collect();
    let omap: HashMap<&str, &TestResult> = orig.iter().map(|r| (r.id.as_str(), r)).collect();
    let mut same = 0;
    let mut different = Vec::new();
    let mut only_original = Vec::new();
    for o in orig {
        match vmap.get(o.id.as_str()) {
            Some((v, raw)) => {
                if v.outcome == o.outcome {
                    same += 1;
                } else {
                    let view_detail = raw.map_or(v.detail.clone(), |r| r.detail.clone());
                    different.push(Different {
                        id: o.id.clone(),
                        view_id: raw.map_or_else(|| renamer.swap_text(&o.id), |r| r.id.clone()),
                        original: o.outcome,
                        view: v.outcome,
                        original_detail_in_view: renamer.swap_text(&o.detail),
                        original_detail: o.detail.clone(),
                        view_detail_in_original: renamer.view_text_to_original(&view_detail),
                        view_detail,
                    });
                }
            }
            None => only_original.push(OneSide {
                id: o.id.clone(),
                view_id: renamer.swap_text(&o.id),
                outcome: o.outcome,
            }),
        }
    }
    // The view's own id where the run reported one: swapping the translated id back is
    // not always it (an id made from renamed data went back word by word).
    let only_view: Vec<OneSide> = view
        .iter()
        .enumerate()
        .filter(|(_, v)| !omap.contains_key(v.id.as_str()))
        .map(|(i, v)| OneSide {
            id: v.id.clone(),
            view_id: view_raw
                .get(i)
                .map_or_else(|| renamer.swap_text(&v.id), |r| r.id.clone()),
            outcome: v.outcome,
        })
        .collect();
    let ok = different.is_empty() && only_original.is_empty() && only_view.is_empty();
    Report {
        runner: Runner::ExitCode,
        seed: 0,
        view_mode: "mount",
        original_tests: orig.len(),
        view_tests: view.len(),
        same,
        different,
        only_original,
        only_view,
        warnings: Vec::new(),
        auto_freeze: None,
        auto_skip: None,
        ok,
    }
}

/// The first lines of a failure text worth showing.
fn first_lines(detail: &str, n: usize) -> Vec<&str> {
    let lines: Vec<&str> = detail
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("Traceback (most recent call last)"))
        .collect();
    let mut out: Vec<&str> = lines.iter().take(n).copied().collect();
    if lines.len() > n {
        out.push("...");
        if let Some(last) = lines.last() {
            out.push(last);
        }
    }
    out
}

fn render(r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nverify ({}, seed {}, view by {}): {} tests on the original, {} on the view",
        r.runner, r.seed, r.view_mode, r.original_tests, r.view_tests
    );
    for w in &r.warnings {
        let _ = writeln!(s, "warning: {w}");
    }
    let _ = writeln!(s, "  same outcome:          {}", r.same);
    let _ = writeln!(s, "  different outcome:     {}", r.different.len());
    let _ = writeln!(s, "  only on the original:  {}", r.only_original.len());
    let _ = writeln!(s, "  only on the view:      {}", r.only_view.len());
    for d in &r.different {
        let _ = writeln!(
            s,
            "\nDIFFERENT {}\n  view id:  {}\n  original: {}\n  view:     {}",
            d.id, d.view_id, d.original, d.view
        );
        for (title, text, translated) in [
            (
                "original side",
                &d.original_detail,
                &d.original_detail_in_view,
            ),
            ("view side", &d.view_detail_in_original, &d.view_detail),
        ] {
            if text.trim().is_empty() {
                continue;
            }
            let _ = writeln!(s, "  {title}, in original names:");
            for l in first_lines(text, 8) {
                let _ = writeln!(s, "    | {l}");
            }
            let _ = writeln!(s, "  {title}, in view names:");
            for l in first_lines(translated, 8) {
                let _ = writeln!(s, "    | {l}");
            }
        }
    }
    for (title, list) in [
        ("ONLY ON THE ORIGINAL", &r.only_original),
        ("ONLY ON THE VIEW", &r.only_view),
    ] {
        for o in list {
            let _ = writeln!(s, "{title} {} ({}), view id {}", o.id, o.outcome, o.view_id);
        }
    }
    if let Some(sk) = &r.auto_skip {
        let _ = writeln!(s, "\nauto-skip-rewrites: {}", sk.message);
        for f in &sk.functions {
            let _ = writeln!(s, "  {f}");
        }
        if sk.probes > 0 {
            let _ = writeln!(s, "  ({} candidates, {} probes)", sk.candidates, sk.probes);
        }
    }
    if let Some(af) = &r.auto_freeze {
        let _ = writeln!(s, "\nauto-freeze: {}", af.message);
        for n in &af.names {
            let _ = writeln!(s, "  {}   # motivated by: {}", n.name, n.motivated_by);
        }
        if af.found {
            let pct = |n: usize| {
                if af.owned_runs == 0 {
                    0.0
                } else {
                    100.0 * n as f64 / af.owned_runs as f64
                }
            };
            let _ = writeln!(
                s,
                "  strength: {:.1}% of {} owned runs renamed before, {:.1}% after ({} probes)",
                pct(af.renamed_before),
                af.owned_runs,
                pct(af.renamed_after),
                af.probes
            );
        }
    }
    let _ = writeln!(
        s,
        "\n{}",
        if r.ok {
            "OK: every test has the same outcome on the view"
        } else {
            "FAILED: outcomes differ on the view"
        }
    );
    s
}

// ---------------------------------------------------------------- --auto-freeze

#[cfg(test)]
mod tests {
    use super::search::runs;
    use super::*;

    fn t(id: &str, o: Outcome) -> TestResult {
        TestResult {
            id: id.into(),
            outcome: o,
            detail: String::new(),
        }
    }

    #[test]
    fn compares_by_translated_id() {
        let r = Renamer::new([("basket", "violin")], [], ["Basket"]).unwrap();
        let orig = [
            t("tests.test_basket.T.test_a", Outcome::Passed),
            t("tests.test_basket.T.test_b", Outcome::Passed),
            t("tests.test_basket.T.test_c", Outcome::Passed),
        ];
        let raw = [
            t("tests.test_violin.T.test_a", Outcome::Passed),
            t("tests.test_violin.T.test_b", Outcome::Failed),
            t("tests.test_violin.T.test_d", Outcome::Passed),
        ];
        let view: Vec<TestResult> = raw
            .iter()
            .map(|x| t(&r.swap_text(&x.id), x.outcome))
            .collect();
        let rep = compare(&orig, &view, &raw, &r);
        assert_eq!(rep.same, 1);
        assert_eq!(rep.different.len(), 1);
        assert_eq!(rep.different[0].view_id, "tests.test_violin.T.test_b");
        assert_eq!(rep.only_original[0].id, "tests.test_basket.T.test_c");
        assert_eq!(rep.only_view[0].id, "tests.test_basket.T.test_d");
        assert!(!rep.ok);
        assert!(render(&rep).contains("DIFFERENT tests.test_basket.T.test_b"));
    }

    /// A test the view's run made per data file (`test_` + a renamed file stem, no code
    /// name) is matched with the original's: ids go back word by word, and a test only the
    /// view has keeps the id the view printed.
    #[test]
    fn ids_made_from_renamed_data_go_back() {
        let r = Renamer::new([("basket", "violin")], ["syntax"], ["Basket"]).unwrap();
        let orig = [t("tests.test_legacy.T.test_basket_syntax", Outcome::Passed)];
        let raw = [
            t("tests.test_legacy.T.test_violin_syntax", Outcome::Passed),
            t(
                "tests.test_legacy.T.test_violin_extra_syntax",
                Outcome::Passed,
            ),
        ];
        let view: Vec<TestResult> = raw.iter().cloned().map(|x| in_original(&r, x)).collect();
        let rep = compare(&orig, &view, &raw, &r);
        assert_eq!(rep.same, 1, "{:?}", view);
        assert_eq!(
            rep.only_view[0].id,
            "tests.test_legacy.T.test_basket_extra_syntax"
        );
        assert_eq!(
            rep.only_view[0].view_id,
            "tests.test_legacy.T.test_violin_extra_syntax"
        );
    }

    #[test]
    fn runs_of_text() {
        let v: Vec<&str> = runs("x.compute_total() 'a-b' 9lives _p").collect();
        assert_eq!(v, ["x", "compute_total", "a", "b", "_p"]);
    }
}
