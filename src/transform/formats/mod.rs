//! Format-aware lexing of text files: which runs of a TOML, INI, YAML, JSON, `MANIFEST.in`,
//! Markdown, reStructuredText or gettext catalog file never change (`Class::Fixed`: syntax
//! words, tool keys, markup), which are distribution names (`Class::Dist`), and which follow
//! the string rule.
//!
//! Guarantee (law 3): like the Python lexer, every lexer here decides from the bytes between
//! runs (quotes, brackets, `=`, `:`, indentation, newlines) and from the letters of runs it has
//! itself classified `Fixed`, which the swap never changes. Where a decision needs the letters
//! of any other run (is this bare YAML value `true`? is this `.pear` a tree extension?) it is
//! asked through [`Ask`], which answers the same for a run and for its image. So the swapped
//! text is lexed into the same runs with the same classes, on any input: a broken file is
//! scanned by the same total state machine, with no error recovery that could differ.
//!
//! The format is chosen by the file's name (its extension or base name), which the view never
//! changes, from the original path in both directions.

pub mod ini;
pub mod json;
pub mod manifest;
pub mod markup;
pub mod po;
pub mod spans;
pub mod toml;
pub mod yaml;

use super::lexer::{self, Class, Run};

/// Questions about a run's letters that a lexer may ask: each answer must be the same for a
/// run and for its image (the renamer asks both), so the decision survives the swap.
pub trait Ask {
    /// Whether the run, or its image, is one of `words` (ASCII case ignored).
    fn is_one_of(&self, run: &str, words: &[&str]) -> bool;
    /// Whether the run, or its image, is an extension of a file in the tree.
    fn is_extension(&self, run: &str) -> bool;
}

/// [`Ask`] without a map (the policy, which looks at the original only).
#[derive(Debug, Default)]
pub struct Plain<'a> {
    pub extensions: Option<&'a std::collections::BTreeSet<String>>,
}

impl Ask for Plain<'_> {
    fn is_one_of(&self, run: &str, words: &[&str]) -> bool {
        words.iter().any(|w| w.eq_ignore_ascii_case(run))
    }
    fn is_extension(&self, run: &str) -> bool {
        self.extensions.is_some_and(|e| e.contains(run))
    }
}

/// How a text file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toml,
    Ini,
    Yaml,
    Json,
    Manifest,
    Markdown,
    Rst,
    /// A gettext catalog (`.po`, `.pot`).
    Po,
    /// Anything else: every run follows the string rule.
    Plain,
}

/// INI-style files known by their whole base name.
const INI_NAMES: &[&str] = &[
    "setup.cfg",
    "tox.ini",
    ".flake8",
    ".coveragerc",
    "pytest.ini",
    ".pylintrc",
    "pylintrc",
    "mypy.ini",
    ".mypy.ini",
    ".isort.cfg",
    ".pydocstyle",
    ".bandit",
];

/// The format of a text file from its path (original names; base name and extension are
/// what count).
pub fn format_of(path: &[u8]) -> Format {
    let base = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    let base = std::str::from_utf8(base).unwrap_or("");
    let lower = base.to_ascii_lowercase();
    if INI_NAMES.contains(&lower.as_str()) {
        return Format::Ini;
    }
    if base == "MANIFEST.in" {
        return Format::Manifest;
    }
    // A catalog keeps its format under a suffix (`django.po.tmp`, `messages.pot.in`: a copy
    // that tests or templates turn into the catalog by renaming it).
    if lower.split('.').skip(1).any(|e| e == "po" || e == "pot") {
        return Format::Po;
    }
    let ext = lower.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "toml" => Format::Toml,
        "cfg" | "ini" => Format::Ini,
        "yml" | "yaml" => Format::Yaml,
        "json" => Format::Json,
        "md" | "markdown" => Format::Markdown,
        "rst" => Format::Rst,
        _ => Format::Plain,
    }
}

/// Whether a JSON or YAML file is a tool's configuration (keys are the tool's vocabulary and
/// never change) rather than data the repository reads (keys are names its code looks up, as
/// `data["user_name"]`, and follow the string rule like those lookups). Configuration lives
/// at the root of the tree (`mkdocs.yml`, `codecov.yml`, `package.json`) or in a dot-file or
/// dot-directory (`.github/workflows/ci.yml`, `.pre-commit-config.yaml`); data lives in the
/// package and test directories.
pub fn is_tool_config(path: &[u8]) -> bool {
    let comps: Vec<&[u8]> = path
        .split(|&b| b == b'/')
        .filter(|c| !c.is_empty())
        .collect();
    comps.len() <= 1 || comps.iter().any(|c| c.first() == Some(&b'.'))
}

