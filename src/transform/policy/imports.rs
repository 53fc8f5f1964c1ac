//! Import statements found lexically, so that names imported from outside modules stay.

use super::*;

/// An import statement found lexically: the module path and imported names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    /// Leading dots of a relative import (0 for absolute).
    pub level: usize,
    /// Dotted module path (for `import a.b` one entry per module).
    pub module: Vec<String>,
    /// Names imported by `from M import ...` (not aliases).
    pub names: Vec<String>,
}

/// Find import statements from the code runs of a Python file. Lexical and forgiving: it
/// reads `import a.b as c, d` and `from .a import (b as c, d)` and ignores anything else.
pub fn imports(src: &[u8]) -> Vec<Import> {
    imports_in_runs(src, &lexer::python_runs(src))
}

/// `imports` over runs already lexed from `src`.
pub fn imports_in_runs(src: &[u8], all: &[lexer::Run]) -> Vec<Import> {
    let runs: Vec<lexer::Run> = all
        .iter()
        .filter(|r| r.class == Class::Code)
        .copied()
        .collect();
    let word =
        |i: usize| -> &str { std::str::from_utf8(&src[runs[i].start..runs[i].end]).unwrap_or("") };
    let gap = |i: usize| -> &[u8] {
        // Bytes between run i-1 and run i.
        let start = if i == 0 { 0 } else { runs[i - 1].end };
        &src[start..runs[i].start]
    };
    let at_statement_start = |i: usize| -> bool {
        let mut k = runs[i].start;
        while k > 0 && (src[k - 1] == b' ' || src[k - 1] == b'\t') {
            k -= 1;
        }
        k == 0 || matches!(src[k - 1], b'\n' | b'\r' | b';')
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < runs.len() {
        let w = word(i);
        if (w == "import" || w == "from") && at_statement_start(i) {
            let mut imp = Import {
                level: 0,
                module: Vec::new(),
                names: Vec::new(),
            };
            let mut j = i + 1;
            if w == "from" {
                // Relative dots sit in the gap before the module (or before `import`).
                while j < runs.len() {
                    let g = gap(j);
                    if j == i + 1 {
                        imp.level = g.iter().filter(|b| **b == b'.').count();
                    }
                    if j > i + 1 && !g.iter().all(|b| *b == b'.' || *b == b' ') {
                        break;
                    }
                    if word(j) == "import" {
                        break;
                    }
                    imp.module.push(word(j).to_string());
                    j += 1;
                }
                if j < runs.len() && word(j) == "import" {
                    j += 1;
                    let mut end = StatementEnd::default();
                    let mut groups = Vec::new();
                    j = names_skipping_aliases(
                        j,
                        runs.len(),
                        &word,
                        |k| end.ends(gap(k)),
                        |k| gap(k),
                        &mut groups,
                    );
                    imp.names = groups.into_iter().flatten().collect();
                }
                out.push(imp);
            } else {
                // import a.b.c as d, e: one import per module (`import os, mypkg` does not
                // make `mypkg` a part of `os`).
                let first = j;
                let mut end = StatementEnd::default();
                let mut modules = Vec::new();
                j = names_skipping_aliases(
                    j,
                    runs.len(),
                    &word,
                    |k| k != first && end.ends(gap(k)),
                    |k| gap(k),
                    &mut modules,
                );
                out.extend(modules.into_iter().map(|module| Import {
                    level: 0,
                    module,
                    names: Vec::new(),
                }));
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

/// Collect the names from run `j` on until `stop(k)` says run `k` starts a new statement,
/// leaving out the alias after each `as`, one group per comma-separated item (`gap(k)` is
/// the source between run `k` and the one before); returns the index after the last name.
fn names_skipping_aliases<'s>(
    mut j: usize,
    n: usize,
    word: &impl Fn(usize) -> &'s str,
    mut stop: impl FnMut(usize) -> bool,
    gap: impl Fn(usize) -> &'s [u8],
    out: &mut Vec<Vec<String>>,
) -> usize {
    let first = j;
    let mut expect_alias = false;
    let mut group: Vec<String> = Vec::new();
    while j < n && !stop(j) {
        if j != first && code_bytes(gap(j)).any(|b| b == b',') && !group.is_empty() {
            out.push(std::mem::take(&mut group));
        }
        let x = word(j);
        if x == "as" {
            expect_alias = true;
        } else if expect_alias {
            expect_alias = false;
        } else {
            group.push(x.to_string());
        }
        j += 1;
    }
    if !group.is_empty() {
        out.push(group);
    }
    j
}

/// Where an import statement ends, read from the bytes between its runs: a newline or `;`
/// outside brackets, unless a backslash continues the line. Comments are skipped: a comment
/// between `import x` and the next line (`# ... (or modules ...), ...`) holds brackets and
/// commas that are not code, and reading them as code ran the statement on over the lines
/// after it (`sys.path.insert` read as a module).
#[derive(Default)]
struct StatementEnd {
    depth: usize,
}

impl StatementEnd {
    /// Whether `gap` ends the statement, given the brackets opened before it.
    fn ends(&mut self, gap: &[u8]) -> bool {
        let mut continued = false;
        for b in code_bytes(gap) {
            match b {
                b'(' | b'[' => self.depth += 1,
                b')' | b']' => self.depth = self.depth.saturating_sub(1),
                b';' if self.depth == 0 => return true,
                b'\\' => continued = true,
                b'\n' | b'\r' if self.depth == 0 && !continued => return true,
                b'\n' | b'\r' => continued = false,
                b' ' | b'\t' => {}
                _ => continued = false,
            }
        }
        false
    }
}

/// The bytes of a gap between runs with every comment left out (the newline ending a
/// comment stays).
fn code_bytes(gap: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let mut comment = false;
    gap.iter().copied().filter(move |&b| {
        match b {
            b'#' => comment = true,
            b'\n' | b'\r' => comment = false,
            _ => {}
        }
        !comment
    })
}
