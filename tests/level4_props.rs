//! Property tests for Level 4: random small Python files whose functions are full of the
//! shapes the rules rewrite (conditions, negations, equalities with literals, nested
//! if/else), random edits of their view.
//!
//! Checked: the rules are involutions by themselves (the per-file self-check in `apply` is a
//! safety net, not what makes these pass); law 1 and law 2 through the composite of Levels 3
//! and 4; law 4: an edit inside one function changes only that function's lines of the
//! original, and the original depends only on the final view.

use std::path::Path;

use proptest::prelude::*;

use schrodinger::transform::layout::LayoutStore;
use schrodinger::transform::rewrite::Rewriter;
use schrodinger::transform::{Composite, Transform};

const CONDS: &[&str] = &[
    "a",
    "not a",
    "a == 1",
    "'x' != b",
    "not (a + 1)",
    "a is not None",
    "not a is None",
    "not (a and b)",
    "not a or not b.c",
    "not (not a)",
    "(a)",
    "not (a)",
    "a.b(1)",
    "a not in b",
];

#[derive(Debug, Clone)]
enum Stmt {
    Simple(usize),
    If(usize, Vec<Stmt>, Vec<Stmt>),
    While(usize),
}

const SIMPLE: &[&str] = &[
    "x = 'a' if a else b",
    "y = a in (1, 'q')",
    "z = b if not (a + 1) else \"w\"",
    "return a not in [None, 2]",
    "x = a == 1",
    "return not a in b",
    "y = b is not a",
    "pass",
    "# note",
    "a = None != b",
];

fn stmt() -> impl Strategy<Value = Stmt> {
    let leaf = prop_oneof![
        3 => (0..SIMPLE.len()).prop_map(Stmt::Simple),
        1 => (0..CONDS.len()).prop_map(Stmt::While),
    ];
    leaf.prop_recursive(2, 12, 3, |inner| {
        (
            0..CONDS.len(),
            prop::collection::vec(inner.clone(), 1..3),
            prop::collection::vec(inner, 1..3),
        )
            .prop_map(|(c, a, b)| Stmt::If(c, a, b))
    })
}

fn lines(s: &Stmt, indent: usize, out: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    match s {
        Stmt::Simple(i) => out.push(format!("{pad}{}", SIMPLE[*i])),
        Stmt::While(c) => {
            out.push(format!("{pad}while {}:", CONDS[*c]));
            out.push(format!("{pad}    break"));
        }
        Stmt::If(c, a, b) => {
            out.push(format!("{pad}if {}:", CONDS[*c]));
            for s in a {
                lines(s, indent + 4, out);
            }
            out.push(format!("{pad}else:"));
            for s in b {
                lines(s, indent + 4, out);
            }
        }
    }
}

/// A file of functions, and each function's line range (0-based, inclusive).
fn file() -> impl Strategy<Value = (Vec<u8>, Vec<(usize, usize)>)> {
    prop::collection::vec(prop::collection::vec(stmt(), 1..4), 1..5).prop_map(|funcs| {
        let mut out = vec!["import os".to_string(), String::new()];
        let mut spans = Vec::new();
        for (i, body) in funcs.iter().enumerate() {
            let start = out.len();
            out.push(format!("def f{i}(a, b):"));
            for s in body {
                lines(s, 4, &mut out);
            }
            spans.push((start, out.len() - 1));
            out.push(String::new());
        }
        (format!("{}\n", out.join("\n")).into_bytes(), spans)
    })
}

const PATH: &str = "pkg/mod.py";

fn l4(seed: u64) -> Rewriter {
    Rewriter::new(seed, 70)
}

fn composite(seed: u64) -> Composite {
    Composite {
        l2: None,
        l3: Some(LayoutStore::new(seed)),
        l4: Some(l4(seed)),
    }
}

/// Replace line `at` of `text` (modulo its line count) with `new`.
fn replace_line(text: &[u8], at: usize, new: &str) -> Vec<u8> {
    let s = String::from_utf8_lossy(text);
    let mut ls: Vec<String> = s.lines().map(str::to_string).collect();
    let n = ls.len();
    if n > 0 {
        ls[at % n] = new.to_string();
    }
    format!("{}\n", ls.join("\n")).into_bytes()
}

