//! TOML (`pyproject.toml` and any `*.toml`).
//!
//! - Fixed: table headers and keys (tool vocabulary), bare values (`true`, `false`, `inf`,
//!   `nan`, numbers and dates: the only bare values TOML has), and the values listed in
//!   [`FIXED_VALUES`] (trove classifiers, `dynamic` field names, licenses, authors).
//! - String rule: every other string value, and the keys of the tables in [`OWNED_KEYS`],
//!   whose keys name the repository's own objects.
//! - Requirements ([`REQUIREMENTS`]): the distribution name is `Dist`, the rest stays.
//! - `Dist`: the project's name and the build backend.
//!
//! Why these tables own their keys (PEP 621, setuptools, poetry, flit, hatch, ruff docs):
//! `project.scripts` / `gui-scripts` / `entry-points.<group>` and their poetry and flit
//! twins map command and plugin names to `module:function` of the project; setuptools'
//! `package-data`, `exclude-package-data` and `package-dir` are keyed by the project's
//! package names; hatch's `force-include` and `sources` and ruff's `per-file-ignores` by
//! paths in the tree. Every other table's keys are fields of the tool (`[project]`,
//! `[tool.pytest.ini_options]`, `[tool.coverage.*]`, `[tool.mypy]`...). A table keyed by
//! names the project chose but that nothing looks up by path or import
//! (`optional-dependencies` extras, hatch environments, `coverage.paths` labels) keeps them:
//! extras are also named in requirement strings (`pkg[extra]`), where they stay.
//!
//! Involution: the key path is made of the header's and keys' segments; a segment in an
//! owned position is never compared with a literal, every other segment is `Fixed`, so its
//! letters are the same in the view. Every other decision is made from punctuation.

use super::{basic_content, is_space, line_end, push, requirement};
use crate::transform::lexer::{is_word_at, Class, Run};

/// A segment of a key path: the text of a fixed key, or a key in an owned position (whose
/// letters are never looked at).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Lit(Vec<u8>),
    Owned,
}

/// Tables whose keys (the last `*`) follow the string rule.
pub const OWNED_KEYS: &[&[&str]] = &[
    &["project", "scripts", "*"],
    &["project", "gui-scripts", "*"],
    &["project", "entry-points", "*"],
    &["project", "entry-points", "*", "*"],
    &["tool", "setuptools", "package-data", "*"],
    &["tool", "setuptools", "exclude-package-data", "*"],
    &["tool", "setuptools", "package-dir", "*"],
    &["tool", "poetry", "scripts", "*"],
    &["tool", "poetry", "plugins", "*"],
    &["tool", "poetry", "plugins", "*", "*"],
    &["tool", "flit", "scripts", "*"],
    &["tool", "flit", "entrypoints", "*"],
    &["tool", "flit", "entrypoints", "*", "*"],
    &["tool", "hatch", "build", "force-include", "*"],
    &["tool", "hatch", "build", "sources", "*"],
    &[
        "tool",
        "hatch",
        "build",
        "targets",
        "*",
        "force-include",
        "*",
    ],
    &["tool", "hatch", "build", "targets", "*", "sources", "*"],
    &["tool", "ruff", "per-file-ignores", "*"],
    &["tool", "ruff", "extend-per-file-ignores", "*"],
    &["tool", "ruff", "lint", "per-file-ignores", "*"],
    &["tool", "ruff", "lint", "extend-per-file-ignores", "*"],
];

/// Values that are PEP 508 requirement strings.
pub const REQUIREMENTS: &[&[&str]] = &[
    &["project", "dependencies"],
    &["project", "optional-dependencies", "*"],
    &["build-system", "requires"],
    &["dependency-groups", "*"],
    &["tool", "hatch", "envs", "*", "dependencies"],
    &["tool", "hatch", "envs", "*", "extra-dependencies"],
    &["tool", "pdm", "dev-dependencies", "*"],
];

/// Values that are distribution (or build backend) names.
pub const DIST_VALUES: &[&[&str]] = &[
    &["project", "name"],
    &["tool", "poetry", "name"],
    &["build-system", "build-backend"],
];

