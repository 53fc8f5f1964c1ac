//! The format rules on whole trees and on swapped text, one test per rule, with expected
//! views checked by hand: the failures seen on real projects (a `true` code name, `[project]`
//! keys, Sphinx settings, URLs, a data listing naming `.toml` files) and the names tools
//! look up.

use std::path::PathBuf;

use schrodinger::bundle::{
    build_with_env, BuildOptions, Bundle, EnvScan, Progress, Tree, TreeFile,
};
use schrodinger::transform::rename::Renamer;

fn file(rel: &str, content: &str) -> TreeFile {
    TreeFile {
        rel: PathBuf::from(rel),
        content: content.as_bytes().to_vec(),
    }
}

/// A repository named `toml_shelf` (a token of its name is an extension of its data files)
/// whose code uses `true` as a name (as sympy does), with a
/// pyproject, a Sphinx source directory, a data listing and tool-looked-up files.
fn tree() -> Tree {
    let mut files = vec![
        file(
            "toml_shelf/__init__.py",
            "from .logic import true, Shelf\n__version__ = '1.0.dev0'\nURL = 'https://toml.example.org/toml/shelf'\n",
        ),
        file(
            "toml_shelf/logic.py",
            "class Shelf:\n    def lend(self, patron):\n        return patron\n\ntrue = Shelf()\n",
        ),
        file("toml_shelf/cli.py", "def main():\n    return 0\n"),
        file("toml_shelf/stubbed.py", "def shelve(x):\n    return x\n"),
        file("toml_shelf/stubbed.pyi", "def shelve(x: int) -> int: ...\n"),
        file(
            "pyproject.toml",
            "[project]\nname = \"toml_shelf\"\ndynamic = [\"version\"]\ndependencies = [\"logic-tools>=1\"]\n\n[project.scripts]\nlogic = \"toml_shelf.cli:main\"\n\n[tool.pytest.ini_options]\nxfail_strict = true\ntestpaths = [\"tests\"]\n",
        ),
        file(
            "docs/conf.py",
            "import toml_shelf\nproject = 'toml_shelf'\nextensions = ['sphinx.ext.autodoc', 'sphinx.ext.extlinks', 'toml_shelf.logic']\nextlinks = {'issue': ('https://github.com/x/toml/issues/%s', '#%s')}\nhtml_theme = 'alabaster'\n",
        ),
        file("docs/index.rst", "Shelf\n=====\n\n.. automodule:: toml_shelf.logic\n   :members:\n\nSee :class:`toml_shelf.logic.Shelf`.\n"),
        file("tests/data/books.toml", "title = \"x\"\n"),
        file("tests/data/listing.txt", "tests/data/books.toml\n"),
        file("tests/test_logic.py", "from toml_shelf.logic import true\n\ndef test_true():\n    assert true.lend(1) == 1\n"),
        file("noxfile.py", "def tests(session):\n    session.run('pytest')\n"),
        file("toml_shelf/wsgi.py", "application = None\n"),
        file(
            "hatch_build.py",
            "class CustomMetadataHook:\n    def update(self, metadata):\n        return metadata\n",
        ),
    ];
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Tree {
        files,
        dirs: ["docs", "tests", "tests/data", "toml_shelf"]
            .map(PathBuf::from)
            .to_vec(),
        generated: vec![],
    }
}

fn bundle(t: &Tree) -> Bundle {
    let opts = BuildOptions {
        seed: 5,
        levels: vec![2],
        python: PathBuf::from("python3"),
        freeze: vec![],
        cache_dir: None,
        rename_pure_locals: false,
        rewrite: Default::default(),
    };
    build_with_env(t, &EnvScan::default(), &opts, &Progress::hidden())
}

fn view(r: &Renamer, t: &Tree, rel: &str) -> String {
    let f = t
        .files
        .iter()
        .find(|f| f.rel == std::path::Path::new(rel))
        .unwrap();
    let v = r.swap_content(rel.as_bytes(), &f.content).into_owned();
    assert_eq!(r.swap_content(rel.as_bytes(), &v), &f.content[..], "{rel}");
    String::from_utf8(v).unwrap()
}

