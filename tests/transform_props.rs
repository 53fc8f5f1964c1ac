//! Property tests for the pure transform core (DESIGN.md "Level 2", laws 1, 2, 3 and 8).
//!
//! Inputs are built from small alphabets of fragments that hit the mapped tokens, their
//! images, frozen runs, string prefixes, quotes, escapes, braces and line ends, so that the
//! interesting collisions are common rather than one in a million.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::sample::select;

use schrodinger::bundle::{
    build_with_env, BuildOptions, Bundle, EnvScan, Progress, Tree, TreeFile,
};
use schrodinger::transform::rename::Renamer;
use schrodinger::transform::tokens::{self, Piece, Shape};
use schrodinger::transform::{hidden_in_original, Composite, Transform};

// ---------------------------------------------------------------------------------------------
// The renamer under test and the alphabets.

/// Original -> virtual pairs of the test renamer.
const PAIRS: &[(&str, &str)] = &[
    ("query", "ledger"),
    ("set", "suite"),
    ("http", "cable"),
    ("response", "reply"),
    ("user", "otter"),
];

/// Frozen runs: some generated runs (`get`, `setUp`) and some images (`ledger_otter` is the
/// image of `query_user`, `CableReply` of `HttpResponse`).
///
/// `http-response` is data kept as a whole literal (`FreezeReason::Data`) while the code name
/// `http_response` swaps; `set_user` is frozen, so the header `Set-User` stays whole.
/// `get_http` is a frozen name that the code name `http_response` overruns in the file name
/// `get_http_response` ([`PATH_STEMS`]).
const FROZEN: &[&str] = &[
    "get",
    "setUp",
    "ledger_otter",
    "CableReply",
    "http-response",
    "set_user",
    "get_http",
];

/// Stems of compound file names in the tree (`Renamer::with_path_stems`).
const PATH_STEMS: &[&str] = &["get_http_response"];

/// Code runs: originals (`query`, `user`) and images (`LedgerSuite` is the image of `QuerySet`);
/// `user_get` is a code name of two words holding a frozen one, so strings joining it with
/// other names (`query_user_get`) take `Renamer::swap_compound_of_names`. `RESPONSE` is a
/// single upper-case name whose lower case no code uses, which data written as `key=value`
/// (`response=reply;`) follows (`Renamer::swap_data_key`).
const CODE_IDENTS: &[&str] = &[
    "query",
    "user",
    "user_get",
    "LedgerSuite",
    "http_response",
    "query_user",
    "get_query_user",
    "RESPONSE",
];

/// Tokens frozen as fragments of names built at run time: `prec_query` in a string is such a
/// name, with `query` its run-time part.
const FRAGMENTS: &[&str] = &["prec"];

fn renamer() -> Renamer {
    Renamer::new(
        PAIRS.iter().copied(),
        FROZEN.iter().copied(),
        CODE_IDENTS.iter().copied(),
    )
    .expect("test pairs are disjoint")
    .with_fragments(FRAGMENTS.iter().copied())
    .with_path_stems(PATH_STEMS.iter().copied())
}

/// The token map of [`PAIRS`], both directions.
fn token_map() -> HashMap<&'static str, &'static str> {
    PAIRS.iter().flat_map(|&(a, b)| [(a, b), (b, a)]).collect()
}

