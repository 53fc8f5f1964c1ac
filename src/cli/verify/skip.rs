//! `verify --auto-skip-rewrites FILE`: when a view with Level 4 changes test outcomes, find a
//! small set of rewritten functions whose rewrites, dropped, restore equal outcomes (the
//! paper's rule: a rewrite is kept only when the tests still give the same results), and
//! write it in the `--rewrite-skip` format.
//!
//! Each probe is the same bundle with `rewrite_skipped` set (nothing else is rebuilt, so the
//! names stay the view's), run on the differing tests when the runner can select them.
//! Functions in files that the failure texts name are tried first.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use super::outcomes::TestResult;
use super::search::{baseline, Baseline};
use super::{ddmin, run_view, Ctx, Report};
use crate::bundle::Bundle;
use crate::cli::CliError;

/// What `--auto-skip-rewrites` found.
#[derive(Debug, Clone, Serialize)]
pub struct AutoSkip {
    pub found: bool,
    pub message: String,
    /// `PATH::QUALNAME` of each function whose rewrite is dropped.
    pub functions: Vec<String>,
    pub candidates: usize,
    pub probes: usize,
}

/// One function as the skip file names it.
fn key(path: &str, qualname: &str) -> String {
    format!("{path}::{qualname}")
}

/// Parse a `--rewrite-skip` file: `PATH::QUALNAME` per line, `#` comments.
pub fn parse_skip_file(text: &str) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let (path, name) = line.split_once("::").ok_or_else(|| {
            format!(
                "line {}: `{raw}`: expected PATH::QUALNAME (original path)",
                i + 1
            )
        })?;
        if path.is_empty() || name.is_empty() {
            return Err(format!("line {}: `{raw}`: empty path or name", i + 1));
        }
        out.entry(path.to_string())
            .or_default()
            .insert(name.to_string());
    }
    Ok(out)
}

fn as_map(keys: &[String]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for k in keys {
        if let Some((p, q)) = k.split_once("::") {
            out.entry(p.to_string()).or_default().insert(q.to_string());
        }
    }
    out
}

pub(super) fn auto_skip(
    ctx: &Ctx<'_>,
    base: &Bundle,
    report: &Report,
    orig_results: &[TestResult],
    file: &Path,
) -> Result<AutoSkip, CliError> {
    let mut result = AutoSkip {
        found: false,
        message: String::new(),
        functions: Vec::new(),
        candidates: 0,
        probes: 0,
    };
    if !base.levels.contains(&4) {
        result.message = "the view has no Level 4: no rewrite to drop".into();
        return Ok(result);
    }
    ctx.clock
        .say("auto-skip", "listing the rewritten functions");
    let tree = crate::bundle::read_tree(&ctx.original)?;
    let r = base.rewriter();
    let mut cands: Vec<String> = Vec::new();
    for f in &tree.files {
        let Some(path) = f.rel.to_str() else { continue };
        for q in r.changed_functions(path.as_bytes(), &f.content) {
            cands.push(key(path, &q));
        }
    }
    // Functions of files the failure texts name first: ddmin keeps order.
    let texts: String = report
        .different
        .iter()
        .flat_map(|d| {
            [
                d.original_detail.as_str(),
                d.view_detail_in_original.as_str(),
            ]
        })
        .collect::<Vec<_>>()
        .join("\n");
    let (named, rest): (Vec<String>, Vec<String>) = cands
        .into_iter()
        .partition(|k| k.split_once("::").is_some_and(|(p, _)| texts.contains(p)));
    let cands: Vec<String> = named.into_iter().chain(rest).collect();
    result.candidates = cands.len();
    if cands.is_empty() {
        result.message = "the view rewrites no function".into();
        return Ok(result);
    }

    let Baseline { select, want } = baseline(ctx, report, orig_results, "auto-skip")?;
    let renamer = base.renamer()?;
    let mut probes = 0usize;
    let mut probe = |subset: &[String]| -> Result<bool, CliError> {
        probes += 1;
        ctx.clock.say(
            "auto-skip",
            &format!(
                "probe {probes}: dropping the rewrites of {} of {} functions",
                subset.len(),
                cands.len()
            ),
        );
        let mut b = base.clone();
        b.rewrite_skipped = as_map(subset);
        let mut w = Vec::new();
        let (run, _) = run_view(
            ctx,
            &b,
            &renamer,
            &format!("skip-{probes}"),
            select.as_deref(),
            &mut w,
        )?;
        Ok(want.matches(&run, select.as_deref()))
    };
    if !probe(&cands)? {
        result.probes = probes;
        result.message = format!(
            "dropping every rewrite ({} functions) does not restore equal outcomes: the \
             difference is not Level 4's; nothing written",
            cands.len()
        );
        return Ok(result);
    }
    let found = ddmin::ddmin(&cands, &mut probe)?;
    let mut text = String::from(
        "# written by `schrodinger verify --auto-skip-rewrites`: functions whose Level 4 \
         rewrite changed test outcomes (use with --rewrite-skip)\n",
    );
    for k in &found {
        text.push_str(k);
        text.push('\n');
    }
    std::fs::write(file, text)
        .map_err(|e| CliError::io(format!("writing {}", file.display()), e))?;
    result.found = true;
    result.probes = probes;
    result.message = format!(
        "dropping the rewrites of {} function(s) restores equal outcomes; written to {} (use \
         it with --rewrite-skip)",
        found.len(),
        file.display()
    );
    result.functions = found;
    Ok(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skip_files_parse() {
        let m = parse_skip_file("# c\npkg/a.py::C.m\npkg/a.py::f  # why\npkg/b.py::g\n").unwrap();
        assert_eq!(m["pkg/a.py"].len(), 2);
        assert!(m["pkg/b.py"].contains("g"));
        assert!(parse_skip_file("pkg/a.py:f").is_err());
        assert!(parse_skip_file("::f").is_err());
        assert_eq!(
            as_map(&[key("a.py", "f")]),
            parse_skip_file("a.py::f").unwrap()
        );
    }
}
