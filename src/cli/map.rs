//! `schrodinger map`: build the bundle offline, summarize what it renames and freezes, and
//! save it for `--bundle`.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use serde::Serialize;

use super::{build_bundle_and_tree, CliError, ViewArgs};
use crate::transform::lexer::{self, Class};
use crate::transform::policy::FreezeReason;
use crate::transform::rename::{file_kind, FileKind};

/// `schrodinger map`.
#[derive(Debug, Clone, clap::Args)]
pub struct MapArgs {
    #[command(flatten)]
    pub view: ViewArgs,
    /// Save the bundle (JSON) here, for `mount/export/translate --bundle`.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the summary as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// The original checkout.
    pub original: PathBuf,
}

/// What `map` reports.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub seed: u64,
    pub tree_fingerprint: String,
    pub files: usize,
    pub python_files: usize,
    /// Distinct identifier runs the repository defines (owned).
    pub owned_runs: usize,
    /// Owned runs the view shows under another name.
    pub renamed_runs: usize,
    pub renamed_percent: f64,
    /// Renamed runs that outside code names too, renamed because the repository only uses
    /// them as local variables.
    pub renamed_pure_locals: usize,
    /// Owned runs kept as they are, by reason.
    pub frozen_by_reason: BTreeMap<String, usize>,
    pub tokens_mapped: usize,
    pub tokens_frozen: usize,
    pub path_components: usize,
    pub path_components_renamed: usize,
    /// Level 3 (`None` without it): Python files shown in another order, runs of units
    /// whose order differs, units at another rank in their run, and view lines that sit at
    /// another line than in the original.
    pub files_reordered: Option<usize>,
    pub runs_permuted: Option<usize>,
    pub units_moved: Option<usize>,
    pub lines_moved: Option<usize>,
    /// Level 4 (`None` without it): functions of the files it takes, the ones the seed
    /// picked, the ones whose text the view changes, sites by rule.
    pub level4: Option<crate::transform::rewrite::Measure>,
    /// The most frequent owned names the view keeps, with their reason and occurrences.
    pub top_frozen: Vec<FrozenName>,
}

#[derive(Debug, Serialize)]
pub struct FrozenName {
    pub name: String,
    pub reason: String,
    pub occurrences: usize,
}

fn reason_name(r: FreezeReason) -> String {
    serde_json::to_value(r)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{r:?}"))
}