/// Fragments of text: tokens and images in every shape, frozen runs, string prefixes, quotes,
/// escapes, braces, comments, line ends, numbers, non-ASCII.
const TEXT_FRAGS: &[&str] = &[
    "prec",
    "query",
    "Query",
    "QUERY",
    "set",
    "Set",
    "SET",
    "_",
    "__",
    "HTTP",
    "Http",
    "http",
    "Response",
    "response",
    "RESPONSE",
    "get",
    "setUp",
    "user",
    "User",
    "ledger",
    "Ledger",
    "LEDGER",
    "suite",
    "Suite",
    "SUITE",
    "cable",
    "CABLE",
    "reply",
    "Reply",
    "otter",
    "Up",
    "'",
    "\"",
    "'''",
    "\"\"\"",
    "\\x",
    "\\u",
    "\\N{",
    "\\0",
    // Terminal colours end before a word (`lexer::ends_colour`).
    "\u{1b}[",
    "\\033[",
    "1;32m",
    "0m",
    "\\\\",
    "f",
    "rb",
    "b",
    "r",
    "F",
    "fr",
    "u",
    "x",
    "N",
    "#",
    "\n",
    "\r\n",
    "\r",
    "\\",
    "{",
    "}",
    "{{",
    "}}",
    "(",
    ")",
    "[",
    "]",
    ".",
    "0x",
    "9",
    "0",
    "é",
    "’",
    "\u{2014}",
    "\u{3001}",
    "\u{a0}",
    " ",
    "\t",
    ":",
    "=",
    "==",
    ";",
    "&",
    "?",
    "response=",
    "=reply;",
    ",",
    "-",
    "--",
    "query-user",
    "ledger-otter",
    "__",
    "query__user",
    "set__ledger_otter",
    "http-response",
    "'http-response'",
    "Http-Response",
    "Set-User",
    "Suite-Otter",
    "_query_",
    "_Ledger_",
    "&query;",
    // Emphasis edges in text, URLs on reserved hosts and of an own scheme
    // (`formats::spans`).
    " ",
    "query_",
    "_Ledger",
    "http://example.com/",
    "own://",
    // URL escapes: one with a decimal first digit ends before a word (`lexer`).
    "%",
    "%40",
    "%2F",
    "%4",
    "%ab",
    // Compound names in mixed case shapes (`Renamer::is_case_folded_code_ident`).
    "User_Get",
    "Otter_GET",
    "user-GET",
    "'OTTER-get'",
    "'user-GET'",
    "Http_Response",
    "Query_User",
    // Labels spelled from code names (`rename::labels`): `query_user`, `get_query_user`.
    "Query user",
    "Ledger otter",
    "Query Otter",
    "Get query user",
    "Get ledger",
    "Http response",
    "Cable Reply",
    "Query user:",
    ">Ledger otter<",
    ">Http reply:",
    // A file's name holding a code name past a frozen one (`Renamer::swap_compound_of_names`).
    "get_http_response",
    "get_cable_reply",
    "'get_http_response.txt'",
    "get_http_reply",
];

/// Byte fragments: the text fragments plus NUL and an invalid UTF-8 byte.
const BIN_FRAGS: &[&[u8]] = &[b"\0", b"\xff"];

/// Fragments of runs only (letters, digits, underscores) for the token properties.
const RUN_FRAGS: &[&str] = &[
    "query", "Query", "QUERY", "set", "Set", "SET", "http", "Http", "HTTP", "response", "Response",
    "RESPONSE", "user", "User", "USER", "ledger", "Ledger", "suite", "Suite", "SUITE", "cable",
    "CABLE", "reply", "Reply", "otter", "Otter", "get", "Up", "setUp", "_", "__", "9", "0", "2",
    "a", "A", "x", "X", "s", "S", "ab", "AB", "Ab", "qu", "QU",
];

/// Text built from [`TEXT_FRAGS`] with some arbitrary characters (never NUL): always valid
/// UTF-8 without NUL, so `.py` files are lexed as Python and other names as text.
fn text_strategy(max_frags: usize) -> impl Strategy<Value = String> {
    let frag = prop_oneof![
        12 => select(TEXT_FRAGS).prop_map(str::to_string),
        1 => any::<char>().prop_filter("no NUL", |c| *c != '\0').prop_map(String::from),
    ];
    prop::collection::vec(frag, 0..max_frags).prop_map(|v| v.concat())
}

/// Whether a fragment holds a view word (an image of [`PAIRS`]) in any case.
fn holds_view_word(frag: &str) -> bool {
    let lower = frag.to_ascii_lowercase();
    PAIRS.iter().any(|(_, v)| lower.contains(v))
}

