//! The words configuration and catalog files keep as their own vocabulary: keys of TOML and
//! INI files (tool keys at the root, data keys below it) and gettext's keywords and flags.
//! Code that spells one of them in a string literal reads or writes such a file by it, so
//! the literal must keep it (`analyze` freezes those runs).
//!
//! Read file by file in parallel and folded into sets: every reader only asks whether a
//! word is in them, so the order files are folded in changes nothing.

use std::collections::HashSet;

use rayon::prelude::*;

use super::is_config_key;
use crate::transform::formats;
use crate::transform::lexer::Class;

#[derive(Default)]
pub(super) struct ConfigWords<'a> {
    /// Keys TOML files keep, exactly.
    pub toml: HashSet<&'a str>,
    /// Keys INI files keep, in lower case (configparser reads option names without case).
    pub ini: HashSet<String>,
    /// gettext's keywords and flags (`msgstr`, `fuzzy`).
    pub po: HashSet<&'a str>,
    /// The underscore form of every hyphenated TOML or INI key (`target_version` of
    /// `target-version`), INI ones in lower case: a program that reads its options from
    /// such a file (black from its own `[tool.black]`) turns each key into the name of its
    /// option with `.replace("-", "_")`.
    pub hyphenated: HashSet<String>,
    /// The TOML and INI keys of files below the root (test fixtures, package data; not the
    /// tools' `pyproject.toml` or `setup.cfg` at the root), INI ones in lower case.
    pub data_keys: HashSet<String>,
}

impl<'a> ConfigWords<'a> {
    pub fn of(text: &[(&'a str, &'a [u8])]) -> Self {
        text.par_iter()
            .fold(ConfigWords::default, |mut words, &(path, src)| {
                words.add(path, src);
                words
            })
            .reduce(ConfigWords::default, ConfigWords::merge)
    }

    fn add(&mut self, path: &str, src: &'a [u8]) {
        let below_root = path.contains('/');
        let plain = formats::Plain::default();
        let (runs, lower) = match formats::format_of(path.as_bytes()) {
            formats::Format::Toml => (formats::toml::runs(src), false),
            formats::Format::Ini => (formats::ini::runs(src, &plain), true),
            formats::Format::Po => {
                let words = formats::po::vocabulary(src);
                self.po.extend(
                    words
                        .iter()
                        .filter_map(|r| std::str::from_utf8(&src[r.start..r.end]).ok()),
                );
                return;
            }
            _ => return,
        };
        let keys: Vec<_> = runs
            .iter()
            .filter(|r| r.class == Class::Fixed && is_config_key(src, r.start, r.end, lower))
            .collect();
        // Keys whose words are joined by single hyphens, in their underscore form.
        let mut groups: Vec<(usize, usize)> = Vec::new();
        for r in &keys {
            match groups.last_mut() {
                Some((_, end)) if *end + 1 == r.start && src[*end] == b'-' => *end = r.end,
                _ => groups.push((r.start, r.end)),
            }
        }
        for (start, end) in groups {
            let Ok(key) = std::str::from_utf8(&src[start..end]) else {
                continue;
            };
            if key.contains('-') {
                let name = key.replace('-', "_");
                self.hyphenated.insert(if lower {
                    name.to_ascii_lowercase()
                } else {
                    name
                });
            }
        }
        for r in keys {
            if let Ok(run) = std::str::from_utf8(&src[r.start..r.end]) {
                if lower {
                    self.ini.insert(run.to_ascii_lowercase());
                } else {
                    self.toml.insert(run);
                }
                if below_root {
                    self.data_keys.insert(if lower {
                        run.to_ascii_lowercase()
                    } else {
                        run.to_string()
                    });
                }
            }
        }
    }

    fn merge(mut self, other: Self) -> Self {
        self.toml.extend(other.toml);
        self.ini.extend(other.ini);
        self.po.extend(other.po);
        self.data_keys.extend(other.data_keys);
        self.hyphenated.extend(other.hyphenated);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted<T: Ord + Clone>(s: &HashSet<T>) -> Vec<T> {
        let mut v: Vec<T> = s.iter().cloned().collect();
        v.sort();
        v
    }

    /// Each format gives its own set; files below the root give data keys as well; other
    /// formats give nothing. Many files (more than one thread's share) fold into the same
    /// sets as the files one by one.
    #[test]
    fn keys_of_each_format_land_in_their_set() {
        let files: Vec<(&str, &[u8])> = vec![
            ("pyproject.toml", b"[tool.demo]\nroot_key = 1\n"),
            ("tests/data/case.toml", b"[table]\nDeepKey = \"v\"\n"),
            ("setup.cfg", b"[metadata]\nName_Field = demo\n"),
            ("tests/fixture.ini", b"[section]\nIni_Key: value\n"),
            (
                "locale/de/LC_MESSAGES/demo.po",
                b"#, fuzzy\nmsgid \"a\"\nmsgstr \"b\"\n",
            ),
            ("README.md", b"root_key = not a key here\n"),
        ];
        let words = ConfigWords::of(&files);
        assert!(words.toml.contains("root_key") && words.toml.contains("DeepKey"));
        assert!(words.ini.contains("name_field") && words.ini.contains("ini_key"));
        assert!(words.po.contains("msgstr") && words.po.contains("fuzzy"));
        assert!(words.data_keys.contains("DeepKey") && words.data_keys.contains("ini_key"));
        assert!(!words.data_keys.contains("root_key") && !words.data_keys.contains("name_field"));
        assert!(!words.toml.contains("not"));

        let many: Vec<(&str, &[u8])> = files
            .iter()
            .cycle()
            .take(files.len() * 50)
            .copied()
            .collect();
        let folded = ConfigWords::of(&many);
        let mut one_by_one = ConfigWords::default();
        for &(path, src) in &many {
            one_by_one.add(path, src);
        }
        assert_eq!(sorted(&folded.toml), sorted(&one_by_one.toml));
        assert_eq!(sorted(&folded.ini), sorted(&one_by_one.ini));
        assert_eq!(sorted(&folded.po), sorted(&one_by_one.po));
        assert_eq!(sorted(&folded.data_keys), sorted(&one_by_one.data_keys));
    }
}