fn image(r: &Renamer, run: &str) -> String {
    r.image(run)
        .unwrap_or_else(|| panic!("{run} is not renamed"))
}

#[test]
fn pyproject_keeps_syntax_words_and_keys_and_renames_owned_names() {
    let t = tree();
    let b = bundle(&t);
    let r = b.renamer().unwrap();
    // The repository's `true` and `toml_shelf` are renamed in code...
    let code = view(&r, &t, "toml_shelf/logic.py");
    let true_v = image(&r, "true");
    assert!(code.contains(&format!("{true_v} = ")), "{code}");
    let toml_v = image(&r, "toml_shelf");
    // ...but not where TOML means its own words and keys, nor in an outside distribution's
    // name (`logic-tools` is no name of the repository, though `logic` is).
    let p = view(&r, &t, "pyproject.toml");
    let want = format!(
        "[project]\nname = \"{toml_v}\"\ndynamic = [\"version\"]\ndependencies = [\"logic-tools>=1\"]\n\n[project.scripts]\n{logic_v} = \"{toml_v}.{cli_v}:{main_v}\"\n\n[tool.pytest.ini_options]\nxfail_strict = true\ntestpaths = [\"tests\"]\n",
        logic_v = image(&r, "logic"),
        cli_v = image(&r, "cli"),
        main_v = image(&r, "main"),
    );
    assert_eq!(p, want);
    let doc: toml_edit::DocumentMut = p.parse().expect("the view is TOML");
    assert_eq!(
        doc["tool"]["pytest"]["ini_options"]["xfail_strict"].as_bool(),
        Some(true)
    );
}

#[test]
fn sphinx_conf_keeps_its_name_settings_and_extension_names() {
    let t = tree();
    let b = bundle(&t);
    let r = b.renamer().unwrap();
    assert_eq!(&*r.swap_name(b"conf.py"), b"conf.py");
    let c = view(&r, &t, "docs/conf.py");
    let toml_v = image(&r, "toml_shelf");
    let want = format!(
        "import {toml_v}\nproject = '{toml_v}'\nextensions = ['sphinx.ext.autodoc', 'sphinx.ext.extlinks', '{toml_v}.{logic_v}']\nextlinks = {{'issue': ('https://github.com/x/toml/issues/%s', '#%s')}}\nhtml_theme = 'alabaster'\n",
        logic_v = image(&r, "logic"),
    );
    assert_eq!(c, want);
    let idx = view(&r, &t, "docs/index.rst");
    assert!(idx.contains(&format!(".. automodule:: {toml_v}.")), "{idx}");
    assert!(
        idx.contains("   :members:\n") && idx.contains(":class:`"),
        "{idx}"
    );
}

#[test]
fn urls_and_versions_stay_in_python_strings() {
    let t = tree();
    let r = bundle(&t).renamer().unwrap();
    let init = view(&r, &t, "toml_shelf/__init__.py");
    assert!(init.contains("'1.0.dev0'"), "{init}");
    assert!(
        init.contains("'https://toml.example.org/toml/shelf'"),
        "{init}"
    );
    assert!(!init.contains("import true"), "{init}");
}

#[test]
fn a_listing_keeps_the_tree_extension_its_files_keep() {
    let t = tree();
    let b = bundle(&t);
    assert!(b.extensions.contains("toml"), "{:?}", b.extensions);
    let r = b.renamer().unwrap();
    // The data file keeps `.toml` in its name, so the listing naming it does too.
    assert_eq!(&*r.swap_name(b"books.toml"), b"books.toml");
    assert_eq!(
        view(&r, &t, "tests/data/listing.txt"),
        "tests/data/books.toml\n"
    );
    // The module `toml_shelf` is renamed, token by token; the extension itself, as a whole
    // run, is kept wherever it appears.
    assert_ne!(&*r.swap_name(b"toml_shelf"), b"toml_shelf");
    assert_eq!(
        r.swap_content(b"m.py", b"key = case['toml']\n"),
        &b"key = case['toml']\n"[..]
    );
}

