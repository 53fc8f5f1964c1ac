//! What is frozen (never renamed) and what the repository owns. Each rule is a named function
//! with the reason it exists; `FreezeReason` records which rule froze a run.
//!
//! Pure: callers hand in file contents and the names the Python environment defines.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashSet};

use rayon::prelude::*;

use serde::{Deserialize, Serialize};

use super::formats;
use super::lexer::{self, Class};
use super::rename::is_dunder;
use super::scope::Exposure;
use super::tokens::{self, Piece};

/// Why a run or token is frozen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FreezeReason {
    /// Python keywords and soft keywords: renaming them changes the syntax.
    Keyword,
    /// Names that code outside the repository defines or calls (stdlib, site-packages,
    /// builtins): the repository may pass its objects to that code, or call into it.
    Outside,
    /// Names the repository imports from modules outside it.
    Imported,
    /// Test discovery and tool protocols (`test_*`, `setUp`, `conftest`, pytest hooks).
    Tool,
    /// Too short to rename safely (`%d`, `i`, string prefixes), or a placeholder (`aaa`).
    Short,
    /// Listed in the user's `--freeze` file.
    User,
    /// Used in a string fragment that builds names at run time.
    Dynamic,
    /// `__name__` runs: Python's own protocol.
    Dunder,
    /// Named inside a binary file (a zip archive's member names), which the view serves
    /// unchanged.
    Binary,
    /// A string literal in code that names a key a configuration file of the tree keeps
    /// (`parser.get("versioneer", "VCS")` beside `[versioneer] VCS = git`).
    Config,
    /// An extension of a file name in the tree: names keep their extensions, so every text
    /// keeps the word too (`name + ".toml"`, a dict keyed by the extensions it reads).
    Extension,
    /// Spelled by a regular expression of the repository (`platform[._](machine|release)`):
    /// the text it matches keeps the word (see `patterns`).
    Pattern,
    /// The lower case of hyphenated data the tree holds capitalised (`last-translator`
    /// beside the header `Last-Translator`): code compares it with that data lowercased.
    Data,
}

/// Python keywords and soft keywords (3.12).
pub const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "match", "case", "type", "_",
];

/// SQL's words as SQLite knows them (its keyword list, and its type names), in the upper case
/// code writes them in SQL strings (`"PRAGMA foreign_keys"`, `"DEFERRABLE INITIALLY
/// DEFERRED"`): another language's keywords, never renamed.
pub const SQL_KEYWORDS: &[&str] = &[
    "ABORT",
    "ACTION",
    "ADD",
    "AFTER",
    "ALL",
    "ALTER",
    "ALWAYS",
    "ANALYZE",
    "AND",
    "ASC",
    "ATTACH",
    "AUTOINCREMENT",
    "BEFORE",
    "BEGIN",
    "BETWEEN",
    "CASCADE",
    "CASE",
    "CAST",
    "CHECK",
    "COLLATE",
    "COLUMN",
    "COMMIT",
    "CONFLICT",
    "CONSTRAINT",
    "CREATE",
    "CROSS",
    "CURRENT",
    "CURRENT_DATE",
    "CURRENT_TIME",
    "CURRENT_TIMESTAMP",
    "DATABASE",
    "DEFAULT",
    "DEFERRABLE",
    "DEFERRED",
    "DELETE",
    "DESC",
    "DETACH",
    "DISTINCT",
    "DROP",
    "EACH",
    "ELSE",
    "END",
    "ESCAPE",
    "EXCEPT",
    "EXCLUDE",
    "EXCLUSIVE",
    "EXISTS",
    "EXPLAIN",
    "FAIL",
    "FILTER",
    "FIRST",
    "FOLLOWING",
    "FOR",
    "FOREIGN",
    "FROM",
    "FULL",
    "GENERATED",
    "GLOB",
    "GROUP",
    "GROUPS",
    "HAVING",
    "IGNORE",
    "IMMEDIATE",
    "INDEX",
    "INDEXED",
    "INITIALLY",
    "INNER",
    "INSERT",
    "INSTEAD",
    "INTERSECT",
    "INTO",
    "ISNULL",
    "JOIN",
    "KEY",
    "LAST",
    "LEFT",
    "LIKE",
    "LIMIT",
    "MATCH",
    "MATERIALIZED",
    "NATURAL",
    "NOTHING",
    "NOTNULL",
    "NULL",
    "NULLS",
    "OFFSET",
    "ORDER",
    "OTHERS",
    "OUTER",
    "OVER",
    "PARTITION",
    "PLAN",
    "PRAGMA",
    "PRECEDING",
    "PRIMARY",
    "QUERY",
    "RAISE",
    "RANGE",
    "RECURSIVE",
    "REFERENCES",
    "REGEXP",
    "REINDEX",
    "RELEASE",
    "RENAME",
    "REPLACE",
    "RESTRICT",
    "RETURNING",
    "RIGHT",
    "ROLLBACK",
    "ROW",
    "ROWS",
    "SAVEPOINT",
    "SELECT",
    "SET",
    "TABLE",
    "TEMP",
    "TEMPORARY",
    "THEN",
    "TIES",
    "TRANSACTION",
    "TRIGGER",
    "UNBOUNDED",
    "UNION",
    "UNIQUE",
    "UPDATE",
    "USING",
    "VACUUM",
    "VALUES",
    "VIEW",
    "VIRTUAL",
    "WHEN",
    "WHERE",
    "WINDOW",
    "WITH",
    "WITHOUT",
    "INTEGER",
    "TEXT",
    "REAL",
    "BLOB",
    "NUMERIC",
    "VARCHAR",
    "BOOLEAN",
    "DATETIME",
    "DATE",
    "TIME",
    "DECIMAL",
    "BIGINT",
    "SMALLINT",
    "SERIAL",
    "CHAR",
    "COUNT",
    "SUM",
    "MIN",
    "MAX",
    "AVG",
    "COALESCE",
    "NULLIF",
];

/// URI schemes in common use (IANA's permanent registry, the ones programs spell out): data
/// that browsers, mail clients and parsers read (`"mailto:" + email`), never renamed, even
/// where a local variable of the same name holds one.
pub const URI_SCHEMES: &[&str] = &[
    "about",
    "data",
    "file",
    "ftp",
    "ftps",
    "git",
    "http",
    "https",
    "imap",
    "irc",
    "javascript",
    "ldap",
    "mailto",
    "news",
    "nntp",
    "pop",
    "sftp",
    "sip",
    "sips",
    "smb",
    "sms",
    "ssh",
    "svn",
    "tel",
    "telnet",
    "urn",
    "ws",
    "wss",
    "xmpp",
];

/// Runs that test runners and tools look up by name.
pub const TOOL_RUNS: &[&str] = &[
    "self",
    "cls",
    "setUp",
    "tearDown",
    "setUpClass",
    "tearDownClass",
    "setUpModule",
    "tearDownModule",
    "asyncSetUp",
    "asyncTearDown",
    "runTest",
    "load_tests",
    "setup",
    "teardown",
    "setup_method",
    "teardown_method",
    "setup_class",
    "teardown_class",
    "setup_module",
    "teardown_module",
    "setup_function",
    "teardown_function",
    "conftest",
    "pytest",
    "pytestmark",
    "manage",
    "noxfile",
    "tox",
    "fixture",
    "fixtures",
    "wsgi",
    "asgi",
];

/// Tokens never mapped: discovery words and packaging words.
pub const TOOL_TOKENS: &[&str] = &["test", "tests", "pytest", "conftest", "setup", "teardown"];

/// A token shorter than this is never renamed: one- and two-letter tokens are format codes
/// (`%d`), string prefixes (`rb"..."`) and loop variables, and renaming them buys nothing.
pub const MIN_TOKEN_LEN: usize = 3;

/// Keywords never change.
pub fn is_keyword(run: &str) -> bool {
    KEYWORDS.contains(&run)
}

/// Tool protocols: fixed names, pytest hooks (`pytest_*`) and unittest's `test*` lookups rely
/// on the frozen `test` token.
pub fn is_tool_run(run: &str) -> bool {
    TOOL_RUNS.contains(&run) || run.starts_with("pytest_")
}

/// The lowercase letter tokens of a run that are long enough to rename.
pub fn owned_tokens(run: &str) -> impl Iterator<Item = String> + '_ {
    tokens::split(run).into_iter().filter_map(|p| match p {
        Piece::Word(w, _) if w.len() >= MIN_TOKEN_LEN && !is_placeholder(w) => {
            Some(w.to_ascii_lowercase())
        }
        _ => None,
    })
}

/// One letter repeated (`aaa`, `BBB`, `xxxx`): a placeholder, not a word. Test data spells
/// such names letter by letter (pyparsing parses `"AAA\nBBB"` with `Word("B")`), so renaming
/// one as a word breaks the data and hides nothing.
fn is_placeholder(w: &str) -> bool {
    let mut b = w.bytes().map(|c| c.to_ascii_lowercase());
    let first = b.next();
    b.all(|c| Some(c) == first)
}

/// All lowercase tokens of a run, whatever their length (for excluding vocabulary words).
pub fn all_tokens(run: &str) -> impl Iterator<Item = String> + '_ {
    tokens::split(run).into_iter().filter_map(|p| match p {
        Piece::Word(w, _) => Some(w.to_ascii_lowercase()),
        _ => None,
    })
}

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

/// Everything the policy learned about a repository.
#[derive(Debug, Clone, Default)]
pub struct Findings {
    /// Frozen runs that matter for this repository, with the reason.
    pub frozen_runs: BTreeMap<String, FreezeReason>,
    /// Tokens never mapped, with the reason.
    pub frozen_tokens: BTreeMap<String, FreezeReason>,
    /// Runs the repository's code uses (candidates for owning).
    pub code_runs: BTreeSet<String>,
    /// Every lowercase token seen anywhere in the repository (excluded from the vocabulary).
    pub seen_tokens: BTreeSet<String>,
    /// Tokens to map.
    pub owned_tokens: BTreeSet<String>,
    /// Owned runs that will be renamed (at least one token is mapped).
    pub owned_runs: BTreeSet<String>,
    /// Owned runs that stay as they are (frozen, or every token frozen or too short).
    pub frozen_owned: BTreeSet<String>,
    /// Owned runs renamed although outside code names them too, because the repository only
    /// uses them as local variables (see `is_pure_local`); a subset of `owned_runs`.
    pub local_runs: BTreeSet<String>,
    /// Starts and ends of the code's runs of three words or more, which strings swap like
    /// the code does (`rename::affixes`); kept in step with `code_runs` by `add_code_runs`.
    pub code_affixes: HashSet<Box<str>>,
}

impl Findings {
    /// Count more runs as names the code uses, with their starts and ends.
    fn add_code_runs(&mut self, runs: impl IntoIterator<Item = String>) {
        for r in runs {
            if !self.code_runs.contains(&r) {
                self.code_affixes.extend(super::rename::affixes(&r));
                self.code_runs.insert(r);
            }
        }
    }
}

/// Inputs of the policy.
pub struct PolicyInput<'a> {
    /// Python files: original relative path and contents.
    pub python: Vec<(&'a str, &'a [u8])>,
    /// Other text files: original relative path (which decides the format) and contents.
    pub text: Vec<(&'a str, &'a [u8])>,
    /// Binary files: served unchanged, so the names stored in them must not change.
    pub binary: Vec<&'a [u8]>,
    /// Every path component in the tree (file and directory names).
    pub names: Vec<&'a str>,
    /// Module and package names the repository itself provides at its import roots.
    pub own_modules: &'a BTreeSet<String>,
    /// Module and package names importable from the environment (stdlib and site-packages).
    pub env_modules: &'a BTreeSet<String>,
    /// Names outside code defines or calls.
    pub env_names: &'a BTreeSet<String>,
    /// The interpreter's builtin names (`dir(builtins)`).
    pub builtins: &'a BTreeSet<String>,
    /// Whether outside names used only as locals are renamed (`is_pure_local`; opt-in).
    pub release_locals: bool,
    /// Every module name (file stem or package dir) anywhere in the tree.
    pub tree_modules: &'a BTreeSet<String>,
    /// User freeze list entries.
    pub user: &'a [String],
    /// Names the repository's Python files define (see `defs`).
    pub defined: &'a BTreeSet<String>,
    /// Words outside code looks data up by (the words of Unicode character names, lower
    /// case; codec names as codec lookup normalizes them, `iso_8859_1`): a string literal of
    /// the repository that is one of them stays.
    pub data_words: &'a BTreeSet<String>,
}

/// Whether a top-level imported module is outside the repository: not one of its import
/// roots, and either importable from the environment or absent from the tree.
pub fn is_outside_module(top: &str, input: &PolicyInput<'_>) -> bool {
    if input.own_modules.contains(top) {
        return false;
    }
    input.env_modules.contains(top) || !input.tree_modules.contains(top)
}

/// A string fragment that builds names at run time, and on which side the run-time part goes:
/// `"clean_%s"`, `"visit_" + name`, `f"get_{field}_display"`, `"%s_id"`. A run in a string
/// that touches a format placeholder (`%`, `{`, `}`), ends with `_`, or is the edge of a
/// literal joined with `+`, names a family of identifiers whose other half is only known at
/// run time; renaming its tokens would break the lookup.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fragment {
    /// The fixed part (`visit_`, `parse_`, `_display`).
    pub text: String,
    /// The run as lexed in the string (`s_id` for the fixed part `_id` of `"%s_id"`).
    pub run: String,
    /// Whether the string shows the join (`+`, `%`, `{}` next to the run), rather than only
    /// an underscore at an end of the string (`"_cache"`, which may be a whole name).
    pub joined: bool,
    /// Whether the run-time part follows the fixed part (`"visit_" + x`): names of the family
    /// start with `text`; otherwise they end with it.
    pub prefix: bool,
    /// For a fixed end that follows a run-time part which itself follows a fixed start in the
    /// same literal (`_combinator` of `"xpath_%s_combinator"`), that start: the run-time part
    /// is the middle of the family's names.
    pub after: Option<String>,
}

