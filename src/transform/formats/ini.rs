//! INI-style configuration (`setup.cfg`, `tox.ini`, `.flake8`, `.coveragerc`, `pytest.ini`,
//! `mypy.ini`, `.pylintrc`, `*.cfg`, `*.ini`), read line by line as `configparser` does:
//! `[section]` headers, `key = value` or `key: value` options, indented continuation lines,
//! `#`/`;` comment lines.
//!
//! - Fixed: section names and option names (tool vocabulary); a value that is one boolean
//!   word (`true`, `no`, asked of the run and its image); the values of [`FIXED_KEYS`]
//!   (classifiers, tox environment lists and extras, which name things the same file or
//!   `pyproject.toml` keeps).
//! - String rule: other values, including `[options.entry_points]` lines
//!   (`name = pkg.mod:func`); the keys of [`OWNED_SECTIONS`] (package names); the part of a
//!   mypy section header after `mypy-` (`[mypy-pkg.mod.*]`, a module pattern).
//! - Requirements ([`REQUIREMENT_KEYS`], `[options.extras_require]` values): one per line,
//!   the distribution name is `Dist`, the rest stays. `[metadata] name` is `Dist`.
//!
//! Involution: line kinds come from the first non-blank byte and the indentation; a section
//! or option name that decides a rule is `Fixed`, so it reads the same in the view.

use super::{lines, push, requirement, trim, Ask, Line};
use crate::transform::lexer::{Class, Run};

/// Sections whose option names are the project's package names.
pub const OWNED_SECTIONS: &[&str] = &["options.package_data", "options.exclude_package_data"];

/// Options whose values are requirement lists.
pub const REQUIREMENT_KEYS: &[&str] = &[
    "install_requires",
    "setup_requires",
    "tests_require",
    "deps",
    "requires",
];

/// Options whose values are vocabulary: trove classifiers, licenses and people, tox
/// environment names and extras (named again in `[testenv:NAME]` headers and
/// `pyproject.toml` keys, which stay).
pub const FIXED_KEYS: &[&str] = &[
    "classifiers",
    "license",
    "license_files",
    "author",
    "author_email",
    "maintainer",
    "maintainer_email",
    "platforms",
    "envlist",
    "env_list",
    "extras",
    "depends",
];

/// Words `configparser.getboolean` reads (the one- and two-letter ones are never mapped).
pub const BOOLEANS: &[&str] = &["true", "false", "yes", "no", "on", "off"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Requirement,
    Dist,
    Fixed,
    String,
}

/// Runs of an INI-style file, classified. Never fails.
pub fn runs(s: &[u8], ask: &dyn Ask) -> Vec<Run> {
    let mut out = Vec::new();
    // The current section's name (a `Fixed` text) and the current option's rule, for
    // continuation lines.
    let mut section: Vec<u8> = Vec::new();
    let mut rule: Option<Rule> = None;
    for Line {
        start: i,
        text: a,
        end,
    } in lines(s)
    {
        let indented = a > i;
        if a == end {
            // Blank line: configparser keeps it inside a multi-line value.
        } else if s[a] == b'#' || s[a] == b';' {
            push(s, a, end, Class::Comment, &mut out);
        } else if indented && rule.is_some() {
            value(s, a, end, rule.unwrap_or(Rule::String), ask, &mut out);
        } else if s[a] == b'[' {
            let close = s[a..end].iter().rposition(|&c| c == b']').map(|p| a + p);
            let hb = close.unwrap_or(end);
            header(s, a + 1, hb, &mut out);
            section = s[a + 1..hb].to_vec();
            rule = None;
            if let Some(c) = close {
                push(s, c + 1, end, Class::Comment, &mut out);
            }
        } else {
            let delim = s[a..end]
                .iter()
                .position(|&c| c == b'=' || c == b':')
                .map(|p| a + p);
            match delim {
                Some(d) => {
                    let key = trim(&s[a..d]);
                    let owned = OWNED_SECTIONS.iter().any(|x| x.as_bytes() == section);
                    push(
                        s,
                        a,
                        d,
                        if owned { Class::String } else { Class::Fixed },
                        &mut out,
                    );
                    // The rule of a value hangs on fixed names only: an owned key is never
                    // looked at.
                    let r = if owned {
                        Rule::String
                    } else {
                        rule_of(&section, key)
                    };
                    value(s, d + 1, end, r, ask, &mut out);
                    rule = Some(r);
                }
                None => {
                    push(s, a, end, Class::String, &mut out);
                    rule = None;
                }
            }
        }
    }
    out
}

