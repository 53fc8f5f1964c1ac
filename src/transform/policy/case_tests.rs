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

/// icalendar's `CaselessDict` upper-cases its keys: a test's `{"byday": "su"}` reaches the
/// rule type kept under `"BYDAY"` (an outside word), so the lower case stays with it, even
/// though the test also names a parameter `byday`.
#[test]
fn a_lower_case_string_whose_upper_case_stays_stays() {
    let src: &[u8] = br#"
TYPES = {"BYDAY": 1, "BYWHEN": 2}

def check(byday, bywhen):
    return TYPES[byday.upper()], {"byday": "su", "bywhen": 1}
"#;
    let defined = set(&["TYPES", "check", "byday", "bywhen", "BYWHEN"]);
    let env = set(&["BYDAY", "upper"]);
    let f = analyze(&one_file(src, &env, &defined));
    assert!(f.frozen_owned.contains("byday"), "{:?}", f.owned_runs);
    assert_eq!(f.frozen_runs.get("byday"), Some(&FreezeReason::Outside));
    // Its upper case is the repository's own: renamed with it.
    assert!(f.owned_runs.contains("bywhen"), "{:?}", f.owned_runs);
    // Held only as a name, the lower case is renamed like any other.
    let no_data = String::from_utf8_lossy(src).replace("\"byday\": \"su\", ", "");
    let f = analyze(&one_file(no_data.as_bytes(), &env, &defined));
    assert!(f.owned_runs.contains("byday"), "{:?}", f.owned_runs);
}

/// pycparser's lexer keeps the C keywords as an upper-case table of strings and looks the
/// source text up by `keyword.lower()`: `'CONST'` stays, as the C text `const` (an outside
/// name, which data keeps) does. A table word whose lower case is the repository's own, or
/// that no data spells, is renamed.
#[test]
fn an_upper_case_table_word_stays_with_its_outside_lower_case() {
    let src: &[u8] = br#"
keywords = ('CONST', 'WIDGET', 'SPROCKET')
keyword_map = {k.lower(): k for k in keywords}

def test_parse():
    parse('const int widget; static sprocket;')
"#;
    let defined = set(&["keywords", "keyword_map", "test_parse", "parse", "widget"]);
    let env = set(&["const", "sprocket", "lower"]);
    let f = analyze(&one_file(src, &env, &defined));
    assert_eq!(f.frozen_runs.get("CONST"), Some(&FreezeReason::Outside));
    assert_eq!(f.frozen_runs.get("SPROCKET"), Some(&FreezeReason::Outside));
    assert_eq!(f.frozen_runs.get("WIDGET"), None, "its lower case is owned");
    // No data spells `const`: the table word is renamed like any other.
    let no_data = String::from_utf8_lossy(src).replace("const int ", "");
    let f = analyze(&one_file(no_data.as_bytes(), &env, &defined));
    assert_eq!(f.frozen_runs.get("CONST"), None);
    // A code name (`CONST = 1`) is the repository's, whatever data spells.
    let named = format!("CONST = 1\n{}", String::from_utf8_lossy(src));
    let f = analyze(&one_file(named.as_bytes(), &env, &defined));
    assert_eq!(f.frozen_runs.get("CONST"), None);
}

/// A vendored PLY collects its grammar functions with `name.startswith('p_')` and sorts them
/// by line: the earlier rule wins a conflict. It never cuts the prefix off, so no rest is a
/// word, but the picked functions keep their order (`Findings::ordered`); other functions
/// may move.
#[test]
fn names_picked_by_a_prefix_keep_their_order_without_a_cut() {
    let yacc: &[u8] = br#"
def collect(module):
    found = []
    for name in dir(module):
        if name.startswith('p_'):
            found.append(getattr(module, name))
    return sorted(found, key=lambda f: f.__code__.co_firstlineno)
"#;
    let parser: &[u8] = b"def p_statement(p):\n    'statement : expr'\n\ndef p_pragma(p):\n    'statement : PRAGMA'\n\ndef helper():\n    pass\n";
    let defined = set(&["collect", "found", "p_statement", "p_pragma", "helper"]);
    let env = set(&["append", "sorted"]);
    let mut input = one_file(yacc, &env, &defined);
    input.python.push(("pkg/parser.py", parser));
    let f = analyze(&input);
    assert!(f.ordered.contains("p_statement"), "{:?}", f.ordered);
    assert!(f.ordered.contains("p_pragma"), "{:?}", f.ordered);
    assert!(!f.ordered.contains("helper"));
    // Without the picking code, nothing is held in place.
    input.python.remove(0);
    assert!(analyze(&input).ordered.is_empty());
}

/// astor's `__getattr__` serves any `get_X` by `getattr(node, name[4:])`: the code calls
/// `self.get_is_async(node)`, whose rest `is_async` is an outside attribute (of `ast`
/// nodes), so the name keeps it. A name whose rest is the repository's own is renamed.
#[test]
fn a_name_whose_rest_after_a_compared_part_is_frozen_stays() {
    let src: &[u8] = br#"
class Gen:
    def __getattr__(self, name):
        if not name.startswith('get_'):
            raise AttributeError
        shortname = name[4:]
        return lambda node: getattr(node, shortname, None)

    def visit(self, node):
        return self.get_is_async(node), self.get_widget_count(node)
"#;
    let defined = set(&["Gen", "visit", "shortname"]);
    let env = set(&["is_async", "startswith", "getattr"]);
    let f = analyze(&one_file(src, &env, &defined));
    assert_eq!(
        f.frozen_runs.get("get_is_async"),
        Some(&FreezeReason::Dynamic)
    );
    assert_eq!(f.frozen_runs.get("get_widget_count"), None);
    // Without the slice that cuts the part off, no rest is looked up.
    let uncut = String::from_utf8_lossy(src).replace("name[4:]", "name");
    let f = analyze(&one_file(uncut.as_bytes(), &env, &defined));
    assert_eq!(f.frozen_runs.get("get_is_async"), None);
}

