use super::*;

#[test]
fn finds_imports() {
    let src = b"import os.path as p, sys\nfrom collections import (OrderedDict,\n    defaultdict as dd)\nfrom . import sibling\nfrom ..pkg.mod import thing; x = 1\n";
    let imps = imports(src);
    assert_eq!(imps.len(), 5, "{imps:?}");
    // One import per module of a comma list: `sys` is no part of `os`.
    assert_eq!(imps[0].module, ["os", "path"]);
    assert_eq!(imps[1].module, ["sys"]);
    assert_eq!(imps[2].module, ["collections"]);
    assert_eq!(imps[2].names, ["OrderedDict", "defaultdict"]);
    assert_eq!(imps[3].level, 1);
    assert_eq!(imps[3].names, ["sibling"]);
    assert_eq!(imps[4].level, 2);
    assert_eq!(imps[4].module, ["pkg", "mod"]);
    assert_eq!(imps[4].names, ["thing"]);
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
    let cfg: &[u8] =
        b"[versioneer]\nvcs = git\nstyle = pep440\n[metadata]\nclassifiers = Framework :: Tool\n";
    let input = PolicyInput {
        python: vec![("versioneer.py", py), ("tool.py", b"x = 1\n")],
        text: vec![("setup.cfg", cfg)],
        binary: vec![],
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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

/// gettext's keywords stay where code spells them as strings when the tree holds catalogs:
/// Django's tests search `msgmerge`'s output for `"msgstr"`, which `msgfmt` would not read
/// under another name, while `msgstr` is also a parameter of the same code.
#[test]
fn strings_naming_gettext_keywords_stay() {
    let own = set(&["catalog"]);
    let defined = set(&["msgstr", "assert_keyword", "fuzzy_only"]);
    let py: &[u8] = b"def assert_keyword(msgstr, out):\n    return ('msgstr', 'fuzzy', msgstr) in out\n\ndef fuzzy_only():\n    return 1\n";
    let po: &[u8] = b"#, fuzzy\nmsgid \"a\"\nmsgstr \"b\"\n";
    let input = PolicyInput {
        python: vec![("catalog.py", py)],
        text: vec![("locale/de/LC_MESSAGES/catalog.po", po)],
        binary: vec![],
        programs: vec![],
        names: vec!["catalog.py", "locale", "de", "LC_MESSAGES", "catalog.po"],
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("msgstr"), Some(&FreezeReason::Config));
    assert_eq!(f.frozen_runs.get("fuzzy"), Some(&FreezeReason::Config));
    assert!(f.owned_runs.contains("fuzzy_only"));
    let without_catalog = PolicyInput {
        text: vec![],
        names: vec!["catalog.py"],
        ..input
    };
    assert!(!analyze(&without_catalog).frozen_runs.contains_key("msgstr"));
}

/// A directory holding `LC_MESSAGES` is a locale gettext finds by a code the program
/// computes (`to_locale("sr-latn")` is `sr_Latn`): its words stay. A directory of the same
/// name elsewhere is the program's own.
#[test]
fn words_of_locale_directories_stay() {
    let own = set(&["catalog"]);
    let defined = set(&["to_locale", "latn_table", "hant_names"]);
    let py: &[u8] = b"def to_locale(code):\n    return latn_table, hant_names\n";
    let input = PolicyInput {
        python: vec![("catalog.py", py)],
        names: vec!["catalog.py", "locale", "sr_Latn", "LC_MESSAGES", "zh_Hant"],
        dirs: vec![
            "locale",
            "locale/sr_Latn",
            "locale/sr_Latn/LC_MESSAGES",
            "data/zh_Hant",
        ],
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_tokens.get("latn"), Some(&FreezeReason::Tool));
    assert_eq!(f.frozen_tokens.get("hant"), None);
    assert!(f.owned_runs.contains("hant_names"));
}

/// A test module named after a module that keeps its name keeps its own (`test_dates`
/// beside the outside-named `dates`), so the listing shows no pair of a word and its image;
/// the word is still mapped elsewhere (`format_dates`), and a test module of a renamed
/// module is renamed with it.
#[test]
fn test_modules_of_kept_modules_keep_their_names() {
    let own = set(&["shop"]);
    let modules = set(&[
        "shop",
        "tests",
        "dates",
        "test_dates",
        "ledger",
        "test_ledger",
        "dates_tests",
    ]);
    let defined = set(&["format_dates", "post_ledger"]);
    let env = set(&["dates"]);
    let input = PolicyInput {
        python: vec![
            ("shop/dates.py", b"def format_dates():\n    pass\n"),
            ("shop/ledger.py", b"def post_ledger():\n    pass\n"),
            (
                "tests/test_dates.py",
                b"from shop.dates import format_dates\n",
            ),
            ("tests/dates_tests.py", b"from shop import dates\n"),
            (
                "tests/test_ledger.py",
                b"from shop.ledger import post_ledger\n",
            ),
        ],
        tree_modules: &modules,
        env_names: &env,
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert!(
        !f.owned_runs.contains("dates"),
        "the test needs a kept module"
    );
    assert_eq!(f.frozen_runs.get("test_dates"), Some(&FreezeReason::Paired));
    assert_eq!(
        f.frozen_runs.get("dates_tests"),
        Some(&FreezeReason::Paired)
    );
    assert!(f.owned_runs.contains("format_dates"));
    assert!(f.owned_runs.contains("ledger") && f.owned_runs.contains("test_ledger"));
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
        programs: vec![],
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("DEFERRED"), Some(&FreezeReason::Keyword));
    assert_eq!(f.frozen_runs.get("DOUBLE"), Some(&FreezeReason::Outside));
    assert!(!f.frozen_runs.contains_key("LEDGER"));
    assert!(f.owned_runs.contains("deferred") && f.owned_runs.contains("double"));
}

/// A URI scheme is data a browser reads: markdown's `mailto = "mailto:" + email` keeps
/// both the local and the string.
/// A keyword with a trailing underscore stands for the keyword's word (`for_` rendered as
/// the HTML attribute `for`), so it stays; a longer name that starts like one does not.
#[test]
fn keywords_with_trailing_underscores_stay() {
    let own = set(&["forms"]);
    let defined = set(&["for_", "not_", "format_", "label_for"]);
    let py: &[u8] = b"def label(for_=None, not_=None, format_=None, label_for=None):\n    return {k.rstrip('_'): v for k, v in locals().items()}\n";
    let input = PolicyInput {
        python: vec![("forms.py", py)],
        names: vec!["forms.py"],
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("for_"), Some(&FreezeReason::Keyword));
    assert_eq!(f.frozen_runs.get("not_"), Some(&FreezeReason::Keyword));
    assert!(f.owned_runs.contains("format_") && f.owned_runs.contains("label_for"));
    assert!(!is_keyword_twin("_") && !is_keyword_twin("__") && !is_keyword_twin("for"));
}

#[test]
fn uri_schemes_stay() {
    let own = set(&["links"]);
    let defined = set(&["mailto", "anchor"]);
    let py: &[u8] = b"def anchor(email):\n    mailto = 'mailto:' + email\n    return mailto\n";
    let input = PolicyInput {
        python: vec![("links.py", py)],
        text: vec![],
        binary: vec![],
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
        names: vec!["test_elf.py", "musl-x86_64"],
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("ld_musl"), Some(&FreezeReason::Binary));
    assert!(f.owned_runs.contains("interpreter"), "{:?}", f.owned_runs);
    let text_only = PolicyInput {
        binary: vec![],
        programs: vec![],
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
    let py: &[u8] =
        b"def get_path(path, iso, latin):\n    return path.decode(\"iso-8859-1\"), \"latin pie\"\n";
    let codecs = set(&["iso_8859_1", "latin_1", "utf_8"]);
    let env = set(&["decode", "path"]);
    let input = PolicyInput {
        python: vec![("client.py", py)],
        text: vec![],
        binary: vec![],
        programs: vec![],
        names: vec!["client.py"],
        env_names: &env,
        data_words: &codecs,
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("iso"), Some(&FreezeReason::Outside));
    assert!(f.owned_runs.contains("latin"), "{:?}", f.frozen_runs);
    assert!(f.owned_runs.contains("get_path"));
    let no_codecs = PolicyInput {
        data_words: &BTreeSet::new(),
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
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
        programs: vec![],
        ..input
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("Warenkorb"), Some(&FreezeReason::Binary));
    // An original string is exact text: a name inside a longer word (`shop` in a URL's
    // `shopproject`) is not stored there, whatever a raw binary's prefix rule would say.
    let url_mo = super::super::catalog::tests::catalog(&[
        ("", "Project-Id-Version: shop\n"),
        (
            "See https://docs.shopproject.com/",
            "Siehe https://docs.shopproject.com/",
        ),
    ]);
    let f = analyze(&PolicyInput {
        python: vec![("shop.py", py)],
        text: vec![],
        binary: vec![&url_mo],
        programs: vec![],
        names: vec!["shop.py", "django.mo"],
        ..tree(&own, &defined)
    });
    assert!(f.owned_runs.contains("shop"), "{:?}", f.frozen_runs);
}

/// A pickle written into the source (pygtrie's tests load base64 pickles of its classes,
/// pytz's load protocol-0 text) names the module and class `pickle.loads` imports: they stay,
/// as a binary file's stored names do, while a name only the code uses is renamed.
#[test]
fn pickles_in_the_source_freeze_the_names_they_hold() {
    let own = set(&["pkg"]);
    let defined = set(&["Trie", "Forest", "pkg"]);
    let env = set(&["pickle", "base64"]);
    let lib: &[u8] = b"class Trie:\n    pass\n\nclass Forest:\n    pass\n";
    // `base64.b64encode(pickle.dumps(pkg.Trie(), 3))`, checked with Python 3.11.
    let test: &[u8] = b"import pickle\nimport base64\nimport pkg\n\ndef test_old():\n    data = ('gANjcGtn'\n            'ClRyaWUKcQApgXEBLg==')\n    assert isinstance(pickle.loads(base64.b64decode(data)), pkg.Trie)\n    assert pkg.Forest\n";
    let input = PolicyInput {
        python: vec![("pkg.py", lib), ("test_pkg.py", test)],
        text: vec![],
        binary: vec![],
        programs: vec![],
        names: vec!["pkg.py", "test_pkg.py"],
        env_modules: &env,
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("pkg"), Some(&FreezeReason::Binary));
    assert_eq!(f.frozen_runs.get("Trie"), Some(&FreezeReason::Binary));
    assert!(f.owned_runs.contains("Forest"), "{:?}", f.frozen_runs);
    // Without the pickle, both are the repository's to rename.
    let plain: &[u8] = b"import pickle\nimport base64\nimport pkg\n\ndef test_old():\n    assert pkg.Trie and pkg.Forest\n";
    let input = PolicyInput {
        python: vec![("pkg.py", lib), ("test_pkg.py", plain)],
        ..input
    };
    let f = analyze(&input);
    assert!(
        f.owned_runs.contains("pkg") && f.owned_runs.contains("Trie"),
        "{:?}",
        f.frozen_runs
    );
}

/// A C source is compiled by name: simplejson's `_speedups.c` declares `long long` and looks
/// up `for_json` on Python objects. Renamed there, the extension did not build in the view.
#[test]
fn names_a_c_source_spells_stay() {
    let own = set(&["pkg"]);
    let defined = set(&["for_json", "long", "Encoder", "pkg"]);
    let py: &[u8] =
        b"long = int\n\nclass Encoder:\n    def for_json(self):\n        return long(1)\n";
    let c: &[u8] = b"static long long limit = LLONG_MAX;\nPyObject *m = PyObject_GetAttrString(o, \"for_json\");\n";
    let input = PolicyInput {
        python: vec![("pkg/__init__.py", py)],
        text: vec![("pkg/_speedups.c", c)],
        binary: vec![],
        programs: vec![],
        names: vec!["pkg", "__init__.py", "_speedups.c"],
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("long"), Some(&FreezeReason::Compiled));
    assert_eq!(f.frozen_runs.get("for_json"), Some(&FreezeReason::Compiled));
    assert!(f.owned_runs.contains("Encoder"), "{:?}", f.frozen_runs);
    assert!(is_compiled_source("src/ext/mod.pyx") && !is_compiled_source("docs/c"));
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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
        programs: vec![],
        names: vec!["shop", "result.py"],
        ..input
    };
    assert!(analyze(&input).frozen_owned.contains("result"));
}

/// The core of a dunder the code spells is data where a string holds it whole: jsonpointer's
/// `setup.py` reads the module's dunders with `re.findall("__([a-z]+)__ = '([^']+)'", src)`
/// and looks the result up by `'website'`. A core no dunder has, and a word only inside a
/// longer string, stay names.
#[test]
fn cores_of_dunders_in_strings_are_data() {
    let own = set(&["setup", "pointer"]);
    let defined = set(&["website", "WEBSITE", "metadata", "homepage"]);
    let module: &[u8] = b"__website__ = 'https://example.org'\nhomepage = 1\n";
    let setup: &[u8] =
        b"metadata = dict(find(src))\nWEBSITE = metadata['website']\nhomepage = 'homepage'\nwebsite = 'the website'\n";
    let input = PolicyInput {
        python: vec![("pointer.py", module), ("setup.py", setup)],
        text: vec![],
        binary: vec![],
        programs: vec![],
        names: vec!["pointer.py", "setup.py"],
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("website"), Some(&FreezeReason::Data));
    assert!(f.frozen_owned.contains("website"));
    assert!(f.owned_runs.contains("homepage"), "{:?}", f.frozen_runs);
}

/// A module the repository writes at run time (its name spelled whole, or as `NAME.py`, in a
/// string) and no environment has: the names imported from it are the repository's own. A
/// module spelled nowhere (an optional dependency that is not installed) and one the
/// environment has keep the names imported from them.
#[test]
fn names_imported_from_a_module_the_repository_writes_are_its_own() {
    let own = set(&["shop"]);
    let env = set(&["json"]);
    let defined = set(&["ledger_app", "basket_app", "loads"]);
    let src: &[u8] = b"def test_written(tmp):\n    (tmp / 'written_mod.py').write_text('ledger_app = 1')\n    (tmp / 'written_pkg').mkdir()\n    from written_mod import ledger_app\n    from written_pkg import basket_app\n    from json import loads\n    from missing_dep import optional_app\n    'json'\n    return ledger_app, basket_app, loads, optional_app\n";
    let input = PolicyInput {
        python: vec![("tests/test_written.py", src)],
        env_modules: &env,
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    for name in ["ledger_app", "basket_app", "written_mod", "written_pkg"] {
        assert!(
            !f.frozen_runs.contains_key(name),
            "{name}: {:?}",
            f.frozen_runs.get(name)
        );
    }
    assert_eq!(f.frozen_runs["loads"], FreezeReason::Imported);
    assert_eq!(f.frozen_runs["optional_app"], FreezeReason::Imported);
    assert_eq!(f.frozen_runs["missing_dep"], FreezeReason::Imported);
}

/// A name a configuration file spells as a hyphenated key is the option the key is read into.
#[test]
fn names_spelled_as_hyphenated_configuration_keys_stay() {
    // black reads its own `[tool.black]` and turns each key into an option's name with
    // `.replace("-", "_")`; the option is declared as `"--target-version"`.
    let own = set(&["fmt"]);
    let defined = set(&["main", "target_version", "other_option", "line_width"]);
    let src: &[u8] = b"@option(\"--target-version\")\n@option(\"--other-option\")\ndef main(target_version, other_option, line_width):\n    pass\n";
    let toml: &[u8] = b"[tool.fmt]\ntarget-version = ['py38']\n";
    // configparser reads option names without case.
    let cfg: &[u8] = b"[fmt]\nLine-Width = 1\n";
    let input = PolicyInput {
        python: vec![("fmt/main.py", src)],
        text: vec![("pyproject.toml", toml), ("setup.cfg", cfg)],
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("target_version"),
        Some(&FreezeReason::Config)
    );
    assert_eq!(f.frozen_runs.get("line_width"), Some(&FreezeReason::Config));
    assert!(!f.frozen_runs.contains_key("other_option"));
    assert!(f.owned_runs.contains("other_option"));
}

/// A field (a name annotated at the start of a statement) that a configuration file spells as
/// a key is read from that file by its name (`dataclasses.fields(cls)`, then
/// `cfg.get(section, field.name)`): it keeps its name. Other fields, and a key no field
/// spells, change nothing.
#[test]
fn fields_spelled_as_configuration_keys_keep_their_names() {
    let own = set(&["shop"]);
    let defined = set(&["ShopConfig", "module_base", "other_field", "section_header"]);
    let src: &[u8] = b"@dataclass\nclass ShopConfig:\n    module_base: Path\n    other_field: int = 0\n    section_header = 'shop_testing'\n\n    def load(self, cfg):\n        return {f.name: cfg.get(self.section_header, f.name) for f in fields(self)}\n";
    let cfg: &[u8] = b"[shop_testing]\nmodule_base = ./test/modules\n";
    let annotated: BTreeSet<String> = crate::transform::defs::file_defs(src)
        .fields
        .into_iter()
        .map(str::to_string)
        .collect();
    assert_eq!(annotated, set(&["module_base", "other_field"]));
    let input = PolicyInput {
        python: vec![("shop/config.py", src)],
        text: vec![("setup.cfg", cfg)],
        fields: &annotated,
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("module_base"),
        Some(&FreezeReason::Config)
    );
    assert!(!f.frozen_runs.contains_key("other_field"));
    assert!(f.owned_runs.contains("other_field"));
}

/// tinycss2's tests load `function.__name__.split('_', 1)[-1] + '.json'`: the one-word rest
/// `stylesheet` of `test_stylesheet` names the data file `stylesheet.json`, so it counts as a
/// name the code uses (the file follows the test). Without the cut, a one-word stem beside a
/// function (`docs/index.rst`, `test_index`) stays data.
#[test]
fn a_file_named_by_the_rest_of_a_name_the_code_cuts_follows_the_name() {
    let own = set(&["tests"]);
    let defined = set(&["json_test", "test_stylesheet", "test_index", "load_json"]);
    let src: &[u8] = b"def json_test(function):\n    return load_json(function.__name__.split('_', 1)[-1] + '.json')\n\n@json_test\ndef test_stylesheet(input):\n    stylesheet = input\n    return stylesheet\n\ndef test_index():\n    pass\n";
    let names = vec![
        "tests",
        "test_css.py",
        "stylesheet.json",
        "docs",
        "notes.rst",
    ];
    let input = PolicyInput {
        python: vec![("tests/test_css.py", src)],
        names: names.clone(),
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert!(f.code_runs.contains("stylesheet"), "{:?}", f.code_runs);
    // A local of that name does not make it a word of prose.
    assert!(!f.local_words.contains("stylesheet"));
    // `index` is the rest of a name but no file's stem; `json` is a stem-less extension.
    assert!(!f.code_runs.contains("index"));
    // Without the cut the stem is data.
    let plain: &[u8] = b"def test_stylesheet(input):\n    return input\n";
    let input = PolicyInput {
        python: vec![("tests/test_css.py", plain)],
        names,
        ..tree(&own, &defined)
    };
    assert!(!analyze(&input).code_runs.contains("stylesheet"));
}
/// A comment after an import holds brackets and commas that are no code: more-itertools'
/// `docs/conf.py` had `sys.path.insert` read as a module of the import before it.
#[test]
fn an_import_ends_at_its_line_whatever_the_comments_after_it_hold() {
    let src = b"import sys, os\nimport theme\n\n# (or modules to document), add them\nsys.path.insert(0, os.path.abspath('..'))\nfrom pkg import (a,  # note, (x\n    b,\n)\nimport mine\nwith open('f', 'rt') as source:\n    pass\n";
    let imps = imports(src);
    let modules: Vec<String> = imps.iter().map(|i| i.module.join(".")).collect();
    assert_eq!(modules, ["sys", "os", "theme", "pkg", "mine"], "{imps:?}");
    assert_eq!(imps[3].names, ["a", "b"]);
}

/// ecdsa's tests run `openssl pkcs8 ... -outform pem` and skip a curve unless `"secp112r1"`
/// is among the names openssl prints: the words of a program that a file running it spells
/// in strings stay, while the same words elsewhere, and the program's other words, are the
/// repository's.
#[test]
fn words_of_a_program_stay_where_it_is_run() {
    let own = set(&["pem", "curves", "tests"]);
    let defined = set(&["from_pem", "secp112r1", "pkcs8_name", "signing"]);
    let curves: &[u8] = b"secp112r1 = Curve('secp112r1')\npkcs8_name = 'signing'\n";
    let pem: &[u8] = b"def from_pem(text):\n    return text.split('pem')\n";
    let test: &[u8] = b"def run_openssl(cmd):\n    OPENSSL = 'openssl'\n    return subprocess.Popen([OPENSSL] + cmd.split())\n\nrun_openssl('pkcs8 -in t/key.pem -outform pem')\nskip = 'secp112r1' not in run_openssl('ecparam -list_curves')\n";
    let openssl: &[u8] = b"\x7fELF\0pkcs8\0outform\0signing\0list_curves\0";
    let libcrypto: &[u8] = b"\0secp112r1\0pem\0";
    let input = PolicyInput {
        python: vec![("curves.py", curves), ("pem.py", pem), ("tests.py", test)],
        text: vec![],
        binary: vec![],
        programs: vec![(vec!["tests.py"], vec![openssl, libcrypto])],
        names: vec!["curves.py", "pem.py", "tests.py"],
        own_modules: &own,
        env_modules: &BTreeSet::new(),
        env_names: &BTreeSet::new(),
        builtins: &BTreeSet::new(),
        release_locals: false,
        tree_modules: &own,
        user: &[],
        defined: &defined,
        data_words: &BTreeSet::new(),
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
    };
    let f = analyze(&input);
    for w in ["pem", "secp112r1", "pkcs8", "outform", "list_curves"] {
        assert_eq!(f.frozen_runs.get(w), Some(&FreezeReason::Program), "{w}");
    }
    // `signing` is a word of openssl, but only `curves.py` spells it, which runs nothing.
    assert_eq!(f.frozen_runs.get("signing"), None);
    assert!(f.owned_runs.contains("signing"), "{:?}", f.owned_runs);
    assert!(f.owned_runs.contains("from_pem"), "{:?}", f.owned_runs);
}

/// A private name held as data (`"_prerelease"` in `__slots__`) whose public twin stays (an
/// outside name here) stays too: the program strips the underscore to get the public name.
/// A private name that is never a whole string (`_build`) and one whose twin is renamed
/// (`_major`) are renamed.
#[test]
fn private_data_twins_of_frozen_names_stay() {
    let own = set(&["version"]);
    let defined = set(&[
        "Version",
        "major",
        "prerelease",
        "build",
        "_major",
        "_prerelease",
        "_build",
    ]);
    let outside = set(&["prerelease", "build"]);
    let module: &[u8] = b"class Version:\n    __slots__ = ('_major', '_prerelease')\n    NAMES = tuple(i[1:] for i in __slots__)\n    def __init__(self, major, prerelease):\n        self._major = major\n        self._prerelease = prerelease\n        self._build = None\n";
    let input = PolicyInput {
        python: vec![("version.py", module)],
        names: vec!["version.py"],
        env_names: &outside,
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert!(f.frozen_owned.contains("prerelease"), "{:?}", f.frozen_runs);
    assert!(
        f.frozen_owned.contains("_prerelease"),
        "{:?}",
        f.frozen_runs
    );
    assert!(f.owned_runs.contains("_major"), "{:?}", f.owned_runs);
    assert!(f.owned_runs.contains("_build"), "{:?}", f.frozen_runs);
}

/// A private attrs field (`_formatter = field()`, a name in `fields`) whose public twin
/// stays (an outside name) stays too: attrs names its `__init__` parameter `formatter`, which
/// callers pass by keyword. A private attribute that is no field (`_stream`) is renamed.
#[test]
fn private_fields_with_frozen_public_twins_stay() {
    let own = set(&["cli"]);
    let defined = set(&["Outputter", "formatter", "_formatter", "stream", "_stream"]);
    let outside = set(&["formatter", "stream"]);
    let fields = set(&["_formatter"]);
    let module: &[u8] = b"@define\nclass Outputter:\n    _formatter = field()\n    def go(self, stream):\n        self._stream = stream\n\ndef make(formatter):\n    return Outputter(formatter=formatter)\n";
    let input = PolicyInput {
        python: vec![("cli.py", module)],
        names: vec!["cli.py"],
        env_names: &outside,
        fields: &fields,
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert!(f.frozen_owned.contains("_formatter"), "{:?}", f.frozen_runs);
    assert!(f.owned_runs.contains("_stream"), "{:?}", f.frozen_runs);
}

#[test]
fn long_options_read_as_keys_are_code_names() {
    let own = set(&["cli"]);
    let defined = set(&["parse", "test_custom_error_format"]);
    let py: &[u8] = b"def parse(p, argv):\n    p.add_argument('-F', '--error-format')\n    p.add_argument('--no-interaction')\n    a = vars(p.parse_args(argv))\n    return a['error_format']\n";
    let input = PolicyInput {
        python: vec![("cli.py", py)],
        names: vec!["cli.py"],
        ..tree(&own, &defined)
    };
    let f = analyze(&input);
    assert!(f.code_runs.contains("error_format"), "{:?}", f.code_runs);
    assert!(!f.code_runs.contains("no_interaction"), "{:?}", f.code_runs);
}

/// A PDF or an image stores names no program looks up (`transform::media`): the title of a
/// drawing naming `zephyr_classes.graffle` keeps nothing, while the same bytes in a binary
/// of another kind (a database, a pickle) freeze the names they hold.
#[test]
fn documents_and_images_freeze_nothing() {
    let own = set(&["zephyr"]);
    let defined = set(&["zephyr", "Engine"]);
    let lib: &[u8] = b"class Engine:\n    pass\n";
    let pdf: &[u8] = b"%PDF-1.3\n\x00\xc4 /Title (zephyr_classes.graffle) /Subject (Engine)";
    let db: &[u8] = b"SQLite format 3\x00 zephyr_classes Engine";
    let analyzed = |bin: &'static [u8]| {
        analyze(&PolicyInput {
            python: vec![("zephyr/__init__.py", lib)],
            text: vec![],
            binary: vec![bin],
            programs: vec![],
            names: vec!["zephyr/__init__.py", "docs/classes.bin"],
            ..tree(&own, &defined)
        })
    };
    let f = analyzed(pdf);
    assert!(f.owned_runs.contains("zephyr") && f.owned_runs.contains("Engine"));
    let f = analyzed(db);
    assert_eq!(f.frozen_runs.get("zephyr"), Some(&FreezeReason::Binary));
    assert_eq!(f.frozen_runs.get("Engine"), Some(&FreezeReason::Binary));
}