impl Fragment {
    /// The tokens a fragment freezes (those long enough to be renamed at all).
    pub fn tokens(&self) -> impl Iterator<Item = String> + '_ {
        all_tokens(&self.text).filter(|t| t.len() >= MIN_TOKEN_LEN)
    }
}

/// The dynamic name fragments of a file (see [`Fragment`]).
pub fn dynamic_fragments(src: &[u8]) -> Vec<Fragment> {
    fragments_in_runs(src, &lexer::python_runs(src))
}

/// `dynamic_fragments` over runs already lexed from `src`.
pub fn fragments_in_runs(src: &[u8], runs: &[lexer::Run]) -> Vec<Fragment> {
    let mut out = Vec::new();
    // The fixed start last seen, with where it ends, for infix families.
    let mut last_start: Option<(String, usize)> = None;
    for &r in runs {
        if r.class != Class::String {
            continue;
        }
        let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) else {
            continue;
        };
        let before = r.start.checked_sub(1).map(|i| src[i]);
        let after = src.get(r.end).copied();
        let quote_after = matches!(after, Some(b'"' | b'\''));
        let quote_before = matches!(before, Some(b'"' | b'\''));
        let dynamic_after = matches!(after, Some(b'%' | b'{'))
            || (quote_after && next_code_byte(src, r.end + 1) == Some(b'+'));
        let dynamic_before = matches!(before, Some(b'%' | b'}'))
            || (quote_before && prev_code_byte(src, r.start - 1) == Some(b'+'));
        // An open underscore alone does not make a dunder a fragment: `"__init__"` names the
        // whole (frozen) dunder, and a family of names ending in `__init__` is no reason to
        // freeze the token `init` everywhere.
        let open_end = run.ends_with('_') && quote_after && !is_dunder(run);
        let open_start =
            run.starts_with('_') && matches!(before, Some(b'"' | b'\'' | b'}')) && !is_dunder(run);
        // `%s_id`: the letter after `%` is the conversion, not a name part.
        let text = if before == Some(b'%') {
            run.get(1..).unwrap_or("")
        } else {
            run
        };
        // Two letters are enough for a family (`"is_%s" % fact` builds sympy's `is_integer`),
        // though such a fragment has no token to freeze; so is a lone underscore joined to a
        // name (`setattr(self, "_" + attr, ...)` makes private names from public ones).
        let lone_underscore = text == "_" && (dynamic_after || dynamic_before);
        if text.bytes().filter(u8::is_ascii_alphabetic).count() < 2 && !lone_underscore {
            continue;
        }
        // The start of the same literal: nothing between the two runs closes a string or a
        // line (`"xpath_%s_combinator"`, `f"get_{field}_display"`).
        let after = last_start.take().filter(|(_, end)| {
            dynamic_before
                && !src[*end..r.start]
                    .iter()
                    .any(|b| matches!(b, b'"' | b'\'' | b'\n'))
        });
        if dynamic_after || open_end {
            out.push(Fragment {
                text: text.to_string(),
                run: run.to_string(),
                joined: dynamic_after,
                prefix: true,
                after: None,
            });
            if dynamic_after {
                last_start = Some((text.to_string(), r.end));
            }
        }
        if dynamic_before || open_start {
            out.push(Fragment {
                text: text.to_string(),
                run: run.to_string(),
                joined: dynamic_before,
                prefix: false,
                after: after.map(|(t, _)| t),
            });
        }
    }
    out
}

/// The run-time parts of a run that belongs to the family of a dynamic fragment: `Output`
/// for `visit_Output` and `visit_`, `for` for `parse_for` and `parse_`, `name` for
/// `name_display` and `_display`. Such a run is looked up by a name built at run time from
/// data (a node's class name, a template keyword), so it must be renamed exactly when that
/// data is: the caller freezes the run when the run-time part is frozen.
pub fn dynamic_rests<'r>(run: &'r str, fragments: &FragmentIndex) -> Vec<&'r str> {
    let mut out: Vec<&str> = fragments.matches(run).into_iter().map(|m| m.rest).collect();
    // The middle of an infix family's member (`child` of `xpath_child_combinator`).
    for (start, end) in &fragments.infixes {
        if run.len() > start.len() + end.len() && run.starts_with(start.as_str()) {
            if let Some(mid) = run[start.len()..].strip_suffix(end.as_str()) {
                out.push(mid);
            }
        }
    }
    out
}

/// How a run belongs to the family of a dynamic fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FamilyMatch<'r> {
    /// The fragment's kind (see [`Fragment::prefix`]).
    pub prefix: bool,
    /// The fixed part, as it stands in the run.
    pub fixed: &'r str,
    /// The run-time part.
    pub rest: &'r str,
}

/// Dynamic fragments indexed by kind, for [`dynamic_rests`].
#[derive(Debug, Default)]
pub struct FragmentIndex {
    prefixes: HashSet<String>,
    suffixes: HashSet<String>,
    /// Fixed starts and ends of one literal around a run-time part (see [`Fragment::after`]).
    infixes: HashSet<(String, String)>,
    /// Every prefix ends and every suffix starts with `_`, so a run can only split next to
    /// an underscore (most runs have none or one: far fewer lookups).
    underscore_joins: bool,
}

impl FragmentIndex {
    /// Every way `run` belongs to the family of an indexed fragment.
    pub fn matches<'r>(&self, run: &'r str) -> Vec<FamilyMatch<'r>> {
        // Every split of the run is looked up (a run is short; a large repository has
        // thousands of fragments and tens of thousands of runs).
        let mut out = Vec::new();
        let bytes = run.as_bytes();
        for i in 0..=run.len() {
            if !run.is_char_boundary(i) {
                continue;
            }
            if self.underscore_joins
                && !(i > 0 && bytes[i - 1] == b'_')
                && bytes.get(i) != Some(&b'_')
            {
                continue;
            }
            let (head, tail) = run.split_at(i);
            if !tail.is_empty() && self.prefixes.contains(head) {
                out.push(FamilyMatch {
                    prefix: true,
                    fixed: head,
                    rest: tail,
                });
            }
            if !head.is_empty() && self.suffixes.contains(tail) {
                out.push(FamilyMatch {
                    prefix: false,
                    fixed: tail,
                    rest: head,
                });
            }
        }
        out
    }

    pub fn new<'f>(fragments: impl IntoIterator<Item = &'f Fragment>) -> FragmentIndex {
        let mut ix = FragmentIndex {
            underscore_joins: true,
            ..FragmentIndex::default()
        };
        for f in fragments {
            if f.prefix {
                ix.underscore_joins &= f.text.ends_with('_');
                ix.prefixes.insert(f.text.clone());
            } else {
                ix.underscore_joins &= f.text.starts_with('_');
                ix.suffixes.insert(f.text.clone());
                if let Some(start) = &f.after {
                    ix.infixes.insert((start.clone(), f.text.clone()));
                }
            }
        }
        ix
    }
}

fn next_code_byte(src: &[u8], mut i: usize) -> Option<u8> {
    while i < src.len() && (src[i] == b' ' || src[i] == b'\t') {
        i += 1;
    }
    src.get(i).copied()
}

fn prev_code_byte(src: &[u8], i: usize) -> Option<u8> {
    // `i` is the index of the opening quote; skip a string prefix and spaces before it.
    let mut j = i;
    while j > 0 && src[j - 1].is_ascii_alphabetic() && i - (j - 1) <= 2 {
        j -= 1;
    }
    while j > 0 && (src[j - 1] == b' ' || src[j - 1] == b'\t') {
        j -= 1;
    }
    j.checked_sub(1).map(|k| src[k])
}

/// What one Python file contributes to the policy.
struct FileFacts<'a> {
    /// Names imported from outside modules (module path parts and imported names).
    frozen_imports: Vec<String>,
    fragments: Vec<Fragment>,
    /// Distinct runs of any class, and of code.
    runs: HashSet<&'a str>,
    code_runs: HashSet<&'a str>,
    /// Runs that outside code could see (see `scope`).
    exposed: HashSet<&'a str>,
    /// Runs that are a whole string literal (`"VCS"`), as code names a configuration key.
    whole_strings: HashSet<&'a str>,
    /// Whole string literals passed to a method that cuts a string and keeps the rest
    /// (`name.partition("ParamType")`): see `add_affix_rests`.
    cut_strings: HashSet<&'a str>,
    /// Runs inside regular expressions written as literals (see `patterns`).
    pattern_runs: HashSet<&'a str>,
    /// Runs of string literals that spell a codec name (`"iso-8859-1"`, see `codec_literal`).
    codec_runs: HashSet<&'a str>,
}

/// Methods of `str` that cut a piece off and give the program the rest.
const CUTTING_METHODS: &[&str] = &[
    "partition",
    "rpartition",
    "removeprefix",
    "removesuffix",
    "replace",
    "split",
    "rsplit",
];

/// The cutting method (`CUTTING_METHODS`) whose first argument is the string literal opened
/// at `quote` (`.partition(` right before it), if any.
fn cutting_method(src: &[u8], quote: usize) -> Option<&'static str> {
    let mut i = quote;
    while i > 0 && src[i - 1].is_ascii_alphabetic() && quote - (i - 1) <= 2 {
        i -= 1;
    }
    while i > 0 && matches!(src[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    if i == 0 || src[i - 1] != b'(' {
        return None;
    }
    let end = i - 1;
    let mut start = end;
    while start > 0 && (src[start - 1].is_ascii_alphanumeric() || src[start - 1] == b'_') {
        start -= 1;
    }
    if start == 0 || src[start - 1] != b'.' {
        return None;
    }
    let name = std::str::from_utf8(&src[start..end]).ok()?;
    CUTTING_METHODS.iter().copied().find(|m| *m == name)
}

/// Whether the string run at `start..end` belongs to a literal that spells, whole, a name in
/// `names` once normalized as codec lookup does (lower case, every run of other characters
/// than letters, digits and `.` one `_`): `"iso-8859-1"`, `'UTF-8'`, `"latin_1"`.
fn codec_literal(src: &[u8], start: usize, end: usize, names: &BTreeSet<String>) -> bool {
    let part = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b' ';
    let mut a = start;
    while a > 0 && part(src[a - 1]) {
        a -= 1;
    }
    let mut b = end;
    while b < src.len() && part(src[b]) {
        b += 1;
    }
    let (Some(&open), Some(&close)) = (a.checked_sub(1).and_then(|i| src.get(i)), src.get(b))
    else {
        return false;
    };
    if !matches!(open, b'"' | b'\'') || close != open || b - a > 40 {
        return false;
    }
    let mut norm = String::new();
    for w in src[a..b]
        .split(|c| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !norm.is_empty() {
            norm.push('_');
        }
        norm.push_str(&String::from_utf8_lossy(w).to_ascii_lowercase());
    }
    // A plain word is the Unicode-word rule's (`whole_strings`); this one is for names with
    // a separator or a digit, which no English word has.
    norm.contains(|c: char| c == '_' || c.is_ascii_digit()) && names.contains(&norm)
}

fn file_facts<'a>(src: &'a [u8], input: &PolicyInput<'_>) -> FileFacts<'a> {
    // One lexer pass serves imports, fragments, the run sets and exposure.
    let mut runs = Vec::new();
    // Exposure only matters to the opt-in pure-local rule; it is a third of the lexing cost.
    let mut exposure = input.release_locals.then(|| Exposure::new(src));
    lexer::scan_python(src, |e| {
        if let lexer::Event::Run(r) = e {
            runs.push(r);
        }
        if let Some(x) = exposure.as_mut() {
            x.event(e);
        }
    });
    let fragments = fragments_in_runs(src, &runs);
    let pattern_runs = super::patterns::pattern_runs(src, &runs)
        .into_iter()
        .filter_map(|r| std::str::from_utf8(&src[r.start..r.end]).ok())
        .collect();
    let mut ff = FileFacts {
        frozen_imports: Vec::new(),
        fragments,
        runs: HashSet::new(),
        code_runs: HashSet::new(),
        exposed: exposure.map(Exposure::finish).unwrap_or_default(),
        whole_strings: HashSet::new(),
        cut_strings: HashSet::new(),
        pattern_runs,
        codec_runs: HashSet::new(),
    };
    for imp in imports_in_runs(src, &runs) {
        let outside = imp.level == 0
            && imp
                .module
                .first()
                .is_some_and(|top| is_outside_module(top, input));
        if outside {
            ff.frozen_imports
                .extend(imp.module.into_iter().chain(imp.names));
        }
    }
    for r in runs {
        let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) else {
            continue;
        };
        ff.runs.insert(run);
        if r.class == Class::String && codec_literal(src, r.start, r.end, input.data_words) {
            ff.codec_runs.insert(run);
        }
        if r.class == Class::Code {
            ff.code_runs.insert(run);
        } else if r.class == Class::String
            && r.start > 0
            && matches!(src[r.start - 1], b'"' | b'\'')
            && src.get(r.end) == Some(&src[r.start - 1])
        {
            ff.whole_strings.insert(run);
            if cutting_method(src, r.start - 1).is_some() {
                ff.cut_strings.insert(run);
            }
        }
    }
    ff
}

