//! Law 3 for the format lexers (`src/transform/formats/`): the swap of every text format is an
//! involution on arbitrary bytes and on realistic generated files, and a valid file stays
//! valid, with its tool keys and its value types, when parsed by a real parser.
//!
//! The map renames syntax words (`true`, `yes`, `null`), a top-level domain (`org`), `www`, a
//! tree extension (`toml`) and tool keys (`project`, `name`), so that every rule that keeps
//! them is exercised in both directions (their images `plank`, `gold`, `void`, `mint`, `wave`,
//! `pear`, `fable`, `label` must come back too).

use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::sample::select;

use schrodinger::transform::rename::Renamer;

const PAIRS: &[(&str, &str)] = &[
    ("query", "ledger"),
    ("set", "suite"),
    ("user", "otter"),
    ("true", "plank"),
    ("yes", "gold"),
    ("null", "void"),
    ("org", "mint"),
    ("www", "wave"),
    ("toml", "pear"),
    ("project", "fable"),
    ("name", "label"),
];

fn renamer() -> Renamer {
    Renamer::new(
        PAIRS.iter().copied(),
        ["get", "setUp"],
        [
            "query",
            "user",
            "true",
            "query_user",
            "name",
            "project",
            "toml",
            "plank",
            "org",
        ],
    )
    .expect("disjoint pairs")
    .with_extensions(["toml", "txt", "gz", "tar"])
}

fn swap(r: &Renamer, name: &str, x: &[u8]) -> Vec<u8> {
    r.swap_content(name.as_bytes(), x).into_owned()
}

const NAMES: &[&str] = &[
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    ".flake8",
    "conf/app.yaml",
    ".github/workflows/ci.yml",
    "data/rows.json",
    "package.json",
    "MANIFEST.in",
    "README.md",
    "docs/index.rst",
    "locale/de/LC_MESSAGES/messages.po",
    "pkg/mod.py",
    "notes.txt",
];

/// Fragments that hit every format's punctuation, the mapped words and their images.
const FRAGS: &[&str] = &[
    "query",
    "ledger",
    "Query",
    "LEDGER",
    "user",
    "otter",
    "set",
    "suite",
    "true",
    "plank",
    "True",
    "PLANK",
    "yes",
    "gold",
    "null",
    "void",
    "org",
    "mint",
    "www",
    "wave",
    "toml",
    "pear",
    "project",
    "fable",
    "name",
    "label",
    "scripts",
    "entry-points",
    "package-data",
    "tool",
    "setuptools",
    "dependencies",
    "metadata",
    "options",
    "install_requires",
    "entry_points",
    "mypy-",
    "msgid",
    "msgstr",
    "msgctxt",
    "Content-Type: ",
    "#,",
    "#~",
    "#|",
    "_",
    "-",
    "--",
    ".",
    "..",
    ":",
    "::",
    "=",
    " = ",
    ",",
    ";",
    "#",
    "\n",
    "\r\n",
    " ",
    "\t",
    "  ",
    "[",
    "]",
    "[[",
    "]]",
    "{",
    "}",
    "\"",
    "'",
    "\"\"\"",
    "'''",
    "\\",
    "\\u",
    "\\n",
    "`",
    "```",
    "~~~",
    ".. ",
    "<",
    "/",
    ">",
    "|",
    "&",
    "*",
    "!",
    "?",
    "- ",
    "@",
    "://",
    "https://",
    "www.",
    "1.0.",
    "9",
    "0",
    ".toml",
    ".pear",
    ".org",
    ".mint",
    "*.txt",
    "é",
];

fn text(max: usize) -> impl Strategy<Value = String> {
    let frag = prop_oneof![
        12 => select(FRAGS).prop_map(str::to_string),
        1 => any::<char>().prop_filter("no NUL", |c| *c != '\0').prop_map(String::from),
    ];
    prop::collection::vec(frag, 0..max).prop_map(|v| v.concat())
}

