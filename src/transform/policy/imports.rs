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
                    j = names_skipping_aliases(
                        j,
                        runs.len(),
                        &word,
                        |k| ends_statement(gap(k)),
                        &mut imp.names,
                    );
                }
                out.push(imp);
            } else {
                // import a.b.c as d, e
                let first = j;
                j = names_skipping_aliases(
                    j,
                    runs.len(),
                    &word,
                    |k| k != first && ends_statement(gap(k)),
                    &mut imp.module,
                );
                out.push(imp);
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    out
}

/// Collect the names from run `j` on until `stop(k)` says run `k` starts a new statement,
/// leaving out the alias after each `as`; returns the index after the last name.
fn names_skipping_aliases<'s>(
    mut j: usize,
    n: usize,
    word: &impl Fn(usize) -> &'s str,
    stop: impl Fn(usize) -> bool,
    out: &mut Vec<String>,
) -> usize {
    let mut expect_alias = false;
    while j < n && !stop(j) {
        let x = word(j);
        if x == "as" {
            expect_alias = true;
        } else if expect_alias {
            expect_alias = false;
        } else {
            out.push(x.to_string());
        }
        j += 1;
    }
    j
}

/// Whether the bytes between two runs end an import statement: a newline outside brackets
/// (we do not track depth across runs, so a newline ends it unless parentheses are open or a
/// backslash continues the line) or a semicolon.
fn ends_statement(gap: &[u8]) -> bool {
    if gap.contains(&b';') {
        return true;
    }
    let has_nl = gap.iter().any(|b| *b == b'\n' || *b == b'\r');
    if !has_nl {
        return false;
    }
    // Inside `( ... )` newlines continue the statement; a gap holding `(` or `,` before the
    // newline means we are in a parenthesized list.
    let cont = gap.iter().any(|b| *b == b'(' || *b == b',' || *b == b'\\');
    !cont
}