/// Text as the original could hold it: [`TEXT_FRAGS`] without view words, and ASCII
/// punctuation or non-ASCII characters (never a letter, which could spell a view word).
fn original_text_strategy(max_frags: usize) -> impl Strategy<Value = String> {
    let frags: Vec<&'static str> = TEXT_FRAGS
        .iter()
        .copied()
        .filter(|f| !holds_view_word(f))
        .collect();
    let frag = prop_oneof![
        12 => select(frags).prop_map(str::to_string),
        1 => any::<char>()
            .prop_filter("no NUL or ASCII letter", |c| *c != '\0' && !c.is_ascii_alphabetic())
            .prop_map(String::from),
    ];
    prop::collection::vec(frag, 0..max_frags).prop_map(|v| v.concat())
}

/// Bytes built from the text fragments, NUL, `\xff` and arbitrary bytes.
fn bytes_strategy(max_frags: usize) -> impl Strategy<Value = Vec<u8>> {
    let frag = prop_oneof![
        12 => select(TEXT_FRAGS).prop_map(|s| s.as_bytes().to_vec()),
        1 => select(BIN_FRAGS).prop_map(<[u8]>::to_vec),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    prop::collection::vec(frag, 0..max_frags).prop_map(|v| v.concat())
}

/// A path component from a small alphabet: runs, dots (also leading), extensions, spaces,
/// non-ASCII and invalid UTF-8.
fn name_strategy() -> impl Strategy<Value = Vec<u8>> {
    let frag = prop_oneof![
        8 => select(RUN_FRAGS).prop_map(|s| s.as_bytes().to_vec()),
        3 => select(&[".", ".py", ".json", "..", "-", " ", "é", "’", "__init__"][..])
            .prop_map(|s| s.as_bytes().to_vec()),
        1 => Just(b"\xff".to_vec()),
        1 => any::<u8>().prop_filter("no slash or NUL", |b| *b != b'/' && *b != 0)
            .prop_map(|b| vec![b]),
    ];
    prop::collection::vec(frag, 0..8).prop_map(|v| v.concat())
}

/// A run-like string from [`RUN_FRAGS`].
fn run_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(select(RUN_FRAGS), 1..8).prop_map(|v| v.concat())
}

/// File names covering the three kinds (the kind of a non-`.py` file depends on content).
const FILE_NAMES: &[&str] = &["pkg/mod.py", "m.pyi", "notes.txt", "README", "img.png"];

fn swap_content(r: &Renamer, name: &str, x: &[u8]) -> Vec<u8> {
    r.swap_content(name.as_bytes(), x).into_owned()
}

// ---------------------------------------------------------------------------------------------
// 1. Involution of swap_content (law 3).