/// Run the policy over a repository.
pub fn analyze(input: &PolicyInput<'_>) -> Findings {
    let mut f = Findings::default();
    for t in TOOL_TOKENS {
        f.frozen_tokens.insert(t.to_string(), FreezeReason::Tool);
    }
    for k in KEYWORDS {
        f.frozen_runs.insert(k.to_string(), FreezeReason::Keyword);
    }
    for t in TOOL_RUNS {
        f.frozen_runs.insert(t.to_string(), FreezeReason::Tool);
    }
    for k in SQL_KEYWORDS.iter().chain(URI_SCHEMES) {
        f.frozen_runs
            .entry(k.to_string())
            .or_insert(FreezeReason::Keyword);
    }
    for n in &input.names {
        for e in super::name_extensions(n) {
            f.frozen_runs
                .entry(e.to_string())
                .or_insert(FreezeReason::Extension);
        }
    }
    for u in input.user {
        f.frozen_runs.insert(u.clone(), FreezeReason::User);
        if tokens::word_count(u) == 1 {
            f.frozen_tokens
                .insert(u.to_ascii_lowercase(), FreezeReason::User);
        }
    }
    // Per-file facts in parallel; every distinct run is split into tokens once.
    let mut facts: Vec<FileFacts<'_>> = input
        .python
        .par_iter()
        .map(|(_, src)| file_facts(src, input))
        .collect();
    for t in formats::FROZEN_TOKENS {
        f.frozen_tokens.insert(t.to_string(), FreezeReason::Tool);
    }
    for t in facts
        .iter()
        .flat_map(|ff| ff.pattern_runs.iter())
        .flat_map(|r| owned_tokens(r))
    {
        f.frozen_tokens.entry(t).or_insert(FreezeReason::Pattern);
    }
    // A codec name spelled in a string (`"iso-8859-1"`) is outside data: the codec is looked
    // up by it, so its words stay, in the string and wherever else the code spells them.
    for run in facts.iter().flat_map(|ff| ff.codec_runs.iter()) {
        if owned_tokens(run).next().is_some() {
            f.frozen_runs
                .entry(run.to_string())
                .or_insert(FreezeReason::Outside);
        }
    }
    freeze_sphinx_settings(input, &mut f);
    freeze_lower_case_of_capitalised_data(input, &facts, &mut f);
    // Text files in their format. `Fixed` runs (syntax words, tool keys, URLs) are the
    // tools' vocabulary, not places where the repository uses a name; their tokens are only
    // kept out of the virtual words.
    let (text_runs, fixed_text_runs): (Vec<HashSet<&str>>, Vec<HashSet<&str>>) = input
        .text
        .par_iter()
        .map(|(path, src)| {
            let mut used = HashSet::new();
            let mut fixed = HashSet::new();
            for r in formats::text_file_runs(path.as_bytes(), src, &formats::Plain::default()) {
                if let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) {
                    if r.class == Class::Fixed {
                        fixed.insert(run);
                    } else {
                        used.insert(run);
                    }
                }
            }
            (used, fixed)
        })
        .unzip();
    // Keys and syntax words that configuration files keep (TOML exactly; INI without case,
    // as configparser reads option names), URLs and other protected spans aside: code that
    // names one in a string literal reads the file by it (`parser.get("versioneer", "VCS")`),
    // so that literal must keep it too.
    let mut toml_words: HashSet<&str> = HashSet::new();
    let mut ini_words: HashSet<String> = HashSet::new();
    // The same keys in a TOML or INI file below the root (test fixtures, package data, not
    // the tools' `pyproject.toml` or `setup.cfg` at the root, whose keys are tool vocabulary).
    let mut data_keys: HashSet<String> = HashSet::new();
    for (path, src) in &input.text {
        let below_root = path.contains('/');
        let plain = formats::Plain::default();
        let (runs, lower) = match formats::format_of(path.as_bytes()) {
            formats::Format::Toml => (formats::toml::runs(src), false),
            formats::Format::Ini => (formats::ini::runs(src, &plain), true),
            _ => continue,
        };
        for r in runs
            .iter()
            .filter(|r| r.class == Class::Fixed && is_config_key(src, r.start, r.end, lower))
        {
            if let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) {
                if lower {
                    ini_words.insert(run.to_ascii_lowercase());
                } else {
                    toml_words.insert(run);
                }
                if below_root {
                    data_keys.insert(if lower {
                        run.to_ascii_lowercase()
                    } else {
                        run.to_string()
                    });
                }
            }
        }
    }
    for ff in &facts {
        for w in &ff.whole_strings {
            // A word outside code looks data up by (`"lamda"`, which sympy passes on to
            // `unicodedata.lookup("GREEK SMALL LETTER LAMDA")`).
            if tokens::word_count(w) == 1
                && w.bytes().all(|b| b.is_ascii_alphabetic())
                && input.data_words.contains(&w.to_ascii_lowercase())
                && owned_tokens(w).next().is_some()
            {
                f.frozen_runs
                    .entry(w.to_string())
                    .or_insert(FreezeReason::Outside);
            }
            let hit = toml_words.contains(*w) || ini_words.contains(&w.to_ascii_lowercase());
            if hit && owned_tokens(w).next().is_some() {
                f.frozen_runs
                    .entry(w.to_string())
                    .or_insert(FreezeReason::Config);
            }
        }
    }
    let mut all_runs: HashSet<&str> = HashSet::new();
    let mut code_runs: HashSet<&str> = HashSet::new();
    // Runs outside code could see: exposed in a Python file, or anywhere in a text file or a
    // path (configuration, templates and file names are read by outside code as data).
    let mut exposed: HashSet<&str> = HashSet::new();
    let mut fragments: BTreeSet<Fragment> = BTreeSet::new();
    for ff in &mut facts {
        fragments.extend(ff.fragments.drain(..));
        for m in &ff.frozen_imports {
            f.frozen_runs
                .entry(m.clone())
                .or_insert(FreezeReason::Imported);
        }
        all_runs.extend(ff.runs.iter().copied());
        code_runs.extend(ff.code_runs.iter().copied());
        exposed.extend(ff.exposed.iter().copied());
    }
    for t in &text_runs {
        all_runs.extend(t.iter().copied());
        if input.release_locals {
            exposed.extend(t.iter().copied());
        }
    }
    for n in &input.names {
        for r in lexer::text_runs(n.as_bytes()) {
            all_runs.insert(&n[r.start..r.end]);
            if input.release_locals {
                exposed.insert(&n[r.start..r.end]);
            }
        }
    }
    // Names stored in binary files: only those the rest of the repository also holds matter
    // (frozen runs are looked up where they occur), which keeps the scan's output small.
    let binary_runs: HashSet<&str> = input
        .binary
        .par_iter()
        .flat_map_iter(|b| {
            // A gettext catalog is looked up by its original strings only (`catalog`).
            let parts = super::catalog::mo_original_strings(b).unwrap_or_else(|| vec![*b]);
            // Distinct first: a catalog repeats its words, and the big set is slow to probe.
            let mut distinct: HashSet<Cow<'_, str>> = HashSet::new();
            for p in parts {
                distinct.extend(identifier_runs(p).map(Cow::Borrowed));
                distinct.extend(hyphen_compounds(p).map(Cow::Owned));
            }
            distinct
                .iter()
                .flat_map(|r| stored_names(r, &all_runs))
                .collect::<Vec<_>>()
        })
        .collect();
    for run in binary_runs {
        // Outside names are frozen anyway (and reported as such).
        if owned_tokens(run).next().is_some() && !input.env_names.contains(run) {
            f.frozen_runs
                .entry(run.to_string())
                .or_insert(FreezeReason::Binary);
        }
    }
    // An upper-case word of outside data in a string (`"DOUBLE-STRUCK CAPITAL N"`, a Unicode
    // character name) stays, whatever the code calls its lower case.
    for run in &all_runs {
        if !code_runs.contains(run)
            && run.len() >= MIN_TOKEN_LEN
            && run.bytes().all(|b| b.is_ascii_uppercase())
            && input.data_words.contains(&run.to_ascii_lowercase())
        {
            f.frozen_runs
                .entry(run.to_string())
                .or_insert(FreezeReason::Outside);
        }
    }
    // A key that a TOML or INI data file of the tree keeps (see above) stays wherever else
    // the tree holds it, not only in code's string literals: other data keyed like it (a
    // JSON file of the values a TOML file must parse to) keeps it too.
    for run in &all_runs {
        let hit = data_keys.contains(*run) || data_keys.contains(&run.to_ascii_lowercase());
        if hit && owned_tokens(run).next().is_some() {
            f.frozen_runs
                .entry(run.to_string())
                .or_insert(FreezeReason::Config);
        }
    }
    let mut seen: HashSet<String> = HashSet::new();
    for run in all_runs.iter().chain(fixed_text_runs.iter().flatten()) {
        for t in all_tokens(run) {
            seen.insert(t);
        }
    }
    f.seen_tokens = seen.into_iter().collect();
    f.add_code_runs(code_runs.into_iter().map(str::to_string));
    add_affix_rests(&facts, input, &mut f);
    // Owned: what the repository defines, plus its module names (file stems, packages).
    let owned: BTreeSet<&String> = input
        .defined
        .iter()
        .chain(input.tree_modules.iter())
        .collect();
    let whole: HashSet<String> = whole_names(&fragments, &all_runs, input, &f)
        .into_iter()
        .map(str::to_string)
        .collect();
    fragments.retain(|fr| !whole.contains(&fr.run));
    for t in fragments.iter().flat_map(Fragment::tokens) {
        f.frozen_tokens.entry(t).or_insert(FreezeReason::Dynamic);
    }
    // Only a join seen in a string (`"visit_" + kind`, `f"get_{f}_display"`) makes names at
    // run time from data; a string that only shows an open underscore
    // (`name.endswith("_validator")`) compares whole names, which change alike with the
    // fragment's tokens frozen.
    // The lower-case join of a CamelCase name the view renames (`selfref` of `SelfRef`) is a
    // name the program uses (`lexicon::joined_pairs` maps it with the class): Django builds
    // `selfref_set` from it, so such a family member is no data-built name.
    let joins: Vec<String> = owned
        .iter()
        .filter(|r| {
            let p = tokens::split(r);
            p.len() >= 2
                && p.iter().all(|x| matches!(x, Piece::Word(..)))
                && freeze_reason(r, input, &f).is_none()
        })
        .map(|r| r.to_ascii_lowercase())
        .collect();
    f.add_code_runs(joins);
    let fragment_index = FragmentIndex::new(fragments.iter().filter(|fr| fr.joined));
    let hyphen_data: HashSet<String> = input
        .python
        .iter()
        .chain(input.text.iter())
        .flat_map(|(_, b)| hyphen_words(b))
        .map(|w| w.replace('-', "_"))
        .collect();
    // Outside names in lower case: an upper-case run of the repository that spells one is a
    // name made from it at run time (pyflakes dispatches on `type(node).__name__.upper()` to
    // handlers named `FUNCTIONDEF`, after `ast.FunctionDef`).
    let outside_lower: HashSet<String> = input
        .env_names
        .iter()
        .filter(|n| n.bytes().any(|b| b.is_ascii_uppercase()))
        .map(|n| n.to_ascii_lowercase())
        .collect();
    let whole_strings: HashSet<&str> = facts
        .iter()
        .flat_map(|ff| ff.whole_strings.iter().copied())
        .collect();
    for &run in &owned {
        // A run of a dynamic family is renamed only if its run-time part would be renamed
        // wherever that part comes from: as a name (not frozen) and inside strings (a code
        // identifier, or a compound). That part is data, possibly made by outside code, so
        // being a pure local of the repository does not release it.
        let mut local = false;
        let reason = match freeze_reason(run, input, &f) {
            Some(FreezeReason::Outside)
                if input.release_locals && is_pure_local(run, &exposed, input) =>
            {
                local = true;
                None
            }
            r => r,
        };
        // A run of `__`-joined segments is decided segment by segment by the renamer
        // (`rename::segments`): freezing it whole would keep a segment that changes elsewhere.
        let reason = reason.or_else(|| {
            (super::rename::segments(run).is_none()
                && built_from_data(run, &fragment_index, input, &f, &all_runs, &hyphen_data))
            .then_some(FreezeReason::Dynamic)
        });
        // A CamelCase name whose lower-case join must stay (an outside name, `selfref`)
        // stays too: the program derives the join from the class at run time.
        let reason = reason.or_else(|| {
            let p = tokens::split(run);
            if p.len() >= 2 && p.iter().all(|x| matches!(x, Piece::Word(..))) {
                freeze_reason(&run.to_ascii_lowercase(), input, &f)
            } else {
                None
            }
        });
        let reason = reason.or_else(|| {
            let upper = run.bytes().any(|b| b.is_ascii_uppercase())
                && !run.bytes().any(|b| b.is_ascii_lowercase());
            (upper && outside_lower.contains(&run.to_ascii_lowercase()))
                .then_some(FreezeReason::Outside)
        });
        let reason = reason.or_else(|| upper_case_of_frozen(run, &whole_strings, input, &f));
        if let Some(reason) = reason {
            f.frozen_runs.entry(run.clone()).or_insert(reason);
            f.frozen_owned.insert(run.clone());
            continue;
        }
        if is_dunder(run) {
            continue;
        }
        let mut any = false;
        for t in owned_tokens(run) {
            if !f.frozen_tokens.contains_key(&t) {
                f.owned_tokens.insert(t);
                any = true;
            }
        }
        if any {
            f.owned_runs.insert(run.clone());
            if local {
                f.local_runs.insert(run.clone());
            }
        } else {
            f.frozen_owned.insert(run.clone());
        }
    }
    // A family member is decided by its run-time part, which the loop above may freeze after
    // the member was owned (`do_terminal_string` sorts before `terminal_string`, frozen as
    // data): repeat until no owned member is built from a frozen part.
    // A class and the family member named after its lower case (sqlparse dispatches on
    // `"_process_" + type(x).__name__.lower()` to `_process_where` for `Where`) stay together.
    loop {
        let names = ClassNames::new(&f, &fragment_index);
        let late: Vec<String> = f
            .owned_runs
            .iter()
            .filter(|r| super::rename::segments(r).is_none())
            .filter(|r| {
                built_from_data(r, &fragment_index, input, &f, &all_runs, &hyphen_data)
                    || upper_case_of_frozen(r, &whole_strings, input, &f).is_some()
                    || names.parts_with_frozen(r, &fragment_index)
            })
            .cloned()
            .collect();
        if late.is_empty() {
            break;
        }
        for run in late {
            f.owned_runs.remove(&run);
            f.local_runs.remove(&run);
            f.frozen_runs.insert(run.clone(), FreezeReason::Dynamic);
            f.frozen_owned.insert(run);
        }
    }
    // The code also names what it never defines (`func.example_impl`, set by outside code
    // with `setattr(func, project + "_impl", ...)`), and such a run changes wherever one of
    // its tokens is mapped: the family rule keeps it too.
    let undefined: Vec<String> = f
        .code_runs
        .iter()
        .filter(|r| !owned.contains(r) && !f.frozen_runs.contains_key(*r))
        .filter(|r| super::rename::segments(r).is_none())
        .filter(|r| built_from_data(r, &fragment_index, input, &f, &all_runs, &hyphen_data))
        .cloned()
        .collect();
    for run in undefined {
        f.frozen_runs.insert(run, FreezeReason::Dynamic);
    }
    freeze_joins_of_frozen_names(&mut f);
    // Module names count as code identifiers: imports and strings name them.
    f.add_code_runs(input.tree_modules.iter().cloned());
    f
}