/// Values that are vocabulary of the packaging standards, not names of the project.
pub const FIXED_VALUES: &[&[&str]] = &[
    &["project", "classifiers"],
    &["project", "dynamic"],
    &["project", "license"],
    &["project", "license", "*"],
    &["project", "license-files"],
    &["project", "authors", "*"],
    &["project", "maintainers", "*"],
    &["tool", "poetry", "classifiers"],
    &["tool", "poetry", "license"],
    &["tool", "poetry", "authors"],
    &["tool", "poetry", "maintainers"],
];

fn matches(pat: &[&str], path: &[Seg]) -> bool {
    pat.len() == path.len()
        && pat.iter().zip(path).all(|(p, s)| match s {
            Seg::Lit(t) => *p == "*" || p.as_bytes() == t.as_slice(),
            Seg::Owned => *p == "*",
        })
}

fn any_match(pats: &[&[&str]], path: &[Seg]) -> bool {
    pats.iter().any(|p| matches(p, path))
}

/// Whether a key right after `prefix` is in an owned position.
fn owned_position(prefix: &[Seg]) -> bool {
    let mut probe = prefix.to_vec();
    probe.push(Seg::Owned);
    any_match(OWNED_KEYS, &probe)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Requirement,
    Dist,
    Fixed,
    String,
}

fn value_rule(path: &[Seg]) -> Rule {
    if any_match(REQUIREMENTS, path) {
        Rule::Requirement
    } else if any_match(DIST_VALUES, path) {
        Rule::Dist
    } else if any_match(FIXED_VALUES, path) {
        Rule::Fixed
    } else {
        Rule::String
    }
}

/// Runs of a TOML document, classified. Never fails.
pub fn runs(s: &[u8]) -> Vec<Run> {
    let mut lx = Lx {
        s,
        i: 0,
        out: Vec::new(),
        table: Vec::new(),
    };
    lx.file();
    lx.out
}

struct Lx<'s> {
    s: &'s [u8],
    i: usize,
    out: Vec<Run>,
    table: Vec<Seg>,
}