/// chardet names a charset `"MacRoman"` (data, never defined) and its tests derive the
/// expected name from the directory `MacRoman` with `.lower()`: `macroman` is an outside
/// codec name, which data keeps, so the CamelCase data stays too. One whose join is free is
/// renamed with its words.
#[test]
fn camel_case_data_whose_lower_case_join_stays_stays() {
    let src: &[u8] = br#"
class MacRomanProber:
    def charset_name(self):
        return "MacRoman"

class WidgetProber:
    def charset_name(self):
        return "WidgetRoman"
"#;
    let defined = set(&["MacRomanProber", "WidgetProber", "charset_name"]);
    let env = set(&["macroman"]);
    let f = analyze(&one_file(src, &env, &defined));
    assert_eq!(f.frozen_runs.get("MacRoman"), Some(&FreezeReason::Outside));
    assert_eq!(f.frozen_runs.get("WidgetRoman"), None);
    assert!(
        f.owned_runs.contains("MacRomanProber"),
        "{:?}",
        f.owned_runs
    );
}

/// asteval reads the keyword `no_ifexp=True` as `key[3:]` after `key.startswith('no_')` and
/// looks the rest up in its node list `['ifexp', ...]`, data that no code name spells, which
/// strings keep: the keyword keeps the rest too. A name the repository defines is no such
/// keyword, a lookup path (`no_ifexp__exact`) is none either, and one whose rest is spelled
/// by no literal, or by a compound one (`'error_state'`, which may change with its words),
/// is renamed.
#[test]
fn an_undefined_name_whose_rest_is_data_keeps_it() {
    let src: &[u8] = br#"
ALL_NODES = ['ifexp', 'lambda_node', 'error_state']
LOOKUPS = ['ifexp__exact']

class Interp:
    def __init__(self, **kws):
        self.config = {}
        for key, val in kws.items():
            if key.startswith('no_'):
                node = key[3:]
                if node in ALL_NODES:
                    self.config[node] = not val

def test_opts():
    return Interp(no_ifexp=True, no_widget=True, no_ifexp__exact=True, no_error_state=True)

def no_lambda_node():
    pass
"#;
    let defined = set(&[
        "ALL_NODES",
        "Interp",
        "config",
        "node",
        "test_opts",
        "no_lambda_node",
    ]);
    let env = set(&["items", "startswith"]);
    let f = analyze(&one_file(src, &env, &defined));
    assert_eq!(f.frozen_runs.get("no_ifexp"), Some(&FreezeReason::Dynamic));
    assert_eq!(f.frozen_runs.get("no_widget"), None);
    assert_eq!(f.frozen_runs.get("no_lambda_node"), None);
    assert_eq!(f.frozen_runs.get("no_ifexp__exact"), None);
    assert_eq!(f.frozen_runs.get("no_error_state"), None);
    // Without the slice that cuts the part off, no rest is looked up.
    let uncut = String::from_utf8_lossy(src).replace("key[3:]", "key");
    let f = analyze(&one_file(uncut.as_bytes(), &env, &defined));
    assert_eq!(f.frozen_runs.get("no_ifexp"), None);
}

/// webob's request reads the header `if-none-match` as `environ["HTTP_IF_NONE_MATCH"]`, a
/// key the view keeps (`rename::is_cgi_header_key`), while the attribute `if_none_match` is
/// renamed: the hyphenated header name stays with its key, as written. A hyphenated literal
/// whose key the code does not hold is left to the renamer.
#[test]
fn header_names_stay_with_their_cgi_keys() {
    let src: &[u8] = br#"
class Request:
    if_none_match = environ_getter("HTTP_IF_NONE_MATCH")
    if_range = environ_getter("HTTP_IF_RANGE")

def test_etag():
    req = Request.blank("/", headers={"if-none-match": "x", "If-None-Match": "y"})
    return req.if_none_match, "if-range-x"
"#;
    let defined = set(&["Request", "if_none_match", "if_range", "test_etag", "req"]);
    let f = analyze(&one_file(src, &set(&["environ_getter", "blank"]), &defined));
    for kept in ["if-none-match", "If-None-Match"] {
        assert_eq!(f.frozen_runs.get(kept), Some(&FreezeReason::Data), "{kept}");
    }
    assert!(!f.frozen_runs.contains_key("if-range-x"));
    assert!(f.owned_runs.contains("if_none_match"));
}

/// Django's test client takes a header as an upper-case keyword (`X_TRACE_ID="abc"`) and
/// sends it as `x-trace-id`, which the request holds as `HTTP_X_TRACE_ID`, a key the view
/// keeps: the keyword stays with its key. An upper-case run that is no key's header part
/// (`TRACE_LEVEL`) is renamed as before.
#[test]
fn header_parts_of_cgi_keys_stay() {
    let src: &[u8] = br#"
TRACE_LEVEL = 2

def test_trace(factory):
    request = factory.get("/", X_TRACE_ID="abc")
    return request.META["HTTP_X_TRACE_ID"], TRACE_LEVEL
"#;
    let defined = set(&["TRACE_LEVEL", "test_trace", "factory", "request"]);
    let f = analyze(&one_file(src, &set(&["get", "META"]), &defined));
    assert_eq!(f.frozen_runs.get("X_TRACE_ID"), Some(&FreezeReason::Data));
    assert!(!f.frozen_runs.contains_key("TRACE_LEVEL"));
    assert!(f.owned_runs.contains("TRACE_LEVEL"));
}