/// The lower-case spelling of a class-like run (`where` of `Where`, `identifierlist` of
/// `IdentifierList`): a capital first, words only. Programs make it with
/// `type(x).__name__.lower()`.
fn class_lower(run: &str) -> Option<String> {
    let starts_upper = run.as_bytes().first().is_some_and(u8::is_ascii_uppercase);
    let words = tokens::split(run)
        .iter()
        .all(|p| matches!(p, Piece::Word(..)));
    (starts_upper && words && run.bytes().any(|b| b.is_ascii_lowercase()))
        .then(|| run.to_ascii_lowercase())
}

/// What ties classes to the family members named after their lower case, for one round of
/// the family rule: the run-time parts of frozen members, and the lower case of frozen
/// classes.
struct ClassNames {
    frozen_rests: HashSet<String>,
    frozen_classes: HashSet<String>,
}

impl ClassNames {
    fn new(f: &Findings, fragments: &FragmentIndex) -> ClassNames {
        ClassNames {
            frozen_rests: f
                .frozen_owned
                .iter()
                .flat_map(|m| dynamic_rests(m, fragments))
                .filter(|r| !r.bytes().any(|b| b.is_ascii_uppercase()))
                .map(str::to_string)
                .collect(),
            frozen_classes: f
                .frozen_runs
                .keys()
                .filter_map(|r| class_lower(r))
                .collect(),
        }
    }

    /// Whether `run` must stay because its partner stays: a class whose lower case is the
    /// run-time part of a frozen member, or a member whose run-time part is the lower case
    /// of a frozen class. Renamed together, they change alike (the class's words are the
    /// member's tokens, and `lexicon::joined_pairs` maps a multi-word join with its class).
    fn parts_with_frozen(&self, run: &str, fragments: &FragmentIndex) -> bool {
        class_lower(run).is_some_and(|l| self.frozen_rests.contains(&l))
            || dynamic_rests(run, fragments)
                .iter()
                .any(|rest| self.frozen_classes.contains(*rest))
    }
}

/// An upper-case run (`SECONDS`, an enum member) whose lower case is a frozen run that the
/// code holds as a whole string (`"seconds"`, also the outside `timedelta.seconds`) stays as
/// well: code turns the data into the name (`Unit[minimum_unit.upper()]` with
/// `minimum_unit="seconds"`). An upper-case run whose lower case is never data is free.
fn upper_case_of_frozen(
    run: &str,
    whole_strings: &HashSet<&str>,
    input: &PolicyInput<'_>,
    f: &Findings,
) -> Option<FreezeReason> {
    let upper =
        run.bytes().any(|b| b.is_ascii_uppercase()) && !run.bytes().any(|b| b.is_ascii_lowercase());
    let lower = run.to_ascii_lowercase();
    if !upper || !whole_strings.contains(lower.as_str()) {
        return None;
    }
    freeze_reason(&lower, input, f).filter(|r| *r != FreezeReason::Short)
}

/// A string literal that a cutting method takes (`CUTTING_METHODS`) and that starts or ends
/// code names (`"ParamType"`, which click cuts off
/// `type(self).__name__` to describe `StringParamType` as `"String"`) makes the rest of each
/// such name a word the program derives from the name: the rest counts as a name the code
/// uses, so data holding it (`{"param_type": "String"}`) changes with the class. When the rest
/// must stay (`String` is an outside name, which strings keep), its tokens stay, so the name
/// becomes the kept rest and the renamed cut (`String` + the image of `ParamType`), which the
/// renamed string still cuts.
fn add_affix_rests(facts: &[FileFacts<'_>], input: &PolicyInput<'_>, f: &mut Findings) {
    let cut: HashSet<&str> = facts
        .iter()
        .flat_map(|ff| ff.cut_strings.iter().copied())
        .filter(|w| f.code_affixes.contains(*w))
        .collect();
    if cut.is_empty() {
        return;
    }
    let mut rests: Vec<String> = Vec::new();
    let mut kept: Vec<String> = Vec::new();
    for run in &f.code_runs {
        for a in super::rename::affixes(run) {
            if !cut.contains(&*a) {
                continue;
            }
            let rest = run
                .strip_suffix(&*a)
                .or_else(|| run.strip_prefix(&*a))
                .unwrap_or("")
                .trim_matches('_');
            if rest.is_empty() || owned_tokens(rest).next().is_none() {
                continue;
            }
            if freeze_reason(rest, input, f).is_some() {
                kept.extend(owned_tokens(rest));
            } else {
                rests.push(rest.to_string());
            }
        }
    }
    f.add_code_runs(rests);
    for t in kept {
        f.frozen_tokens.entry(t).or_insert(FreezeReason::Dynamic);
    }
}

/// A CamelCase name that stays keeps its lower-case join too: programs make `logentry` from the
/// class `LogEntry` at run time (Django's `model_name`), so a frozen `LogEntry` freezes the
/// token `logentry` (which a migration's `model_name="logentry"` holds), with the same reason.
/// Runs left with no token to map are no longer owned. The mirror of `lexicon::joined_pairs`.
fn freeze_joins_of_frozen_names(f: &mut Findings) {
    let mut frozen_joins: Vec<(String, FreezeReason)> = Vec::new();
    for run in &f.frozen_owned {
        let pieces = tokens::split(run);
        if pieces.len() < 2 || !pieces.iter().all(|p| matches!(p, Piece::Word(..))) {
            continue;
        }
        let join = run.to_ascii_lowercase();
        if f.owned_tokens.contains(&join) {
            let reason = f
                .frozen_runs
                .get(run)
                .copied()
                .unwrap_or(FreezeReason::Outside);
            frozen_joins.push((join, reason));
        }
    }
    if frozen_joins.is_empty() {
        return;
    }
    for (join, reason) in frozen_joins {
        f.owned_tokens.remove(&join);
        f.frozen_tokens.entry(join).or_insert(reason);
    }
    let stale: Vec<String> = f
        .owned_runs
        .iter()
        .filter(|r| !owned_tokens(r).any(|t| f.owned_tokens.contains(&t)))
        .cloned()
        .collect();
    for r in stale {
        f.owned_runs.remove(&r);
        f.local_runs.remove(&r);
        f.frozen_owned.insert(r);
    }
}

/// Sphinx reads its settings from `conf.py` in its source directory (one that also holds
/// `index.rst` or `index.md`) by name: the file keeps its name (`conf` is frozen), the
/// settings it defines keep theirs (`extensions`, `html_theme`, `extlinks`), and so do the
/// dotted names in its strings that are not the repository's own modules
/// (`"sphinx.ext.autodoc"`): they name Sphinx extensions.
fn freeze_sphinx_settings(input: &PolicyInput<'_>, f: &mut Findings) {
    let index: HashSet<&str> = input.text.iter().map(|(p, _)| *p).collect();
    for (path, src) in &input.python {
        let (dir, base) = path.rsplit_once('/').unwrap_or(("", path));
        let sibling = |n: &str| {
            if dir.is_empty() {
                n.to_string()
            } else {
                format!("{dir}/{n}")
            }
        };
        if base != "conf.py"
            || !(index.contains(sibling("index.rst").as_str())
                || index.contains(sibling("index.md").as_str()))
        {
            continue;
        }
        f.frozen_runs
            .entry("conf".to_string())
            .or_insert(FreezeReason::Tool);
        for name in super::defs::defined_names(src) {
            f.frozen_runs
                .entry(name.to_string())
                .or_insert(FreezeReason::Tool);
        }
        for r in lexer::python_runs(src) {
            if r.class != Class::String {
                continue;
            }
            let dotted = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'.';
            let mut a = r.start;
            while a > 0 && dotted(src[a - 1]) {
                a -= 1;
            }
            let mut b = r.end;
            while b < src.len() && dotted(src[b]) {
                b += 1;
            }
            let word = std::str::from_utf8(&src[a..b]).unwrap_or("");
            let first = word.split('.').next().unwrap_or("");
            if word.contains('.') && !input.own_modules.contains(first) {
                if let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) {
                    f.frozen_runs
                        .entry(run.to_string())
                        .or_insert(FreezeReason::Tool);
                }
            }
        }
    }
}

/// Whether a run belongs to the family of a joined dynamic fragment with a run-time part
/// that would not be renamed wherever that part comes from: as a name (frozen) or inside
/// strings (a single word the code never uses, which strings keep). Such a run is looked up
/// by a name built from data that keeps its words, so it must keep them too.
fn built_from_data(
    run: &str,
    fragment_index: &FragmentIndex,
    input: &PolicyInput<'_>,
    f: &Findings,
    all_runs: &HashSet<&str>,
    hyphen_data: &HashSet<String>,
) -> bool {
    dynamic_rests(run, fragment_index).into_iter().any(|rest| {
        freeze_reason(rest, input, f).is_some()
            || (tokens::word_count(rest) < 2 && !swapped_in_strings(rest, input, f))
            // A compound that strings keep whole (a piece of it is frozen on its own and it
            // is no start or end of a code name), when the repository holds it as data: that
            // is where the run-time part comes from.
            // Hyphenated data counts in its underscore form (`"nth-last-child"`, which
            // cssselect turns into `xpath_nth_last_child_function` with `.replace("-", "_")`).
            || (kept_in_strings(rest, input, f)
                && (all_runs.contains(rest) || hyphen_data.contains(rest)))
    })
}

/// Whether strings swap a single word as the renamer does: a run the code uses, or its
/// spelling in the other case when that is a run the code uses and does not freeze (`"FREQ"`
/// with the code's `freq`, but not `"INTERVAL"` with the outside `interval`:
/// `Renamer::swap_run`).
fn swapped_in_strings(word: &str, input: &PolicyInput<'_>, f: &Findings) -> bool {
    f.code_runs.contains(word) || other_case_is_code(word, input, f)
}

/// Whether `run` is in one case only and its spelling in the other case is a run the code
/// uses and does not freeze (the mirror of `Renamer::is_other_case_of_code_ident`).
fn other_case_is_code(run: &str, input: &PolicyInput<'_>, f: &Findings) -> bool {
    tokens::other_case(run).is_some_and(|other| {
        f.code_runs.contains(&other) && freeze_reason(&other, input, f).is_none()
    })
}

/// Whether a run of a whole name's family would not change the way the name does in strings:
/// the run is frozen, strings keep it (`kept_in_strings`), or its token boundaries miss the
/// name (`mapping_validator` ends with `_validator` word for word; `lvalidator` does not).
pub fn family_member_diverges(
    run: &str,
    m: &FamilyMatch<'_>,
    input: &PolicyInput<'_>,
    f: &Findings,
) -> bool {
    if freeze_reason(run, input, f).is_some() || kept_in_strings(run, input, f) {
        return true;
    }
    let (a, b) = if m.prefix {
        (m.fixed, m.rest)
    } else {
        (m.rest, m.fixed)
    };
    !all_tokens(run).eq(all_tokens(a).chain(all_tokens(b)))
}

/// Whether strings keep a run that the code does not name: a compound with a word that is
/// frozen on its own (`"_CLI_COMPLETE"` with `cli`), see `Renamer::swap_run`. The start or
/// end of a code name (`"unquoted_identifier"` of `_token_nud_unquoted_identifier`) is
/// swapped like the name, so strings do not keep it.
fn kept_in_strings(run: &str, input: &PolicyInput<'_>, f: &Findings) -> bool {
    !f.code_runs.contains(run)
        && !f.code_affixes.contains(run)
        && !other_case_is_code(run, input, f)
        && tokens::word_count(run) >= 2
        && has_frozen_word(run, input, f)
}

/// Whether a word of `run`, as written or lowercase, is frozen as a run of its own: such a
/// word may come from run-time data that keeps it (`"_CLI_COMPLETE"` compared with
/// `f"_{prog_name}_COMPLETE"` where the command is the frozen `cli`).
fn has_frozen_word(run: &str, input: &PolicyInput<'_>, f: &Findings) -> bool {
    tokens::split(run).into_iter().any(|p| match p {
        Piece::Word(w, _) => [w.to_string(), w.to_ascii_lowercase()]
            .iter()
            .any(|w| freeze_reason(w, input, f).is_some_and(|r| r != FreezeReason::Short)),
        Piece::Other(_) => false,
    })
}

/// The strings among the fragments that are whole names, not halves of a join: the string
/// shows no join, only an underscore at an end (`"_cache"`), and is a name the code uses
/// and does not freeze (`self._cache`). Strings swap such a run like the code does, so its
/// tokens need not be frozen, provided every run of its family (`name.endswith("_cache")`
/// meets `page_cache`) changes the same way (`family_member_diverges`).
pub fn whole_names<'f>(
    fragments: &'f BTreeSet<Fragment>,
    all_runs: &HashSet<&str>,
    input: &PolicyInput<'_>,
    f: &Findings,
) -> HashSet<&'f str> {
    let (candidates, others): (Vec<&Fragment>, Vec<&Fragment>) = fragments.iter().partition(|fr| {
        !fr.joined && f.code_runs.contains(&fr.run) && freeze_reason(&fr.run, input, f).is_none()
    });
    // Only the candidates' families are looked at (a large repository has thousands of
    // fragments and hundreds of thousands of runs).
    let index = FragmentIndex::new(candidates.iter().copied());
    let repo: Vec<&str> = all_runs
        .iter()
        .copied()
        .chain(input.defined.iter().map(String::as_str))
        .collect();
    let broken: HashSet<(bool, String)> = repo
        .par_iter()
        .flat_map_iter(|run| {
            index
                .matches(run)
                .into_iter()
                .filter(|m| family_member_diverges(run, m, input, f))
                .map(|m| (m.prefix, m.fixed.to_string()))
        })
        .collect();
    // A string run is whole only if every fragment read from it is.
    let not_whole: HashSet<&str> = others
        .iter()
        .chain(
            candidates
                .iter()
                .filter(|fr| broken.contains(&(fr.prefix, fr.text.clone()))),
        )
        .map(|fr| fr.run.as_str())
        .collect();
    candidates
        .iter()
        .map(|fr| fr.run.as_str())
        .filter(|r| !not_whole.contains(r))
        .collect()
}