pub fn map(args: &MapArgs) -> Result<(), CliError> {
    let (bundle, tree) = build_bundle_and_tree(&args.original, &args.view)?;
    let renamer = bundle.renamer()?;

    // How often each code run occurs, to rank the frozen owned names.
    let mut counts: HashMap<&str, usize> = HashMap::new();
    let mut python_files = 0;
    for f in &tree.files {
        if file_kind(f.rel.as_os_str().as_encoded_bytes(), &f.content) != FileKind::Python {
            continue;
        }
        python_files += 1;
        for r in lexer::python_runs(&f.content) {
            if r.class == Class::Code {
                if let Ok(run) = std::str::from_utf8(&f.content[r.start..r.end]) {
                    if bundle.frozen_owned.contains(run) {
                        *counts.entry(run).or_default() += 1;
                    }
                }
            }
        }
    }
    let renamed = bundle
        .owned_runs
        .iter()
        .filter(|r| renamer.swap_run(r, Class::Code).is_some())
        .count();
    let renamed_pure_locals = bundle
        .local_runs
        .iter()
        .filter(|r| renamer.swap_run(r, Class::Code).is_some())
        .count();
    let owned = bundle.owned_runs.len() + bundle.frozen_owned.len();
    let reason_of = |run: &str| -> String {
        match bundle.frozen_runs.get(run) {
            Some(r) => reason_name(*r),
            None if crate::transform::rename::is_dunder(run) => "dunder".into(),
            None => "frozen-tokens".into(),
        }
    };
    let mut by_reason: BTreeMap<String, usize> = BTreeMap::new();
    for r in &bundle.frozen_owned {
        *by_reason.entry(reason_of(r)).or_default() += 1;
    }
    let unrenamed_owned = bundle.owned_runs.len() - renamed;
    if unrenamed_owned > 0 {
        by_reason.insert("image-frozen".into(), unrenamed_owned);
    }
    let mut top: Vec<(&str, usize)> = counts.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let top_frozen = top
        .into_iter()
        .take(20)
        .map(|(n, c)| FrozenName {
            name: n.to_string(),
            reason: reason_of(n),
            occurrences: c,
        })
        .collect();

    let mut names = std::collections::BTreeSet::new();
    for p in tree.files.iter().map(|f| &f.rel).chain(tree.dirs.iter()) {
        if let Some(n) = p.file_name() {
            names.insert(n.as_encoded_bytes().to_vec());
        }
    }
    let names_renamed = names
        .iter()
        .filter(|n| *renamer.swap_name(n) != n[..])
        .count();

    let (files_reordered, runs_permuted, units_moved, lines_moved) = if bundle.levels.contains(&3) {
        use rayon::prelude::*;
        let per_file: Vec<[usize; 4]> = tree
            .files
            .par_iter()
            .filter(|f| {
                crate::transform::layout::is_python_name(f.rel.as_os_str().as_encoded_bytes())
            })
            // Shown in their own order (`transform::pinned`): nothing of theirs moves.
            .filter(|f| !f.rel.to_str().is_some_and(|p| bundle.pinned.contains(p)))
            .map(|f| {
                let l = crate::transform::layout::plan(
                    f.rel.as_os_str().as_encoded_bytes(),
                    &f.content,
                    bundle.seed,
                    &bundle.ordered,
                );
                let order = l.order();
                let lines = order.iter().enumerate().filter(|(k, o)| k != *o).count();
                let (mut runs, mut units) = (0, 0);
                if !l.is_identity() {
                    // Where each unit's first line shows in the view gives its view rank.
                    let mut view_line = vec![usize::MAX; order.len()];
                    for (k, &o) in order.iter().enumerate() {
                        view_line[o] = k;
                    }
                    if let Ok(st) = crate::transform::reorder::analyze(&f.content) {
                        // Runs nest (methods inside a class inside a run): walk them all.
                        let mut todo: Vec<&crate::transform::reorder::Run> =
                            st.runs.iter().collect();
                        while let Some(run) = todo.pop() {
                            let mut ranked: Vec<usize> = (0..run.units.len()).collect();
                            ranked.sort_by_key(|&i| {
                                view_line.get(run.units[i].span.start).copied().unwrap_or(i)
                            });
                            let moved = ranked.iter().enumerate().filter(|(r, i)| r != *i).count();
                            runs += usize::from(moved > 0);
                            units += moved;
                            for u in &run.units {
                                todo.extend(u.runs.iter());
                            }
                        }
                    }
                }
                [usize::from(!l.is_identity()), runs, units, lines]
            })
            .collect();
        let sum = |k: usize| Some(per_file.iter().map(|p| p[k]).sum());
        (sum(0), sum(1), sum(2), sum(3))
    } else {
        (None, None, None, None)
    };
    let level4 = bundle.levels.contains(&4).then(|| {
        use rayon::prelude::*;
        let r = bundle.rewriter();
        tree.files
            .par_iter()
            .map(|f| r.measure(f.rel.as_os_str().as_encoded_bytes(), &f.content))
            .reduce(crate::transform::rewrite::Measure::default, |mut a, b| {
                a.add(&b);
                a
            })
    });
    let summary = Summary {
        level4,
        files_reordered,
        runs_permuted,
        units_moved,
        lines_moved,
        seed: bundle.seed,
        tree_fingerprint: bundle.tree_fingerprint.clone(),
        files: tree.files.len(),
        python_files,
        owned_runs: owned,
        renamed_runs: renamed,
        renamed_percent: if owned == 0 {
            0.0
        } else {
            (1000.0 * renamed as f64 / owned as f64).round() / 10.0
        },
        renamed_pure_locals,
        frozen_by_reason: by_reason,
        tokens_mapped: bundle.tokens.len(),
        tokens_frozen: bundle.frozen_tokens.len(),
        path_components: names.len(),
        path_components_renamed: names_renamed,
        top_frozen,
    };

    if let Some(out) = &args.out {
        let json = serde_json::to_vec(&bundle).map_err(|e| CliError::Msg(e.to_string()))?;
        std::fs::write(out, json)
            .map_err(|e| CliError::io(format!("writing {}", out.display()), e))?;
    }
    if args.json {
        let s = serde_json::to_string_pretty(&summary).map_err(|e| CliError::Msg(e.to_string()))?;
        println!("{s}");
    } else {
        print_summary(&summary);
        if let Some(out) = &args.out {
            println!("bundle saved to {}", out.display());
        }
    }
    Ok(())
}

fn print_summary(s: &Summary) {
    println!("seed                     {}", s.seed);
    println!(
        "files                    {} ({} Python)",
        s.files, s.python_files
    );
    println!("owned identifier runs    {}", s.owned_runs);
    let locals = if s.renamed_pure_locals > 0 {
        format!(
            ", of which {} pure locals despite outside names",
            s.renamed_pure_locals
        )
    } else {
        String::new()
    };
    println!(
        "  renamed                {} ({:.1}%){locals}",
        s.renamed_runs, s.renamed_percent
    );
    for (reason, n) in &s.frozen_by_reason {
        println!("  kept: {reason:<16} {n}");
    }
    println!("tokens mapped            {}", s.tokens_mapped);
    println!("tokens frozen            {}", s.tokens_frozen);
    println!(
        "path components renamed  {} of {}",
        s.path_components_renamed, s.path_components
    );
    if let (Some(f), Some(r), Some(u), Some(l)) = (
        s.files_reordered,
        s.runs_permuted,
        s.units_moved,
        s.lines_moved,
    ) {
        println!("files reordered          {f} of {} Python", s.python_files);
        println!("runs permuted            {r}");
        println!("units moved              {u}");
        println!("lines moved              {l}");
    }
    if let Some(m) = &s.level4 {
        let pct = |n: usize| {
            if m.functions == 0 {
                0.0
            } else {
                100.0 * n as f64 / m.functions as f64
            }
        };
        println!(
            "functions rewritten      {} of {} outside tests ({:.1}%; picked by the seed {}, {:.1}%)",
            m.changed,
            m.functions,
            pct(m.changed),
            m.picked,
            pct(m.picked)
        );
        for (rule, n) in crate::transform::rewrite::Rule::ALL.iter().zip(m.sites) {
            println!("  sites: {:<16} {n}", rule.name());
        }
        if m.chunks_kept > 0 {
            println!(
                "  top-level statements kept by the self-check  {}",
                m.chunks_kept
            );
        }
    }
    if !s.top_frozen.is_empty() {
        println!("most frequent owned names kept as they are:");
        for f in &s.top_frozen {
            println!("  {:<28} {:<14} {}", f.name, f.reason, f.occurrences);
        }
    }
}