impl Lx<'_> {
    fn at(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }

    fn spaces(&mut self) {
        while self.i < self.s.len() && is_space(self.s[self.i]) {
            self.i += 1;
        }
    }

    /// Spaces, line breaks and comments (between array elements, between statements).
    fn blank(&mut self) {
        loop {
            self.spaces();
            match self.at(0) {
                Some(b'\n' | b'\r') => self.i += 1,
                Some(b'#') => self.comment(),
                _ => return,
            }
        }
    }

    fn comment(&mut self) {
        let e = line_end(self.s, self.i);
        push(self.s, self.i, e, Class::Comment, &mut self.out);
        self.i = e;
    }

    /// Anything unexpected up to `end`: the string rule, as text.
    fn junk(&mut self, end: usize) {
        let end = end.max(self.i);
        push(self.s, self.i, end, Class::String, &mut self.out);
        self.i = end;
    }

    /// The rest of a line after a statement: a comment, or junk.
    fn line_rest(&mut self) {
        self.spaces();
        match self.at(0) {
            Some(b'#') => self.comment(),
            Some(b'\n' | b'\r') | None => {}
            Some(_) => {
                let e = line_end(self.s, self.i);
                self.junk(e);
            }
        }
    }

    fn file(&mut self) {
        while self.i < self.s.len() {
            self.blank();
            match self.at(0) {
                None => break,
                Some(b'[') => self.header(),
                Some(_) => {
                    let table = self.table.clone();
                    let before = self.i;
                    self.keyval(&table, true);
                    if self.i == before {
                        let e = line_end(self.s, self.i).max(self.i + 1);
                        self.junk(e);
                    }
                }
            }
        }
    }

    fn header(&mut self) {
        let double = self.at(1) == Some(b'[');
        self.i += if double { 2 } else { 1 };
        let segs = self.key(&[]);
        self.spaces();
        let closes = if double {
            self.at(0) == Some(b']') && self.at(1) == Some(b']')
        } else {
            self.at(0) == Some(b']')
        };
        if closes {
            self.i += if double { 2 } else { 1 };
        }
        self.table = segs;
        self.line_rest();
    }

    /// A dotted key after `prefix`; each segment is `Fixed` unless in an owned position.
    fn key(&mut self, prefix: &[Seg]) -> Vec<Seg> {
        let mut path = prefix.to_vec();
        loop {
            self.spaces();
            let owned = owned_position(&path);
            let class = if owned { Class::String } else { Class::Fixed };
            let (a, b, next) = match self.at(0) {
                Some(q @ (b'"' | b'\'')) => {
                    let a = self.i + 1;
                    let b = quoted_end(self.s, a, q);
                    (a, b, (b + 1).min(self.s.len()))
                }
                Some(c) if is_bare_key_byte(c) => {
                    let mut b = self.i;
                    while b < self.s.len() && is_bare_key_byte(self.s[b]) {
                        b += 1;
                    }
                    (self.i, b, b)
                }
                _ => break,
            };
            push(self.s, a, b, class, &mut self.out);
            path.push(if owned {
                Seg::Owned
            } else {
                Seg::Lit(self.s[a..b].to_vec())
            });
            self.i = next;
            self.spaces();
            if self.at(0) == Some(b'.') {
                self.i += 1;
                continue;
            }
            break;
        }
        path.split_off(prefix.len())
    }

    /// `key = value` (at the top level, the rest of its line too).
    fn keyval(&mut self, prefix: &[Seg], top: bool) {
        let segs = self.key(prefix);
        self.spaces();
        if segs.is_empty() || self.at(0) != Some(b'=') {
            if top {
                let e = line_end(self.s, self.i);
                self.junk(e);
            }
            return;
        }
        self.i += 1;
        let mut path = prefix.to_vec();
        path.extend(segs);
        self.value(&path);
        if top {
            self.line_rest();
        }
    }

    fn value(&mut self, path: &[Seg]) {
        self.spaces();
        match self.at(0) {
            Some(q @ (b'"' | b'\'')) => self.string(q, value_rule(path)),
            Some(b'[') => self.array(path),
            Some(b'{') => self.inline(path),
            Some(b'\n' | b'\r' | b'#' | b',' | b']' | b'}') | None => {}
            Some(_) => {
                let mut e = self.i;
                while e < self.s.len()
                    && !matches!(
                        self.s[e],
                        b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}' | b'#'
                    )
                {
                    e += 1;
                }
                push(self.s, self.i, e, Class::Fixed, &mut self.out);
                self.i = e;
            }
        }
    }

    fn string(&mut self, q: u8, rule: Rule) {
        let s = self.s;
        let triple = self.at(1) == Some(q) && self.at(2) == Some(q);
        let a = self.i + if triple { 3 } else { 1 };
        let mut j = a;
        let end;
        loop {
            if j >= s.len() {
                end = j;
                break;
            }
            let c = s[j];
            if c == b'\\' && q == b'"' {
                j = (j + 2).min(s.len());
                continue;
            }
            if c == q {
                if !triple {
                    end = j;
                    j += 1;
                    break;
                }
                if s.get(j + 1) == Some(&q) && s.get(j + 2) == Some(&q) {
                    // A closing `"""` may be preceded by up to two quotes of the content.
                    let mut k = j + 3;
                    while k < s.len() && s[k] == q && k < j + 5 {
                        k += 1;
                    }
                    end = k - 3;
                    j = k;
                    break;
                }
            }
            if !triple && (c == b'\n' || c == b'\r') {
                end = j;
                break;
            }
            j += 1;
        }
        match rule {
            Rule::Requirement => requirement(s, a, end, &mut self.out),
            Rule::Dist => push(s, a, end, Class::Dist, &mut self.out),
            Rule::Fixed => push(s, a, end, Class::Fixed, &mut self.out),
            Rule::String if q == b'"' => basic_content(s, a, end, Class::String, &mut self.out),
            Rule::String => push(s, a, end, Class::String, &mut self.out),
        }
        self.i = j;
    }

    fn array(&mut self, path: &[Seg]) {
        self.i += 1;
        loop {
            self.blank();
            match self.at(0) {
                None => return,
                Some(b']') => {
                    self.i += 1;
                    return;
                }
                Some(b',') => self.i += 1,
                Some(_) => {
                    let before = self.i;
                    self.value(path);
                    if self.i == before {
                        self.unit();
                    }
                }
            }
        }
    }

    fn inline(&mut self, path: &[Seg]) {
        self.i += 1;
        loop {
            self.blank();
            match self.at(0) {
                None => return,
                Some(b'}') => {
                    self.i += 1;
                    return;
                }
                Some(b',') => self.i += 1,
                Some(_) => {
                    let before = self.i;
                    self.keyval(path, false);
                    if self.i == before {
                        self.unit();
                    }
                }
            }
        }
    }

    /// Consume one unexpected word or byte (string rule), so every loop makes progress.
    fn unit(&mut self) {
        let e = if is_word_at(self.s, self.i) {
            crate::transform::lexer::word_end(self.s, self.i)
        } else {
            self.i + 1
        };
        self.junk(e);
    }
}

