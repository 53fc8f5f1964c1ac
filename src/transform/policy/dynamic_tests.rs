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
        programs: vec![],
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
        compared_parts: &NO_PARTS,
        compared_words: &NO_WORDS,
        compared_reach: &NO_WORDS,
        fields: &NO_NAMES,
        dirs: Vec::new(),
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

/// Doubled braces and percent signs are escaped characters (and template markup), not
/// fields: Django's template test `"as{{ missing }}df"` joins nothing to `as` or `df`.
#[test]
fn escaped_braces_and_percents_join_nothing() {
    let src = br#"
a = {"basic": "as{{ missing }}df"}
b = "rate%%d" % 5
c = "%%under" % x
d = "keep{x}" + "open%s" % y
"#;
    let t: Vec<String> = dynamic_fragments(src)
        .iter()
        .map(|f| f.text.clone())
        .collect();
    for w in ["as", "df", "missing", "rate", "under"] {
        assert!(!t.iter().any(|x| x == w), "unexpected {w}: {t:?}");
    }
    for w in ["keep", "open"] {
        assert!(t.iter().any(|x| x == w), "missing {w}: {t:?}");
    }
}

/// A message given to `raise` or `warn` is read, never looked up: its joins build no names.
#[test]
fn messages_raised_or_warned_build_no_names() {
    let src = br#"
def register(self, app, name):
    if name in app.blueprints:
        raise ValueError(
            f"The name '{name}' is already registered for"
            f" {bp_desc} blueprint{existing_at}. Use 'name=' to"
        )
    warnings.warn("deprecated_%s" % name, DeprecationWarning)
    raise errors.LookupFailed("no lookup_" + name)
    handler = getattr(self, "visit_" + name)
    raise_for = Helper(f"render_{name}")
"#;
    let t: Vec<String> = dynamic_fragments(src)
        .iter()
        .flat_map(|f| f.tokens().collect::<Vec<_>>())
        .collect();
    for w in ["blueprint", "deprecated", "lookup"] {
        assert!(!t.iter().any(|x| x == w), "{w} is in a message: {t:?}");
    }
    for w in ["visit", "render"] {
        assert!(t.iter().any(|x| x == w), "missing {w}: {t:?}");
    }
    assert!(in_message(
        src,
        src.windows(10).position(|w| w == b"blueprint{").unwrap()
    ));
    assert!(!in_message(
        src,
        src.windows(6).position(|w| w == b"render").unwrap()
    ));
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
        programs: vec![],
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

/// A class named at run time from capitalised data with an index follows the data when
/// strings swap it as an indexed code name: jsonschema names its validators
/// `f"{version.title()}Validator"` from `version="draft7"`, and `draft` is a code name, so
/// the view's `"droop7"` makes `Droop7Validator`, and the binding must be that name too.
#[test]
fn a_class_named_from_capitalised_indexed_data_follows_it() {
    let src: &[u8] = br#"
def create(version=None, draft=None):
    class Validator:
        pass
    safe = version.title()
    Validator.__name__ = f"{safe}Validator"
    return Validator

Draft7Validator = create(version="draft7", draft=True)
"#;
    let defined = set(&[
        "create",
        "version",
        "draft",
        "Validator",
        "safe",
        "Draft7Validator",
    ]);
    let env = set(&["title"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert!(
        !f.frozen_runs.contains_key("Draft7Validator"),
        "{:?}",
        f.frozen_runs.get("Draft7Validator")
    );
    assert!(f.owned_runs.contains("Draft7Validator"));
}

/// Names that code turns into one another with `.replace` on an affix stay together:
/// platformdirs's tests look up `name.replace("_dir", "_path")` for each of its functions,
/// and `user_log_dir` is an outside name (the copy vendored in pip defines it), so
/// `user_log_path` must keep its words too. A name with no frozen twin is renamed.
#[test]
fn names_turned_into_each_other_by_replace_stay_together() {
    let src: &[u8] = br#"
def user_log_dir(): pass
def user_log_path(): pass
def user_cake_dir(): pass
def user_cake_path(): pass
def check(mod, name):
    return getattr(mod, name.replace("_dir", "_path"))
"#;
    let defined = set(&[
        "user_log_dir",
        "user_log_path",
        "user_cake_dir",
        "user_cake_path",
        "check",
        "mod",
        "name",
    ]);
    let env = set(&["getattr", "replace", "user_log_dir"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("user_log_path"),
        Some(&FreezeReason::Dynamic),
        "{:?}",
        f.owned_runs
    );
    assert!(f.owned_runs.contains("user_cake_path"));
    assert!(f.owned_runs.contains("user_cake_dir"));
}

/// A keyword the program turns into a dotted key with `.replace("_", ".", 1)` stays when the
/// key, a dotted literal of the tree, keeps a piece: bottle's tests pass
/// `wsgi_url_scheme="https"` and the code reads `environ["wsgi.url_scheme"]`, where
/// `url_scheme` is an outside name. A keyword whose dotted twin no literal spells
/// (`shelf_count`) and one whose twin's pieces are all renamed (`ledger_total`, with the
/// literal `"ledger.total"`) are still renamed; without the replacement nothing is kept.
#[test]
fn keywords_turned_into_dotted_keys_stay_with_the_key() {
    let src: &[u8] = br#"
def redirect(environ):
    return environ.get("wsgi.url_scheme"), environ.get("ledger.total")

def check(**args):
    for key in list(args):
        args[key.replace('_', '.', 1)] = args.pop(key)
    return redirect(args)

check(wsgi_url_scheme="https", shelf_count=2, ledger_total=3)
"#;
    let defined = set(&["redirect", "environ", "check", "args", "key"]);
    let env = set(&["get", "list", "pop", "replace", "url_scheme", "wsgi"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("wsgi_url_scheme"),
        Some(&FreezeReason::Dynamic),
        "{:?}",
        f.owned_runs
    );
    assert!(!f.frozen_runs.contains_key("shelf_count"));
    assert!(!f.frozen_runs.contains_key("ledger_total"));
    let plain = String::from_utf8_lossy(src).replace("key.replace('_', '.', 1)", "key");
    let input = one_file(plain.as_bytes(), &env, &defined);
    let f = analyze(&input);
    assert!(!f.frozen_runs.contains_key("wsgi_url_scheme"));
}

/// The run-time part of a family that only outside names belong to stays: dill reads
/// `getattr(code, 'co_' + f)` for each word of a list, `co_freevars` is an attribute of
/// code objects, and `freevars` is also a parameter of the repository, which the view had
/// renamed in the list too. A family the repository has a member of (`get_`, with its own
/// `get_shelf`) is its own: `value`, whose `get_value` only outside code defines, is
/// still renamed.
#[test]
fn run_time_parts_of_a_family_of_outside_names_stay() {
    let src: &[u8] = br#"
PARAMS = 'argcount freevars'.split()

def fields(code):
    return {f: getattr(code, 'co_' + f) for f in PARAMS}

def closure(freevars):
    return freevars

class Shelf:
    def get_shelf(self):
        return 1
    def read(self, name, value):
        return getattr(self, 'get_' + name)(value)
"#;
    let defined = set(&[
        "PARAMS",
        "fields",
        "code",
        "closure",
        "freevars",
        "Shelf",
        "get_shelf",
        "read",
        "name",
        "value",
    ]);
    let env = set(&[
        "co_freevars",
        "co_argcount",
        "get_value",
        "getattr",
        "split",
    ]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("freevars"),
        Some(&FreezeReason::Dynamic),
        "{:?}",
        f.owned_runs
    );
    assert!(f.owned_runs.contains("value"), "{:?}", f.frozen_runs);
}

/// A string key made of a compared part and a frozen rest keeps the rest: cerberus expands
/// the rule `'oneof_schema'` (`x.startswith(('allof_', 'oneof_'))`, the tuple on a line
/// of its own, then `x.split('_', 1)`) into the rule `schema`, an outside name that stays, so the key's
/// `schema` must stay too, though the token is renamed in the repository's own names
/// (`schema_rules`). A key whose rest is renamed (`oneof_shelf`) changes with it.
#[test]
fn string_keys_of_a_compared_part_and_a_frozen_rest_keep_the_rest() {
    let src: &[u8] = br#"
def expand(schema_rules, shelf):
    for rule in list(schema_rules):
        if rule.startswith(
            ('allof_', 'oneof_')
        ):
            operator, name = rule.split('_', 1)
            schema_rules[operator] = name
    return schema_rules

expand({'oneof_schema': 1, 'oneof_shelf': 2}, None)
"#;
    let defined = set(&[
        "expand",
        "schema_rules",
        "shelf",
        "rule",
        "operator",
        "name",
    ]);
    let env = set(&["schema", "startswith", "split", "list"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("oneof_schema"),
        Some(&FreezeReason::Dynamic),
        "{:?}",
        f.frozen_runs
    );
    assert!(!f.frozen_runs.contains_key("oneof_shelf"));
    assert!(f.owned_runs.contains("schema_rules"));
}

/// A rest the code names after a compared part stays when the whole name (part and rest)
/// is a code name that stays: mock denies `removeprefix(name, "assert_")` for each of its
/// `assert_...` methods, outside names that `unittest.mock` defines, and its test calls
/// `m.called_once_with()` to see it denied. A rest whose whole is renamed
/// (`shelf_count` of the owned `assert_shelf_count`) is still renamed.
#[test]
fn rests_of_kept_names_after_a_compared_part_stay() {
    let src: &[u8] = br#"
class Mock:
    def assert_called_once_with(self):
        pass
    def assert_shelf_count(self):
        pass

DENY = frozenset(name.removeprefix("assert_") for name in dir(Mock) if name.startswith("assert_"))

def check(m):
    m.called_once_with()
    m.shelf_count()
"#;
    let defined = set(&[
        "Mock",
        "assert_called_once_with",
        "assert_shelf_count",
        "DENY",
        "check",
        "m",
        "name",
    ]);
    let env = set(&[
        "assert_called_once_with",
        "frozenset",
        "dir",
        "removeprefix",
        "startswith",
    ]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("called_once_with"),
        Some(&FreezeReason::Dynamic),
        "{:?}",
        f.owned_runs
    );
    assert!(!f.frozen_runs.contains_key("shelf_count"));
}

/// A name the program turns into a label with `.replace("_", " ").title()` stays when the
/// label is a whole literal of the tree: wtforms binds a field as `"foo_bar"` (a string
/// only) and its test expects the label `"Foo Bar"`, a literal whose words the view keeps.
/// A name whose label
/// no literal spells (`shelf_count`) is still renamed; without the label nothing is kept.
#[test]
fn names_turned_into_labels_stay_with_the_label() {
    let src: &[u8] = br#"
class Field:
    def bind(self, name):
        self.label = name.replace("_", " ").title()
        return self

def check(shelf_count):
    assert Field().bind("foo_bar").label == "Foo Bar"
    return Field().bind("shelf_count")
"#;
    let defined = set(&[
        "Field",
        "bind",
        "self",
        "name",
        "label",
        "check",
        "shelf_count",
    ]);
    let env = set(&["replace", "title"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("foo_bar"),
        Some(&FreezeReason::Dynamic),
        "{:?}",
        f.owned_runs
    );
    assert!(!f.frozen_runs.contains_key("shelf_count"));
    let plain = String::from_utf8_lossy(src).replace(".title()", "");
    let input = one_file(plain.as_bytes(), &env, &defined);
    let f = analyze(&input);
    assert!(!f.frozen_runs.contains_key("foo_bar"));
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
/// strings swap, so `_process_ledger` is not built from data). Only families read next to
/// `__name__` tie classes: `Paginator` is renamed beside the frozen `get_paginator`.
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
class Paginator:
    pass
class Pages:
    def get(self, what):
        return getattr(self, "get_" + what)()
    def get_paginator(self):
        return Paginator
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
        "Paginator",
        "Pages",
        "get",
        "what",
        "get_paginator",
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
    // A family whose literal reads no `__name__` nearby ties no class: `get_paginator`
    // stays (its run-time part is data), `Paginator` is renamed.
    assert_eq!(
        f.frozen_runs.get("get_paginator"),
        Some(&FreezeReason::Dynamic)
    );
    assert!(
        f.owned_runs.contains("Paginator"),
        "{:?}",
        f.frozen_runs.get("Paginator")
    );
}

/// A family whose members are mostly named after classes is a class family though no
/// `__name__` is read next to its literal (mistletoe's `"render_{}".format(snake)`, with the
/// class name passed in by the caller): the frozen class `BlankLine` (an outside name) keeps
/// `render_blank_line`, its snake case; `render_block_code` is renamed with `BlockCode`.
/// One member spelled after a class is no class family: `BlankLine` keeps no `show_`
/// member.
#[test]
fn a_family_named_after_classes_ties_them_through_snake_case() {
    let src: &[u8] = br#"
import re
class BlankLine: pass
class BlockCode: pass
class ThematicBreak: pass
class Heading: pass
class Paragraph: pass
class Renderer:
    def func(self, cls_name):
        snake = "_".join(map(str.lower, re.findall("[A-Z][a-z]+", cls_name)))
        return "render_{}".format(snake)
    def show(self, what):
        return getattr(self, "show_%s" % what)
    def render_blank_line(self, t): return t
    def render_block_code(self, t): return t
    def render_thematic_break(self, t): return t
    def render_heading(self, t): return t
    def render_paragraph(self, t): return t
    def show_blank_line(self, t): return t
    def show_heading(self, t): return t
    def show_ledger(self, t): return t
    def show_pages(self, t): return t
"#;
    let defined = set(&[
        "BlankLine",
        "BlockCode",
        "ThematicBreak",
        "Heading",
        "Paragraph",
        "Renderer",
        "func",
        "cls_name",
        "snake",
        "show",
        "what",
        "render_blank_line",
        "render_block_code",
        "render_thematic_break",
        "render_heading",
        "render_paragraph",
        "show_blank_line",
        "show_heading",
        "show_ledger",
        "show_pages",
        "t",
    ]);
    let env = set(&[
        "re",
        "findall",
        "join",
        "map",
        "lower",
        "format",
        "getattr",
        "BlankLine",
    ]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("render_blank_line"),
        Some(&FreezeReason::Dynamic),
        "{:?}",
        f.owned_runs
    );
    assert!(
        f.owned_runs.contains("render_block_code") && f.owned_runs.contains("BlockCode"),
        "{:?}",
        f.frozen_runs
    );
    assert!(
        f.owned_runs.contains("show_blank_line"),
        "{:?}",
        f.frozen_runs.get("show_blank_line")
    );
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
ledger = 0
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
    // `ledger` is a module's name, which strings swap (a local's plain word they would
    // keep: `a_member_whose_part_is_only_a_locals_word_stays`).
    assert!(!f.local_words.contains("ledger"));
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

/// The same when a piece of the capitalised spelling is a code name the view keeps all the
/// same: werkzeug sets `"Content-Range"` and reads `"content-range"` back from headers that
/// ignore case, and its piece `Range` is a class that stays (here an outside name).
/// `content_range` is still renamed; `Shelf-Count`, whose piece is renamed, still freezes
/// nothing.
#[test]
fn lower_case_of_capitalised_headers_with_kept_pieces_is_data() {
    let src: &[u8] = br#"
class Range:
    pass

class Shelf:
    def __init__(self, content_range, shelf_count):
        self.content_range = content_range
        self.shelf_count = shelf_count
    def headers(self):
        return [("Content-Range", self.content_range), ("Shelf-Count", self.shelf_count)]
    def read(self, name, value):
        if name.lower() == "content-range":
            self.content_range = Range()
        elif name.lower() == "shelf-count":
            self.shelf_count = value
"#;
    let defined = set(&[
        "Range",
        "Shelf",
        "content_range",
        "shelf_count",
        "headers",
        "read",
    ]);
    let env = set(&["lower", "name", "value", "Range"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("content-range"),
        Some(&FreezeReason::Data)
    );
    assert!(!f.frozen_runs.contains_key("shelf-count"));
    assert!(f.owned_runs.contains("content_range"));
}

/// The lower case of a kept capitalised header whose underscore form is no code name, but
/// one of whose pieces the view renames word by word: werkzeug's multipart test sends
/// `X-Custom-Header` and reads `headers["x-custom-header"]`, while `custom` is a parameter.
/// The lower case stays whole, and `custom` is still renamed elsewhere. A lower-case
/// group whose capitalised twin is prose opening a sentence (`Custom-shelf`, not every piece
/// capitalised) keeps nothing.
#[test]
fn lower_case_of_capitalised_headers_split_word_by_word_is_data() {
    let src: &[u8] = br#"
class Shelf:
    def __init__(self, custom):
        self.custom = custom
    def send(self):
        # Custom-shelf the headers first.
        return b"X-Custom-Header: blah\r\n"
    def read(self, headers):
        return headers["x-custom-header"], headers["custom-shelf"], self.custom
"#;
    let defined = set(&["Shelf", "custom", "send", "read", "headers"]);
    let env = set(&[]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("x-custom-header"),
        Some(&FreezeReason::Data)
    );
    assert!(!f.frozen_runs.contains_key("custom-shelf"));
    assert!(f.owned_runs.contains("custom"));
}

/// A whole literal in an irregular case (`"ETag"`) is data the view keeps; a whole literal
/// of its lower case is the same data compared without case, so the owned name `etag`
/// stays with it. A capitalised literal (`"Shelf"`, the regular spelling of a class name)
/// and an irregular literal whose lower case no literal spells (`"LedGer"`) keep nothing;
/// nor does a project's display name beside its import root (`"ShelfKit"`, `shelfkit`).
#[test]
fn lower_case_of_an_irregular_case_literal_is_data() {
    let src: &[u8] = br#"
class Shelf:
    def __init__(self, etag, shelf, ledger):
        self.headers = {"ETag": etag, "Shelf": shelf, "LedGer": ledger}
        self.etag = etag
    def read(self):
        return self.headers.get("etag"), self.headers.get("shelf"), self.ledger
"#;
    let defined = set(&["Shelf", "etag", "shelf", "ledger", "read", "headers"]);
    let env = set(&["get"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("etag"), Some(&FreezeReason::Data));
    assert!(!f.owned_runs.contains("etag"));
    assert!(f.owned_runs.contains("shelf") && f.owned_runs.contains("ledger"));
    // The display name of an import root beside the root's name keeps nothing.
    let src2: &[u8] = br#"
NAME = "ShelfKit"
DIST = "shelfkit"
def etag_of(headers):
    return headers.get("etag"), headers["ETag"]
"#;
    let own = set(&["shelfkit"]);
    let defined = set(&["shelfkit", "etag", "etag_of", "NAME", "DIST"]);
    let input = PolicyInput {
        own_modules: &own,
        tree_modules: &own,
        ..one_file(src2, &env, &defined)
    };
    let f = analyze(&input);
    assert!(
        f.owned_runs.contains("shelfkit"),
        "an import root stays renamed"
    );
    assert_eq!(f.frozen_runs.get("etag"), Some(&FreezeReason::Data));
    assert!(is_irregular_case("ETag") && is_irregular_case("iPhone"));
    assert!(
        !is_irregular_case("Etag") && !is_irregular_case("ETAG") && !is_irregular_case("E_Tag")
    );
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

/// A two-letter fixed part joined in a string (`"id_%s" % name`, Django's `auto_id`) is a
/// fragment the renamer sees (frozen as `dynamic`), though no token: `"id_myfile"` in a test
/// is the id made from the field `myfile` and follows it. An unjoined `"id_"` is not.
#[test]
fn two_letter_fixed_parts_are_fragments_for_the_renamer() {
    let src: &[u8] = br#"
def auto_id(name):
    return "id_%s" % name

def other(s):
    return s.startswith("to_")
"#;
    let defined = set(&["auto_id", "name", "other"]);
    let env = set(&["startswith"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(f.frozen_tokens.get("id"), Some(&FreezeReason::Dynamic));
    assert_eq!(f.frozen_tokens.get("to"), None);
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

/// A whole literal compared with names by `startswith`/`endswith` is a fixed part of those
/// names even without an underscore: uritemplate's metaclass makes a test of every class
/// attribute whose name starts with `"level"` (`level4_form_amp_examples`).
#[test]
fn literals_names_are_compared_with_are_fragments() {
    let src: &[u8] = br#"
class Examples(type):
    level1_cases = {}
    level4_form_cases = {}
    def __new__(cls, name, bases, attrs):
        picked = [n for n in dir(Examples) if n.startswith("level")]
        tails = [n for n in dir(Examples) if n.endswith(("gadget", "widget"))]
        print("sprocket", len(picked), tails)
        return type.__new__(cls, name, bases, attrs)
"#;
    let found: Vec<(String, bool)> = dynamic_fragments(src)
        .into_iter()
        .map(|f| (f.text, f.prefix))
        .collect();
    assert!(found.contains(&("level".to_string(), true)), "{found:?}");
    assert!(found.contains(&("gadget".to_string(), false)), "{found:?}");
    assert!(found.contains(&("widget".to_string(), false)), "{found:?}");
    // A literal that is only printed compares with nothing.
    assert!(!found.iter().any(|(t, _)| t == "sprocket"), "{found:?}");

    let defined = set(&[
        "Examples",
        "level1_cases",
        "level4_form_cases",
        "picked",
        "tails",
    ]);
    let names = set(&["dir", "print", "len", "type", "name", "bases", "attrs", "n"]);
    let input = one_file(src, &names, &defined);
    let f = analyze(&input);
    // With `level` frozen the attributes still start with it when renamed.
    assert_eq!(f.frozen_tokens.get("level"), Some(&FreezeReason::Dynamic));
    assert!(f.owned_runs.contains("level4_form_cases"));
    assert!(!f.frozen_tokens.contains_key("form"));
}

/// A slice as long as the literal it is compared with is how older code spells `startswith`
/// (PLY: `f[:2] == 't_'`), and `[-n:]` spells `endswith`. A slice of another length, or a
/// literal compared with a whole name, is no such comparison.
#[test]
fn slices_compared_with_a_literal_of_their_length_compare_affixes() {
    let src: &[u8] = br#"
picked = [f for f in names if f[:6] == "widget"]
tails = [f for f in names if f[-6:] != 'gadget']
wrong = [f for f in names if f[:3] == "sprocket"]
whole = [f for f in names if f == "flywheel"]
"#;
    let found: Vec<(String, bool)> = dynamic_fragments(src)
        .into_iter()
        .map(|f| (f.text, f.prefix))
        .collect();
    assert!(found.contains(&("widget".to_string(), true)), "{found:?}");
    assert!(found.contains(&("gadget".to_string(), false)), "{found:?}");
    assert!(
        !found
            .iter()
            .any(|(t, _)| t == "sprocket" || t == "flywheel"),
        "{found:?}"
    );
}

/// The rests of names picked by a name part become names only where the program can read
/// them: the file that compares must also split at underscores (or slice the part off), and
/// the literal must be a
/// whole part (`check_`), not a bare word (`check`) or an underscore.
#[test]
fn rests_count_only_for_a_name_part_in_a_file_that_splits() {
    let with = |test: &str, split: bool| {
        let src = format!(
            "def check_widget():\n    pass\n\nKINDS = ['widget']\n\ndef pick(names):\n    \
             return [n for n in names if {test}]\n\ndef parts(n):\n    return n.{}\n",
            if split { "split('_')" } else { "upper()" }
        );
        let defined = set(&["check_widget", "KINDS", "pick", "parts"]);
        let env = set(&["split", "upper", "n", "names"]);
        let input = one_file(src.as_bytes(), &env, &defined);
        analyze(&input).code_runs.contains("widget")
    };
    assert!(with("n.startswith('check_')", true));
    assert!(with("n[:6] == 'check_'", true));
    assert!(!with("n.startswith('check_')", false), "no split");
    // Or a slice that cuts the part off the compared name by its length (mako's `pa[6:]`).
    let sliced = |cut: &str| {
        let src = format!(
            "def check_widget():\n    pass\n\nKINDS = ['widget']\n\ndef pick(names):\n    \
             p = names\n    return [{cut} for n in names if n.startswith('check_')]\n"
        );
        let defined = set(&["check_widget", "KINDS", "pick"]);
        let env = set(&["startswith", "n", "names"]);
        let input = one_file(src.as_bytes(), &env, &defined);
        analyze(&input).code_runs.contains("widget")
    };
    assert!(sliced("n[6:]"));
    assert!(!sliced("n[5:]"), "a slice of another length");
    assert!(!sliced("p[6:]"), "a slice of another name (PLY's `p[2:]`)");
    assert!(!with("n.startswith('check')", true), "a bare word");
    assert!(!with("n.startswith('_')", true), "an underscore");
}

/// Django looks up `"as_" + connection.vendor` and spells the vendor `"sqlite"`, which is
/// also the name of a test package (`backends/sqlite`): strings swap a module name as a code
/// name, so the member `as_sqlite` follows it rather than staying as if built from data
/// that strings keep.
#[test]
fn a_family_member_follows_a_rest_that_is_a_module_name() {
    let src: &[u8] = br#"
class Wrapper:
    vendor = "sqlite"

class Node:
    def as_sqlite(self, compiler):
        return compiler

def compile(node, connection):
    return getattr(node, "as_" + connection.vendor)
"#;
    let env = set(&["getattr"]);
    let defined = set(&[
        "Wrapper",
        "vendor",
        "Node",
        "as_sqlite",
        "compile",
        "node",
        "connection",
        "compiler",
    ]);
    let modules = set(&["sqlite"]);
    let mut input = one_file(src, &env, &defined);
    input.tree_modules = &modules;
    let f = analyze(&input);
    assert!(
        f.owned_runs.contains("as_sqlite"),
        "{:?}",
        f.frozen_runs.get("as_sqlite")
    );
    // Without the module, the rest is a word only data holds: the member stays.
    let f = analyze(&one_file(src, &env, &defined));
    assert_eq!(f.frozen_runs.get("as_sqlite"), Some(&FreezeReason::Dynamic));
}

/// transitions builds `on_enter_B` from the items of a class's list joined with a state's
/// name: the listed words stay in the names the loop builds, as the list keeps them.
#[test]
fn names_joined_from_listed_items_keep_the_items_words() {
    let core = br#"
class State:
    dynamic_methods = ['on_enter', 'on_exit']

class Machine:
    def add(self, model, state):
        for callback in self.state_cls.dynamic_methods:
            method = "{0}_{1}".format(callback, state.name)
            if hasattr(model, method):
                pass
"#;
    let nesting = br#"
class NestedState(State):
    dynamic_methods = State.dynamic_methods + ["on_final"]
"#;
    let test = b"def on_enter_B(self):\n    pass\n\ndef on_final_C(self):\n    pass\n";
    let defined = set(&[
        "State",
        "on_enter_B",
        "on_final_C",
        "add",
        "dynamic_methods",
    ]);
    let mut input = one_file(core, &NONE, &defined);
    input.python.push(("pkg/nesting.py", nesting));
    input.python.push(("tests/test_core.py", test));
    let f = analyze(&input);
    for t in ["enter", "exit", "final"] {
        assert_eq!(
            f.frozen_tokens.get(t),
            Some(&FreezeReason::Dynamic),
            "{t}: {:?}",
            f.frozen_tokens
        );
    }
}

/// traitlets finds a trait's default by `"_%s_default" % name`: the run-time part of
/// `_lis_default` is `lis`, between the literal's fixed start and end, never `_lis`. With
/// `lis` renamed, `_lis_default` must change with it, not stay.
#[test]
fn a_member_of_a_family_with_a_fixed_start_and_end_follows_its_middle() {
    let src = br#"
class HasTraits:
    def _find(self, name):
        method = "_%s_default" % name
        return getattr(self, method, None)

class Containers(HasTraits):
    lis = [1]

    def _lis_default(self):
        return [-1]
"#;
    let defined = set(&[
        "HasTraits",
        "_find",
        "Containers",
        "lis",
        "_lis_default",
        "method",
    ]);
    let names = set(&["name", "getattr", "self"]);
    let input = one_file(src, &names, &defined);
    let f = analyze(&input);
    assert_eq!(f.frozen_runs.get("lis"), None);
    assert_eq!(
        f.frozen_runs.get("_lis_default"),
        None,
        "{:?}",
        f.frozen_runs
    );
    assert_eq!(f.frozen_tokens.get("default"), Some(&FreezeReason::Dynamic));
}

/// A name made of one letter and a name that stays, where the code joins that letter to a
/// run-time part, stays too: structlog builds the async twin of each level method as
/// `meths[f"a{name}"]` from `"error"` (an outside name) and then reads `meths["aerror"]`.
/// The view had renamed `aerror` and no module imported. A twin of a renamed name, and a
/// run whose first letter no string joins, are renamed.
#[test]
fn one_letter_joined_to_a_name_that_stays_stays() {
    let src: &[u8] = br#"
class Logger:
    def error(self): pass
    async def aerror(self): pass
    def cake(self): pass
    async def acake(self): pass
    def berror(self): pass
def make(names):
    meths = {}
    for name in names:
        meths[f"a{name}"] = name
    meths["fatal"] = meths["error"]
    meths["afatal"] = meths["aerror"]
    return meths
"#;
    let defined = set(&[
        "Logger", "error", "aerror", "cake", "acake", "berror", "make", "names", "meths", "name",
        "afatal",
    ]);
    let env = set(&["error", "fatal"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    for run in ["aerror", "afatal"] {
        assert_eq!(
            f.frozen_runs.get(run),
            Some(&FreezeReason::Dynamic),
            "{run}: {:?}",
            f.owned_runs
        );
    }
    assert!(f.owned_runs.contains("acake"), "{:?}", f.frozen_runs);
    assert!(f.owned_runs.contains("berror"), "{:?}", f.frozen_runs);
    let src: &[u8] = br#"
m[f"a{x}"] = getattr(o, "b%s" % y)
n = getattr(o, 'c' + z) or m["d{}".format(w)] or m[f"e{x}_"] or m[f"ef{x}"]
p = dict(slug="h%s" % i, key="i" + s[1:], other=m[f"j{x.y}"])
"#;
    assert_eq!(
        letters_in_runs(src, &lexer::python_runs(src)),
        [b'a', b'b', b'c', b'd'].into_iter().collect()
    );
}

/// cerberus finds a rule's handler by `'_{0}_{1}'.format(domain, rule)`, the domain a
/// literal each caller passes (`self.__get_rule_handler('validate', rule)`) and the rule a
/// schema's key (`{'forbidden': [...]}`), data the view keeps: `_validate_forbidden` keeps
/// the word its data keeps, and the domain's words stay.
#[test]
fn names_joined_from_a_passed_literal_keep_the_datas_words() {
    let src = br#"
class Validator:
    def __get_rule_handler(self, domain, rule):
        methodname = '_{0}_{1}'.format(domain, rule.replace(' ', '_'))
        return getattr(self, methodname, None)

    def validate(self, schema):
        for rule in schema:
            handler = self.__get_rule_handler('validate', rule)
            handler(schema[rule])

    def _validate_forbidden(self, forbidden_values):
        forbidden = set(forbidden_values)
        return forbidden

    def _validate_schema(self, schema):
        return schema
"#;
    let test = b"def test_rule():\n    Validator().validate({'forbidden': ['root']})\n";
    let defined = set(&[
        "Validator",
        "__get_rule_handler",
        "validate",
        "_validate_forbidden",
        "_validate_schema",
        "forbidden_values",
    ]);
    let mut input = one_file(src, &NONE, &defined);
    input.python.push(("tests/test_rules.py", test));
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("_validate_forbidden"),
        Some(&FreezeReason::Dynamic),
        "{:?}",
        f.frozen_runs
    );
    assert_eq!(
        f.frozen_tokens.get("validate"),
        Some(&FreezeReason::Dynamic)
    );
}

/// A family member's run-time part that the code only uses as a local's plain word is kept
/// by strings (`Findings::local_words`), so the data it comes from keeps it and the member
/// must too: `_validate_forbidden` looked up by `"_validate_%s" % rule` with the rule
/// `'forbidden'`, beside a local `forbidden`. The family rule had counted the local as a
/// word strings swap, unlike the renamer.
#[test]
fn a_member_whose_part_is_only_a_locals_word_stays() {
    let src = br#"
class Validator:
    def run(self, schema):
        for rule in schema:
            getattr(self, "_validate_%s" % rule)(schema[rule])

    def _validate_forbidden(self, forbidden_values):
        forbidden = set(forbidden_values)
        return forbidden
"#;
    let test = b"def test_rule():\n    Validator().run({'forbidden': ['root']})\n";
    let defined = set(&[
        "Validator",
        "run",
        "_validate_forbidden",
        "forbidden_values",
    ]);
    let mut input = one_file(src, &NONE, &defined);
    input.python.push(("tests/test_rules.py", test));
    let f = analyze(&input);
    assert!(f.local_words.contains("forbidden"), "{:?}", f.local_words);
    assert_eq!(
        f.frozen_runs.get("_validate_forbidden"),
        Some(&FreezeReason::Dynamic)
    );
}

/// A `%` joins a name's letters only through a conversion that writes text: SQL's
/// `LIKE '%widget'` (`%w` is no conversion; Django's `'%django'` reads as `%d`), a URL's
/// `%21` escape and a number (`"slot_%d"`) build no name of letters, so `widget` and
/// `slot_record` are no family members built from data.
#[test]
fn a_percent_joins_letters_only_through_a_text_conversion() {
    let src: &[u8] = br#"
QUERY = "SELECT * FROM t WHERE name LIKE '%dwidget';"
URL = "http://example.com/?q=dw%21%60"
SPACED = "/url%20with%20spaces/"
LABEL = "slot_%d" % 3

def dwidget(x):
    return x

def slot_record(x):
    return x

def with_params(x):
    return x

def lookup(obj, word):
    return getattr(obj, "part_%s" % word)

def part_hook(x):
    return x
"#;
    let frags = dynamic_fragments(src);
    let numeric: Vec<&str> = frags
        .iter()
        .filter(|f| f.numeric)
        .map(|f| f.text.as_str())
        .collect();
    assert_eq!(numeric, ["widget", "slot_"], "{frags:?}");
    assert!(!frags.iter().any(|f| f.text == "dw"), "{frags:?}");
    // `%20spaces` is a URL escape then a word, as the lexer reads it: not `%20s`.
    assert!(!frags.iter().any(|f| f.text == "with"), "{frags:?}");
    let defined = set(&[
        "dwidget",
        "slot_record",
        "with_params",
        "lookup",
        "part_hook",
        "word",
    ]);
    let env = set(&["x", "obj", "getattr", "name"]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    for run in ["dwidget", "slot_record", "with_params"] {
        assert!(f.owned_runs.contains(run), "{run}: {:?}", f.frozen_runs);
        assert!(
            !f.frozen_runs.contains_key(run),
            "{run}: {:?}",
            f.frozen_runs
        );
    }
    // A text conversion still builds names from data.
    assert_eq!(f.frozen_runs.get("part_hook"), Some(&FreezeReason::Dynamic));
}

#[test]
fn percent_conversions_are_read_like_the_percent_operator() {
    let table: [(Conversion, &[&str]); 3] = [
        (
            Conversion::Text,
            &["%s", "%(key)s", "%-8r", "%x", "%c", "%20s", "%08x|"],
        ),
        (
            Conversion::Number,
            &[
                "%d", "%05.2f", "%ld", "%(n)i", "%*d", "%.3e", "%2F", "%10d ",
            ],
        ),
        (
            Conversion::Nothing,
            &["%21%", "%", "%(key", "%w", "% ", "%20spaces", "%2Fbaz"],
        ),
    ];
    for (want, specs) in table {
        for s in specs {
            assert_eq!(percent_conversion(s.as_bytes(), 1), want, "{s}");
        }
    }
}

/// faker's fixture reads a test class's locale back from its name (`TestFilPh` for the
/// locale `fil_PH`, which stays as the name of outside data): the class keeps its name.
/// A test class with one piece, and one that spells no frozen run, are renamed.
#[test]
fn test_classes_named_after_kept_data_keep_their_names() {
    let src: &[u8] = br#"
import re
PATTERN = re.compile(r"^Test(?P<language>[A-Z][a-z]{1,2})(?P<region>[A-Z][a-z])$")

def locale_of(cls):
    m = PATTERN.fullmatch(cls.__name__)
    return f'{m.group("language").lower()}_{m.group("region").upper()}'

class TestFilPh:
    locale = "fil_PH"

class TestFilter:
    pass

class TestFilDrum:
    pass
"#;
    let defined = set(&[
        "PATTERN",
        "locale_of",
        "TestFilPh",
        "TestFilter",
        "TestFilDrum",
        "locale",
        "fil_PH",
    ]);
    let env = set(&[
        "re",
        "compile",
        "fullmatch",
        "group",
        "lower",
        "upper",
        "fil_PH",
    ]);
    let input = one_file(src, &env, &defined);
    let f = analyze(&input);
    assert_eq!(
        f.frozen_runs.get("TestFilPh"),
        Some(&FreezeReason::Dynamic),
        "{:?}",
        f.owned_runs
    );
    assert!(f.owned_runs.contains("TestFilter"));
    assert!(f.owned_runs.contains("TestFilDrum"));
}
