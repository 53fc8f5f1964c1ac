//! `translate --statement`: a problem statement rendered in the other coordinates, the report
//! of every repository name it mentions, and the check of a user's paraphrase of it.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Command, Stdio};

use serde::Serialize;

use super::{CliError, Direction};
use crate::bundle::Bundle;
use crate::transform::formats;
use crate::transform::lexer::{self, Class};
use crate::transform::rename::Renamer;
use crate::transform::statement::{self, Rendered, Rule};

/// One name of the repository the statement mentions, and how it was rendered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mention {
    /// As the statement has it.
    pub name: String,
    /// As the output has it.
    pub rendered: String,
    pub rule: Rule,
    pub count: usize,
    pub renamed: bool,
}

/// The names of the repository in `r` (their original spelling is a run the repository
/// owns, renamed or kept), and any other run that changed, counted by name, rendering and
/// rule.
pub fn mentions(r: &Rendered, bundle: &Bundle, to: Direction) -> Vec<Mention> {
    let mut counts: BTreeMap<(String, String, Rule), usize> = BTreeMap::new();
    for x in &r.runs {
        let original = match to {
            Direction::View => &x.input,
            Direction::Original => &x.output,
        };
        let ours = bundle.owned_runs.contains(original) || bundle.frozen_owned.contains(original);
        if ours || x.input != x.output {
            *counts
                .entry((x.input.clone(), x.output.clone(), x.rule))
                .or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|((name, rendered, rule), count)| Mention {
            renamed: name != rendered,
            name,
            rendered,
            rule,
            count,
        })
        .collect()
}

fn text_report(ms: &[Mention]) -> String {
    let renamed = ms.iter().filter(|m| m.renamed).count();
    let mut out = format!(
        "statement: {} names of the repository ({renamed} renamed, {} kept)\n",
        ms.len(),
        ms.len() - renamed
    );
    for m in ms {
        let rule = match m.rule {
            Rule::Code => "code",
            Rule::Prose => "prose",
        };
        if m.renamed {
            out.push_str(&format!(
                "  {} -> {} ({rule}, {}x)\n",
                m.name, m.rendered, m.count
            ));
        } else {
            out.push_str(&format!("  {} kept ({rule}, {}x)\n", m.name, m.count));
        }
    }
    out
}

/// What a paraphrase of the rendered statement got wrong (empty: nothing).
pub fn check_paraphrase(
    rendered: &Rendered,
    ms: &[Mention],
    paraphrase: &str,
    renamer: &Renamer,
    bundle: &Bundle,
    to: Direction,
) -> Vec<String> {
    let mut problems = Vec::new();
    let runs: BTreeSet<&str> = lexer::text_runs(paraphrase.as_bytes())
        .into_iter()
        .filter_map(|r| paraphrase.get(r.start..r.end))
        .collect();
    for m in ms.iter().filter(|m| m.renamed) {
        if !runs.contains(m.rendered.as_str()) {
            problems.push(format!(
                "`{}` (the statement's `{}`) is missing",
                m.rendered, m.name
            ));
        }
    }
    // A name of the original that the view renames, showing in text meant for the view
    // (URLs, e-mail addresses and versions aside: they are never renamed).
    if to == Direction::View {
        let mut seen = BTreeSet::new();
        for r in formats::free_text_runs(paraphrase.as_bytes(), renamer) {
            let Some(run) = paraphrase.get(r.start..r.end) else {
                continue;
            };
            let renamed = renamer.swap_run(run, Class::Code).is_some();
            if r.class != Class::Fixed
                && bundle.owned_runs.contains(run)
                && renamed
                && seen.insert(run)
            {
                problems.push(format!(
                    "`{run}` is a name of the original, not of the view"
                ));
            }
        }
    }
    let blocks = statement::fenced_bodies(paraphrase);
    if blocks != rendered.fenced {
        problems.push(format!(
            "code blocks changed ({} in the translation, {} in the paraphrase, or their \
             contents differ)",
            rendered.fenced.len(),
            blocks.len()
        ));
    }
    problems
}

/// Run `sh -c cmd` with `input` on its standard input; its standard output.
fn paraphrase(cmd: &str, input: &str) -> Result<String, CliError> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| CliError::io(format!("--paraphrase-cmd {cmd:?}"), e))?;
    // Written from another thread: a command that writes before it has read everything
    // (`cat` of a long statement) would otherwise block on a full pipe while we do too. A
    // command that stops reading early fails below by its status, not here.
    let feeder = child.stdin.take().map(|mut stdin| {
        let data = input.as_bytes().to_vec();
        std::thread::spawn(move || {
            let _ = stdin.write_all(&data);
        })
    });
    let out = child
        .wait_with_output()
        .map_err(|e| CliError::io(format!("--paraphrase-cmd {cmd:?}"), e))?;
    if let Some(f) = feeder {
        let _ = f.join();
    }
    if !out.status.success() {
        return Err(CliError::Msg(format!(
            "--paraphrase-cmd {cmd:?} failed ({})",
            out.status
        )));
    }
    String::from_utf8(out.stdout).map_err(|_| {
        CliError::Msg(format!(
            "--paraphrase-cmd {cmd:?} wrote text that is not UTF-8"
        ))
    })
}

/// `translate --statement`: the output text (the report goes to standard error or --report).
pub fn translate_statement(
    args: &super::TranslateArgs,
    bundle: &Bundle,
    text: &str,
) -> Result<String, CliError> {
    let renamer = bundle.renamer()?;
    let rendered = statement::render(text, &renamer);
    let ms = mentions(&rendered, bundle, args.to);
    match &args.report {
        Some(path) => {
            let json = serde_json::to_vec_pretty(&ms).unwrap_or_default();
            std::fs::write(path, json)
                .map_err(|e| CliError::io(format!("--report {}", path.display()), e))?;
        }
        None => eprint!("{}", text_report(&ms)),
    }
    let Some(cmd) = &args.paraphrase_cmd else {
        return Ok(rendered.text);
    };
    let out = paraphrase(cmd, &rendered.text)?;
    let problems = check_paraphrase(&rendered, &ms, &out, &renamer, bundle, args.to);
    if !problems.is_empty() {
        return Err(CliError::Msg(format!(
            "the paraphrase from --paraphrase-cmd was refused:\n  {}",
            problems.join("\n  ")
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rewriter that writes before it has read everything (`cat` of a long statement) is
    /// fed from another thread: writing all of a 1 MB statement first deadlocked on the pipes.
    #[test]
    fn a_long_statement_goes_through_a_streaming_rewriter() {
        let text = "The desk is slow.\n".repeat(60_000);
        assert_eq!(paraphrase("cat", &text).unwrap(), text);
        assert!(paraphrase("exit 3", "x").is_err());
    }
}