/// A section header's content: `Fixed`, except a mypy per-module section's pattern.
fn header(s: &[u8], a: usize, b: usize, out: &mut Vec<Run>) {
    if s[a..b].starts_with(b"mypy-") {
        push(s, a, a + 4, Class::Fixed, out);
        push(s, a + 5, b, Class::String, out);
    } else {
        push(s, a, b, Class::Fixed, out);
    }
}

fn rule_of(section: &[u8], key: &[u8]) -> Rule {
    let key = std::str::from_utf8(key).unwrap_or("");
    let section = std::str::from_utf8(section).unwrap_or("");
    if REQUIREMENT_KEYS.contains(&key) || section == "options.extras_require" {
        Rule::Requirement
    } else if section == "metadata" && key == "name" {
        Rule::Dist
    } else if FIXED_KEYS.contains(&key) {
        Rule::Fixed
    } else {
        Rule::String
    }
}

/// One line of a value (`s[a..b]`).
fn value(s: &[u8], a: usize, b: usize, rule: Rule, ask: &dyn Ask, out: &mut Vec<Run>) {
    match rule {
        Rule::Requirement => requirement(s, a, b, out),
        Rule::Dist => push(s, a, b, Class::Dist, out),
        Rule::Fixed => push(s, a, b, Class::Fixed, out),
        Rule::String => {
            let start = out.len();
            push(s, a, b, Class::String, out);
            // A value that is one boolean word is the format's, not a name.
            let t = trim(&s[a..b]);
            if out.len() == start + 1 {
                let r = out[start];
                let one = std::str::from_utf8(&s[r.start..r.end]).unwrap_or("");
                if one.len() == t.len() && ask.is_one_of(one, BOOLEANS) {
                    out[start].class = Class::Fixed;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::formats::Plain;

    fn of(src: &str, class: Class) -> Vec<String> {
        runs(src.as_bytes(), &Plain::default())
            .into_iter()
            .filter(|r| r.class == class)
            .map(|r| src[r.start..r.end].to_string())
            .collect()
    }

    #[test]
    fn sections_and_options_are_fixed_values_follow_the_string_rule() {
        let src = "[tool:pytest]\ntestpaths = query\naddopts = --strict\nxfail_strict = True\n# query note\n[coverage:run]\nsource =\n    query\n    user_set\n";
        assert_eq!(
            of(src, Class::Fixed),
            [
                "tool",
                "pytest",
                "testpaths",
                "addopts",
                "xfail_strict",
                "True",
                "coverage",
                "run",
                "source"
            ]
        );
        assert_eq!(
            of(src, Class::String),
            ["query", "strict", "query", "user_set"]
        );
        assert_eq!(of(src, Class::Comment), ["query", "note"]);
    }

    #[test]
    fn setup_cfg_owned_parts() {
        let src = "[metadata]\nname = query-set\nclassifiers =\n    Topic :: Query\n[options]\ninstall_requires =\n    query-set[user]>=1\n    other\n[options.entry_points]\nconsole_scripts =\n    query = query.cli:main\n[options.package_data]\nquery = *.txt\n[mypy-query.user.*]\nignore_errors = true\n";
        assert_eq!(
            of(src, Class::Dist),
            ["query", "set", "query", "set", "other"]
        );
        assert_eq!(
            of(src, Class::String),
            ["query", "query", "cli", "main", "query", "txt", "query", "user"]
        );
        let fixed = of(src, Class::Fixed);
        for w in [
            "Topic",
            "Query",
            "user",
            "console_scripts",
            "mypy",
            "ignore_errors",
            "true",
        ] {
            assert!(fixed.contains(&w.to_string()), "{w} {fixed:?}");
        }
    }
}