fn assert_content_involution(r: &Renamer, name: &str, x: &[u8]) -> Result<(), TestCaseError> {
    let once = swap_content(r, name, x);
    let twice = swap_content(r, name, &once);
    prop_assert_eq!(
        &twice,
        x,
        "swap_content({:?}) is not an involution; once = {:?}",
        name,
        String::from_utf8_lossy(&once)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn content_involution_on_text(x in text_strategy(48), name in select(FILE_NAMES)) {
        assert_content_involution(&renamer(), name, x.as_bytes())?;
    }
}

proptest! {
    // The Python lexer is where the involution is hardest to keep: more cases, longer inputs.
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn content_involution_on_python(x in text_strategy(64)) {
        assert_content_involution(&renamer(), "pkg/mod.py", x.as_bytes())?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn content_involution_on_bytes(x in bytes_strategy(48), name in select(FILE_NAMES)) {
        assert_content_involution(&renamer(), name, &x)?;
    }

    // 2. Involution of swap_name and swap_text.

    #[test]
    fn name_involution(n in name_strategy()) {
        let r = renamer();
        let once = r.swap_name(&n).into_owned();
        let twice = r.swap_name(&once).into_owned();
        prop_assert_eq!(&twice, &n, "once = {:?}", String::from_utf8_lossy(&once));
    }

    #[test]
    fn text_involution_small_alphabet(t in text_strategy(48)) {
        let r = renamer();
        let once = r.swap_text(&t);
        prop_assert_eq!(r.swap_text(&once), t, "once = {:?}", once);
    }

    /// Text of the original holds no view word, so bringing its view back word by word
    /// (`view_text_to_original`) gives it exactly: only words the swap itself made are
    /// taken back.
    #[test]
    fn original_text_comes_back_word_by_word(t in original_text_strategy(48)) {
        let r = renamer();
        let view = r.swap_text(&t);
        prop_assert_eq!(r.view_text_to_original(&view), t, "view = {:?}", view);
    }

    #[test]
    fn text_involution_any_string(t in any::<String>()) {
        let r = renamer();
        let once = r.swap_text(&t);
        prop_assert_eq!(r.swap_text(&once), t);
    }

    // 3. Round trip (law 1) and read-your-writes (law 2) through the Transform trait.

    #[test]
    fn level2_round_trip(x in text_strategy(48), name in select(FILE_NAMES)) {
        let t = Composite { l2: Some(std::sync::Arc::new(renamer())), l3: None, l4: None };
        let p = Path::new(name);
        let view = t.content_to_view(p, x.as_bytes());
        prop_assert_eq!(t.content_to_original(p, &view, Some(x.as_bytes())), x.as_bytes());
        prop_assert_eq!(t.content_to_original(p, &view, None), x.as_bytes());
    }

    #[test]
    fn level2_round_trip_bytes(x in bytes_strategy(48), name in select(FILE_NAMES)) {
        let t = Composite { l2: Some(std::sync::Arc::new(renamer())), l3: None, l4: None };
        let p = Path::new(name);
        let view = t.content_to_view(p, &x);
        prop_assert_eq!(t.content_to_original(p, &view, Some(&x)), x);
    }

    #[test]
    fn level2_read_your_writes(
        v in text_strategy(48),
        base in text_strategy(16),
        name in select(FILE_NAMES),
    ) {
        let t = Composite { l2: Some(std::sync::Arc::new(renamer())), l3: None, l4: None };
        let p = Path::new(name);
        for b in [None, Some(base.as_bytes())] {
            let orig = t.content_to_original(p, v.as_bytes(), b);
            prop_assert_eq!(t.content_to_view(p, &orig), v.as_bytes());
        }
    }

    #[test]
    fn level2_read_your_writes_bytes(v in bytes_strategy(48), name in select(FILE_NAMES)) {
        let t = Composite { l2: Some(std::sync::Arc::new(renamer())), l3: None, l4: None };
        let p = Path::new(name);
        let orig = t.content_to_original(p, &v, None);
        prop_assert_eq!(t.content_to_view(p, &orig), v);
    }

    #[test]
    fn level2_names_round_trip(n in name_strategy()) {
        let t = Composite { l2: Some(std::sync::Arc::new(renamer())), l3: None, l4: None };
        let orig = OsStr::from_bytes(&n);
        let view = t.name_to_view(orig);
        if hidden_in_original(&n) {
            // Hidden names never reach the view; nothing to check for them here.
            prop_assert!(t.name_to_original(&view).is_err());
        } else {
            prop_assert_eq!(t.name_to_original(&view).unwrap(), orig);
        }
        // Read your writes for names: a name created in the view reads back the same.
        let v = OsStr::from_bytes(&n);
        match t.name_to_original(v) {
            Ok(o) => prop_assert_eq!(t.name_to_view(&o), v),
            Err(_) => prop_assert!(hidden_in_original(&renamer().swap_name(&n))),
        }
    }

    // 4. Bijectivity on pairs.

    #[test]
    fn content_is_injective_on_pairs(
        a in tiny_strategy(),
        b in tiny_strategy(),
        name in select(FILE_NAMES),
    ) {
        let r = renamer();
        let (sa, sb) = (swap_content(&r, name, &a), swap_content(&r, name, &b));
        prop_assert_eq!(a == b, sa == sb, "a = {:?}, b = {:?}", a, b);
    }

    #[test]
    fn names_are_injective_on_pairs(a in name_strategy(), b in name_strategy()) {
        let r = renamer();
        prop_assert_eq!(a == b, r.swap_name(&a) == r.swap_name(&b), "a = {:?}, b = {:?}", a, b);
    }

    // 5. Token re-split stability.

    #[test]
    fn image_resplits_with_the_same_pieces(run in run_strategy()) {
        check_resplit(&renamer(), &run)?;
    }
}

/// Very small alphabet for the pair tests, so that equal and near-equal inputs are common.
const TINY_FRAGS: &[&str] = &[
    "query", "ledger", "Set", "Suite", "setUp", "suiteUp", "'", "#", "\n", "f", "{", "_",
];

fn tiny_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(select(TINY_FRAGS), 0..5).prop_map(|v| v.concat().into_bytes())
}

/// Piece pattern: word shapes and lengths are not compared (images differ in length), but
/// the piece kinds, the shapes and the non-letter pieces must match one to one.
#[derive(Debug, PartialEq, Eq)]
enum Pat {
    Word(Shape),
    Other(String),
}

fn pattern(run: &str) -> Vec<Pat> {
    tokens::split(run)
        .into_iter()
        .map(|p| match p {
            Piece::Word(_, s) => Pat::Word(s),
            Piece::Other(o) => Pat::Other(o.to_string()),
        })
        .collect()
}

fn words(run: &str) -> Vec<&str> {
    tokens::split(run)
        .into_iter()
        .filter_map(|p| match p {
            Piece::Word(w, _) => Some(w),
            Piece::Other(_) => None,
        })
        .collect()
}

fn check_resplit(r: &Renamer, run: &str) -> Result<(), TestCaseError> {
    let map = token_map();
    let mapped = |w: &str| w.len() >= 3 && map.contains_key(w.to_ascii_lowercase().as_str());
    let Some(img) = r.image(run) else {
        // No image: no word of the run is a mapped token.
        for w in words(run) {
            prop_assert!(
                !mapped(w),
                "{run:?} has no image but holds mapped token {w:?}"
            );
        }
        return Ok(());
    };
    prop_assert_eq!(
        pattern(&img),
        pattern(run),
        "run {:?} -> image {:?}",
        run,
        img
    );
    // Token by token: mapped tokens go to their partner in the same shape, others stay.
    for (w, iw) in words(run).into_iter().zip(words(&img)) {
        if mapped(w) {
            let want = map[w.to_ascii_lowercase().as_str()];
            prop_assert_eq!(iw.to_ascii_lowercase(), want, "in {:?} -> {:?}", run, img);
        } else {
            prop_assert_eq!(iw, w, "in {:?} -> {:?}", run, img);
        }
    }
    prop_assert_eq!(tokens::word_count(&img), tokens::word_count(run));
    let back = r.image(&img);
    prop_assert_eq!(back.as_deref(), Some(run), "image is not an involution");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The generators are not vacuous: the swap changes a good share of generated inputs.

#[test]
fn generators_hit_mapped_tokens() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let r = renamer();
    let mut runner = TestRunner::deterministic();
    let strat = text_strategy(48);
    let mut changed = 0;
    for _ in 0..200 {
        let x = strat.new_tree(&mut runner).unwrap().current();
        if swap_content(&r, "pkg/mod.py", x.as_bytes()) != x.as_bytes() {
            changed += 1;
        }
    }
    assert!(changed >= 100, "only {changed}/200 Python inputs changed");
}

// ---------------------------------------------------------------------------------------------
// 4 (exhaustive). Every input of up to four tiny fragments has a distinct image.

#[test]
fn content_is_injective_exhaustively() {
    let r = renamer();
    let mut inputs: HashSet<Vec<u8>> = HashSet::new();
    let mut layer: Vec<Vec<u8>> = vec![Vec::new()];
    for _ in 0..4 {
        let mut next = Vec::new();
        for s in &layer {
            for f in TINY_FRAGS {
                let mut t = s.clone();
                t.extend_from_slice(f.as_bytes());
                next.push(t);
            }
        }
        inputs.extend(layer);
        layer = next;
    }
    inputs.extend(layer);
    for name in ["m.py", "notes.txt"] {
        let mut seen: HashMap<Vec<u8>, &Vec<u8>> = HashMap::new();
        let mut changed = 0;
        for x in &inputs {
            let y = swap_content(&r, name, x);
            changed += usize::from(&y != x);
            if let Some(prev) = seen.insert(y.clone(), x) {
                panic!("{name}: {prev:?} and {x:?} both map to {y:?}");
            }
            assert_eq!(swap_content(&r, name, &y), *x);
        }
        assert_eq!(seen.len(), inputs.len());
        assert!(changed > inputs.len() / 4, "{name}: only {changed} changed");
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed cases from the design and from the doc comments.

#[test]
fn resplit_fixed_cases() {
    let r = renamer();
    for run in [
        "HTTPResponse_v2",
        "QuerySet",
        "QUERY_SET",
        "querySet",
        "SETQuery",
        "AHTTPResponse",
        "HTTPSx",
        "ASet",
        "setUp",
        "query9set",
        "__query__",
    ] {
        check_resplit(&r, run).unwrap();
    }
    assert_eq!(r.image("HTTPResponse_v2").as_deref(), Some("CABLEReply_v2"));
}

// ---------------------------------------------------------------------------------------------
// 6. Determinism of the bundle (law 8).

const MODULES: &[&str] = &["models", "views", "query_utils", "widgets", "user_set"];
const IDENTS: &[&str] = &[
    "query_set",
    "QuerySet",
    "user",
    "load_user",
    "HTTPResponse",
    "render_page",
    "cart_total",
    "get",
    "setUp",
    "self",
    "items",
    "price",
    "Widget",
    "widget_id",
    "make_widget",
    "test_widget",
    "TestWidget",
    "__init__",
    "os",
    "json",
];

/// One generated statement: a template index and identifiers to fill it.
type Stmt = (usize, [&'static str; 4]);

fn render_stmt((k, [a, b, c, d]): &Stmt) -> String {
    match k % 7 {
        0 => format!("import {a}\n"),
        1 => format!("from .{b} import {c}, {d}\n"),
        2 => format!("def {a}(self, {b}):\n    return {c}.{d}({b}, '{c}')  # {d} {a}\n"),
        3 => format!("class {a}({b}):\n    {c} = {d}\n"),
        4 => format!("{a} = f\"{{{b}}} {c}_{d}\"\n"),
        5 => format!("\"\"\"{a} {b}\n{c}_{d}\"\"\"\n"),
        _ => format!("{a}.{b} = [{c}, \"{d}\"]\n"),
    }
}

/// A small tree: files `pkg/<module>.py` with generated statements, plus `pkg/__init__.py`
/// and a README.
#[derive(Debug, Clone)]
struct TreeSpec {
    files: BTreeMap<&'static str, Vec<Stmt>>,
}

fn tree_spec_strategy() -> impl Strategy<Value = TreeSpec> {
    let stmt = (
        0usize..7,
        [
            select(IDENTS),
            select(IDENTS),
            select(IDENTS),
            select(IDENTS),
        ],
    );
    prop::collection::btree_map(select(MODULES), prop::collection::vec(stmt, 1..6), 1..4)
        .prop_map(|files| TreeSpec { files })
}

fn make_tree(spec: &TreeSpec) -> Tree {
    let mut files = vec![
        TreeFile {
            rel: PathBuf::from("README.md"),
            content: b"Widgets and query sets for users.\n".to_vec(),
        },
        TreeFile {
            rel: PathBuf::from("pkg/__init__.py"),
            content: b"from .models import *\n".to_vec(),
        },
    ];
    for (m, stmts) in &spec.files {
        files.push(TreeFile {
            rel: PathBuf::from(format!("pkg/{m}.py")),
            content: stmts
                .iter()
                .map(render_stmt)
                .collect::<String>()
                .into_bytes(),
        });
    }
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    Tree {
        files,
        dirs: vec![PathBuf::from("pkg")],
        generated: vec![],
    }
}

fn env() -> EnvScan {
    EnvScan {
        groups: [(
            String::new(),
            ["get", "len", "print", "items", "os", "json", "dumps"]
                .map(String::from)
                .to_vec(),
        )]
        .into_iter()
        .collect(),
        imports: Default::default(),
        modules: vec!["os".into(), "json".into()],
        files: 0,
        builtins: vec!["len".into(), "print".into()],
        fingerprint: String::new(),
        ..EnvScan::default()
    }
}

fn opts(seed: u64) -> BuildOptions {
    BuildOptions {
        seed,
        levels: vec![2],
        python: PathBuf::from("python3"),
        freeze: vec![],
        cache_dir: None,
        // Both policies must keep the laws.
        rename_pure_locals: seed % 2 == 0,
        rewrite: Default::default(),
    }
}

fn build(spec: &TreeSpec, seed: u64) -> Bundle {
    build_with_env(&make_tree(spec), &env(), &opts(seed), &Progress::hidden())
}

proptest! {
    // Each build shuffles the whole vocabulary: keep these few.
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn bundle_is_deterministic(spec in tree_spec_strategy(), seed in any::<u64>()) {
        let a = build(&spec, seed);
        let b = build(&spec, seed);
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(
            serde_json::to_string(&a).unwrap(),
            serde_json::to_string(&b).unwrap()
        );
        // The bundle's own map is a valid involution on every file of the tree.
        let r = a.renamer().expect("bundle pairs are disjoint");
        for f in &make_tree(&spec).files {
            let name = f.rel.as_os_str().as_bytes();
            let view = r.swap_content(name, &f.content).into_owned();
            prop_assert_eq!(r.swap_content(name, &view).into_owned(), f.content.clone());
        }
    }

    #[test]
    fn bundle_depends_on_seed(spec in tree_spec_strategy(), s1 in any::<u64>(), s2 in any::<u64>()) {
        prop_assume!(s1 != s2);
        let a = build(&spec, s1);
        prop_assume!(a.tokens.len() >= 3);
        let b = build(&spec, s2);
        prop_assert_eq!(a.tokens.keys().collect::<Vec<_>>(), b.tokens.keys().collect::<Vec<_>>());
        prop_assert_ne!(&a.tokens, &b.tokens);
    }
}

fn fixed_spec() -> TreeSpec {
    let mut files = BTreeMap::new();
    files.insert(
        "models",
        vec![
            (3, ["QuerySet", "Widget", "cart_total", "price"]),
            (2, ["load_user", "user", "query_set", "render_page"]),
        ],
    );
    files.insert(
        "views",
        vec![(1, ["models", "models", "QuerySet", "make_widget"])],
    );
    TreeSpec { files }
}

#[test]
fn fixed_tree_seeds_one_and_two_differ() {
    let a = build(&fixed_spec(), 1);
    let b = build(&fixed_spec(), 2);
    assert!(a.tokens.len() >= 5, "tokens: {:?}", a.tokens);
    assert_eq!(a, build(&fixed_spec(), 1));
    assert_ne!(a.tokens, b.tokens);
    assert_ne!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&b).unwrap()
    );
}

// ---------------------------------------------------------------------------------------------
// Fixed Python cases around the lexer's letter-independence: escapes glued to letters (the
// image `cable` starts with hex digits), f-string fields, prefixes, unterminated strings.

#[test]
fn python_fixed_cases() {
    let r = renamer();
    for (orig, view) in [
        // Letters glued to `\x`/`\u` escapes are no run, whatever their letters.
        (
            "s = '\\xhttp \\ucable \\Nquery'",
            "s = '\\xhttp \\ucable \\Nledger'",
        ),
        (
            "s = f'{query}{{user}} {http_response!r}'",
            "s = f'{ledger}{{otter}} {cable_reply!r}'",
        ),
        ("x = rb'query' + query_set", "x = rb'ledger' + ledger_suite"),
        (
            "x = 'query_set\ny = QuerySet # set user_set",
            "x = 'ledger_suite\ny = LedgerSuite # set otter_suite",
        ),
        (
            "def setUp(self): return get(suiteUp)",
            "def setUp(self): return get(suiteUp)",
        ),
        (
            "'''HTTPResponse\n''' __query__ query_user",
            "'''CABLEReply\n''' __query__ query_user",
        ),
        // A CGI key stays (`rename::is_cgi_header_key`), and so does a run whose image is
        // one, where `http` is a token: both directions agree.
        (
            "e = env['HTTP_LEDGER'], CABLE_LEDGER, QUERY_LEDGER",
            "e = env['HTTP_LEDGER'], CABLE_LEDGER, LEDGER_QUERY",
        ),
    ] {
        assert_eq!(
            swap_content(&r, "m.py", orig.as_bytes()),
            view.as_bytes(),
            "{orig:?}"
        );
        assert_eq!(
            swap_content(&r, "m.py", view.as_bytes()),
            orig.as_bytes(),
            "{view:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 6. Plain text is swapped line by line, which the write path relies on to invert a file
//    written in pieces from what each piece adds (`Renamer::swap_appended`).

/// Names of plain text files (no format of their own): `sed`'s temp file, a note, a file
/// with an extension the tree has.
const PLAIN_NAMES: &[&str] = &["pkg/sedAb12Cd", "notes.txt", "README", "data/query.toml.in"];

/// Fragments for the span rules (`formats::spans`): extensions, versions, hosts, addresses,
/// URLs, character references, data keys.
const SPAN_FRAGS: &[&str] = &[
    "data.txt",
    ".toml",
    "query.toml",
    "1.0.",
    "dev0",
    "2.",
    "www.",
    "query.org",
    "a@query.org",
    "https://",
    "://",
    "own://query/",
    "localhost",
    "&",
    ";",
    "=",
    "<",
    ">",
];

fn plain_text_strategy() -> impl Strategy<Value = Vec<u8>> {
    let frag = prop_oneof![
        8 => select(TEXT_FRAGS).prop_map(|s| s.as_bytes().to_vec()),
        4 => select(SPAN_FRAGS).prop_map(|s| s.as_bytes().to_vec()),
        3 => Just(b"\n".to_vec()),
        1 => Just(b"\xff".to_vec()),
        1 => any::<u8>().prop_filter("no NUL", |b| *b != 0).prop_map(|b| vec![b]),
    ];
    prop::collection::vec(frag, 0..64).prop_map(|v| v.concat())
}

fn plain_renamer() -> Renamer {
    renamer().with_extensions(["txt", "toml", "in"])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// The swap of plain text is the swap of its part up to any line break followed by the
    /// swap of the rest.
    #[test]
    fn plain_text_swaps_line_by_line(x in plain_text_strategy(), name in select(PLAIN_NAMES)) {
        let r = plain_renamer();
        let whole = swap_content(&r, name, &x);
        for cut in x.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1) {
            let mut parts = swap_content(&r, name, &x[..cut]);
            parts.extend(swap_content(&r, name, &x[cut..]));
            prop_assert_eq!(
                &parts,
                &whole,
                "cut at {} of {:?}",
                cut,
                String::from_utf8_lossy(&x)
            );
        }
    }

    /// `swap_appended` gives the swap of the whole text, and gives it for every plain text
    /// file whose earlier part holds a line break; never for Python files or binary ones.
    #[test]
    fn swap_appended_is_the_swap_of_the_whole(
        prev in plain_text_strategy(),
        more in plain_text_strategy(),
        name in select([PLAIN_NAMES, FILE_NAMES].concat()),
    ) {
        let r = plain_renamer();
        let mut new = prev.clone();
        new.extend_from_slice(&more);
        let prev_out = swap_content(&r, name, &prev);
        let got = r.swap_appended(name.as_bytes(), &prev, &prev_out, &new);
        // Every name here but the Python ones has no format of its own (`img.png` with no
        // NUL byte is text).
        let plain = !name.ends_with(".py") && !name.ends_with(".pyi");
        let expected = plain && prev.contains(&b'\n') && !new.contains(&0);
        prop_assert_eq!(got.is_some(), expected);
        if let Some(got) = got {
            prop_assert_eq!(got, swap_content(&r, name, &new));
        }
    }
}