fn is_bare_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// End of a single-line quoted key starting after its quote at `a` (index of the closing
/// quote, or the line end).
fn quoted_end(s: &[u8], a: usize, q: u8) -> usize {
    let mut j = a;
    while j < s.len() && s[j] != q && s[j] != b'\n' && s[j] != b'\r' {
        if s[j] == b'\\' && q == b'"' {
            j += 1;
        }
        j += 1;
    }
    j.min(s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes(src: &str) -> Vec<(String, Class)> {
        runs(src.as_bytes())
            .into_iter()
            .map(|r| (src[r.start..r.end].to_string(), r.class))
            .collect()
    }

    fn of(src: &str, class: Class) -> Vec<String> {
        classes(src)
            .into_iter()
            .filter(|(_, c)| *c == class)
            .map(|(w, _)| w)
            .collect()
    }

    #[test]
    fn keys_and_bare_values_are_fixed_values_follow_the_string_rule() {
        let src = "[tool.pytest.ini_options]\ntestpaths = [\"tests\", 'pkg_src']\nxfail_strict = true\nmax = inf # query count\n";
        assert_eq!(
            of(src, Class::Fixed),
            [
                "tool",
                "pytest",
                "ini_options",
                "testpaths",
                "xfail_strict",
                "true",
                "max",
                "inf"
            ]
        );
        assert_eq!(of(src, Class::String), ["tests", "pkg_src"]);
        assert_eq!(of(src, Class::Comment), ["query", "count"]);
    }

    #[test]
    fn owned_tables_use_the_string_rule_for_keys() {
        let src = "[project.scripts]\nquery-cli = \"query.cli:main\"\n[project.entry-points.\"query.plugins\"]\nuser = \"query.user\"\n[tool.setuptools.package-data]\nquery = [\"*.txt\"]\n[project.urls]\nHome = \"x\"\n";
        let fixed = of(src, Class::Fixed);
        for k in [
            "project",
            "scripts",
            "entry",
            "points",
            "tool",
            "setuptools",
            "urls",
            "Home",
        ] {
            assert!(fixed.contains(&k.to_string()), "{k} {fixed:?}");
        }
        let strings = of(src, Class::String);
        assert_eq!(
            strings,
            [
                "query", "cli", "query", "cli", "main", "query", "plugins", "user", "query",
                "user", "query", "txt", "x"
            ]
        );
    }

    #[test]
    fn requirements_keep_all_but_the_distribution_name() {
        let src = "[project]\nname = \"query-set\"\ndynamic = [\"version\"]\ndependencies = [\n  \"query-set[user]>=1.0; python_version < '3.9'\",\n  \"other\",\n]\n[project.optional-dependencies]\nuser = [\"query-set[docs]\"]\n";
        assert_eq!(
            of(src, Class::Dist),
            ["query", "set", "query", "set", "other", "query", "set"]
        );
        assert!(of(src, Class::String).is_empty(), "{:?}", classes(src));
        let fixed = of(src, Class::Fixed);
        for k in ["version", "user", "python_version", "docs"] {
            assert!(fixed.contains(&k.to_string()), "{k}");
        }
    }

    #[test]
    fn dotted_and_inline_keys_find_owned_tables() {
        let src = "[project]\nscripts = { query = \"query:main\" }\nentry-points.grp.user = \"x:y\"\n[tool]\nsetuptools.package-dir = {\"\" = \"src\"}\n";
        assert_eq!(
            of(src, Class::String),
            ["query", "query", "main", "grp", "user", "x", "y", "src"]
        );
    }

    #[test]
    fn broken_input_is_still_scanned() {
        // Unterminated strings, arrays and headers: every run still gets a class.
        let src = "[tool.x\nkey = \"open\nother = [1, \"a\"\n= value\n{{ junk\n";
        let all = classes(src);
        assert_eq!(all.len(), 8, "{all:?}");
    }
}