fn check_involution(name: &str, x: &[u8]) -> Result<(), TestCaseError> {
    let r = renamer();
    let once = swap(&r, name, x);
    let twice = swap(&r, name, &once);
    prop_assert_eq!(
        &twice,
        x,
        "{}: not an involution; once = {:?}",
        name,
        String::from_utf8_lossy(&once)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn every_format_is_an_involution_on_junk(x in text(64), name in select(NAMES)) {
        check_involution(name, x.as_bytes())?;
    }

    #[test]
    fn free_text_is_an_involution(x in text(48)) {
        let r = renamer();
        let once = r.swap_text(&x);
        prop_assert_eq!(r.swap_text(&once), x);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn every_format_is_an_involution_on_bytes(
        x in prop::collection::vec(any::<u8>(), 0..200),
        name in select(NAMES),
    ) {
        check_involution(name, &x)?;
    }
}

/// The generators are not vacuous: most generated inputs change.
#[test]
fn junk_generator_changes_most_inputs() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let r = renamer();
    let mut runner = TestRunner::deterministic();
    let strat = text(64);
    for name in NAMES {
        let mut changed = 0;
        for _ in 0..100 {
            let x = strat.new_tree(&mut runner).unwrap().current();
            changed += usize::from(swap(&r, name, x.as_bytes()) != x.as_bytes());
        }
        // JSON and a gettext catalog outside strings are all syntax, and a MANIFEST.in line
        // starts with a command word, so fewer of their junk inputs change.
        let want = if name.ends_with(".json") || name.ends_with(".po") || *name == "MANIFEST.in" {
            20
        } else {
            50
        };
        assert!(changed >= want, "{name}: only {changed}/100 changed");
    }
}

// ---------------------------------------------------------------------------------------------
// Realistic files, checked with real parsers.

const WORDS: &[&str] = &[
    "query",
    "user",
    "set",
    "query_user",
    "ledger",
    "otter",
    "plank",
    "gold",
    "void",
    "mint",
    "fable",
    "label",
    "pear",
    "plain",
    "other",
    "name",
    "project",
    "true",
    "yes",
    "null",
];

fn word() -> impl Strategy<Value = &'static str> {
    select(WORDS)
}

/// A TOML string value in one of the shapes a pyproject holds.
fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        (word(), word()).prop_map(|(a, b)| format!("\"{a}.{b}\"")),
        word().prop_map(|a| format!("'{a}'")),
        Just("true".to_string()),
        Just("false".to_string()),
        Just("inf".to_string()),
        Just("42".to_string()),
        (word(), word()).prop_map(|(a, b)| format!("[\"{a}\", \"{b}-{a}\"]")),
        word().prop_map(|a| format!("{{ attr = \"{a}.__version__\" }}")),
        word()
            .prop_map(|a| format!("[\n  \"{a}-set[user]>=1.0.dev0; python_version < '3.9'\",\n]")),
        word().prop_map(|a| format!("\"https://www.{a}.org/{a}.toml\"")),
        (word(), word()).prop_map(|(a, b)| format!("\"\"\"\n{a} {b}\n\"\"\"")),
    ]
}

const TABLES: &[&str] = &[
    "project",
    "project.scripts",
    "project.optional-dependencies",
    "project.entry-points.\"query.plugins\"",
    "build-system",
    "tool.pytest.ini_options",
    "tool.setuptools.package-data",
    "tool.query",
];

const KEYS: &[&str] = &[
    "name",
    "version",
    "dependencies",
    "query",
    "user-set",
    "true",
    "requires",
    "testpaths",
    "plank",
    "\"quoted.query\"",
    "project",
];

fn toml_doc() -> impl Strategy<Value = String> {
    let entries = prop::collection::btree_map(select(KEYS), toml_value(), 1..5);
    prop::collection::btree_map(select(TABLES), entries, 1..5).prop_map(|tables| {
        let mut out = String::from("# generated: query user\n");
        for (t, kv) in tables {
            out.push_str(&format!("[{t}]  # {t}\n"));
            for (k, v) in kv {
                out.push_str(&format!("{k} = {v}\n"));
            }
            out.push('\n');
        }
        out
    })
}