/// Runs of a text file in its format, with protected spans (URLs, e-mail addresses,
/// hostnames, versions, tree extensions) made `Fixed`.
pub fn text_file_runs(path: &[u8], s: &[u8], ask: &dyn Ask) -> Vec<Run> {
    let mut runs = match format_of(path) {
        Format::Toml => toml::runs(s),
        Format::Ini => ini::runs(s, ask),
        Format::Yaml => yaml::runs(s, ask, is_tool_config(path)),
        Format::Json => json::runs(s, is_tool_config(path)),
        Format::Manifest => manifest::runs(s),
        Format::Markdown => markup::markdown_runs(s),
        Format::Rst => markup::rst_runs(s),
        Format::Po => po::runs(s),
        Format::Plain => lexer::text_runs(s),
    };
    spans::protect(s, &mut runs, ask);
    runs
}

/// Runs of Python source with protected spans in its strings and comments.
pub fn python_file_runs(s: &[u8], ask: &dyn Ask) -> Vec<Run> {
    let mut runs = lexer::python_runs(s);
    spans::protect(s, &mut runs, ask);
    runs
}

/// Runs of free text (a problem statement, a log, a test id) with protected spans.
pub fn free_text_runs(s: &[u8], ask: &dyn Ask) -> Vec<Run> {
    let mut runs = lexer::text_runs(s);
    spans::protect(s, &mut runs, ask);
    runs
}

/// Tokens never mapped so that the hostname rule may rely on them (`spans`): top-level
/// domains of three letters or more (two-letter ones are never mapped anyway).
pub const FROZEN_TOKENS: &[&str] = &["com", "org", "net", "edu", "gov"];

/// Push every run of `s[from..to]` with one class (see `lexer::push_runs`).
pub(crate) fn push(s: &[u8], from: usize, to: usize, class: Class, out: &mut Vec<Run>) {
    lexer::push_runs(s, from, to, class, out);
}

/// One line of a text file: where it starts, its first byte that is not a blank, and its end
/// (the index of its line break, or `s.len()`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line {
    pub start: usize,
    pub text: usize,
    pub end: usize,
}

/// The lines of `s` in order, as the format lexers read them: `\r\n`, `\n` and `\r` end a
/// line, and a final line break opens no empty line after it.
pub(crate) fn lines(s: &[u8]) -> impl Iterator<Item = Line> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= s.len() {
            return None;
        }
        let end = line_end(s, i);
        let mut text = i;
        while text < end && is_space(s[text]) {
            text += 1;
        }
        let line = Line {
            start: i,
            text,
            end,
        };
        // At the end of `s` this stays there, which ends the walk.
        i = after_break(s, end);
        Some(line)
    })
}

/// End of the line that holds `i` (index of the `\n` or `\r`, or `s.len()`).
pub(crate) fn line_end(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i] != b'\n' && s[i] != b'\r' {
        i += 1;
    }
    i
}

/// Index after the line break at `i` (`\r\n` counts as one).
pub(crate) fn after_break(s: &[u8], i: usize) -> usize {
    if i < s.len() && s[i] == b'\r' && s.get(i + 1) == Some(&b'\n') {
        i + 2
    } else {
        (i + 1).min(s.len())
    }
}

/// `b` without the blanks at either end.
pub(crate) fn trim(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|&c| !is_space(c)).unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|&c| !is_space(c))
        .map_or(start, |p| p + 1);
    &b[start..end]
}

pub(crate) fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Runs of a PEP 508 requirement held in `s[from..to]` (`my-pkg[extra]>=1.0; python_version
/// < "3.9"`): the distribution name is `Dist`, everything after it (extras, versions, URLs,
/// markers) is the requirement's syntax and stays.
pub(crate) fn requirement(s: &[u8], from: usize, to: usize, out: &mut Vec<Run>) {
    let mut i = from;
    while i < to && is_space(s[i]) {
        i += 1;
    }
    let name_start = i;
    while i < to && (s[i].is_ascii_alphanumeric() || matches!(s[i], b'_' | b'-' | b'.')) {
        i += 1;
    }
    push(s, name_start, i, Class::Dist, out);
    push(s, i, to, Class::Fixed, out);
}

/// Runs of the content `s[a..b]` of a string with backslash escapes (TOML basic, JSON, YAML
/// double-quoted): escapes are skipped whole (`\u00e9` and letters glued to it), so a swap
/// never turns escape letters into others.
pub(crate) fn basic_content(s: &[u8], a: usize, b: usize, class: Class, out: &mut Vec<Run>) {
    let mut from = a;
    let mut j = a;
    while j < b {
        if s[j] != b'\\' {
            j += 1;
            continue;
        }
        lexer::push_runs_from(s, from, j, class, out);
        j += 1;
        if j < b && matches!(s[j], b'u' | b'U' | b'x') {
            j += 1;
            while j < b && lexer::is_word_at(s, j) {
                j += 1;
            }
        } else if j < b {
            j += 1;
        }
        from = j;
    }
    lexer::push_runs_from(s, from, b, class, out);
}
