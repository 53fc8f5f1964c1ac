//! `verify --auto-freeze`: the search for the names whose renaming changes test outcomes.
//! Probes rebuild the bundle with extra names frozen and rerun only the tests that differed;
//! delta debugging (`ddmin`) narrows a set of candidates to the names that matter, and the
//! result is written as a freeze list. Nothing here changes the original.

use super::*;

/// Identifier runs of a text.
pub(super) fn runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
}

/// The test file an id names, in ORIGINAL: `path.py::...` for pytest, the longest dotted
/// prefix that is a module for unittest ids.
pub(super) fn test_file(original: &Path, id: &str) -> Option<PathBuf> {
    if let Some((file, _)) = id.split_once("::") {
        let p = original.join(file);
        return p.is_file().then_some(p);
    }
    if id.ends_with(".py") {
        let p = original.join(id);
        return p.is_file().then_some(p);
    }
    let parts: Vec<&str> = id.split('.').collect();
    for n in (1..=parts.len()).rev() {
        let rel = parts[..n].join("/");
        for cand in [format!("{rel}.py"), format!("{rel}/__init__.py")] {
            let p = original.join(&cand);
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

pub(super) fn renamed_count(owned: &BTreeSet<String>, r: &Renamer) -> usize {
    owned
        .iter()
        .filter(|o| r.swap_run(o, Class::Code).is_some())
        .count()
}

pub(super) fn write_freeze_list(path: &Path, names: &[String]) -> Result<(), CliError> {
    let mut text = String::from("# temporary freeze list written by schrodinger verify\n");
    for n in names {
        text.push_str(n);
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| CliError::io(format!("writing {}", path.display()), e))
}

pub(super) fn auto_freeze(
    ctx: &Ctx<'_>,
    base: &Bundle,
    renamer: &Renamer,
    report: &Report,
    orig_results: &[TestResult],
    file: &Path,
) -> Result<AutoFreeze, CliError> {
    ctx.clock.say("auto-freeze", "collecting candidate names");
    let owned_all: BTreeSet<String> = base
        .owned_runs
        .iter()
        .chain(base.frozen_owned.iter())
        .cloned()
        .collect();
    let renamed: BTreeSet<&String> = base
        .owned_runs
        .iter()
        .filter(|r| renamer.swap_run(r, Class::Code).is_some())
        .collect();
    // Candidate name -> the first differing test that mentions it.
    let mut cands: BTreeMap<String, String> = BTreeMap::new();
    // Candidate name -> every differing test whose texts mention it, and whether a failure
    // text (not only the test's source file) does: those are the likeliest culprits.
    let mut mentions: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut in_failure: BTreeSet<String> = BTreeSet::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    for d in &report.different {
        for t in [
            &d.id,
            &d.original_detail,
            &d.view_detail,
            &d.view_detail_in_original,
        ] {
            texts.push((d.id.clone(), t.clone()));
        }
    }
    for o in report.only_original.iter().chain(report.only_view.iter()) {
        texts.push((o.id.clone(), o.id.clone()));
    }
    let failure_texts = texts.len();
    let ids: Vec<String> = texts.iter().map(|(i, _)| i.clone()).collect();
    for id in ids.iter().collect::<BTreeSet<_>>() {
        if let Some(f) = test_file(&ctx.original, id) {
            if let Ok(t) = std::fs::read_to_string(&f) {
                texts.push((id.to_string(), t));
            }
        }
    }
    // Owned runs first (freezing a run keeps its tokens elsewhere), then tokens: a name built
    // from string fragments (`"comp" + "ute_total"`) only survives when its tokens are frozen.
    // Tokens come from the candidate runs and from the failure texts, where a view word
    // stands for its original token.
    let mut token_cands: BTreeMap<String, String> = BTreeMap::new();
    let mut token_mentions: Vec<(String, String, bool)> = Vec::new();
    let mut add_tokens = |run: &str, id: &str, failure: bool| {
        for p in tokens::split(run) {
            if let tokens::Piece::Word(w, _) = p {
                let w = w.to_ascii_lowercase();
                let orig = if base.tokens.contains_key(&w) {
                    Some(w)
                } else {
                    base.tokens
                        .iter()
                        .find(|(_, v)| **v == w)
                        .map(|(k, _)| k.clone())
                };
                if let Some(o) = orig {
                    token_mentions.push((o.clone(), id.to_string(), failure));
                    token_cands.entry(o).or_insert_with(|| id.to_string());
                }
            }
        }
    };
    for (k, (id, text)) in texts.iter().enumerate() {
        let failure_text = k < failure_texts;
        for r in runs(text) {
            if renamed.contains(&r.to_string()) {
                cands.entry(r.to_string()).or_insert_with(|| id.clone());
                mentions
                    .entry(r.to_string())
                    .or_default()
                    .insert(id.clone());
                if failure_text {
                    in_failure.insert(r.to_string());
                }
                add_tokens(r, id, failure_text);
            } else if failure_text {
                add_tokens(r, id, true);
            }
        }
    }
    for (t, id, failure) in token_mentions {
        mentions.entry(t.clone()).or_default().insert(id);
        if failure {
            in_failure.insert(t);
        }
    }
    let mut names: Vec<String> = cands.keys().cloned().collect();
    for (t, id) in token_cands {
        if let std::collections::btree_map::Entry::Vacant(e) = cands.entry(t.clone()) {
            names.push(t);
            e.insert(id);
        }
    }
    let renamed_before = renamed_count(&owned_all, renamer);
    let mut result = AutoFreeze {
        found: false,
        message: String::new(),
        file: None,
        names: Vec::new(),
        candidates: names.len(),
        probes: 0,
        owned_runs: owned_all.len(),
        renamed_before,
        renamed_after: renamed_before,
    };
    if names.is_empty() {
        result.message = "no renamed name occurs in the differing tests or their failures".into();
        return Ok(result);
    }

    let Baseline { select, want } = baseline(ctx, report, orig_results, "auto-freeze")?;

    let mut probes = 0usize;
    let mut probe = |subset: &[String], only: Option<&[String]>| -> Result<bool, CliError> {
        probes += 1;
        ctx.clock.say(
            "auto-freeze",
            &format!(
                "probe {probes}: freezing {} of {} candidates{}",
                subset.len(),
                names.len(),
                only.map(|o| format!(" ({} tests)", o.len()))
                    .unwrap_or_default()
            ),
        );
        let select = match (&select, only) {
            (Some(_), Some(o)) => Some(o.to_vec()),
            (s, _) => s.clone(),
        };
        let bundle = probe_bundle(ctx, subset, probes)?;
        let renamer = bundle.renamer()?;
        let mut w = Vec::new();
        let (run, _) = run_view(
            ctx,
            &bundle,
            &renamer,
            &format!("probe-{probes}"),
            select.as_deref(),
            &mut w,
        )?;
        let good = want.matches(&run, select.as_deref());
        ctx.clock.say(
            "auto-freeze",
            if good {
                "outcomes equal"
            } else {
                "outcomes still differ"
            },
        );
        Ok(good)
    };
    // Failure-text candidates first: ddmin keeps order, so its first halves are the likely
    // culprits.
    let tiered = |pool: &[String]| -> Vec<String> {
        let (a, b): (Vec<String>, Vec<String>) =
            pool.iter().cloned().partition(|n| in_failure.contains(n));
        a.into_iter().chain(b).collect()
    };
    let names = tiered(&names);
    if !probe(&names, None)? {
        result.probes = probes;
        result.message = format!(
            "freezing all {} candidate names does not restore equal outcomes; nothing written",
            names.len()
        );
        return Ok(result);
    }
    // Differing tests usually differ for different names (a parametrized test per class, a
    // test per feature): search each test with only the names its texts mention (fewer
    // candidates, one test per probe), starting from what earlier tests needed, then check
    // the union on all of them.
    let groups: Vec<Vec<String>> = match &select {
        Some(ids) => ids.iter().map(|i| vec![i.clone()]).collect(),
        None => Vec::new(),
    };
    let mut union: Vec<String> = Vec::new();
    let mut grouped = groups.len() > 1;
    for ids in groups.iter().filter(|_| grouped) {
        if !union.is_empty() && probe(&union, Some(ids))? {
            continue;
        }
        // Names found for earlier tests stay frozen during this test's search, which looks
        // only for what it needs in addition (parametrized tests share most culprits).
        let pool: Vec<String> = names
            .iter()
            .filter(|n| !union.contains(n))
            .filter(|n| {
                mentions
                    .get(*n)
                    .is_some_and(|m| ids.iter().any(|i| m.contains(i)))
            })
            .cloned()
            .collect();
        let first: Vec<String> = pool
            .iter()
            .filter(|n| in_failure.contains(*n))
            .cloned()
            .collect();
        let base = union.clone();
        let mut with_base = |s: &[String]| -> Result<bool, CliError> {
            let all: Vec<String> = base.iter().chain(s.iter()).cloned().collect();
            probe(&all, Some(ids))
        };
        let start = if !first.is_empty() && first.len() < pool.len() && with_base(&first)? {
            first
        } else if with_base(&pool)? {
            pool
        } else {
            // This test needs names mentioned elsewhere: search globally instead.
            grouped = false;
            break;
        };
        for n in ddmin::ddmin(&start, &mut with_base)? {
            if !union.contains(&n) {
                union.push(n);
            }
        }
    }
    let found = if grouped && probe(&union, None)? {
        // Each test's search was minimal given the names found before it; one pass over the
        // (small) union on all the tests makes the whole set 1-minimal.
        ddmin::ddmin(&union, |s: &[String]| probe(s, None))?
    } else {
        let rest = names.iter().filter(|n| !union.contains(n)).cloned();
        let ordered: Vec<String> = union.iter().cloned().chain(rest).collect();
        ddmin::ddmin(&ordered, |s: &[String]| probe(s, None))?
    };
    let final_renamer = probe_renamer(ctx, &found, 0)?;
    let mut text = String::from(
        "# written by `schrodinger verify --auto-freeze`: names whose renaming changed test \
         outcomes\n",
    );
    if !ctx.user_freeze.is_empty() {
        text.push_str("# from --freeze\n");
        for n in &ctx.user_freeze {
            text.push_str(n);
            text.push('\n');
        }
    }
    for n in &found {
        let by = cands.get(n).cloned().unwrap_or_default();
        text.push_str(&format!("# motivated by: {by}\n{n}\n"));
        result.names.push(FrozenName {
            name: n.clone(),
            motivated_by: by,
        });
    }
    std::fs::write(file, text)
        .map_err(|e| CliError::io(format!("writing {}", file.display()), e))?;
    result.found = true;
    result.file = Some(file.to_path_buf());
    result.probes = probes;
    result.renamed_after = renamed_count(&owned_all, &final_renamer);
    result.message = format!(
        "freezing {} name(s) restores equal outcomes; written to {} (use it with --freeze)",
        found.len(),
        file.display()
    );
    Ok(result)
}

/// The bundle of the view with the user's freeze list plus `extra`.
pub(super) fn probe_bundle(ctx: &Ctx<'_>, extra: &[String], n: usize) -> Result<Bundle, CliError> {
    let list = ctx.work.join(format!("freeze-{n}.txt"));
    let mut names = ctx.user_freeze.clone();
    names.extend(extra.iter().cloned());
    write_freeze_list(&list, &names)?;
    let view = ViewArgs {
        freeze: Some(list),
        ..ctx.args.view.clone()
    };
    // A probe is a view of verify's own, not one that is mounted elsewhere.
    Ok(build_bundle_and_tree(&ctx.original, &view)?.0)
}

pub(super) fn probe_renamer(
    ctx: &Ctx<'_>,
    extra: &[String],
    n: usize,
) -> Result<Renamer, CliError> {
    Ok(probe_bundle(ctx, extra, n)?.renamer()?)
}

/// The ids of the tests a report finds differing (the exit-status pseudo-test left out).
fn differing_ids(report: &Report) -> Vec<String> {
    report
        .different
        .iter()
        .map(|d| d.id.clone())
        .chain(report.only_original.iter().map(|o| o.id.clone()))
        .filter(|i| i != outcomes::EXIT_STATUS_ID)
        .collect()
}

/// What a probe's view run must give: the differing tests alone (`select`), when the runner
/// can run them alone and the original, so run, has them all; else every test as the
/// original gave them.
pub(super) struct Baseline {
    pub select: Option<Vec<String>>,
    pub want: Want,
}

/// The original's outcomes a probe is compared with.
pub(super) struct Want {
    results: Vec<TestResult>,
    by_id: HashMap<String, Outcome>,
}

impl Want {
    fn new(results: Vec<TestResult>) -> Want {
        let by_id = results.iter().map(|r| (r.id.clone(), r.outcome)).collect();
        Want { results, by_id }
    }

    /// Whether a view run gave the original's outcomes (on `select` alone, when given).
    pub fn matches(&self, run: &RunResult, select: Option<&[String]>) -> bool {
        match select {
            Some(ids) => {
                let got: HashMap<&str, Outcome> = run
                    .results
                    .iter()
                    .map(|r| (r.id.as_str(), r.outcome))
                    .collect();
                ids.iter().all(|i| got.get(i.as_str()) == self.by_id.get(i))
            }
            None => {
                let results = if run.results.is_empty() {
                    vec![outcomes::exit_code_result(run.success, "")]
                } else {
                    run.results.clone()
                };
                results.len() == self.results.len()
                    && results
                        .iter()
                        .all(|r| self.by_id.get(&r.id) == Some(&r.outcome))
            }
        }
    }
}

/// Rerun only the differing tests on the original where the runner allows it, so probes
/// can run those alone and compare with the original run the same way.
pub(super) fn baseline(
    ctx: &Ctx<'_>,
    report: &Report,
    orig_results: &[TestResult],
    phase: &str,
) -> Result<Baseline, CliError> {
    let diff_ids = differing_ids(report);
    if outcomes::can_select(ctx.runner) && !diff_ids.is_empty() && report.only_view.is_empty() {
        ctx.clock
            .say(phase, "rerunning the differing tests on the original");
        let b = run_side(
            ctx,
            "original-selected",
            &ctx.original,
            &ctx.args.command,
            &[],
            Some(&diff_ids),
        )?;
        if diff_ids
            .iter()
            .all(|i| b.results.iter().any(|r| &r.id == i))
        {
            return Ok(Baseline {
                select: Some(diff_ids),
                want: Want::new(b.results),
            });
        }
    }
    Ok(Baseline {
        select: None,
        want: Want::new(orig_results.to_vec()),
    })
}