/// The ASCII identifier runs of arbitrary bytes (a binary file's stored names). Simpler and
/// faster than the text lexer; it may find a few more runs, which only freezes more.
/// Whether the run at `start..end` of a TOML or INI file is (part of) a key: in a table or
/// section header (`[tool.pytest]`), or before the line's first `=` (INI also `:`). Values,
/// classifiers and URLs are no keys.
fn is_config_key(src: &[u8], start: usize, end: usize, ini: bool) -> bool {
    let line_start = src[..start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line_end = src[end..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(src.len(), |i| end + i);
    let line = &src[line_start..line_end];
    let trimmed = line.iter().position(|b| !b.is_ascii_whitespace());
    if trimmed.is_some_and(|i| line[i] == b'[') {
        return line[..start - line_start].iter().all(|&b| b != b']');
    }
    let sep = line.iter().position(|&b| b == b'=' || (ini && b == b':'));
    sep.is_some_and(|i| end - line_start <= i)
}

/// The repository's runs stored in a binary file as `word`: the word itself, and the runs
/// that begin it or begin it after one byte. Serialized strings sit next to bytes that happen
/// to be letters: a pickle writes `X\x0c\0\0\0time_formatsrC` (the string, then the opcode
/// `r` and a memo index), a length byte may be a letter too.
fn stored_names<'a>(word: &str, runs: &HashSet<&'a str>) -> Vec<&'a str> {
    let mut out = Vec::new();
    for skip in [0, 1] {
        let Some(w) = word.get(skip..) else { continue };
        for end in MIN_TOKEN_LEN..=w.len() {
            let Some(cand) = w.get(..end) else { continue };
            if cand.as_bytes()[0].is_ascii_digit() {
                continue;
            }
            if let Some(&r) = runs.get(cand) {
                out.push(r);
            }
        }
    }
    out
}

fn identifier_runs(b: &[u8]) -> impl Iterator<Item = &str> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    b.split(move |&c| !word(c))
        .map(|w| {
            let start = w
                .iter()
                .position(|c| !c.is_ascii_digit())
                .unwrap_or(w.len());
            &w[start..]
        })
        .filter(|w| w.len() >= MIN_TOKEN_LEN)
        .filter_map(|w| std::str::from_utf8(w).ok())
}

/// Hyphenated words of a text (`Last-Translator`, `x-y-z`): runs of letters, digits and `_`
/// joined by single hyphens.
fn hyphen_words(b: &[u8]) -> impl Iterator<Item = &str> {
    let part = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    b.split(move |&c| !part(c))
        .filter_map(|w| std::str::from_utf8(w).ok())
        .map(|w| w.trim_matches('-'))
        .filter(|w| w.contains('-') && !w.contains("--"))
}

/// A hyphenated string in lower case (`"last-translator"`, `"metadata-version"`) stays when
/// the tree holds the same words capitalised as data the view keeps (`Last-Translator:` in
/// a PO header, `Metadata-Version:` in an e-mail header): parsers lowercase such names
/// before comparing (babel, `email.message` in packaging), so the lower case must stay with
/// the data. Without it, the string swaps like its underscore form (`last_translator`, a
/// code name) while the data keeps its words. The capitalised spelling must be one the view
/// keeps: no piece of it, and not its underscore form, is a code name.
fn freeze_lower_case_of_capitalised_data(
    input: &PolicyInput<'_>,
    facts: &[FileFacts<'_>],
    f: &mut Findings,
) {
    let code: HashSet<&str> = facts
        .iter()
        .flat_map(|ff| ff.code_runs.iter().copied())
        .collect();
    let contents = input
        .python
        .iter()
        .chain(input.text.iter())
        .map(|(_, b)| *b);
    let found: BTreeSet<String> = contents
        .flat_map(hyphen_words)
        .filter(|w| w.bytes().any(|b| b.is_ascii_uppercase()))
        .filter(|w| {
            !code.contains(w.replace('-', "_").as_str()) && !w.split('-').any(|p| code.contains(p))
        })
        .map(str::to_ascii_lowercase)
        .collect();
    for lower in found {
        let underscore = lower.replace('-', "_");
        if code.contains(underscore.as_str()) && owned_tokens(&underscore).next().is_some() {
            f.frozen_runs.entry(lower).or_insert(FreezeReason::Data);
        }
    }
}

/// Words joined by hyphens in a binary file (`ld-musl-x86_64` of an ELF interpreter path), in
/// the underscore form a code name has (`ld_musl_x86_64`): text that the view groups by its
/// hyphens swaps such a group as the code name (`Renamer::swap_hyphen_group`), so a code name
/// that begins one is stored in the file too.
fn hyphen_compounds(b: &[u8]) -> impl Iterator<Item = String> + '_ {
    let part = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    b.split(move |&c| !part(c))
        .filter(|w| w.contains(&b'-'))
        .filter_map(|w| std::str::from_utf8(w).ok())
        .map(|w| w.trim_start_matches(|c: char| c.is_ascii_digit() || c == '-'))
        .filter(|w| w.len() >= MIN_TOKEN_LEN && w.contains('-'))
        .map(|w| w.replace('-', "_"))
}

/// Whether a run that outside code also names may be renamed all the same: the repository
/// uses it only as a local variable inside function bodies (no exposed occurrence in any
/// file, see `scope`), so no value ever reaches outside code under that name, and renaming
/// every occurrence consistently changes nothing outside code can observe. Builtins are
/// kept: a name that a function reads without defining it looks just like a local, and is
/// the builtin (a local `input` in one function, `input()` called in another). Without a
/// list of builtins (an environment scan that has none) nothing is released.
pub fn is_pure_local(run: &str, exposed: &HashSet<&str>, input: &PolicyInput<'_>) -> bool {
    !exposed.contains(run) && !input.builtins.is_empty() && !input.builtins.contains(run)
}