const NEW_LINES: &[&str] = &[
    "        z = a == 2",
    "    if a != 'q':",
    "        return not (a and b)",
    "    return a is not b",
    "junk ((",
    "",
    "    else:",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn the_rules_alone_are_involutions((src, _) in file(), seed in 0..8u64) {
        let r = l4(seed);
        let once = r.rewrite(PATH.as_bytes(), &src).expect("generated files parse");
        let twice = r.rewrite(PATH.as_bytes(), &once).expect("rewritten files parse");
        prop_assert_eq!(String::from_utf8_lossy(&twice), String::from_utf8_lossy(&src));
    }

    #[test]
    fn law1_round_trip_through_levels_3_and_4((src, _) in file(), seed in 0..8u64) {
        let t = composite(seed);
        let p = Path::new(PATH);
        let view = t.content_to_view(p, &src);
        prop_assert_eq!(t.content_to_original(p, &view, Some(&src)), src);
    }

    #[test]
    fn law2_read_your_writes((src, _) in file(), seed in 0..8u64, edits in prop::collection::vec((0..64usize, 0..NEW_LINES.len()), 1..4)) {
        let t = composite(seed);
        let p = Path::new(PATH);
        let mut view = t.content_to_view(p, &src);
        let mut orig = src.clone();
        for (at, k) in edits {
            view = replace_line(&view, at, NEW_LINES[k]);
            orig = t.content_to_original(p, &view, Some(&orig));
            let read = t.content_to_view(p, &orig);
            prop_assert_eq!(String::from_utf8_lossy(&read), String::from_utf8_lossy(&view));
        }
        // Law 4: a fresh store given only the final view writes the same original.
        let fresh = composite(seed);
        let _ = fresh.content_to_view(p, &src);
        prop_assert_eq!(fresh.content_to_original(p, &view, Some(&src)), orig);
    }

    #[test]
    fn law4_an_edit_in_one_function_changes_only_its_lines((src, spans) in file(), seed in 0..8u64, pick in 0..64usize, k in 0..3usize) {
        // Level 4 alone keeps every line where it is, so view and original lines align.
        let r = l4(seed);
        let view = r.apply(PATH.as_bytes(), &src);
        let (first, last) = spans[pick % spans.len()];
        // A line of the body (not the `def` line), replaced by a simple statement indented
        // as the line it replaces, so the file still parses.
        let text = String::from_utf8_lossy(&view).into_owned();
        let ls: Vec<&str> = text.lines().collect();
        let at = first + 1 + pick % (last - first);
        let indent = ls[at].len() - ls[at].trim_start().len();
        let line = ["x = a == 2", "return a is not None", "pass"][k];
        let edited = replace_line(&view, at, &format!("{}{line}", " ".repeat(indent)));
        let back = r.apply(PATH.as_bytes(), &edited);
        let (o, b) = (String::from_utf8_lossy(&src).into_owned(), String::from_utf8_lossy(&back).into_owned());
        let (ol, bl): (Vec<&str>, Vec<&str>) = (o.lines().collect(), b.lines().collect());
        prop_assert_eq!(ol.len(), bl.len());
        for (i, (x, y)) in ol.iter().zip(&bl).enumerate() {
            if x != y {
                prop_assert!((first..=last).contains(&i), "line {} changed outside {}..={}:\n{}", i, first, last, b);
            }
        }
    }

    #[test]
    fn law2_for_arbitrary_bytes((src, _) in file(), seed in 0..8u64, junk in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'i'), Just(b'f'), Just(b' '), Just(0xffu8), Just(b'='), Just(b':'), Just(b'1')], 0..80)) {
        let t = composite(seed);
        let p = Path::new(PATH);
        let _ = t.content_to_view(p, &src);
        let orig = t.content_to_original(p, &junk, Some(&src));
        prop_assert_eq!(t.content_to_view(p, &orig), junk);
    }
}

#[test]
fn generated_files_have_sites_of_every_rule() {
    let src = b"def f(a, b):\n    if a == 1:\n        x = a is not None\n    else:\n        pass\n    while not (a and b):\n        break\n    return not a in b\n";
    let r = Rewriter::new(0, 100)
        .forcing([(PATH.as_bytes().to_vec(), ["f".to_string()].into())].into());
    let out = String::from_utf8(r.apply(PATH.as_bytes(), src)).unwrap();
    assert_eq!(out, "def f(a, b):\n    if not (1 == a):\n        pass\n    else:\n        x = not a is None\n    while not a or not b:\n        break\n    return a not in b\n");
}

/// Shrunk from `law4_an_edit_in_one_function_changes_only_its_lines` before rewrites were
/// applied per top-level statement: an edit that breaks the syntax of one function sent the
/// whole file back as the view showed it, the other functions in their rewritten form.
#[test]
fn a_syntax_error_in_one_function_leaves_the_others_as_they_were() {
    let src = "import os\n\ndef f0(a, b):\n    if a:\n        x = a == 1\n    else:\n        x = a == 1\n\ndef f1(a, b):\n    if a:\n        a = None != b\n    else:\n        x = a == 1\n";
    let r = Rewriter::new(0, 100);
    let view = String::from_utf8(r.apply(PATH.as_bytes(), src.as_bytes())).unwrap();
    assert_ne!(view, src);
    // The first `if` of f0 becomes a plain statement: its `else:` is now a syntax error.
    let mut lines: Vec<&str> = view.lines().collect();
    lines[3] = "    x = a == 2";
    let broken = format!("{}\n", lines.join("\n"));
    let back = String::from_utf8(r.apply(PATH.as_bytes(), broken.as_bytes())).unwrap();
    let (o, b): (Vec<&str>, Vec<&str>) = (src.lines().collect(), back.lines().collect());
    assert_eq!(o.len(), b.len());
    for (i, (x, y)) in o.iter().zip(&b).enumerate() {
        if x != y {
            assert!((2..=7).contains(&i), "line {i} of f1 changed:\n{back}");
        }
    }
    assert_eq!(back.lines().nth(3), Some("    x = a == 2"));
}