/// Key paths of a TOML document with the type of each value; keys of tables that name the
/// project's objects are replaced by `*`.
fn toml_shape(doc: &toml_edit::DocumentMut) -> BTreeSet<String> {
    fn walk(prefix: &str, t: &dyn toml_edit::TableLike, out: &mut BTreeSet<String>) {
        let owned = [
            "project.scripts",
            "tool.setuptools.package-data",
            "project.entry-points",
        ]
        .iter()
        .any(|o| prefix.trim_start_matches('.').starts_with(o));
        for (k, item) in t.iter() {
            let k = if owned { "*" } else { k };
            let path = format!("{prefix}.{k}");
            match item {
                toml_edit::Item::Table(sub) => walk(&path, sub, out),
                toml_edit::Item::Value(toml_edit::Value::InlineTable(sub)) => walk(&path, sub, out),
                toml_edit::Item::Value(v) => {
                    out.insert(format!("{path}: {}", v.type_name()));
                }
                other => {
                    out.insert(format!("{path}: {}", other.type_name()));
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    walk("", doc.as_table(), &mut out);
    out
}

fn toml_table_names(doc: &toml_edit::DocumentMut) -> BTreeSet<String> {
    toml_shape(doc)
        .into_iter()
        .filter(|p| !p.contains('*'))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn pyproject_stays_valid_with_its_keys(doc in toml_doc()) {
        check_involution("pyproject.toml", doc.as_bytes())?;
        let orig: toml_edit::DocumentMut = doc.parse().expect("generated TOML parses");
        let view = String::from_utf8(swap(&renamer(), "pyproject.toml", doc.as_bytes())).unwrap();
        let parsed: Result<toml_edit::DocumentMut, _> = view.parse();
        prop_assert!(parsed.is_ok(), "view is not TOML: {:?}\n{}", parsed.err(), view);
        let parsed = parsed.unwrap();
        prop_assert_eq!(toml_table_names(&orig), toml_table_names(&parsed));
        prop_assert_eq!(toml_shape(&orig).len(), toml_shape(&parsed).len());
    }
}

const INI_SECTIONS: &[&str] = &[
    "metadata",
    "options",
    "options.entry_points",
    "options.package_data",
    "tool:pytest",
    "mypy-query.user.*",
    "testenv:query",
    "flake8",
];

fn ini_value() -> impl Strategy<Value = String> {
    prop_oneof![
        word().prop_map(str::to_string),
        Just("true".to_string()),
        Just("yes".to_string()),
        Just("plank".to_string()),
        (word(), word()).prop_map(|(a, b)| format!("{a}.{b}:main")),
        word().prop_map(|a| format!("{a}-set[user]>=1.0")),
        word().prop_map(|a| format!("https://{a}.org/{a}")),
        (word(), word()).prop_map(|(a, b)| format!("{a}/{b}.toml, *.txt")),
    ]
}

fn ini_doc() -> impl Strategy<Value = String> {
    let entries = prop::collection::btree_map(select(KEYS), ini_value(), 1..5);
    prop::collection::btree_map(select(INI_SECTIONS), entries, 1..5).prop_map(|secs| {
        let mut out = String::from("# query\n");
        for (s, kv) in secs {
            out.push_str(&format!("[{s}]\n"));
            for (k, v) in kv {
                let k = k.trim_matches('"');
                out.push_str(&format!("{k} = {v}\n"));
            }
        }
        out
    })
}

/// Per section: its name, its option names, and which values are booleans.
type IniShape = Vec<(String, Vec<String>, Vec<bool>)>;

fn ini_shape(text: &str) -> Result<IniShape, String> {
    let ini = ini::Ini::load_from_str(text).map_err(|e| e.to_string())?;
    let boolean = |v: &str| ["true", "yes"].contains(&v);
    Ok(ini
        .iter()
        .map(|(sec, props)| {
            let sec = sec.unwrap_or("").to_string();
            let owned = sec == "options.package_data";
            let keys = props
                .iter()
                .map(|(k, _)| {
                    if owned {
                        "*".to_string()
                    } else {
                        k.to_string()
                    }
                })
                .collect();
            // `[metadata] name` is the project's name and `requires` a requirement, not
            // booleans, whatever they read.
            let bools = props
                .iter()
                .map(|(k, v)| boolean(v) && !(sec == "metadata" && k == "name") && k != "requires")
                .collect();
            (sec, keys, bools)
        })
        .collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn setup_cfg_stays_valid_with_its_keys(doc in ini_doc()) {
        check_involution("setup.cfg", doc.as_bytes())?;
        let view = String::from_utf8(swap(&renamer(), "setup.cfg", doc.as_bytes())).unwrap();
        let (a, b) = (ini_shape(&doc).expect("generated INI parses"), ini_shape(&view));
        prop_assert!(b.is_ok(), "view is not INI: {:?}\n{}", b, view);
        let b = b.unwrap();
        // Section names change only after `mypy-`.
        let fixed = |v: &IniShape| -> IniShape {
            v.iter().map(|(s, k, t)| {
                let s = if s.starts_with("mypy-") { "mypy-*".to_string() } else { s.clone() };
                (s, k.clone(), t.clone())
            }).collect()
        };
        prop_assert_eq!(fixed(&a), fixed(&b));
    }
}

fn yaml_scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        word().prop_map(str::to_string),
        (word(), word()).prop_map(|(a, b)| format!("{a} {b}")),
        Just("true".to_string()),
        Just("yes".to_string()),
        Just("null".to_string()),
        Just("plank".to_string()),
        word().prop_map(|a| format!("\"{a}: x\"")),
        word().prop_map(|a| format!("'{a}''s'")),
        word().prop_map(|a| format!("&{a} {a}")),
        word().prop_map(|a| format!("[{a}, true, {a}-set]")),
        word().prop_map(|a| format!("{{{a}: yes, k: {a}}}")),
        word().prop_map(|a| format!("https://www.{a}.org/x  # {a}")),
    ]
}

const YAML_KEYS: &[&str] = &[
    "name",
    "query",
    "user_set",
    "on",
    "true",
    "jobs",
    "plank",
    "\"query x\"",
];

fn yaml_doc() -> impl Strategy<Value = String> {
    let leaf = prop::collection::btree_map(select(YAML_KEYS), yaml_scalar(), 1..4);
    let block = (word(), word()).prop_map(|(a, b)| format!("|\n    {a}: {b}\n    # {b}\n"));
    let seq = prop::collection::vec(yaml_scalar(), 1..3);
    prop::collection::btree_map(
        select(YAML_KEYS),
        prop_oneof![
            leaf.prop_map(|m| {
                m.into_iter()
                    .map(|(k, v)| format!("\n  {k}: {v}"))
                    .collect::<String>()
                    + "\n"
            }),
            block,
            seq.prop_map(|v| v
                .into_iter()
                .map(|x| format!("\n  - {x}"))
                .collect::<String>()
                + "\n"),
            yaml_scalar().prop_map(|s| format!(" {s}\n")),
        ],
        1..5,
    )
    .prop_map(|m| {
        let mut out = String::from("# query\n");
        for (k, v) in m {
            if v.starts_with('|') {
                out.push_str(&format!("{k}: {v}"));
            } else {
                out.push_str(&format!("{k}:{v}"));
            }
        }
        out
    })
}

/// Keys (when `keys` is set) and value kinds of a YAML document.
fn yaml_shape(text: &str, keys: bool) -> Result<Vec<String>, String> {
    use yaml_rust2::Yaml;
    fn walk(y: &Yaml, keys: bool, out: &mut Vec<String>) {
        match y {
            Yaml::Hash(h) => {
                for (k, v) in h {
                    out.push(if keys { format!("{k:?}") } else { "key".into() });
                    walk(v, keys, out);
                }
            }
            Yaml::Array(a) => a.iter().for_each(|v| walk(v, keys, out)),
            Yaml::Boolean(b) => out.push(format!("bool {b}")),
            Yaml::Null => out.push("null".into()),
            Yaml::String(_) => out.push("str".into()),
            other => out.push(format!("{other:?}").chars().take(8).collect()),
        }
    }
    let docs = yaml_rust2::YamlLoader::load_from_str(text).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    docs.iter().for_each(|d| walk(d, keys, &mut out));
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn yaml_stays_valid_with_its_keys(doc in yaml_doc(), config in any::<bool>()) {
        let name = if config { ".github/workflows/ci.yml" } else { "tests/data/rows.yaml" };
        check_involution(name, doc.as_bytes())?;
        let orig = yaml_shape(&doc, config);
        prop_assume!(orig.is_ok());
        let view = String::from_utf8(swap(&renamer(), name, doc.as_bytes())).unwrap();
        let got = yaml_shape(&view, config);
        prop_assert!(got.is_ok(), "view is not YAML: {:?}\n{}", got, view);
        prop_assert_eq!(orig.unwrap(), got.unwrap(), "{}", view);
    }
}

fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Bool(true)),
        Just(Value::Null),
        any::<i32>().prop_map(Value::from),
        word().prop_map(Value::from),
        (word(), word()).prop_map(|(a, b)| Value::from(format!("{a}\n{b}.toml"))),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(word().prop_map(str::to_string), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Value kinds, and keys when `keys` is set.
fn json_shape(v: &serde_json::Value, keys: bool, out: &mut Vec<String>) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.push(if keys { k.clone() } else { "key".into() });
                json_shape(x, keys, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| json_shape(x, keys, out)),
        other => out.push(match other {
            Value::String(_) => "str".into(),
            x => x.to_string(),
        }),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn json_stays_valid_with_its_keys(v in json_value(), pretty in any::<bool>(), config in any::<bool>()) {
        let doc = if pretty { serde_json::to_string_pretty(&v) } else { serde_json::to_string(&v) }.unwrap();
        let name = if config { "package.json" } else { "tests/data/rows.json" };
        check_involution(name, doc.as_bytes())?;
        let view = swap(&renamer(), name, doc.as_bytes());
        let parsed: Result<serde_json::Value, _> = serde_json::from_slice(&view);
        prop_assert!(parsed.is_ok(), "view is not JSON: {}", String::from_utf8_lossy(&view));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        json_shape(&v, config, &mut a);
        json_shape(&parsed.unwrap(), config, &mut b);
        // Keys of data files may be renamed, and then sort differently: compare as sets there.
        if !config {
            a.sort();
            b.sort();
        }
        prop_assert_eq!(a, b);
    }
}

/// A gettext catalog: a header, then entries with flags, context, plural forms and
/// obsolete ones, their strings made of mapped and unmapped words.
fn po_doc() -> impl Strategy<Value = String> {
    let entry = (
        any::<bool>(),
        prop::option::of(word()),
        (word(), word()),
        prop::option::of(word()),
        any::<bool>(),
    )
        .prop_map(|(fuzzy, ctx, (a, b), plural, obsolete)| {
            let mut e = format!("#: {a}/{b}.py:12\n");
            if fuzzy {
                e.push_str("#, fuzzy, python-format\n");
            }
            let mark = if obsolete { "#~ " } else { "" };
            if let Some(c) = ctx {
                e.push_str(&format!("{mark}msgctxt \"{c}\"\n"));
            }
            e.push_str(&format!("{mark}msgid \"{a}\"\n{mark}\"\\n{b}\"\n"));
            match plural {
                Some(p) => e.push_str(&format!(
                    "{mark}msgid_plural \"{p}s\"\n{mark}msgstr[0] \"{a}\"\n{mark}msgstr[1] \"{p}\"\n"
                )),
                None => e.push_str(&format!("{mark}msgstr \"{b}\"\n")),
            }
            e
        });
    prop::collection::vec(entry, 1..6).prop_map(|entries| {
        let mut out = String::from(concat!(
            "msgid \"\"\nmsgstr \"\"\n\"Project-Id-Version: query\\n\"\n",
            "\"Language: user\\n\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n",
            "\"Plural-Forms: nplurals=2; plural=(n != 1);\\n\"\n",
        ));
        for e in entries {
            out.push('\n');
            out.push_str(&e);
        }
        out
    })
}

/// What `msgfmt` reads as syntax: every line's keyword or comment marker, the flags, and the
/// header fields it parses.
fn po_syntax(doc: &str) -> Vec<String> {
    doc.lines()
        .map(|l| {
            let l = l.trim_start_matches("#~ ");
            if l.starts_with("#,")
                || l.starts_with("\"Language:")
                || l.starts_with("\"Content-")
                || l.starts_with("\"Plural-")
            {
                l.to_string()
            } else {
                l.split([' ', '"']).next().unwrap_or("").to_string()
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn po_keeps_its_syntax_and_renames_its_messages(doc in po_doc()) {
        // gettext's words are code names here too (a parameter `msgstr`, an attribute
        // `fuzzy`), so only the format keeps them.
        let r = Renamer::new(
            PAIRS.iter().copied().chain([("msgstr", "roofer"), ("fuzzy", "hazy")]),
            ["get"],
            ["query", "user", "name", "msgstr", "fuzzy"],
        )
        .expect("disjoint pairs");
        let name = "locale/de/LC_MESSAGES/messages.po";
        let twice = swap(&r, name, &swap(&r, name, doc.as_bytes()));
        prop_assert_eq!(twice.as_slice(), doc.as_bytes());
        let view = String::from_utf8(swap(&r, name, doc.as_bytes())).unwrap();
        prop_assert_eq!(po_syntax(&doc), po_syntax(&view), "view:\n{}", view);
        // A message holding a code name (or its image) changes; a lone word the code does
        // not use stays, by the string rule.
        let code = [("query", "ledger"), ("user", "otter"), ("name", "label")];
        let mapped = |s: &str| code.iter().any(|(a, b)| s.contains(a) || s.contains(b));
        for (o, v) in doc.lines().zip(view.lines()) {
            if o.starts_with("msgid ") && mapped(o) {
                prop_assert_ne!(o, v);
            }
        }
    }
}

/// Python 2 byte code, junk after the magic with NUL bytes in it.
fn python2_byte_code(x: String, nul_at: usize) -> Vec<u8> {
    let mut b = vec![0x03, 0xf3, b'\r', b'\n', 0];
    let mut t = x.into_bytes();
    t.insert(nul_at.min(t.len()), 0);
    b.extend(t);
    b
}

const STALE_PYC: &str = "fixtures/0001_initial.pyc-tpl";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The one content with NUL bytes that the swap changes (`rename::is_python2_bytecode`)
    /// is an involution too, and keeps the magic that makes it that kind.
    #[test]
    fn python2_byte_code_is_an_involution(x in text(64), nul_at in 0usize..64) {
        let b = python2_byte_code(x, nul_at);
        check_involution(STALE_PYC, &b)?;
        let once = swap(&renamer(), STALE_PYC, &b);
        prop_assert_eq!(&once[..4], &b[..4]);
    }
}

/// A case the property found: a word right after `ESC [` whose image starts with `m` (`org`
/// <-> `mint`) must not turn into a colour reset and the word `int`.
#[test]
fn a_word_after_a_bare_escape_bracket_swaps_back() {
    let b = b"\x03\xf3\r\n\0\x1b[org\0Content-Type: ";
    check_involution(STALE_PYC, b).unwrap();
    assert_ne!(swap(&renamer(), STALE_PYC, b), b.to_vec());
}

/// The byte-code generator is not vacuous: most of its inputs change.
#[test]
fn python2_byte_code_generator_changes_most_inputs() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let r = renamer();
    let mut runner = TestRunner::deterministic();
    let strat = (text(64), 0usize..64);
    let mut changed = 0;
    for _ in 0..100 {
        let (x, at) = strat.new_tree(&mut runner).unwrap().current();
        let b = python2_byte_code(x, at);
        changed += usize::from(swap(&r, STALE_PYC, &b) != b);
    }
    assert!(changed >= 50, "{changed} of 100 changed");
}
