//! What is frozen (never renamed) and what the repository owns. Each rule is a named function
//! with the reason it exists; `FreezeReason` records which rule froze a run.
//!
//! Pure: callers hand in file contents and the names the Python environment defines.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use rayon::prelude::*;

use serde::{Deserialize, Serialize};

use super::formats;
use super::lexer::{self, Class};
use super::rename::is_dunder;
use super::scope::Exposure;
use super::tokens::{self, Piece};

mod config_words;
mod dotted_keys;
mod families;
mod imports;
mod listed_joins;
mod options;
mod passed_joins;
mod test_classes;
mod titles;
mod vocab;

use families::*;
pub use families::{
    dynamic_fragments, dynamic_rests, family_member_diverges, fragments_in_runs, whole_names,
    FamilyMatch, Fragment, FragmentIndex,
};
pub use imports::{imports, imports_in_runs, Import};
pub use vocab::*;

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
    /// Spelled in a C, C++ or Cython source of the tree, which a compiler reads by name.
    Compiled,
    /// A word of an outside program that a file running it spells in a string (`openssl`'s
    /// format `pem`, its curve `secp112r1`): the command lines it is given and the output
    /// compared are the program's words.
    Program,
    /// A test module named after a module that keeps its name (`test_dates` beside `dates`):
    /// renamed alone, its name would show which word stands for the module's.
    Paired,
}

/// Sources a compiler reads (C and C++ sources and headers, Cython modules and
/// declarations), by their extension.
pub fn is_compiled_source(path: &str) -> bool {
    const EXTENSIONS: &[&str] = &[
        "c", "h", "cc", "cpp", "cxx", "hh", "hpp", "hxx", "pyx", "pxd", "pxi",
    ];
    path.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.ends_with('/') && EXTENSIONS.contains(&ext))
}

/// Keywords never change.
pub fn is_keyword(run: &str) -> bool {
    KEYWORDS.contains(&run)
}

/// A keyword with trailing underscores (`for_`, `class_`, `not_`): by Python's convention
/// (PEP 8) the underscore only avoids the clash with the keyword, so the name stands for the
/// keyword's word in another vocabulary (an HTML attribute, an SQL or logic operator), and
/// code commonly strips the underscore at run time to reach it (`k[:-1]` in a builder of
/// HTML attributes renders `for_=` as `for="..."`). The word is the outside one: it stays.
pub fn is_keyword_twin(run: &str) -> bool {
    let word = run.trim_end_matches('_');
    word.len() < run.len() && !word.is_empty() && word != "_" && is_keyword(word)
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
    /// Plain lower-case words the code uses only as local variables of its functions (no
    /// code exposes them, `scope::Exposed::by_code`): strings, comments and text keep them as
    /// written, since no code looks a local up by a string (`eval`, `exec` and `locals()`
    /// expose their function's locals). Prose keeps its English (`cannot`, `loaded`) and
    /// data compared with outside output keeps its words (parso's `"cannot"`, a local named
    /// after the word it holds, in messages compared with CPython's own).
    pub local_words: BTreeSet<String>,
    /// Starts and ends of the code's runs of three words or more, which strings swap like
    /// the code does (`rename::affixes`); kept in step with `code_runs` by `add_code_runs`.
    pub code_affixes: HashSet<Box<str>>,
    /// Names a program collects by a name part, as the original defines them: their
    /// definitions keep their relative order in the view (`picked_by_outside_code`).
    pub ordered: BTreeSet<String>,
}

impl Findings {
    /// Take an owned run out of the renamed ones: it stays, for `reason`.
    fn keep_owned(&mut self, run: String, reason: FreezeReason) {
        self.owned_runs.remove(&run);
        self.local_runs.remove(&run);
        self.frozen_runs.insert(run.clone(), reason);
        self.frozen_owned.insert(run);
    }

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
    /// The outside programs the repository runs (`transform::programs`): for each, the
    /// Python files (paths as in `python`) that start it, and the bytes of its file and
    /// libraries.
    pub programs: Vec<(Vec<&'a str>, Vec<&'a [u8]>)>,
    /// Every path component in the tree (file and directory names).
    pub names: Vec<&'a str>,
    /// Every directory of the tree (relative path, original names).
    pub dirs: Vec<&'a str>,
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
    /// For each outside module (dotted), the name parts its code picks names by
    /// (`("t_", true)`: a prefix; `("_opt", false)`: a suffix; see `add_compared_rests`).
    pub compared_parts: &'a BTreeMap<String, Vec<(String, bool)>>,
    /// For each module in `compared_parts`, the identifiers its code spells as strings.
    pub compared_words: &'a BTreeMap<String, Vec<String>>,
    /// For each outside module (dotted), the modules of `compared_parts` that importing it
    /// runs (itself included).
    pub compared_reach: &'a BTreeMap<String, Vec<String>>,
    /// Fields: names given a bare annotation at the start of a statement, or assigned a field
    /// without one (`defs::FileDefs::fields`).
    pub fields: &'a BTreeSet<String>,
}

/// Empty `PolicyInput::compared_parts` and `compared_words`, for tests.
#[cfg(test)]
pub(crate) static NO_PARTS: BTreeMap<String, Vec<(String, bool)>> = BTreeMap::new();
#[cfg(test)]
pub(crate) static NO_WORDS: BTreeMap<String, Vec<String>> = BTreeMap::new();
#[cfg(test)]
pub(crate) static NO_NAMES: BTreeSet<String> = BTreeSet::new();

/// Whether a top-level imported module is outside the repository: not one of its import
/// roots, and either importable from the environment or absent from the tree.
pub fn is_outside_module(top: &str, input: &PolicyInput<'_>) -> bool {
    if input.own_modules.contains(top) {
        return false;
    }
    input.env_modules.contains(top) || !input.tree_modules.contains(top)
}

/// A module that no environment has and that the repository spells whole in a string
/// (`"config_package_app"`, `"site_app.py"`) is one its own code writes at run time (tests
/// that write a module into a temporary directory and import it): its imports are the
/// repository's own names, not an outside module's. Nothing outside can define them: the
/// environment the view runs under has no such module, so an import of it in the original
/// finds what the repository wrote, and in the view the same names, renamed alike.
fn written_module(top: &str, facts: &FileFacts<'_>, input: &PolicyInput<'_>) -> bool {
    !input.env_modules.contains(top)
        && (facts.whole_strings.contains(top) || facts.module_files.contains(top))
}

/// The string run `src[start..end]` is followed by `.py` and the literal's end, and starts
/// the literal or a path piece (`"site_app.py"`, `"pkg/site_app.py"`).
fn spells_python_file(src: &[u8], start: usize, end: usize) -> bool {
    start > 0
        && matches!(src[start - 1], b'"' | b'\'' | b'/')
        && src.get(end..end + 3) == Some(b".py".as_slice())
        && matches!(src.get(end + 3), Some(b'"' | b'\''))
}