/// Why an owned run must not be renamed, if it must not.
pub fn freeze_reason(run: &str, input: &PolicyInput<'_>, f: &Findings) -> Option<FreezeReason> {
    // A frozen run followed by digits stays as the renamer keeps it (`Base2` beside the
    // outside `Base`, pytest's `option_args0`): see `Renamer::is_frozen_run`.
    let stem = run.trim_end_matches(|c: char| c.is_ascii_digit());
    if stem.len() < run.len() && !stem.is_empty() {
        if let Some(r) = freeze_reason(stem, input, f) {
            return Some(r);
        }
    }
    if is_dunder(run) {
        Some(FreezeReason::Dunder)
    } else if is_keyword(run) {
        Some(FreezeReason::Keyword)
    } else if is_tool_run(run) {
        Some(FreezeReason::Tool)
    } else if let Some(r) = f.frozen_runs.get(run) {
        Some(*r)
    } else if input.env_names.contains(run) {
        Some(FreezeReason::Outside)
    } else if owned_tokens(run).next().is_none() {
        Some(FreezeReason::Short)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_imports() {
        let src = b"import os.path as p, sys\nfrom collections import (OrderedDict,\n    defaultdict as dd)\nfrom . import sibling\nfrom ..pkg.mod import thing; x = 1\n";
        let imps = imports(src);
        assert_eq!(imps.len(), 4, "{imps:?}");
        assert_eq!(imps[0].module, ["os", "path", "sys"]);
        assert_eq!(imps[1].module, ["collections"]);
        assert_eq!(imps[1].names, ["OrderedDict", "defaultdict"]);
        assert_eq!(imps[2].level, 1);
        assert_eq!(imps[2].names, ["sibling"]);
        assert_eq!(imps[3].level, 2);
        assert_eq!(imps[3].module, ["pkg", "mod"]);
        assert_eq!(imps[3].names, ["thing"]);
    }

    #[test]
    fn import_inside_a_string_is_not_an_import() {
        let src = b"doc = '''\nimport secret_mod\n'''\n";
        assert!(imports(src).is_empty());
    }

    fn set(xs: &[&str]) -> BTreeSet<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    /// A tree's policy input with nothing from the environment: fields a test needs are set
    /// over it (`PolicyInput { python: ..., ..tree(&own, &defined) }`).
    fn tree<'a>(own: &'a BTreeSet<String>, defined: &'a BTreeSet<String>) -> PolicyInput<'a> {
        static NONE: BTreeSet<String> = BTreeSet::new();
        PolicyInput {
            python: vec![],
            text: vec![],
            binary: vec![],
            names: vec![],
            own_modules: own,
            env_modules: &NONE,
            env_names: &NONE,
            builtins: &NONE,
            release_locals: false,
            tree_modules: own,
            user: &[],
            defined,
            data_words: &NONE,
        }
    }

    #[test]
    fn outside_module_is_decided_by_import_roots_not_file_names() {
        let own = set(&["shop"]);
        let env = set(&["os", "json"]);
        let tree = set(&["shop", "os", "helpers"]);
        let names = BTreeSet::new();
        let input = PolicyInput {
            python: vec![],
            text: vec![],
            binary: vec![],
            names: vec![],
            own_modules: &own,
            env_modules: &env,
            env_names: &names,
            builtins: &BTreeSet::new(),
            release_locals: true,
            tree_modules: &tree,
            user: &[],
            defined: &names,
            data_words: &BTreeSet::new(),
        };
        // A tests/os/ folder does not make `import os` the repository's own.
        assert!(is_outside_module("os", &input));
        assert!(!is_outside_module("shop", &input));
        // A sibling module that the environment does not provide is the repository's.
        assert!(!is_outside_module("helpers", &input));
        assert!(is_outside_module("numpy", &input));
    }

    /// A string literal in code naming a key that a configuration file keeps stays (INI
    /// without case): versioneer reads `[versioneer] VCS = git` from setup.cfg by the strings
    /// `"versioneer"` and `"VCS"`, and the key does not change in the view.
    #[test]
    fn strings_naming_configuration_keys_stay() {
        let own = set(&["versioneer", "tool"]);
        let defined = set(&[
            "versioneer",
            "get_config",
            "parser",
            "VCS",
            "tool",
            "style",
            "Tool",
        ]);
        let py: &[u8] = b"def get_config(parser):\n    VCS = parser.get(\"versioneer\", \"VCS\")\n    return VCS, \"style\", \"Tool\"\n\nclass Tool:\n    pass\n";
        let cfg: &[u8] = b"[versioneer]\nvcs = git\nstyle = pep440\n[metadata]\nclassifiers = Framework :: Tool\n";
        let input = PolicyInput {
            python: vec![("versioneer.py", py), ("tool.py", b"x = 1\n")],
            text: vec![("setup.cfg", cfg)],
            binary: vec![],
            names: vec!["versioneer.py", "tool.py", "setup.cfg"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &set(&["get"]),
            builtins: &BTreeSet::new(),
            release_locals: false,
            tree_modules: &own,
            user: &[],
            defined: &defined,
            data_words: &BTreeSet::new(),
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("versioneer"), Some(&FreezeReason::Config));
        assert_eq!(f.frozen_runs.get("VCS"), Some(&FreezeReason::Config));
        // `style` is a key of the file too.
        assert_eq!(f.frozen_runs.get("style"), Some(&FreezeReason::Config));
        assert!(f.owned_runs.contains("get_config"));
        assert!(
            f.owned_runs.contains("tool"),
            "not named in a string: stays renamed"
        );
    }

    /// A key a TOML data file keeps stays in other data too: tomlkit's spec tests compare the
    /// parse of `bare_key = "value"` with a JSON file keyed `"bare_key"`. A key of the root's
    /// tool configuration is no such data (see `outside_names_used_only_as_locals_are_renamed`).
    #[test]
    fn keys_of_configuration_files_stay_in_other_data() {
        let own = set(&["parser"]);
        let defined = set(&["bare_word", "key_name", "parse"]);
        let py: &[u8] = b"def parse(bare_word, key_name):\n    return bare_word, key_name\n";
        let toml: &[u8] = b"bare_key = \"value\"\n";
        let json: &[u8] = b"{\"bare_key\": {\"type\": \"string\", \"value\": \"value\"}}\n";
        let input = PolicyInput {
            python: vec![("parser.py", py)],
            text: vec![("tests/key.toml", toml), ("tests/key.json", json)],
            binary: vec![],
            names: vec!["parser.py", "key.toml", "key.json"],
            ..tree(&own, &defined)
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("bare_key"), Some(&FreezeReason::Config));
        assert!(f.owned_runs.contains("bare_word") && f.owned_runs.contains("key_name"));
        let without_toml = PolicyInput {
            text: vec![("tests/key.json", json)],
            ..input
        };
        assert!(!analyze(&without_toml).frozen_runs.contains_key("bare_key"));
    }

    /// SQL keywords and upper-case words of outside data in strings stay, though the code
    /// uses their lower case (`deferred`, `double`) as names of its own.
    #[test]
    fn sql_keywords_and_upper_case_data_words_stay() {
        let own = set(&["backend"]);
        let defined = set(&["deferred", "double", "ledger"]);
        let data = set(&["double", "struck", "capital"]);
        let py: &[u8] = b"deferred = 1\ndouble = 2\nledger = 3\nSQL = 'DEFERRABLE INITIALLY DEFERRED'\nN = lookup('DOUBLE-STRUCK CAPITAL N')\nL = 'LEDGER'\n";
        let input = PolicyInput {
            python: vec![("backend.py", py)],
            text: vec![],
            binary: vec![],
            names: vec!["backend.py"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &set(&["lookup"]),
            builtins: &BTreeSet::new(),
            release_locals: false,
            tree_modules: &own,
            user: &[],
            defined: &defined,
            data_words: &data,
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("DEFERRED"), Some(&FreezeReason::Keyword));
        assert_eq!(f.frozen_runs.get("DOUBLE"), Some(&FreezeReason::Outside));
        assert!(!f.frozen_runs.contains_key("LEDGER"));
        assert!(f.owned_runs.contains("deferred") && f.owned_runs.contains("double"));
    }

    /// A URI scheme is data a browser reads: markdown's `mailto = "mailto:" + email` keeps
    /// both the local and the string.
    #[test]
    fn uri_schemes_stay() {
        let own = set(&["links"]);
        let defined = set(&["mailto", "anchor"]);
        let py: &[u8] = b"def anchor(email):\n    mailto = 'mailto:' + email\n    return mailto\n";
        let input = PolicyInput {
            python: vec![("links.py", py)],
            text: vec![],
            binary: vec![],
            names: vec!["links.py"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &BTreeSet::new(),
            builtins: &BTreeSet::new(),
            release_locals: false,
            tree_modules: &own,
            user: &[],
            defined: &defined,
            data_words: &BTreeSet::new(),
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("mailto"), Some(&FreezeReason::Keyword));
        assert!(!f.owned_runs.contains("mailto") && f.owned_runs.contains("anchor"));
    }

    /// An upper-case run that spells an outside name with capitals stays: pyflakes dispatches
    /// on `type(node).__name__.upper()`, so its handler `FUNCTIONDEF` is named after the
    /// outside `ast.FunctionDef`.
    #[test]
    fn upper_case_spellings_of_outside_names_stay() {
        let own = set(&["checker"]);
        let defined = set(&["FUNCTIONDEF", "Checker", "handle", "SHELFCODE"]);
        let env = set(&["FunctionDef", "shelfcode"]);
        let py: &[u8] = b"class Checker:\n    def handle(self, node):\n        return getattr(self, type(node).__name__.upper())(node)\n    def FUNCTIONDEF(self, node):\n        return node\n    SHELFCODE = 1\n";
        let input = PolicyInput {
            python: vec![("checker.py", py)],
            text: vec![],
            binary: vec![],
            names: vec!["checker.py"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &env,
            builtins: &BTreeSet::new(),
            release_locals: false,
            tree_modules: &own,
            user: &[],
            defined: &defined,
            data_words: &BTreeSet::new(),
        };
        let f = analyze(&input);
        assert_eq!(
            f.frozen_runs.get("FUNCTIONDEF"),
            Some(&FreezeReason::Outside)
        );
        // Only names with capitals count: an all-lower outside word frees its upper spelling.
        assert!(f.owned_runs.contains("SHELFCODE"), "{:?}", f.owned_runs);
        assert!(f.owned_runs.contains("handle"));
    }

    /// A string literal that is a word of outside data (a Unicode character name's word) stays:
    /// sympy builds `unicodedata.lookup("GREEK SMALL LETTER " + name.upper())` from `"lamda"`.
    #[test]
    fn strings_that_are_words_of_outside_data_stay() {
        let own = set(&["symbology"]);
        let defined = set(&["lamda", "greek_letters", "pretty_name"]);
        let data = set(&["lamda", "greek", "letter"]);
        let py: &[u8] = b"greek_letters = ['alpha', 'lamda']\nlamda = 3\n\ndef pretty_name(x):\n    return 'pretty_name'\n";
        let input = PolicyInput {
            python: vec![("symbology.py", py)],
            text: vec![],
            binary: vec![],
            names: vec!["symbology.py"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &BTreeSet::new(),
            builtins: &BTreeSet::new(),
            release_locals: false,
            tree_modules: &own,
            user: &[],
            defined: &defined,
            data_words: &data,
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("lamda"), Some(&FreezeReason::Outside));
        assert!(f.owned_runs.contains("pretty_name"), "{:?}", f.owned_runs);
    }

    /// A name stored in a binary file next to bytes that happen to be letters (a pickle's
    /// `X\x0c\0\0\0time_formatsrC`) is still a stored name, frozen like any other.
    #[test]
    fn names_stored_in_pickles_are_found() {
        let own = set(&["dates"]);
        let defined = set(&["time_formats", "Locale", "date_formats"]);
        let py: &[u8] = b"class Locale:\n    @property\n    def time_formats(self):\n        return self._data['time_formats']\n    date_formats = None\n";
        let blob: &[u8] = b"\x80\x02}q\x00(X\x0c\x00\x00\x00time_formatsrC\x0f\x00\x00}";
        let input = PolicyInput {
            python: vec![("dates.py", py)],
            text: vec![],
            binary: vec![blob],
            names: vec!["dates.py", "en.dat"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &BTreeSet::new(),
            builtins: &BTreeSet::new(),
            release_locals: false,
            tree_modules: &own,
            user: &[],
            defined: &defined,
            data_words: &BTreeSet::new(),
        };
        let f = analyze(&input);
        assert_eq!(
            f.frozen_runs.get("time_formats"),
            Some(&FreezeReason::Binary)
        );
        assert!(f.owned_runs.contains("date_formats"), "{:?}", f.owned_runs);
    }

    /// A hyphenated name stored in a binary file (an ELF interpreter `/lib/ld-musl-x86_64.so.1`)
    /// keeps the code name its underscore form begins (`ld_musl`, a test's argument): strings
    /// swap `ld-musl` as that code name, and the file's bytes never change.
    #[test]
    fn hyphenated_names_stored_in_binary_files_are_found() {
        let own = set(&["test_elf"]);
        let defined = set(&["test_interpreter", "ld_musl", "interpreter"]);
        let py: &[u8] = b"def test_interpreter(ld_musl, interpreter):\n    assert interpreter == f'/lib/ld-musl-{ld_musl}.so.1'\n";
        let blob: &[u8] = b"\x7fELF\x02\x01\x00\x00/lib/ld-musl-x86_64.so.1\x00\x00";
        let input = PolicyInput {
            python: vec![("test_elf.py", py)],
            text: vec![],
            binary: vec![blob],
            names: vec!["test_elf.py", "musl-x86_64"],
            ..tree(&own, &defined)
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("ld_musl"), Some(&FreezeReason::Binary));
        assert!(f.owned_runs.contains("interpreter"), "{:?}", f.owned_runs);
        let text_only = PolicyInput {
            binary: vec![],
            ..input
        };
        assert!(analyze(&text_only).owned_runs.contains("ld_musl"));
    }

    /// A codec name in a string stays (Django decodes WSGI paths with
    /// `path.decode("iso-8859-1")`; with its own `iso` renamed the codec was unknown), and so
    /// does the word wherever the code spells it; a word that only looks like one does not.
    #[test]
    fn codec_names_in_strings_stay() {
        let own = set(&["client"]);
        let defined = set(&["iso", "get_path", "latin"]);
        let py: &[u8] = b"def get_path(path, iso, latin):\n    return path.decode(\"iso-8859-1\"), \"latin pie\"\n";
        let codecs = set(&["iso_8859_1", "latin_1", "utf_8"]);
        let env = set(&["decode", "path"]);
        let input = PolicyInput {
            python: vec![("client.py", py)],
            text: vec![],
            binary: vec![],
            names: vec!["client.py"],
            env_names: &env,
            data_words: &codecs,
            ..tree(&own, &defined)
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("iso"), Some(&FreezeReason::Outside));
        assert!(f.owned_runs.contains("latin"), "{:?}", f.frozen_runs);
        assert!(f.owned_runs.contains("get_path"));
        let no_codecs = PolicyInput {
            data_words: &BTreeSet::new(),
            ..input
        };
        assert!(analyze(&no_codecs).owned_runs.contains("iso"));
    }

    /// A gettext catalog freezes the names of its original strings (what `gettext` looks up)
    /// and nothing of its translations or header: Django's 1,204 catalogs all say
    /// `Project-Id-Version: django`, and every translated word used to freeze its spelling.
    #[test]
    fn catalogs_freeze_only_their_original_strings() {
        let own = set(&["shop"]);
        let defined = set(&["Cart", "Warenkorb", "shop", "checkout"]);
        let py: &[u8] = b"class Cart:\n    pass\n\nclass Warenkorb:\n    pass\n\ndef checkout():\n    return _('Cart')\n";
        let mo = super::super::catalog::tests::catalog(&[
            ("", "Project-Id-Version: shop\n"),
            ("Cart", "Warenkorb"),
        ]);
        let input = PolicyInput {
            python: vec![("shop.py", py)],
            text: vec![],
            binary: vec![&mo],
            names: vec!["shop.py", "django.mo"],
            ..tree(&own, &defined)
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("Cart"), Some(&FreezeReason::Binary));
        assert!(f.owned_runs.contains("Warenkorb"), "{:?}", f.frozen_runs);
        assert!(f.owned_runs.contains("shop"), "{:?}", f.frozen_runs);
        // A binary file that is no catalog still freezes every name it stores.
        let mut not_mo = mo.clone();
        not_mo[0] = 0;
        let input = PolicyInput {
            binary: vec![&not_mo],
            ..input
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("Warenkorb"), Some(&FreezeReason::Binary));
    }

    /// Every extension of a name in the tree is frozen wherever it appears: file names keep
    /// their extensions, and code builds or reads them as data (`name + ".toml"`,
    /// `case["toml"]`), so a package named like one keeps that word.
    #[test]
    fn extensions_of_the_trees_names_are_frozen_everywhere() {
        let own = set(&["toml"]);
        let defined = set(&["toml", "load_case", "case"]);
        let src: &[u8] =
            b"def load_case(case):\n    return case[\"toml\"], case[\"name\"] + \".toml\"\n";
        let input = PolicyInput {
            python: vec![("toml/cases.py", src)],
            text: vec![],
            binary: vec![],
            names: vec!["toml", "cases.py", "tests", "books.toml", "archive.tar.gz"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &BTreeSet::new(),
            builtins: &BTreeSet::new(),
            release_locals: false,
            tree_modules: &own,
            user: &[],
            defined: &defined,
            data_words: &BTreeSet::new(),
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("toml"), Some(&FreezeReason::Extension));
        assert_eq!(f.frozen_runs.get("gz"), Some(&FreezeReason::Extension));
        assert!(!f.owned_runs.contains("toml"), "{:?}", f.owned_runs);
        assert!(f.owned_runs.contains("load_case"));
    }

    /// The renamer keeps a frozen run followed by digits (`Base2` beside the outside `Base`),
    /// so the policy must not count such a run as renamed (the bundle's `owned_runs` is what
    /// the leak tests check the view against).
    #[test]
    fn a_frozen_name_with_digits_is_not_owned() {
        let own = set(&["shop"]);
        let names = set(&["Base"]);
        let defined = set(&["Base2", "Basket2"]);
        let src: &[u8] = b"class Base2(object):\n    pass\nclass Basket2(Base2):\n    pass\n";
        let input = PolicyInput {
            python: vec![("shop/kinds.py", src)],
            text: vec![],
            binary: vec![],
            names: vec!["shop", "kinds.py"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &names,
            builtins: &BTreeSet::new(),
            release_locals: false,
            tree_modules: &own,
            user: &[],
            defined: &defined,
            data_words: &BTreeSet::new(),
        };
        let f = analyze(&input);
        assert!(f.frozen_owned.contains("Base2"), "{:?}", f.owned_runs);
        assert!(!f.owned_runs.contains("Base2"));
        assert!(f.owned_runs.contains("Basket2"));
    }

    /// A letter repeated is a placeholder, never a token to map: `bbb` and `xxx_aaa` stay,
    /// and a run with a real word beside one maps only the word.
    #[test]
    fn placeholders_are_not_tokens() {
        let own = set(&["shop"]);
        let defined = set(&["bbb", "xxx_aaa", "basket_bbb"]);
        let src: &[u8] = b"bbb = 1\nxxx_aaa = 2\nbasket_bbb = 3\nprint(\"AAA\\nBBB\")\n";
        let input = PolicyInput {
            python: vec![("shop/kinds.py", src)],
            text: vec![],
            binary: vec![],
            names: vec!["shop", "kinds.py"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &BTreeSet::new(),
            builtins: &BTreeSet::new(),
            release_locals: false,
            tree_modules: &own,
            user: &[],
            defined: &defined,
            data_words: &BTreeSet::new(),
        };
        let f = analyze(&input);
        assert!(!f.owned_tokens.contains("bbb"), "{:?}", f.owned_tokens);
        assert!(!f.owned_tokens.contains("aaa"));
        assert!(f.owned_tokens.contains("basket"));
        assert!(f.frozen_owned.contains("bbb"));
        assert!(f.frozen_owned.contains("xxx_aaa"));
        assert!(f.owned_runs.contains("basket_bbb"));
    }

    #[test]
    fn analyze_freezes_by_reason_and_owns_the_rest() {
        let own = set(&["shop"]);
        let env = set(&["json"]);
        let tree = set(&["shop", "cart_items"]);
        let names = set(&["dumps", "get"]);
        let defined = set(&["CartTotal", "setUp", "self", "price_total", "get"]);
        let src: &[u8] = b"import json\nfrom json import dumps\nclass CartTotal:\n    def setUp(self):\n        return json.dumps(self.get(), price_total=1)\n";
        let input = PolicyInput {
            python: vec![("shop/cart_items.py", src)],
            text: vec![],
            binary: vec![],
            names: vec!["shop", "cart_items.py"],
            own_modules: &own,
            env_modules: &env,
            env_names: &names,
            builtins: &BTreeSet::new(),
            release_locals: true,
            tree_modules: &tree,
            user: &["price_total".to_string()],
            defined: &defined,
            data_words: &BTreeSet::new(),
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs["json"], FreezeReason::Imported);
        assert_eq!(f.frozen_runs["dumps"], FreezeReason::Imported);
        assert_eq!(f.frozen_runs["get"], FreezeReason::Outside);
        assert!(f.frozen_owned.contains("get"));
        assert_eq!(f.frozen_runs["setUp"], FreezeReason::Tool);
        assert_eq!(f.frozen_runs["class"], FreezeReason::Keyword);
        assert_eq!(f.frozen_runs["price_total"], FreezeReason::User);
        assert!(f.owned_runs.contains("CartTotal"));
        assert!(f.owned_runs.contains("cart_items"));
        assert!(f.owned_tokens.contains("cart") && f.owned_tokens.contains("total"));
        assert!(!f.owned_tokens.contains("test"));
        assert!(f.seen_tokens.contains("dumps"));
        assert!(f.local_runs.is_empty());
    }

    #[test]
    fn outside_names_used_only_as_locals_are_renamed() {
        let own = set(&["shop"]);
        let tree = set(&["shop", "cart"]);
        let env = set(&["result", "items", "total", "input", "missing"]);
        let builtins = set(&["input"]);
        let defined = set(&[
            "result",
            "items",
            "total",
            "input",
            "summary",
            "missing",
            "visit_missing",
        ]);
        // `result` is only ever a local; `items` is a local here but an attribute in another
        // file; `total` is a parameter; `input` is a local but also a builtin; `missing` is
        // a local whose run-time part of a dynamic family is an outside name.
        let cart: &[u8] = b"def summary(total):
    result = total * 2
    items = [result]
    input = items
    return input
";
        let other: &[u8] = b"def show(order):
    return order.items()
";
        let dynamic: &[u8] = b"class V:
    def visit_missing(self):
        missing = 1
        return missing
    def go(self, k):
        return getattr(self, 'visit_' + k)
";
        let input = PolicyInput {
            python: vec![
                ("shop/cart.py", cart),
                ("shop/other.py", other),
                ("shop/v.py", dynamic),
            ],
            text: vec![],
            binary: vec![],
            names: vec!["shop", "cart.py", "other.py", "v.py"],
            own_modules: &own,
            env_modules: &BTreeSet::new(),
            env_names: &env,
            builtins: &builtins,
            release_locals: true,
            tree_modules: &tree,
            user: &[],
            defined: &defined,
            data_words: &BTreeSet::new(),
        };
        let f = analyze(&input);
        assert!(f.owned_runs.contains("result"), "{f:?}");
        assert!(f.local_runs.contains("result"));
        assert!(!f.frozen_runs.contains_key("result"));
        for kept in ["items", "total", "input"] {
            assert_eq!(
                f.frozen_runs.get(kept),
                Some(&FreezeReason::Outside),
                "{kept}"
            );
            assert!(f.frozen_owned.contains(kept) && !f.local_runs.contains(kept));
        }
        // `visit_missing` is looked up by a name built from data outside code may make.
        assert!(f.local_runs.contains("missing"));
        assert_eq!(
            f.frozen_runs.get("visit_missing"),
            Some(&FreezeReason::Dynamic)
        );
        // A text file or a path naming the run exposes it too.
        let text: &[u8] = b"result: 1\n";
        let input = PolicyInput {
            text: vec![("notes.txt", text)],
            ..input
        };
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("result"), Some(&FreezeReason::Outside));
        // A tool key of a configuration file is the tool's word, not a use of the name.
        let toml: &[u8] = b"[tool.x]\nresult = 1\n";
        let input = PolicyInput {
            text: vec![("pyproject.toml", toml)],
            ..input
        };
        assert!(analyze(&input).local_runs.contains("result"));
        let input = PolicyInput {
            text: vec![],
            binary: vec![],
            names: vec!["shop", "result.py"],
            ..input
        };
        assert!(analyze(&input).frozen_owned.contains("result"));
    }
}

#[cfg(test)]
mod dynamic_tests {
    use super::*;

    fn set(xs: &[&str]) -> BTreeSet<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    static NONE: BTreeSet<String> = BTreeSet::new();

    /// A repository of one Python file, with these outside and defined names.
    pub(super) fn one_file<'a>(
        src: &'a [u8],
        env_names: &'a BTreeSet<String>,
        defined: &'a BTreeSet<String>,
    ) -> PolicyInput<'a> {
        PolicyInput {
            python: vec![("pkg/mod.py", src)],
            text: vec![],
            binary: vec![],
            names: vec![],
            own_modules: &NONE,
            env_modules: &NONE,
            env_names,
            builtins: &NONE,
            release_locals: false,
            tree_modules: &NONE,
            user: &[],
            defined,
            data_words: &NONE,
        }
    }

    #[test]
    fn fragments_that_build_names_are_found() {
        let src = br#"
a = getattr(self, "clean_%s" % name)
b = getattr(v, "visit_" + kind)
c = f"get_{field}_display"
d = "%s_ident" % x
e = kind + "_suffix"
g = "plain words only"
h = "prefix" + tail
"#;
        let t: Vec<String> = dynamic_fragments(src)
            .iter()
            .flat_map(|f| f.tokens().collect::<Vec<_>>())
            .collect();
        for w in [
            "clean", "visit", "get", "display", "ident", "suffix", "prefix",
        ] {
            assert!(t.iter().any(|x| x == w), "missing {w}: {t:?}");
        }
        for w in ["plain", "words", "only"] {
            assert!(!t.iter().any(|x| x == w), "unexpected {w}");
        }
    }

    /// Names that stored data or Python make from repository names stay: a name inside a
    /// binary file (a zip member), and the tail of a dunder name.
    #[test]
    fn names_data_or_python_make_stay() {
        let src: &[u8] = br#"
def loader(templates):
    return "templates", "dunder_default__"
"#;
        let zip: &[u8] = b"PK\x03\x04\x00\x00t_pack/templates/foo.html\x00\x01";
        let defined = set(&["loader", "templates"]);
        let names = set(&["name"]);
        let input = PolicyInput {
            binary: vec![zip],
            ..one_file(src, &names, &defined)
        };
        let f = analyze(&input);
        assert!(f.owned_runs.contains("loader"));
        // A name stored in a binary file, and the tail of a dunder name.
        assert_eq!(f.frozen_runs.get("templates"), Some(&FreezeReason::Binary));
        assert!(f.frozen_owned.contains("templates"));
        assert_eq!(
            freeze_reason("dunder_default__", &input, &f),
            Some(FreezeReason::Dunder)
        );
    }

    /// A quoted dunder is not a fragment, and neither is a quoted name the code uses whose
    /// family changes with it; a quoted name the code does not use still freezes its tokens.
    #[test]
    fn whole_names_in_strings_are_not_fragments() {
        let frag = |src: &[u8]| {
            dynamic_fragments(src)
                .into_iter()
                .map(|f| f.text)
                .collect::<Vec<_>>()
        };
        assert!(frag(b"getattr(cls, '__init__')\n").is_empty());
        assert_eq!(frag(b"x = f'{name}__init__'\n"), ["__init__"]);

        let src: &[u8] = br#"
class Shelf:
    def __init__(self):
        self._cache = {}
        self._index = {}
    def page_cache(self):
        return [n for n in dir(self) if n.endswith("_cache")]
    def stored(self, name):
        return getattr(self, "_index"), name.endswith("_store"), name.endswith("_index")
    def lru_index(self):
        return getattr(self, "_cache")
"#;
        let defined = set(&[
            "Shelf",
            "_cache",
            "_index",
            "page_cache",
            "stored",
            "name",
            "lru_index",
        ]);
        let names = set(&["name", "lru_index", "dir", "getattr"]);
        let input = one_file(src, &names, &defined);
        let f = analyze(&input);
        // `"_cache"` is the attribute `_cache`: strings swap it with the code, and
        // `page_cache` ends with it word for word.
        assert!(
            !f.frozen_tokens.contains_key("cache"),
            "{:?}",
            f.frozen_tokens
        );
        assert!(f.owned_runs.contains("_cache") && f.owned_runs.contains("page_cache"));
        // `"_store"` names nothing the code uses: a fragment, frozen as before.
        assert_eq!(f.frozen_tokens.get("store"), Some(&FreezeReason::Dynamic));
        // `"_index"` is a name too, but `lru_index` (an outside name, so frozen) ends with
        // it and would keep `_index` while strings change it.
        assert_eq!(f.frozen_tokens.get("index"), Some(&FreezeReason::Dynamic));
    }

    /// Only a join seen in a string makes a family run depend on data: names that a string
    /// merely compares with (`endswith("_validator")`) are renamed, the fragment's tokens
    /// frozen; names that a join builds from a data word stay.
    #[test]
    fn only_seen_joins_freeze_family_runs() {
        let src: &[u8] = br#"
def member_validator(x):
    return x

def is_check(name):
    return name.endswith("_validator")

def lookup(obj, word):
    return getattr(obj, word + "_hook")

def member_hook(x):
    return x
"#;
        let defined = set(&[
            "member_validator",
            "is_check",
            "lookup",
            "member_hook",
            "word",
        ]);
        let env = set(&["x", "name", "obj", "getattr"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert_eq!(
            f.frozen_tokens.get("validator"),
            Some(&FreezeReason::Dynamic)
        );
        assert_eq!(f.frozen_tokens.get("hook"), Some(&FreezeReason::Dynamic));
        // `member_validator` keeps `_validator` and still ends with it when renamed.
        assert!(
            f.owned_runs.contains("member_validator"),
            "{:?}",
            f.frozen_runs
        );
        // `member` may come from data (`word`), which strings keep: `member_hook` stays.
        assert_eq!(
            f.frozen_runs.get("member_hook"),
            Some(&FreezeReason::Dynamic)
        );
    }

    /// A run the code names but never defines (`func.example_impl`, an attribute outside
    /// code sets with `setattr(func, project + "_impl", ...)`) is still renamed wherever one
    /// of its tokens is mapped; when it belongs to a joined fragment's family whose run-time
    /// part strings keep (`"example"`), it stays.
    #[test]
    fn undefined_runs_of_a_dynamic_family_stay() {
        let src: &[u8] = br#"
class Marker:
    def __init__(self, project_name):
        self.project_name = project_name
    def mark(self, func):
        setattr(func, self.project_name + "_impl", True)
        return func

def example_runner(func):
    return func.example_impl

marker = Marker("example")
"#;
        let defined = set(&[
            "Marker",
            "project_name",
            "mark",
            "func",
            "example_runner",
            "marker",
        ]);
        let env = set(&["setattr"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert!(f.owned_tokens.contains("example"), "{:?}", f.owned_tokens);
        assert_eq!(
            f.frozen_runs.get("example_impl"),
            Some(&FreezeReason::Dynamic)
        );
    }

    /// A CamelCase name whose lower-case join stays (an outside name) stays too.
    #[test]
    fn a_camel_case_name_stays_with_its_outside_join() {
        let src: &[u8] = b"class SelfRef:\n    pass\n\nclass ShelfRow:\n    pass\n";
        let defined = set(&["SelfRef", "ShelfRow"]);
        let env = set(&["selfref"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("SelfRef"), Some(&FreezeReason::Outside));
        assert!(f.owned_runs.contains("ShelfRow"));
        assert!(
            f.code_runs.contains("shelfrow"),
            "its join is a name the code uses"
        );
    }

    /// A CamelCase name that stays (here stored in a binary catalog) keeps its lower-case
    /// join, which migrations hold as a model name.
    #[test]
    fn a_frozen_camel_case_name_keeps_its_lower_case_join() {
        let src: &[u8] = b"class LogEntry:\n    pass\n\nMIGRATION = dict(model_name='logentry')\nlogentry = LogEntry()\n";
        let defined = set(&["LogEntry", "MIGRATION", "logentry"]);
        let mut input = one_file(src, &NONE, &defined);
        let blob: &[u8] = b"\x00msgid LogEntry\x00";
        input.binary = vec![blob];
        let f = analyze(&input);
        assert_eq!(f.frozen_runs.get("LogEntry"), Some(&FreezeReason::Binary));
        assert_eq!(f.frozen_tokens.get("logentry"), Some(&FreezeReason::Binary));
        assert!(!f.owned_runs.contains("logentry"), "{:?}", f.owned_runs);
        assert!(f.owned_runs.contains("MIGRATION"));
    }

    /// A family member whose run-time part is upper-case data that strings swap (its lower
    /// case is a code name: dateutil's `"_handle_" + name.upper()` with the keyword `freq`)
    /// is renamed with it, not frozen.
    #[test]
    fn family_members_built_from_upper_case_data_follow_it() {
        let src: &[u8] = br#"
class Parser:
    def parse(self, name, freq=None):
        return getattr(self, "_handle_" + name.upper())(freq)
    def _handle_FREQ(self, freq):
        return freq
"#;
        let defined = set(&["Parser", "parse", "name", "freq", "_handle_FREQ"]);
        let env = set(&["getattr", "upper"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert!(
            !f.frozen_runs.contains_key("_handle_FREQ"),
            "{:?}",
            f.frozen_runs.get("_handle_FREQ")
        );
        assert!(f.owned_runs.contains("_handle_FREQ"));
    }

    /// The same family member stays when the lower case of its run-time part is frozen
    /// (dateutil's `_handle_INTERVAL`, whose data ends as the outside keyword `interval=`):
    /// strings keep `"INTERVAL"`, so the name built from it must keep it too.
    #[test]
    fn family_members_built_from_upper_case_data_of_a_frozen_name_stay() {
        let src: &[u8] = br#"
class Parser:
    def parse(self, name, interval=None):
        self._interval = interval
        return getattr(self, "_handle_" + name.upper())(interval)
    def _handle_INTERVAL(self, interval):
        return interval
"#;
        let defined = set(&["Parser", "parse", "name", "_interval", "_handle_INTERVAL"]);
        let env = set(&["getattr", "upper", "interval"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert_eq!(
            f.frozen_runs.get("_handle_INTERVAL"),
            Some(&FreezeReason::Dynamic),
            "{:?}",
            f.owned_runs
        );
    }

    /// A class and the member its lower case names stay together (sqlparse's
    /// `"_process_{cls}".format(cls=type(x).__name__).lower()`): `_process_where` is frozen
    /// because `where` is an outside name, so `Where` stays too; the frozen class `Over`
    /// (an outside name) keeps `_process_over`, though `over` alone would be renamed. A class
    /// with no frozen partner is renamed with its member (`ledger` is a code name, which
    /// strings swap, so `_process_ledger` is not built from data).
    #[test]
    fn a_class_and_the_member_named_after_its_lower_case_stay_together() {
        let src: &[u8] = br#"
class Where:
    pass
class Over:
    pass
class Ledger:
    pass
ledger = Ledger()
class Filter:
    def process(self, node, over):
        name = "_process_{cls}".format(cls=type(node).__name__)
        return getattr(self, name.lower())(over)
    def _process_where(self, node):
        return node
    def _process_over(self, node):
        return node
    def _process_ledger(self, node):
        return node
"#;
        let defined = set(&[
            "Where",
            "Over",
            "Ledger",
            "Filter",
            "process",
            "node",
            "over",
            "name",
            "_process_where",
            "_process_over",
            "_process_ledger",
            "ledger",
        ]);
        let env = set(&["getattr", "lower", "format", "type", "where", "Over"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert_eq!(
            f.frozen_runs.get("_process_where"),
            Some(&FreezeReason::Dynamic)
        );
        assert_eq!(f.frozen_runs.get("Where"), Some(&FreezeReason::Dynamic));
        assert_eq!(
            f.frozen_runs.get("_process_over"),
            Some(&FreezeReason::Dynamic)
        );
        assert!(
            f.owned_runs.contains("over"),
            "{:?}",
            f.frozen_runs.get("over")
        );
        assert!(f.owned_runs.contains("Ledger") && f.owned_runs.contains("_process_ledger"));
    }

    /// A placeholder in the middle of a literal makes an infix family (cssselect's
    /// `"xpath_%s_combinator" % mapping[c]` and `"xpath_%s_function" %
    /// name.replace("-", "_")`): the middle is the run-time part, so
    /// `xpath_child_combinator` stays with the outside `child` its data holds, and
    /// `xpath_nth_last_child_function` with the hyphenated data `"nth-last-child"` (a frozen
    /// word in a compound strings keep). A member whose middle is a code name
    /// (`xpath_ledger_combinator`) is renamed.
    #[test]
    fn a_placeholder_inside_a_literal_makes_an_infix_family() {
        let src: &[u8] = br#"
MAPPING = {">": "child", "~": "ledger"}
PSEUDO = ":nth-last-child("
class Translator:
    def combine(self, c):
        return getattr(self, "xpath_%s_combinator" % MAPPING[c])()
    def function(self, name):
        return getattr(self, "xpath_%s_function" % name.replace("-", "_"))()
    def xpath_child_combinator(self):
        return 1
    def xpath_ledger_combinator(self):
        return ledger
    def xpath_nth_last_child_function(self):
        return 2
"#;
        let defined = set(&[
            "MAPPING",
            "PSEUDO",
            "Translator",
            "combine",
            "function",
            "xpath_child_combinator",
            "xpath_ledger_combinator",
            "xpath_nth_last_child_function",
            "ledger",
        ]);
        let env = set(&["getattr", "replace", "name", "child", "c"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        for kept in ["xpath_child_combinator", "xpath_nth_last_child_function"] {
            assert_eq!(
                f.frozen_runs.get(kept),
                Some(&FreezeReason::Dynamic),
                "{kept}"
            );
        }
        assert!(f.owned_runs.contains("xpath_ledger_combinator"));
    }

    /// The lower case of a capitalised header the tree keeps is data (babel compares
    /// `name == 'last-translator'` with a PO header lowercased): `last-translator` is frozen
    /// as `Data` when `Last-Translator` is no code name and `last_translator` is one. A
    /// capitalised spelling the view renames (`Shelf-Count`, `Shelf` being a class) freezes
    /// nothing.
    #[test]
    fn lower_case_of_capitalised_headers_is_data() {
        let src: &[u8] = br#"
class Shelf:
    def __init__(self, last_translator, shelf_count):
        self.last_translator = last_translator
        self.shelf_count = shelf_count
    def headers(self):
        return [("Last-Translator", self.last_translator), ("Shelf-Count", self.shelf_count)]
    def read(self, name, value):
        if name.lower() == "last-translator":
            self.last_translator = value
        elif name.lower() == "shelf-count":
            self.shelf_count = value
"#;
        let defined = set(&["Shelf", "last_translator", "shelf_count", "headers", "read"]);
        let env = set(&["lower", "name", "value"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert_eq!(
            f.frozen_runs.get("last-translator"),
            Some(&FreezeReason::Data)
        );
        assert!(!f.frozen_runs.contains_key("shelf-count"));
        assert!(f.owned_runs.contains("last_translator"));
    }

    /// A lone underscore joined to a name makes a family: dateutil's
    /// `setattr(self, "_" + attr, ...)` over `["trans_idx", ...]` makes `_trans_idx` from the
    /// outside name `trans_idx`, so `_trans_idx` stays; `_ledger`, from a name the code uses
    /// (which strings swap), follows it.
    #[test]
    fn a_lone_underscore_joined_to_a_name_is_a_family() {
        let src: &[u8] = br#"
class Shelf:
    attrs = ["trans_idx", "ledger"]
    def __init__(self, other):
        for attr in self.attrs:
            setattr(self, "_" + attr, getattr(other, attr))
    def first(self, ledger=None):
        return self._trans_idx, self._ledger, ledger
"#;
        let defined = set(&[
            "Shelf", "attrs", "other", "attr", "first", "ledger", "_ledger",
        ]);
        let env = set(&["trans_idx", "setattr", "getattr"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert_eq!(
            f.frozen_runs.get("_trans_idx"),
            Some(&FreezeReason::Dynamic)
        );
        assert!(
            !f.frozen_runs.contains_key("_ledger"),
            "{:?}",
            f.frozen_runs.get("_ledger")
        );
    }

    /// A fragment of two letters still names a family (`"is_%s" % fact`): a member whose
    /// run-time part is frozen (`is_commutative`, with the outside `commutative`) stays.
    #[test]
    fn two_letter_fragments_name_families() {
        let src: &[u8] = br#"
def as_property(fact):
    return "is_%s" % fact

class Expr:
    is_commutative = True
"#;
        let defined = set(&["as_property", "fact", "Expr", "is_commutative"]);
        let env = set(&["commutative"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert_eq!(
            f.frozen_runs.get("is_commutative"),
            Some(&FreezeReason::Dynamic),
            "{:?}",
            f.owned_runs
        );
    }

    /// A whole string that ends code names (`"ParamType"`) makes the rest of each name
    /// (`String` of `StringParamType`) a name the code uses: click describes the class as
    /// `type(self).__name__.partition("ParamType")[0]`, and its tests hold `"String"`.
    #[test]
    fn rests_of_names_cut_by_a_string_are_code_names() {
        let src: &[u8] = br#"
class ParamType:
    def describe(self):
        return type(self).__name__.partition("ParamType")[0]

class StringParamType(ParamType):
    pass

EXPECTED = {"param_type": "String"}
"#;
        let defined = set(&["ParamType", "describe", "StringParamType", "EXPECTED"]);
        let env = set(&["partition", "type"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert!(f.code_runs.contains("String"), "{:?}", f.code_affixes);
        assert!(!f.code_runs.contains("Param"));
        assert!(f.owned_runs.contains("StringParamType"));
        // With an outside `String`, which strings keep, the class keeps that word and renames
        // the rest, as the renamed string cuts it.
        let env = set(&["partition", "type", "String"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert_eq!(f.frozen_tokens.get("string"), Some(&FreezeReason::Dynamic));
        assert!(f.owned_runs.contains("StringParamType"));
        assert!(f.owned_tokens.contains("param"));
        // Only a string the program cuts with counts: a comparison leaves no rest.
        let compared = String::from_utf8_lossy(src).replace(".partition(", ".endswith(");
        let input = one_file(compared.as_bytes(), &env, &defined);
        let f = analyze(&input);
        assert!(!f.code_runs.contains("String"));
        assert!(!f.frozen_tokens.contains_key("string"));
    }

    /// A family member whose run-time part is frozen later than the member is looked at
    /// (`do_terminal_string` sorts before `terminal_string`) stays all the same: pyparsing's
    /// EBNF example looks up `vars()["do_" + name]` for every name of a list.
    #[test]
    fn family_members_follow_parts_frozen_after_them() {
        let src: &[u8] = br#"
names = ["terminal_string"]
terminal_string = 1

def do_terminal_string(toks):
    return toks

for name in names:
    action = vars()["do_" + name]
    other = vars()["terminal_%s" % kind]
"#;
        let defined = set(&[
            "names",
            "terminal_string",
            "do_terminal_string",
            "action",
            "name",
            "other",
            "kind",
        ]);
        // `terminal_string` is itself built from data (`"terminal_%s"` with the outside
        // `string`), so the policy freezes it only when its own turn comes.
        let env = set(&["vars", "string"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert!(f.frozen_runs.contains_key("terminal_string"));
        assert_eq!(
            f.frozen_runs.get("do_terminal_string"),
            Some(&FreezeReason::Dynamic),
            "{:?}",
            f.owned_runs
        );
        assert!(!f.owned_runs.contains("do_terminal_string"));
    }

    /// A family run whose run-time part is a compound with a frozen piece
    /// (`"unquoted_identifier"` with the outside `identifier`) is renamed: the compound is the
    /// end of a code name, which strings swap like the name (`rename::affixes`), so the data
    /// and the name built from it change alike (jmespath's `getattr(self, "_token_nud_%s" %
    /// kind)`). Freezing the name while strings swap the data broke every query.
    #[test]
    fn family_runs_built_from_a_code_affix_follow_it() {
        let src: &[u8] = br#"
class Parser:
    def nud(self, token):
        return getattr(self, "_token_nud_%s" % token["type"])(token)
    def _token_nud_unquoted_identifier(self, token):
        return token
    def _token_nud_literal(self, token):
        return token

TOKENS = ["unquoted_identifier", "literal"]
"#;
        let defined = set(&[
            "Parser",
            "nud",
            "token",
            "_token_nud_unquoted_identifier",
            "_token_nud_literal",
            "TOKENS",
        ]);
        let env = set(&["getattr", "identifier"]);
        let input = one_file(src, &env, &defined);
        let f = analyze(&input);
        assert!(f.code_affixes.contains("unquoted_identifier"));
        assert!(
            f.owned_runs.contains("_token_nud_unquoted_identifier"),
            "{:?}",
            f.frozen_runs
        );
    }
}

#[cfg(test)]
mod pattern_tests {
    use super::dynamic_tests::one_file;
    use super::*;

    fn set(xs: &[&str]) -> BTreeSet<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    /// packaging's marker tokenizer matches `platform[._](machine|release)` and looks the
    /// matched text up in a dict keyed like the TypedDict field `platform_machine`: the words
    /// the pattern spells stay, so the field, the key and the marker text keep them.
    #[test]
    fn words_a_regular_expression_spells_stay() {
        let src: &[u8] = br#"
import re
VARIABLE = re.compile(r"platform[._](machine|release)")

class Environment:
    platform_machine: str
    platform_release: str
    machine_word: str

def lookup(env, text):
    return env[VARIABLE.match(text).group().replace(".", "_")]
"#;
        let defined = set(&[
            "VARIABLE",
            "Environment",
            "platform_machine",
            "platform_release",
            "machine_word",
            "lookup",
        ]);
        let env = set(&["re", "compile", "match", "group", "replace", "platform"]);
        let f = analyze(&one_file(src, &env, &defined));
        assert_eq!(f.frozen_tokens.get("machine"), Some(&FreezeReason::Pattern));
        assert_eq!(f.frozen_tokens.get("release"), Some(&FreezeReason::Pattern));
        assert!(
            f.frozen_owned.contains("platform_machine"),
            "{:?}",
            f.owned_runs
        );
        // Other words of the same names are still renamed.
        assert!(f.owned_runs.contains("machine_word"));
        assert!(f.owned_tokens.contains("word"));
        // Without the pattern, the words are the repository's like any other.
        let plain = String::from_utf8_lossy(src).replace("re.compile(", "str(");
        let f = analyze(&one_file(plain.as_bytes(), &env, &defined));
        assert!(!f.frozen_tokens.contains_key("machine"));
        assert!(f.owned_runs.contains("platform_machine"));
    }
}

#[cfg(test)]
mod case_tests {
    use super::dynamic_tests::one_file;
    use super::*;

    fn set(xs: &[&str]) -> BTreeSet<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    /// humanize looks its enum up by `Unit[minimum_unit.upper()]`, with the default
    /// `minimum_unit="seconds"`: `seconds` is an outside name (`timedelta.seconds`), which
    /// strings keep, so the member `SECONDS` keeps its name too.
    #[test]
    fn an_upper_case_run_whose_lower_case_stays_stays() {
        let src: &[u8] = br#"
class Unit(Enum):
    SECONDS = 2
    WEEKDAYS = 3

def naturaldelta(value, minimum_unit="seconds"):
    return Unit[minimum_unit.upper()]
"#;
        let defined = set(&[
            "Unit",
            "SECONDS",
            "WEEKDAYS",
            "naturaldelta",
            "minimum_unit",
        ]);
        let env = set(&["Enum", "seconds", "upper", "value"]);
        let f = analyze(&one_file(src, &env, &defined));
        assert_eq!(f.frozen_runs.get("SECONDS"), Some(&FreezeReason::Outside));
        assert!(f.frozen_owned.contains("SECONDS"));
        // An upper-case run whose lower case is the repository's own is renamed.
        assert!(f.owned_runs.contains("WEEKDAYS"), "{:?}", f.owned_runs);
        // Without the outside lower case, or without the string, the member is renamed like
        // any other.
        let f = analyze(&one_file(src, &set(&["Enum", "upper", "value"]), &defined));
        assert!(f.owned_runs.contains("SECONDS"));
        let no_data = String::from_utf8_lossy(src).replace("\"seconds\"", "None");
        let f = analyze(&one_file(no_data.as_bytes(), &env, &defined));
        assert!(f.owned_runs.contains("SECONDS"));
    }
}