#[test]
fn files_tools_look_up_keep_their_names_and_stubs_follow_their_module() {
    let t = tree();
    let r = bundle(&t).renamer().unwrap();
    for kept in [
        "noxfile.py",
        "wsgi.py",
        "conf.py",
        "pyproject.toml",
        "py.typed",
        "tox.ini",
        "hatch_build.py",
    ] {
        assert_eq!(&*r.swap_name(kept.as_bytes()), kept.as_bytes(), "{kept}");
    }
    let py = r.swap_name(b"stubbed.py").into_owned();
    let pyi = r.swap_name(b"stubbed.pyi").into_owned();
    assert_ne!(py, b"stubbed.py");
    assert_eq!(py[..py.len() - 3], pyi[..pyi.len() - 4]);
}

/// The hostname rule relies on top-level domains never being mapped: they are frozen tokens
/// and no virtual word, even in a repository whose own names hold them.
#[test]
fn top_level_domains_are_never_mapped() {
    let mut t = tree();
    t.files.push(file(
        "toml/org_chart.py",
        "def org_units(net_total):\n    return net_total\n",
    ));
    let b = bundle(&t);
    for tld in ["org", "net", "com"] {
        assert!(b.frozen_tokens.contains_key(tld), "{tld}");
        assert!(
            !b.tokens.contains_key(tld) && !b.tokens.values().any(|v| v == tld),
            "{tld}"
        );
    }
    assert!(b.tokens.contains_key("units"), "{:?}", b.tokens);
}

#[test]
fn old_bundles_without_extensions_still_load() {
    let b = bundle(&tree());
    let mut v: serde_json::Value = serde_json::to_value(&b).unwrap();
    v.as_object_mut().unwrap().remove("extensions");
    let back: Bundle = serde_json::from_value(v).unwrap();
    assert!(back.extensions.is_empty());
}

/// Text-level rules with a hand-made map.
fn renamer() -> Renamer {
    Renamer::new(
        [
            ("query", "ledger"),
            ("org", "mint"),
            ("dev", "hike"),
            ("toml", "pear"),
            ("www", "wave"),
        ],
        [],
        ["query", "org", "dev", "toml", "www"],
    )
    .unwrap()
    .with_extensions(["toml"])
}

#[test]
fn free_text_keeps_urls_addresses_hosts_versions_and_extensions() {
    let r = renamer();
    for (orig, view) in [
        (
            "query https://query.org/query",
            "ledger https://query.org/query",
        ),
        ("mail query@query.org now", "mail query@query.org now"),
        (
            "docs at query.readthedocs.io, query",
            "docs at query.readthedocs.io, ledger",
        ),
        ("www.query.org/query query", "www.query.org/query ledger"),
        // A name reserved for examples keeps its labels only, as a URL on it does.
        (
            "www.query.example/query query",
            "www.query.example/ledger ledger",
        ),
        (
            "pip install query==1.0.dev0",
            "pip install ledger==1.0.dev0",
        ),
        ("query.toml query.pear toml", "ledger.toml ledger.pear pear"),
    ] {
        assert_eq!(r.swap_text(orig), view, "{orig}");
        assert_eq!(r.swap_text(view), orig, "{view}");
    }
}

#[test]
fn yaml_and_ini_keep_their_booleans_when_the_word_is_a_code_name() {
    let r = Renamer::new(
        [("true", "plank"), ("yes", "gold"), ("query", "ledger")],
        [],
        ["true", "yes", "query"],
    )
    .unwrap();
    let y = r.swap_content(
        b".github/workflows/ci.yml",
        b"query: true\nother: [yes, query]\n",
    );
    assert_eq!(&*y, b"query: true\nother: [yes, ledger]\n");
    let d = r.swap_content(b"tests/data/rows.yaml", b"query: plank\n");
    assert_eq!(&*d, b"ledger: plank\n");
    let i = r.swap_content(b"tox.ini", b"[testenv]\nquery = true\nskip = query true\n");
    assert_eq!(&*i, b"[testenv]\nquery = true\nskip = ledger plank\n");
    let j = r.swap_content(b"package.json", br#"{"query": [true, "query"]}"#);
    assert_eq!(&*j, br#"{"query": [true, "ledger"]}"#);
}