/// What Python files contribute to the policy: one file's facts, or the union of many
/// (`merge`). Every rule reads them as a union, so files are folded in as they are read
/// instead of keeping a set per file: on a tree ten times Django's size the per-file sets
/// were about a third of the map's peak memory.
#[derive(Default)]
struct FileFacts<'a> {
    /// Names imported from outside modules (module path parts and imported names), each
    /// with the top module it was imported from.
    frozen_imports: Vec<(String, String)>,
    /// String runs spelled as a Python file, `"NAME.py"` or `.../NAME.py` (see
    /// `written_module`).
    module_files: HashSet<&'a str>,
    fragments: Vec<Fragment>,
    /// Letters the file's strings join to a run-time part (`families::letters_in_runs`).
    joined_letters: BTreeSet<u8>,
    /// Names its string literals spell by an alternation (`patterns::alternation_names`).
    alternation_names: BTreeSet<String>,
    /// Lists whose items the file joins into names, with the separator (`listed_joins`).
    joined_lists: BTreeSet<(String, String)>,
    /// Functions that join a parameter first into a name (`passed_joins`).
    joining_params: BTreeSet<passed_joins::JoiningParam>,
    /// Distinct runs of any class, and of code.
    runs: HashSet<&'a str>,
    code_runs: HashSet<&'a str>,
    /// Runs that outside code could see, and those its code exposes (see `scope`).
    exposed: HashSet<&'a str>,
    exposed_by_code: HashSet<&'a str>,
    /// Runs that are a whole string literal (`"VCS"`), as code names a configuration key.
    whole_strings: HashSet<&'a str>,
    /// Whole string literals passed to a method that cuts a string and keeps the rest
    /// (`name.partition("ParamType")`): see `add_affix_rests`.
    cut_strings: HashSet<&'a str>,
    /// Whole string literals that are a name part (`t_`, `_opt`) names are compared with by
    /// their start (`true`) or end (`f[:2] == "t_"`, `name.endswith("_opt")`), kept only in
    /// a file that also splits at underscores: see `add_compared_rests`.
    compared_strings: HashSet<(&'a str, bool)>,
    /// Every whole string literal names are compared with by their start or end, cut or
    /// not: the names it picks keep their definition order (see `add_compared_rests`).
    picked_strings: HashSet<(&'a str, bool)>,
    /// Runs inside regular expressions written as literals (see `patterns`).
    pattern_runs: HashSet<&'a str>,
    /// Runs of string literals that spell a codec name (`"iso-8859-1"`, see `codec_literal`).
    codec_runs: HashSet<&'a str>,
    /// Whether the code cuts a `__name__` at an underscore (see `add_name_derived_stems`).
    splits_names: bool,
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

impl<'a> FileFacts<'a> {
    /// The union of two files' facts (the larger set takes the smaller one's entries).
    fn merge(mut self, mut other: FileFacts<'a>) -> FileFacts<'a> {
        fn union<T: Eq + std::hash::Hash>(a: &mut HashSet<T>, b: &mut HashSet<T>) {
            if a.len() < b.len() {
                std::mem::swap(a, b);
            }
            a.extend(b.drain());
        }
        self.frozen_imports.append(&mut other.frozen_imports);
        self.fragments.append(&mut other.fragments);
        self.joined_letters.append(&mut other.joined_letters);
        self.alternation_names.append(&mut other.alternation_names);
        self.joined_lists.append(&mut other.joined_lists);
        self.joining_params.append(&mut other.joining_params);
        union(&mut self.runs, &mut other.runs);
        union(&mut self.code_runs, &mut other.code_runs);
        union(&mut self.exposed, &mut other.exposed);
        union(&mut self.exposed_by_code, &mut other.exposed_by_code);
        union(&mut self.whole_strings, &mut other.whole_strings);
        union(&mut self.cut_strings, &mut other.cut_strings);
        union(&mut self.compared_strings, &mut other.compared_strings);
        union(&mut self.picked_strings, &mut other.picked_strings);
        union(&mut self.pattern_runs, &mut other.pattern_runs);
        union(&mut self.codec_runs, &mut other.codec_runs);
        union(&mut self.module_files, &mut other.module_files);
        self.splits_names |= other.splits_names;
        self
    }
}

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
    let mut exposure = Exposure::new(src);
    lexer::scan_python(src, |e| {
        if let lexer::Event::Run(r) = e {
            runs.push(r);
        }
        exposure.event(e);
    });
    let exposed = exposure.finish();
    let fragments = fragments_in_runs(src, &runs);
    let pattern_runs = super::patterns::pattern_runs(src, &runs)
        .into_iter()
        .filter_map(|r| std::str::from_utf8(&src[r.start..r.end]).ok())
        .collect();
    let mut ff = FileFacts {
        frozen_imports: Vec::new(),
        module_files: HashSet::new(),
        fragments,
        joined_letters: families::letters_in_runs(src, &runs),
        alternation_names: super::patterns::alternation_names(src, &runs),
        joined_lists: listed_joins::joined_lists(src),
        joining_params: passed_joins::joining_params(src),
        runs: HashSet::new(),
        code_runs: HashSet::new(),
        exposed: exposed.all,
        exposed_by_code: exposed.by_code,
        whole_strings: HashSet::new(),
        cut_strings: HashSet::new(),
        compared_strings: HashSet::new(),
        picked_strings: HashSet::new(),
        pattern_runs,
        codec_runs: HashSet::new(),
        splits_names: splits_names_at_underscore(src),
    };
    for imp in imports_in_runs(src, &runs) {
        let top = match imp.module.first() {
            Some(top) if imp.level == 0 && is_outside_module(top, input) => top.clone(),
            _ => continue,
        };
        ff.frozen_imports.extend(
            imp.module
                .into_iter()
                .chain(imp.names)
                .map(|n| (top.clone(), n)),
        );
    }
    // Compared parts with the name they were compared with (`pa` of `pa.startswith(..)`).
    let mut receivers: Vec<((&str, bool), &str)> = Vec::new();
    // Compared parts that the comparing call itself cuts off (`removeprefix`).
    let mut cutting: HashSet<(&str, bool)> = HashSet::new();
    for r in runs {
        let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) else {
            continue;
        };
        ff.runs.insert(run);
        if r.class == Class::String && codec_literal(src, r.start, r.end, input.data_words) {
            ff.codec_runs.insert(run);
        }
        if r.class == Class::String && spells_python_file(src, r.start, r.end) {
            ff.module_files.insert(run);
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
            // Only a whole name part picks a family (see `add_compared_rests`); the cheap
            // test on the text first spares most literals the look back at their line.
            let maybe_part = (run.ends_with('_') || run.starts_with('_'))
                && run.bytes().any(|b| b.is_ascii_alphabetic());
            if maybe_part {
                let compared = families::affix_compared(src, r.start - 1).filter(|c| {
                    if c.prefix {
                        run.ends_with('_')
                    } else {
                        run.starts_with('_')
                    }
                });
                if let Some(c) = compared {
                    if c.cuts {
                        cutting.insert((run, c.prefix));
                    }
                    ff.compared_strings.insert((run, c.prefix));
                    ff.picked_strings.insert((run, c.prefix));
                    if let Some(recv) = c.receiver {
                        receivers.push(((run, c.prefix), recv));
                    }
                }
            }
        }
    }
    // A comparison alone leaves no rest: the file that compares must also cut strings at
    // underscores (PLY's `s.split('_')` next to its `f[:2] == 't_'`), cut the part off with
    // the comparing call itself (mock's `removeprefix(name, "assert_")`), or slice it off
    // by its length (mako's `pa[6:]` for the names that `pa.startswith("cache_")` picked).
    // The slice must cut the very name that was compared: PLY's yacc.py has `p[2:]` of a
    // list `p` beside its `name.startswith('p_')`, which picks nothing by that slice.
    if !ff.cut_strings.contains("_") {
        ff.compared_strings.retain(|&(part, prefix)| {
            cutting.contains(&(part, prefix))
                || receivers.iter().any(|&(p, recv)| {
                    let cut = if prefix {
                        format!("{recv}[{}:]", part.len())
                    } else {
                        format!("{recv}[:-{}]", part.len())
                    };
                    p == (part, prefix) && src.windows(cut.len()).any(|w| w == cut.as_bytes())
                })
        });
    }
    ff
}

/// A lower-case word of letters, as prose writes it.
fn is_plain_word(run: &str) -> bool {
    run.len() >= MIN_TOKEN_LEN && run.bytes().all(|b| b.is_ascii_lowercase())
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
    // Per-file facts in parallel, folded into their union as they come.
    let mut facts: FileFacts<'_> = input
        .python
        .par_iter()
        .map(|(_, src)| file_facts(src, input))
        .reduce(FileFacts::default, FileFacts::merge);
    // Imports repeat across files; the fragments sort and dedupe below.
    facts.frozen_imports.sort_unstable();
    facts.frozen_imports.dedup();
    for t in formats::FROZEN_TOKENS {
        f.frozen_tokens.insert(t.to_string(), FreezeReason::Tool);
    }
    for t in facts.pattern_runs.iter().flat_map(|r| owned_tokens(r)) {
        f.frozen_tokens.entry(t).or_insert(FreezeReason::Pattern);
    }
    // A codec name spelled in a string (`"iso-8859-1"`) is outside data: the codec is looked
    // up by it, so its words stay, in the string and wherever else the code spells them.
    for run in &facts.codec_runs {
        if owned_tokens(run).next().is_some() {
            f.frozen_runs
                .entry(run.to_string())
                .or_insert(FreezeReason::Outside);
        }
    }
    freeze_sphinx_settings(input, &mut f);
    freeze_flat_layout_skips(input, &mut f);
    freeze_locale_codes(input, &mut f);
    // Text files in their format. `Fixed` runs (syntax words, tool keys, URLs) are the
    // tools' vocabulary, not places where the repository uses a name; their tokens are only
    // kept out of the virtual words.
    // Folded as they come, like the Python files' facts.
    let (text_runs, fixed_text_runs): (HashSet<&str>, HashSet<&str>) = input
        .text
        .par_iter()
        .fold(
            || (HashSet::new(), HashSet::new()),
            |(mut used, mut fixed), (path, src)| {
                let plain = formats::Plain::default();
                for r in formats::text_file_runs(path.as_bytes(), src, &plain) {
                    if let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) {
                        if r.class == Class::Fixed {
                            fixed.insert(run);
                        } else {
                            used.insert(run);
                        }
                    }
                }
                (used, fixed)
            },
        )
        .reduce(
            || (HashSet::new(), HashSet::new()),
            |(mut a, mut b), (c, d)| {
                a.extend(c);
                b.extend(d);
                (a, b)
            },
        );
    // Keys and syntax words that configuration files keep (TOML exactly; INI without case,
    // as configparser reads option names), URLs and other protected spans aside: code that
    // names one in a string literal reads the file by it (`parser.get("versioneer", "VCS")`),
    // so that literal must keep it too. The same for gettext's keywords and flags
    // (`"msgstr"` searched for in `msgmerge`'s output).
    let config_words::ConfigWords {
        toml: toml_words,
        ini: ini_words,
        po: po_words,
        data_keys,
        hyphenated: hyphen_keys,
    } = config_words::ConfigWords::of(&input.text);
    {
        for w in &facts.whole_strings {
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
            let hit = toml_words.contains(*w)
                || ini_words.contains(&w.to_ascii_lowercase())
                || po_words.contains(*w);
            if hit && owned_tokens(w).next().is_some() {
                f.frozen_runs
                    .entry(w.to_string())
                    .or_insert(FreezeReason::Config);
            }
        }
    }
    // A field is read by its name as data (`dataclasses.fields(cls)`): one that a
    // configuration file spells as a key is read from that file by it (mako's test settings,
    // `module_base: Path`, read from `[mako_testing] module_base = ...` in setup.cfg).
    for w in input.fields {
        let hit = toml_words.contains(w.as_str()) || ini_words.contains(&w.to_ascii_lowercase());
        if hit && owned_tokens(w).next().is_some() {
            f.frozen_runs
                .entry(w.to_string())
                .or_insert(FreezeReason::Config);
        }
    }
    // Runs outside code could see: exposed in a Python file, or anywhere in a text file or a
    // path (configuration, templates and file names are read by outside code as data).
    let mut all_runs: HashSet<&str> = std::mem::take(&mut facts.runs);
    let code_runs: HashSet<&str> = std::mem::take(&mut facts.code_runs);
    let mut exposed: HashSet<&str> = std::mem::take(&mut facts.exposed);
    let exposed_by_code: HashSet<&str> = std::mem::take(&mut facts.exposed_by_code);
    let mut fragments: BTreeSet<Fragment> = facts.fragments.drain(..).collect();
    if !facts.joined_lists.is_empty() {
        fragments.extend(listed_joins::fragments(&facts.joined_lists, |list| {
            input
                .python
                .iter()
                .flat_map(|(_, src)| listed_joins::listed_items(src, list))
                .collect()
        }));
    }
    fragments.extend(passed_joins::fragments(
        &facts.joining_params,
        &input.python,
    ));
    for (top, m) in &facts.frozen_imports {
        if written_module(top, &facts, input) {
            continue;
        }
        f.frozen_runs
            .entry(m.clone())
            .or_insert(FreezeReason::Imported);
    }
    f.local_words = code_runs
        .iter()
        .filter(|r| is_plain_word(r) && !exposed_by_code.contains(*r))
        .map(|r| r.to_string())
        .collect();
    // Hyphenated words of every text, once (read by the two rules that need them).
    let hyphenated: HashSet<&str> = input
        .python
        .par_iter()
        .chain(input.text.par_iter())
        .flat_map_iter(|(_, b)| hyphen_words(b))
        .collect();
    for run in lower_case_of_capitalised_data(
        &hyphenated,
        &|w| code_runs.contains(w),
        &|p| code_runs.contains(p),
        None,
    ) {
        f.frozen_runs.entry(run).or_insert(FreezeReason::Data);
    }
    freeze_header_names_of_cgi_keys(&hyphenated, &all_runs, &mut f);
    all_runs.extend(text_runs.iter().copied());
    if input.release_locals {
        exposed.extend(text_runs.iter().copied());
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
    // Data written into the source in an encoding (`transform::encoded`: pickles, base64 text)
    // stores names as a binary file does; a document, an image or a font stores none
    // (`transform::media`).
    let encoded: Vec<Vec<u8>> = input
        .python
        .par_iter()
        .flat_map_iter(|(_, src)| super::encoded::hidden_data(src))
        .collect();
    let stored: Vec<&[u8]> = input
        .binary
        .iter()
        .copied()
        .filter(|b| !super::media::is_media(b))
        .chain(encoded.iter().map(Vec::as_slice))
        .collect();
    let binary_runs: HashSet<&str> = stored
        .par_iter()
        .flat_map_iter(|b| {
            // A gettext catalog is looked up by its original strings only (`catalog`), read
            // at their recorded offsets and lengths: exact text, so a name is a whole run
            // there. Elsewhere a name may be glued to the bytes after it (a length or a tag
            // that reads as letters), so every prefix of a run counts.
            let (parts, exact) = match super::catalog::mo_original_strings(b) {
                Some(strings) => (strings, true),
                None => (vec![*b], false),
            };
            // Distinct first: a catalog repeats its words, and the big set is slow to probe.
            let mut distinct: HashSet<Cow<'_, str>> = HashSet::new();
            for p in parts {
                distinct.extend(identifier_runs(p).map(Cow::Borrowed));
                distinct.extend(hyphen_compounds(p).map(Cow::Owned));
            }
            distinct
                .iter()
                .flat_map(|r| match exact {
                    true => all_runs.get(r.as_ref()).copied().into_iter().collect(),
                    false => stored_names(r, &all_runs),
                })
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
    freeze_program_words(input, &mut f);
    // A compiler reads C, C++ and Cython sources by name: their types, macros and functions
    // are C's (`long long`, `LLONG_MAX`), and the names they share with Python (an
    // attribute looked up with `PyObject_GetAttrString`, a module's `PyInit_` function and
    // its dotted `tp_name`) must match what the compiled module is imported and called by.
    for (path, src) in &input.text {
        if !is_compiled_source(path) {
            continue;
        }
        for r in lexer::text_runs(src) {
            let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) else {
                continue;
            };
            if owned_tokens(run).next().is_some() && !input.env_names.contains(run) {
                f.frozen_runs
                    .entry(run.to_string())
                    .or_insert(FreezeReason::Compiled);
            }
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
    freeze_upper_case_of_outside_words(&facts, &code_runs, &all_runs, input, &mut f);
    // A key that a TOML or INI data file of the tree keeps (see above) stays wherever else
    // the tree holds it, not only in code's string literals: other data keyed like it (a
    // JSON file of the values a TOML file must parse to) keeps it too.
    for run in &all_runs {
        // A name that a configuration file spells as a hyphenated key (`target-version` of
        // black's own `[tool.black]`) is the option the program reads that key into: the
        // key stays (tool vocabulary), so the name does.
        let hit = data_keys.contains(*run)
            || data_keys.contains(&run.to_ascii_lowercase())
            || hyphen_keys.contains(*run);
        if hit && owned_tokens(run).next().is_some() {
            f.frozen_runs
                .entry(run.to_string())
                .or_insert(FreezeReason::Config);
        }
    }
    let mut seen: HashSet<String> = HashSet::new();
    for run in all_runs.iter().chain(fixed_text_runs.iter()) {
        for t in all_tokens(run) {
            seen.insert(t);
        }
    }
    f.seen_tokens = seen.into_iter().collect();
    f.add_code_runs(code_runs.into_iter().map(str::to_string));
    f.add_code_runs(options::read_as_keys(&input.python, &facts.whole_strings));
    add_affix_rests(&facts, input, &mut f);
    add_compared_rests(&facts, &all_runs, input, &mut f);
    add_name_derived_stems(&facts, input, &mut f);
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
    // A two-letter fixed part (`"id_%s"`) is no token, but the renamer must still see the
    // names it starts as built at run time (`Renamer::swap_around_fragment`).
    for w in fragments.iter().filter_map(Fragment::short_word) {
        f.frozen_tokens.entry(w).or_insert(FreezeReason::Dynamic);
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
    // Module names count as code identifiers: imports and strings name them, and the renamer
    // swaps a string holding one (Django's `vendor = "sqlite"`, also the test package
    // `backends/sqlite`), so the family rules below must see them as such.
    f.add_code_runs(input.tree_modules.iter().cloned());
    let fragment_index = FragmentIndex::new(fragments.iter().filter(|fr| fr.joined));
    let shaped = class_shaped(&fragment_index, &f.code_runs);
    let class_families = FragmentIndex::new(fragments.iter().filter(|fr| {
        fr.joined && (fr.near_name || shaped.contains(&(fr.prefix, fr.text.clone())))
    }));
    let hyphen_data: HashSet<String> = hyphenated.iter().map(|w| w.replace('-', "_")).collect();
    // The run-time parts of a dynamic family that the repository has no member of, only
    // outside names (`co_freevars`, which dill reads as `getattr(code, 'co_' + f)` for each
    // word of a list): the program joins the data to reach outside code, so the data keeps
    // the word. A family with an owned member (`get_` and the repository's getters) is the
    // repository's own, and its parts are decided as members are (`built_from_data`).
    let owned_str: HashSet<&str> = owned.iter().map(|s| s.as_str()).collect();
    let owned_families: HashSet<(bool, &str)> = owned_str
        .par_iter()
        .flat_map_iter(|r| {
            fragment_index
                .matches(r)
                .into_iter()
                .map(|m| (m.prefix, m.fixed))
                .collect::<Vec<_>>()
        })
        .collect();
    let outside_rests: HashSet<&str> = input
        .env_names
        .par_iter()
        .flat_map_iter(|n| {
            fragment_index
                .matches(n)
                .into_iter()
                .filter(|m| !owned_families.contains(&(m.prefix, m.fixed)))
                .filter_map(|m| owned_str.get(m.rest).copied())
                .collect::<Vec<&str>>()
        })
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
    let whole_strings: HashSet<&str> = facts.whole_strings.iter().copied().collect();
    // The core of a dunder the code spells (`website` of `__website__`) is data wherever a
    // string literal holds it whole: programs read dunders by their cores (jsonpointer's
    // `setup.py` takes `re.findall("__([a-z]+)__ = '([^']+)'", src)` and then looks up
    // `metadata['website']`), and the dunder never changes.
    for w in &whole_strings {
        let core = !w.starts_with('_') && !w.ends_with('_');
        if core && f.code_runs.contains(format!("__{w}__").as_str()) {
            f.frozen_runs
                .entry(w.to_string())
                .or_insert(FreezeReason::Data);
        }
    }
    // Names a string literal spells by an alternation (`"(Runtime|Static)Protocol"`, a
    // pattern typeguard's tests match messages with) stay: the alternatives are lone words,
    // which strings keep as prose.
    for name in std::mem::take(&mut facts.alternation_names) {
        if owned.contains(&name) {
            f.frozen_runs.entry(name).or_insert(FreezeReason::Pattern);
        }
    }
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
        let reason = reason.or_else(|| {
            outside_rests
                .contains(run.as_str())
                .then_some(FreezeReason::Dynamic)
        });
        // A CamelCase name whose lower-case join must stay (an outside name, `selfref`)
        // stays too: the program derives the join from the class at run time.
        let reason = reason.or_else(|| camel_join_reason(run, input, &f));
        let reason = reason.or_else(|| {
            let upper = run.bytes().any(|b| b.is_ascii_uppercase())
                && !run.bytes().any(|b| b.is_ascii_lowercase());
            (upper && outside_lower.contains(&run.to_ascii_lowercase()))
                .then_some(FreezeReason::Outside)
        });
        let reason = reason.or_else(|| other_case_of_frozen(run, &whole_strings, input, &f));
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
    // The same for a CamelCase run the repository only holds as data (chardet's charset name
    // `"MacRoman"`, also its test directory): the program lower-cases it and looks it up
    // where the join stays (`macroman`, an outside codec name).
    let data_joins: Vec<&str> = all_runs
        .iter()
        .copied()
        .filter(|r| {
            r.bytes().any(|b| b.is_ascii_lowercase())
                && r.bytes().any(|b| b.is_ascii_uppercase())
                && !f.frozen_runs.contains_key(*r)
        })
        .filter(|r| {
            !owned.contains(&r.to_string())
                && camel_join_reason(r, input, &f).is_some_and(|why| why != FreezeReason::Short)
        })
        .collect();
    for run in data_joins {
        f.frozen_runs
            .entry(run.to_string())
            .or_insert(FreezeReason::Outside);
    }
    // A whole string literal in an irregular case (`"ETag"`: letters of both cases, and
    // neither the capitalised nor the upper case of a word) is data the view keeps, since
    // only names in those regular spellings follow a code name. When its lower case is an
    // owned name that a whole literal spells too, that literal is the same data compared
    // without case (werkzeug sets the header `"ETag"` and reads `headers.get("etag")` back),
    // so the name stays with it. Not the name of an import root: a project's display name
    // beside its package (`"WTForms"`, `"ItsDangerous"`) is no header compared without case.
    for w in &whole_strings {
        let lower = w.to_ascii_lowercase();
        if is_irregular_case(w)
            && !f.code_runs.contains(*w)
            && whole_strings.contains(lower.as_str())
            && f.owned_runs.contains(&lower)
            && !input.own_modules.contains(&lower)
        {
            f.keep_owned(lower, FreezeReason::Data);
        }
    }
    // A family member is decided by its run-time part, which the loop above may freeze after
    // the member was owned (`do_terminal_string` sorts before `terminal_string`, frozen as
    // data): repeat until no owned member is built from a frozen part.
    // A class and the family member named after its lower case (sqlparse dispatches on
    // `"_process_" + type(x).__name__.lower()` to `_process_where` for `Where`) stay together.
    let replace_pairs: Vec<(String, String)> = input
        .python
        .iter()
        .flat_map(|(_, src)| families::replace_pairs(src))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // Dotted literals, read only when some file turns `_` into `.` (`dotted_keys`).
    let dotted: HashSet<&str> = if input
        .python
        .par_iter()
        .any(|(_, src)| dotted_keys::replaces_underscore_with_dot(src))
    {
        input
            .python
            .iter()
            .flat_map(|(_, src)| dotted_keys::dotted_literals(src))
            .collect()
    } else {
        HashSet::new()
    };
    // Runs, names or words of strings (wtforms binds a field as `"foo_bar"`), whose title
    // is a literal of their file, when some file titles names (`titles`): before the loop,
    // so the twins of what they keep follow.
    let mut labelled: Vec<&str> = if input
        .python
        .par_iter()
        .any(|(_, src)| titles::makes_titles(src))
    {
        input
            .python
            .iter()
            .flat_map(|(_, src)| titles::titled_runs(src))
            .filter(|r| all_runs.contains(r))
            .collect()
    } else {
        Vec::new()
    };
    labelled.sort_unstable();
    labelled.dedup();
    for run in labelled {
        if f.owned_runs.contains(run) {
            f.keep_owned(run.to_string(), FreezeReason::Dynamic);
        } else {
            f.frozen_runs
                .entry(run.to_string())
                .or_insert(FreezeReason::Dynamic);
        }
    }
    let letters = std::mem::take(&mut facts.joined_letters);
    let parses_class_names = input
        .python
        .par_iter()
        .any(|(_, src)| test_classes::parses_class_names(src));
    loop {
        let names = ClassNames::new(&f, &class_families);
        let frozen_lower = if parses_class_names {
            test_classes::lower_joined(f.frozen_runs.keys())
        } else {
            HashSet::new()
        };
        // In parallel: each run is decided on the findings as they stand, and collected in
        // the set's order, so the result is the serial one.
        let late: Vec<String> = f
            .owned_runs
            .par_iter()
            .filter(|r| super::rename::segments(r).is_none())
            .filter(|r| {
                built_from_data(r, &fragment_index, input, &f, &all_runs, &hyphen_data)
                    || other_case_of_frozen(r, &whole_strings, input, &f).is_some()
                    || names.parts_with_frozen(r, &class_families)
                    || private_twin_of_frozen(r, &whole_strings, input.fields, &f)
                    || replaced_twin_of_frozen(r, &replace_pairs, input, &f)
                    || dotted_keys::dotted_twin_of_frozen(r, &dotted, input, &f)
                    || families::letter_twin_of_frozen(r, &letters, &all_runs, input, &f)
                    || test_classes::named_after_frozen(r, &frozen_lower)
            })
            .cloned()
            .collect();
        if late.is_empty() {
            break;
        }
        for run in late {
            f.keep_owned(run, FreezeReason::Dynamic);
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
        .filter(|r| {
            built_from_data(r, &fragment_index, input, &f, &all_runs, &hyphen_data)
                || dotted_keys::dotted_twin_of_frozen(r, &dotted, input, &f)
        })
        .cloned()
        .collect();
    for run in undefined {
        f.frozen_runs.insert(run, FreezeReason::Dynamic);
    }
    // Once every run is decided, the same for a capitalised spelling with a piece that is a
    // code name the view keeps all the same (werkzeug's `"Content-Range"`, where `Range` is
    // a class frozen as an outside name): that spelling is data the view keeps too.
    let kept = |p: &str| {
        f.frozen_runs.contains_key(p)
            || input.env_names.contains(p)
            || owned_tokens(p).all(|t| f.frozen_tokens.contains_key(&t))
    };
    let renamed: BTreeSet<String> = hyphenated
        .iter()
        .flat_map(|w| w.split('-'))
        .filter(|p| f.code_runs.contains(*p) && !kept(p))
        .map(str::to_string)
        .collect();
    // Only a group with a capitalised piece is a header here: one whose pieces are each in
    // one case is either no header (pygments' COBOL keyword `'BACKGROUND-COLOR'`, while CSS's
    // `background-color` follows `background_color` in its lexer and example files alike)
    // or a name folded with `.lower()`, which the renamer makes follow the name (arrow's
    // `"locale-NAME"`, looked up as `locale_name`; `rename::swap_hyphen_group`).
    let headers: HashSet<&str> = hyphenated
        .iter()
        .copied()
        .filter(|w| w.split('-').any(|p| tokens::other_case(p).is_none()))
        .collect();
    let late = lower_case_of_capitalised_data(
        &headers,
        &|w| f.code_runs.contains(w),
        &|p| renamed.contains(p),
        Some(&hyphenated),
    );
    for run in late {
        f.frozen_runs.entry(run).or_insert(FreezeReason::Data);
    }
    freeze_joins_of_frozen_names(&mut f);
    freeze_tests_of_kept_modules(input, &mut f);
    f
}

/// The module a test module is named after by the runners' convention (`test_dates`,
/// `tests_dates`, `dates_test`, `dates_tests` for `dates`).
fn tested_module(name: &str) -> Option<&str> {
    let x = name
        .strip_prefix("test_")
        .or_else(|| name.strip_prefix("tests_"))
        .or_else(|| name.strip_suffix("_test"))
        .or_else(|| name.strip_suffix("_tests"))?;
    (!x.is_empty()).then_some(x)
}

/// A test module named after a module of the tree that keeps its name keeps its own: the
/// view would otherwise list `dates.py` and `test_ledger.py`, and the pair says that
/// `ledger` stands for `dates` wherever else it is spelled (`format_ledger`). Only the test
/// module's own run stays; the word is still mapped in every other name.
fn freeze_tests_of_kept_modules(input: &PolicyInput<'_>, f: &mut Findings) {
    let paired: Vec<String> = input
        .tree_modules
        .iter()
        .filter(|m| f.owned_runs.contains(*m))
        .filter(|m| {
            tested_module(m)
                .is_some_and(|x| input.tree_modules.contains(x) && !f.owned_runs.contains(x))
        })
        .cloned()
        .collect();
    for m in paired {
        f.keep_owned(m, FreezeReason::Paired);
    }
}

/// A private name held as a whole string (`"_prerelease"` in `__slots__`) or made a field
/// (`_formatter = field()`, `_bar: int`) whose public twin stays (`prerelease`, frozen)
/// stays too: code turns one into the other by adding or stripping the underscore (semver's
/// `NAMES = tuple(item[1:] for item in __slots__)`, then `part in NAMES` for the data
/// `"prerelease"`; attrs names the `__init__` parameter of the field `_formatter` `formatter`,
/// which callers pass by keyword), and no fragment literal shows it. A private name that is
/// neither is renamed as before.
fn private_twin_of_frozen(
    run: &str,
    whole_strings: &HashSet<&str>,
    fields: &BTreeSet<String>,
    f: &Findings,
) -> bool {
    run.strip_prefix('_').is_some_and(|public| {
        !public.is_empty()
            && !public.starts_with('_')
            && (whole_strings.contains(run) || fields.contains(run))
            && f.frozen_runs.contains_key(public)
    })
}

/// A run in one case whose other case is a frozen run the code holds as a whole string stays
/// too: programs fold the case of data and look it up under the other spelling.
/// - An upper-case run (`SECONDS`, an enum member) whose lower case is such a string
///   (`"seconds"`, also the outside `timedelta.seconds`): code turns the data into the name
///   (`Unit[minimum_unit.upper()]` with `minimum_unit="seconds"`).
/// - A lower-case run held as a whole string itself (`"byday"`, a test's key for icalendar's
///   `CaselessDict`) whose upper case is such a string (`"BYDAY"`, a key of its rule types
///   and an outside word): the dictionary upper-cases the key.
///
/// A run whose other case is free, never a whole string, or (for the lower case) a run held
/// only as a name, is renamed.
fn other_case_of_frozen(
    run: &str,
    whole_strings: &HashSet<&str>,
    input: &PolicyInput<'_>,
    f: &Findings,
) -> Option<FreezeReason> {
    let other = tokens::other_case(run)?;
    let lower = run.bytes().any(|b| b.is_ascii_lowercase());
    if !whole_strings.contains(other.as_str()) || (lower && !whole_strings.contains(run)) {
        return None;
    }
    freeze_reason(&other, input, f).filter(|r| *r != FreezeReason::Short)
}

/// A string literal that a cutting method takes (`CUTTING_METHODS`) and that starts or ends
/// code names (`"ParamType"`, which click cuts off
/// `type(self).__name__` to describe `StringParamType` as `"String"`) makes the rest of each
/// such name a word the program derives from the name: the rest counts as a name the code
/// uses, so data holding it (`{"param_type": "String"}`) changes with the class. When the rest
/// must stay (`String` is an outside name, which strings keep), its tokens stay, so the name
/// becomes the kept rest and the renamed cut (`String` + the image of `ParamType`), which the
/// renamed string still cuts.
fn add_affix_rests(facts: &FileFacts<'_>, input: &PolicyInput<'_>, f: &mut Findings) {
    let cut: HashSet<&str> = facts
        .cut_strings
        .iter()
        .copied()
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

/// Names picked by a name part (`f[:2] == "t_"`, `name.endswith("_opt")`) in a file that
/// also splits strings at underscores, or slices the part off (`name[6:]` after
/// `name.startswith("cache_")`), are read by the program, which takes the rest of each
/// name, and its parts, as data: PLY matches the rest of `t_PLUS` with the string `'PLUS'`
/// of a `tokens` tuple, and the `ppline` of `t_ppline_NEWLINE` with the state `'ppline'`. A
/// whole string literal that spells such a rest or part is that data: it counts as a name the
/// code uses, so it changes with the names. A rest or part that must stay (an outside name:
/// the `error` of PLY's `t_error` and `t_ppline_error`, compared with `'error'`) keeps its
/// tokens, so the names keep it. Bare words and underscores (`startswith("test")`,
/// `endswith("j")`, `startswith("_")`) never reach here (`file_facts`), and rests that no
/// literal spells change nothing.
///
/// The same holds for the parts an outside module picks names by (`PolicyInput::compared_parts`:
/// an installed PLY's `f[:2] == 't_'`, `cmd.Cmd`'s `name[:3] == 'do_'`) when the repository
/// imports it or a module that imports it when imported (`imported_pickers`; an optional
/// `hypothesis.extra.numpy` that guesses strategies from `min_` and `max_` arguments is not
/// run by `from hypothesis import given`). Such parts count in every file, since the names
/// reach that code through classes and modules handed to it from anywhere (a subclass of a
/// lexer in another file). There the
/// outside code also compares rests with its own constants (PLY's `t_ignore`, `t_error`), so
/// a rest or part that module spells as a string keeps its tokens, and so does the part
/// itself (`do` of `do_quit`). Programs that pick names may take them in definition order
/// (PLY sorts its rules by line number and the first match wins): every picked name keeps
/// its definition's place relative to the others (`Findings::ordered`).
fn add_compared_rests(
    facts: &FileFacts<'_>,
    all_runs: &HashSet<&str>,
    input: &PolicyInput<'_>,
    f: &mut Findings,
) {
    let mut compared: BTreeSet<(&str, bool)> = facts.compared_strings.iter().copied().collect();
    let mut outside_words: HashSet<&str> = HashSet::new();
    let mut outside_parts: HashSet<(&str, bool)> = HashSet::new();
    for picker in imported_pickers(facts, input) {
        for (part, prefix) in input.compared_parts.get(picker).into_iter().flatten() {
            compared.insert((part.as_str(), *prefix));
            outside_parts.insert((part.as_str(), *prefix));
        }
        if let Some(words) = input.compared_words.get(picker) {
            outside_words.extend(words.iter().map(String::as_str));
        }
    }
    // A part the repository's own code picks names by keeps their order even when no rest is
    // cut off: PLY's yacc.py (vendored by pycparser) collects `p_` functions with
    // `name.startswith('p_')`, sorts them by line, and the earlier rule wins a conflict.
    for run in input.defined {
        let picked = facts.picked_strings.iter().any(|&(affix, prefix)| {
            let rest = rest_after(run, affix, prefix);
            rest.is_some_and(|r| !r.trim_matches('_').is_empty())
        });
        if picked {
            f.ordered.insert(run.clone());
        }
    }
    if compared.is_empty() {
        return;
    }
    // A name the code uses whose rest after a compared part is frozen keeps that rest: the
    // program looks the rest up where it stays (astor's `__getattr__` serves
    // `self.get_is_async(node)` as `getattr(node, name[4:])`, `is_async` of `ast`).
    //
    // A name the code uses but the repository does not define (a keyword argument
    // `no_ifexp=True` that asteval reads as `key[3:]` after `key.startswith('no_')`), whose
    // rest is a one-word string literal that no code name spells in either case (`'ifexp'` of
    // the node list the rest is looked up in), keeps that rest too: strings keep such a
    // literal. Not a compound literal, which may change with its words (transitions' tag
    // `"error_state"` and the property `is_error_state` change together), nor a lookup path
    // (Django's `book__editor_id` beside `endswith("_id")` and the data `"book__editor"`),
    // whose segments are names the code defines; and a defined name's rest becomes a code
    // name below, changing with its literal, so those rests are left out at the end.
    let whole = &facts.whole_strings;
    let mut rest_frozen: Vec<String> = Vec::new();
    let mut data_rests: Vec<(String, String)> = Vec::new();
    for run in &f.code_runs {
        for &(affix, prefix) in &compared {
            let rest = rest_after(run, affix, prefix);
            let Some(rest) = rest.filter(|r| owned_tokens(r).next().is_some()) else {
                continue;
            };
            if freeze_reason(rest, input, f).is_some_and(|r| r != FreezeReason::Short) {
                rest_frozen.push(run.clone());
            } else if !input.defined.contains(run)
                && !run.contains("__")
                && is_plain_word(rest)
                && whole.contains(rest)
                && !f.code_runs.contains(rest)
                && !f.code_runs.contains(&rest.to_ascii_uppercase())
            {
                data_rests.push((run.clone(), rest.to_string()));
            }
            // The other way round: a rest the code names, whose whole (this run) stays. mock
            // denies the attributes `removeprefix(name, "assert_")` of its `assert_...`
            // methods, which are outside names (`unittest.mock` defines them), so the test's
            // `m.called_once_with()` must keep the words `assert_called_once_with` keeps.
            if f.code_runs.contains(rest)
                && freeze_reason(rest, input, f).is_none()
                && freeze_reason(run, input, f).is_some_and(|r| r != FreezeReason::Short)
            {
                rest_frozen.push(rest.to_string());
            }
        }
    }
    // The same for a string the code cuts (cerberus's rule key `'oneof_schema'`, split at
    // its first `_` into the rule `schema`, an outside name): it is no code name, so only
    // its rest being frozen keeps it, never its being data.
    for &run in all_runs {
        if f.code_runs.contains(run) || !run.contains('_') {
            continue;
        }
        let frozen_rest = compared.iter().any(|&(affix, prefix)| {
            rest_after(run, affix, prefix)
                .filter(|r| owned_tokens(r).next().is_some())
                .is_some_and(|r| {
                    freeze_reason(r, input, f).is_some_and(|r| r != FreezeReason::Short)
                })
        });
        if frozen_rest {
            rest_frozen.push(run.to_string());
        }
    }
    for run in rest_frozen {
        f.frozen_runs.entry(run).or_insert(FreezeReason::Dynamic);
    }
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut kept: Vec<String> = Vec::new();
    for run in input.defined {
        for &(affix, prefix) in &compared {
            let rest = rest_after(run, affix, prefix);
            let Some(rest) = rest.map(|r| r.trim_matches('_')).filter(|r| !r.is_empty()) else {
                continue;
            };
            f.ordered.insert(run.clone());
            if outside_parts.contains(&(affix, prefix)) {
                kept.extend(owned_tokens(affix));
            }
            let parts = rest.split('_').filter(|p| !p.is_empty() && *p != rest);
            for data in std::iter::once(rest).chain(parts) {
                if owned_tokens(data).next().is_none() {
                    continue;
                }
                if outside_words.contains(data) {
                    kept.extend(owned_tokens(data));
                } else if !whole.contains(data) {
                    continue;
                } else if freeze_reason(data, input, f).is_none() {
                    names.insert(data.to_string());
                } else {
                    kept.extend(owned_tokens(data));
                }
            }
        }
    }
    for (run, rest) in data_rests {
        if !names.contains(&rest) {
            f.frozen_runs.entry(run).or_insert(FreezeReason::Dynamic);
        }
    }
    f.add_code_runs(names);
    for t in kept {
        f.frozen_tokens.entry(t).or_insert(FreezeReason::Dynamic);
    }
}

/// Why the lower-case join of a CamelCase run (`selfref` of `SelfRef`, `macroman` of
/// `MacRoman`) is frozen, if it is: programs derive the join from the name at run time.
fn camel_join_reason(run: &str, input: &PolicyInput<'_>, f: &Findings) -> Option<FreezeReason> {
    let p = tokens::split(run);
    let camel = p.len() >= 2 && p.iter().all(|x| matches!(x, Piece::Word(..)));
    camel
        .then(|| freeze_reason(&run.to_ascii_lowercase(), input, f))
        .flatten()
}

/// What is left of `run` after the name part `affix` at its start (`prefix`) or its end.
fn rest_after<'r>(run: &'r str, affix: &str, prefix: bool) -> Option<&'r str> {
    if prefix {
        run.strip_prefix(affix)
    } else {
        run.strip_suffix(affix)
    }
}

/// The outside modules that pick names by a part (`PolicyInput::compared_parts`) and run
/// when the repository imports what it imports: a module is imported when its top-level
/// package is and the repository's imports of that package name each of its components
/// (`import ply.lex`, `from ply import lex`), which is forgiving about how the statement is
/// spelled. `hypothesis.extra.numpy` is not imported by `from hypothesis import given`.
fn imported_pickers<'i>(facts: &FileFacts<'_>, input: &PolicyInput<'i>) -> BTreeSet<&'i str> {
    let mut named: HashMap<&str, HashSet<&str>> = HashMap::new();
    for (top, n) in &facts.frozen_imports {
        named.entry(top.as_str()).or_default().insert(n.as_str());
    }
    let mut out = BTreeSet::new();
    for (module, pickers) in input.compared_reach {
        let mut parts = module.split('.');
        let Some(comps) = parts.next().and_then(|top| named.get(top)) else {
            continue;
        };
        if parts.all(|p| comps.contains(p)) {
            out.extend(pickers.iter().map(String::as_str));
        }
    }
    out
}

/// Whether `src` cuts a `__name__` at an underscore (`function.__name__.split('_', 1)`,
/// `.rpartition("_")`): the program derives a word from a name, as tinycss2's tests derive
/// the data file `stylesheet.json` from the test `test_stylesheet`.
fn splits_names_at_underscore(src: &[u8]) -> bool {
    const NAME: &[u8] = b"__name__.";
    let mut from = 0;
    while let Some(k) = src[from..].windows(NAME.len()).position(|w| w == NAME) {
        let at = from + k + NAME.len();
        let rest = &src[at..src.len().min(at + 20)];
        let call = ["split(", "rsplit(", "partition(", "rpartition("]
            .iter()
            .find_map(|m| rest.strip_prefix(m.as_bytes()));
        if call.is_some_and(|a| a.starts_with(b"'_'") || a.starts_with(b"\"_\"")) {
            return true;
        }
        from = at;
    }
    false
}

/// Where the code cuts names at an underscore (`splits_names_at_underscore`), a one-word
/// rest of a defined name (`stylesheet` of `test_stylesheet`, after the first underscore or
/// before the last) that is also the stem of a file in the tree (`stylesheet.json`) is a word
/// the program makes from the name and looks the file up by: it counts as a name the code
/// uses, so the file name and strings holding it change with the name. Without such a cut the
/// stem stays data (a one-word `docs/index.rst` beside a function `test_index` is no lookup).
fn add_name_derived_stems(facts: &FileFacts<'_>, input: &PolicyInput<'_>, f: &mut Findings) {
    if !facts.splits_names {
        return;
    }
    let stems: HashSet<&str> = input
        .names
        .iter()
        .filter_map(|n| n.split_once('.').map(|(stem, _)| stem))
        .filter(|stem| tokens::word_count(stem) == 1 && !stem.contains('_'))
        .collect();
    let mut derived: Vec<String> = Vec::new();
    for name in input.defined {
        let core = name.trim_matches('_');
        let ends = [
            core.split_once('_').map(|(_, r)| r),
            core.rsplit_once('_').map(|(h, _)| h),
        ];
        for rest in ends.into_iter().flatten() {
            if stems.contains(rest) && freeze_reason(rest, input, f).is_none() {
                derived.push(rest.to_string());
            }
        }
    }
    // Also a local's name (`stylesheet = ...`) is then no mere word of prose.
    for w in &derived {
        f.local_words.remove(w);
    }
    f.add_code_runs(derived);
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

/// In a flat layout (no Python under `src/`), setuptools finds the packages and modules to
/// install among the top-level entries, skipping some by name (`docs`, `tools`, `setup`):
/// those entries keep their names, so that the view's `pip install -e .` installs what the
/// original's does. (Virtual words never spell a skipped name either; see `bundle`.)
fn freeze_flat_layout_skips(input: &PolicyInput<'_>, f: &mut Findings) {
    let paths = || input.python.iter().chain(&input.text).map(|(p, _)| *p);
    if paths().any(|p| p.starts_with("src/")) {
        return;
    }
    for p in paths() {
        let skipped = match p.split_once('/') {
            Some((dir, _)) => FLAT_LAYOUT_SKIPPED_DIRS.contains(&dir).then_some(dir),
            None => p
                .strip_suffix(".py")
                .filter(|stem| FLAT_LAYOUT_SKIPPED_MODULES.contains(stem)),
        };
        if let Some(name) = skipped {
            f.frozen_runs
                .entry(name.to_string())
                .or_insert(FreezeReason::Tool);
        }
    }
}

/// gettext finds a catalog at `<dir>/<locale>/LC_MESSAGES/<domain>.mo`, the locale spelled
/// the way the program computes it from a language code at run time (Django's `to_locale`
/// turns `"sr-latn"` into `sr_Latn`, `"zh-hant"` into `zh_Hant`): a directory holding
/// `LC_MESSAGES` is named by that outside convention, so the words of its name stay,
/// wherever they are spelled (`Latn`, `hans`; a word of a locale name is a language, script
/// or region code, or a variant such as `valencia`, never the program's own).
fn freeze_locale_codes(input: &PolicyInput<'_>, f: &mut Findings) {
    for d in &input.dirs {
        let mut comps = d.rsplit('/');
        if comps.next() != Some("LC_MESSAGES") {
            continue;
        }
        let Some(locale) = comps.next() else { continue };
        for r in lexer::text_runs(locale.as_bytes()) {
            for t in owned_tokens(&locale[r.start..r.end]) {
                f.frozen_tokens.entry(t).or_insert(FreezeReason::Tool);
            }
        }
    }
}

/// Sphinx reads its settings from `conf.py` in its source directory (one that also holds
/// `index.rst` or `index.md`) by name: the file keeps its name (`conf` is frozen), the
/// settings it defines at its top level keep theirs (`extensions`, `html_theme`, `extlinks`,
/// `setup`), and so do the dotted names in its strings that are not the repository's own
/// modules (`"sphinx.ext.autodoc"`): they name Sphinx extensions.
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
        // Only the module's globals: Sphinx calls `setup(app)` positionally and never sees
        // a function's locals, so those stay free (flask's `app`, a local of a role
        // function in its conf.py, had frozen `app` everywhere).
        for name in super::defs::module_level_names(src) {
            f.frozen_runs.entry(name).or_insert(FreezeReason::Tool);
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

/// An outside program's words where it is run: a string literal of a file that starts the
/// program and spells a word the program holds (an option, a format, a name it prints) is
/// the program's (`transform::programs`, `FreezeReason::Program`). Only there: a program's
/// messages hold half the dictionary, and its words elsewhere in the repository are the
/// repository's.
fn freeze_program_words(input: &PolicyInput<'_>, f: &mut Findings) {
    for (files, bytes) in &input.programs {
        let words: HashSet<&str> = bytes.iter().flat_map(|b| identifier_runs(b)).collect();
        for (_, src) in input.python.iter().filter(|(p, _)| files.contains(p)) {
            for r in lexer::python_runs(src) {
                let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) else {
                    continue;
                };
                if r.class == Class::String
                    && words.contains(run)
                    && owned_tokens(run).next().is_some()
                    && !input.env_names.contains(run)
                {
                    f.frozen_runs
                        .entry(run.to_string())
                        .or_insert(FreezeReason::Program);
                }
            }
        }
    }
}

/// The ASCII identifier runs of arbitrary bytes (a binary file's stored names). Simpler and
/// faster than the text lexer; it may find a few more runs, which only freezes more.
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
    hyphen_chunks(b)
        .map(|w| w.trim_matches('-'))
        .filter(|w| w.contains('-') && !w.contains("--"))
}

/// The chunks of letters, digits, `_` and `-` of arbitrary bytes that hold a hyphen.
fn hyphen_chunks(b: &[u8]) -> impl Iterator<Item = &str> {
    let part = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
    b.split(move |&c| !part(c))
        .filter(|w| w.contains(&b'-'))
        .filter_map(|w| std::str::from_utf8(w).ok())
}

/// Letters only, of both cases, in no regular spelling of one word: not `Word`, `WORD` or
/// `word` (`ETag`, `WebSocket`, `iPhone`).
fn is_irregular_case(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() >= 2
        && b.iter().all(u8::is_ascii_alphabetic)
        && b[1..].iter().any(u8::is_ascii_uppercase)
        && b.iter().any(u8::is_ascii_lowercase)
}

/// A hyphenated string in lower case (`"last-translator"`, `"metadata-version"`) stays when
/// the tree holds the same words capitalised as data the view keeps (`Last-Translator:` in
/// a PO header, `Metadata-Version:` in an e-mail header): parsers lowercase such names
/// before comparing (babel, `email.message` in packaging), so the lower case must stay with
/// the data. Without it, the string swaps like its underscore form (`last_translator`, a
/// code name) while the data keeps its words. The capitalised spelling must be one the view
/// keeps: its underscore form is no code name, and no piece of it is one the view renames
/// (`renamed_piece`: while runs are being decided, any code name; once decided, one that is
/// not kept).
/// Once runs are decided (`spelled`: every hyphenated word of the tree), a lower case whose
/// underscore form is no code name counts too, when the tree spells it, the view would
/// rename one of its pieces word by word, and a capitalised spelling has every piece
/// capitalised: werkzeug's test sends `X-Custom-Header` and reads
/// `headers["x-custom-header"]`, whose `custom` is a parameter the view renames, while the
/// capitalised data keeps every word.
/// The lower-case groups to freeze as `Data`, in order.
fn lower_case_of_capitalised_data(
    hyphenated: &HashSet<&str>,
    code: &dyn Fn(&str) -> bool,
    renamed_piece: &dyn Fn(&str) -> bool,
    spelled: Option<&HashSet<&str>>,
) -> Vec<String> {
    // Each lower case, and whether one of its capitalised spellings is in header case.
    let mut found: BTreeMap<String, bool> = BTreeMap::new();
    for w in hyphenated
        .iter()
        .filter(|w| w.bytes().any(|b| b.is_ascii_uppercase()))
        .filter(|w| !code(w.replace('-', "_").as_str()) && !w.split('-').any(renamed_piece))
    {
        let header_case = w
            .split('-')
            .all(|p| p.starts_with(|c: char| c.is_ascii_uppercase()));
        *found.entry(w.to_ascii_lowercase()).or_default() |= header_case;
    }
    found
        .into_iter()
        .filter(|(lower, header_case)| {
            let underscore = lower.replace('-', "_");
            let follows_name = code(underscore.as_str());
            // Only a header's spelling (`X-Custom-Header`, each piece capitalised): prose
            // that opens a sentence with a compound (`Fake-apply a few`) is no header.
            let split_apart = *header_case
                && spelled.is_some_and(|s| s.contains(lower.as_str()))
                && lower.split('-').any(renamed_piece);
            (follows_name || split_apart) && owned_tokens(&underscore).next().is_some()
        })
        .map(|(lower, _)| lower)
        .collect()
}

/// A hyphenated header name (`"if-none-match"`, `"If-None-Match"`) whose CGI and WSGI key the
/// code holds (`HTTP_IF_NONE_MATCH`, which the view never renames: `rename::is_cgi_header_key`)
/// stays as written, as a whole literal: a request's header mapping turns the name into that
/// key (webob's `req.headers['if-none-match']` reads `environ['HTTP_IF_NONE_MATCH']`), so the
/// name must stay with it, though its underscore form is a renamed attribute
/// (`if_none_match`). The key's header part spelled alone in upper case stays too (Django's
/// test client takes `X_ANOTHER_HEADER="..."` as a keyword and sends it as the header
/// `x-another-header`, which the request then holds as `HTTP_X_ANOTHER_HEADER`).
fn freeze_header_names_of_cgi_keys(
    hyphenated: &HashSet<&str>,
    python_runs: &HashSet<&str>,
    f: &mut Findings,
) {
    let keys: HashSet<String> = python_runs
        .iter()
        .filter_map(|r| super::rename::cgi_header_of(r))
        .map(str::to_ascii_lowercase)
        .collect();
    if keys.is_empty() {
        return;
    }
    for w in hyphenated {
        if keys.contains(&w.to_ascii_lowercase().replace('-', "_")) {
            f.frozen_runs
                .entry(w.to_string())
                .or_insert(FreezeReason::Data);
        }
    }
    for r in python_runs {
        let upper = !r.bytes().any(|b| b.is_ascii_lowercase());
        if upper && keys.contains(&r.to_ascii_lowercase()) && owned_tokens(r).next().is_some() {
            f.frozen_runs
                .entry(r.to_string())
                .or_insert(FreezeReason::Data);
        }
    }
}

/// An upper-case word the code holds only as a whole string literal (`'CONST'` in a C lexer's
/// keyword table, never a Python name) whose lower case is an outside name that the tree
/// also spells (`const`, in the C sources its tests parse) stays. Such a table is the
/// upper-case spelling of data's words: the lexer maps `keyword.lower()` to the token, so
/// the source text `const` finds it only while both keep the word. The lower-case data
/// keeps it (an outside name, and one word of data does not follow an upper-case name,
/// `tokens::other_case_name`), so the table must too.
fn freeze_upper_case_of_outside_words(
    facts: &FileFacts<'_>,
    code: &HashSet<&str>,
    all_runs: &HashSet<&str>,
    input: &PolicyInput<'_>,
    f: &mut Findings,
) {
    for &run in &facts.whole_strings {
        let upper_word = tokens::word_count(run) == 1
            && run.len() >= MIN_TOKEN_LEN
            && run.bytes().all(|b| b.is_ascii_uppercase());
        if !upper_word || code.contains(run) {
            continue;
        }
        let lower = run.to_ascii_lowercase();
        if input.env_names.contains(&lower) && all_runs.contains(lower.as_str()) {
            f.frozen_runs
                .entry(run.to_string())
                .or_insert(FreezeReason::Outside);
        }
    }
}

/// Words joined by hyphens in a binary file (`ld-musl-x86_64` of an ELF interpreter path), in
/// the underscore form a code name has (`ld_musl_x86_64`): text that the view groups by its
/// hyphens swaps such a group as the code name (`Renamer::swap_hyphen_group`), so a code name
/// that begins one is stored in the file too.
fn hyphen_compounds(b: &[u8]) -> impl Iterator<Item = String> + '_ {
    hyphen_chunks(b)
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
    } else if is_keyword(run) || is_keyword_twin(run) {
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
mod case_tests;
#[cfg(test)]
mod dynamic_tests;
#[cfg(test)]
mod pattern_tests;
#[cfg(test)]
mod tests;
