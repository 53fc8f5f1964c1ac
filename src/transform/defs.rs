//! Which names a Python file *defines*: the repository owns these (modules, classes,
//! functions, methods, parameters, module and class attributes, attributes assigned on
//! objects, local names, loop, comprehension, `with`, `except` and walrus targets, import
//! aliases, `global` names).
//!
//! `defined_names` reads the lexer's code events (runs and punctuation, strings and comments
//! already set aside) one logical line at a time. It is about fifty times faster than a full
//! tree-sitter parse (Django: 0.2 s against 7 s), which is what lets a bundle of a large
//! repository build in seconds. `defined_names_tree_sitter` is the reference it is checked
//! against (see the tests): on every fixture the lexical finder must find at least what the
//! parse finds. Ownership only decides which tokens the map covers; whether a run is swapped is
//! decided by the lexical rule in `rename`, so neither finder can break the involution.

use std::collections::{BTreeSet, HashSet};

use tree_sitter::{Node, Parser};

use super::lexer::{self, Class, Event};

/// One code token of a logical line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum T<'a> {
    Word(&'a str),
    /// Punctuation byte and its position in the source.
    P(u8, usize),
    /// The contents of a string literal that is one run whole (`'name'`); only reported when
    /// asked for (`logical_lines(.., true, ..)`).
    Str(&'a str),
}

/// Names defined in `src`, found lexically.
pub fn defined_names(src: &[u8]) -> HashSet<&str> {
    let mut out = HashSet::new();
    logical_lines(src, false, |line| statement(line, src, &mut out));
    out
}

/// What one lexical pass finds in a Python file.
#[derive(Debug, Default)]
pub struct FileDefs<'a> {
    /// `defined_names`.
    pub defined: HashSet<&'a str>,
    /// `listed::listed_together`, and the groups of `listed::TestOrder`.
    pub listed: Vec<Vec<&'a str>>,
    /// Names given a bare annotation at the start of a statement (`module_base: Path`, with
    /// or without a value), or assigned a field without one (`_formatter = field()`,
    /// `is_field_call`): the fields of dataclasses, attrs classes and typed named tuples,
    /// which code reads back by name (`dataclasses.fields(cls)`, `field.name`).
    pub fields: HashSet<&'a str>,
}

/// `defined_names`, `listed::listed_together` and the fields of `src` from one
/// lexical pass.
pub fn file_defs(src: &[u8]) -> FileDefs<'_> {
    let mut defs = FileDefs::default();
    let mut code = Vec::new();
    let mut tests = super::listed::TestOrder::default();
    logical_lines(src, true, |line| {
        super::listed::groups_in_line(line, src, &mut defs.listed);
        // Definitions are read from code tokens alone, as `defined_names` sees them.
        code.clear();
        code.extend(
            line.iter()
                .filter(|t| !matches!(t, T::Str(_) | T::P(b'"', _)))
                .copied(),
        );
        if let [T::Word(name), T::P(b':', _), _, ..] = code.as_slice() {
            if !crate::transform::policy::is_keyword(name) {
                defs.fields.insert(*name);
            }
        }
        if let [T::Word(name), T::P(b'=', _), rest @ ..] = code.as_slice() {
            if is_field_call(rest) && !crate::transform::policy::is_keyword(name) {
                defs.fields.insert(*name);
            }
        }
        tests.line(&code);
        statement(&code, src, &mut defs.defined);
    });
    tests.finish(&mut defs.listed);
    defs
}

/// Whether a statement's value is a field made without an annotation (`field(...)`,
/// `attr.ib(...)`, `attrs.field(...)`, `dataclasses.field(...)`): attrs reads such a class
/// attribute back by name as it does an annotated one, and names its `__init__` parameter
/// after it with a leading `_` stripped (`_formatter = field()` takes `formatter=`).
fn is_field_call(value: &[T]) -> bool {
    const CALLEES: [&str; 3] = ["field", "attrib", "ib"];
    const MODULES: [&str; 3] = ["attr", "attrs", "dataclasses"];
    match value {
        [T::Word(f), T::P(b'(', _), ..] => CALLEES.contains(f),
        [T::Word(m), T::P(b'.', _), T::Word(f), T::P(b'(', _), ..] => {
            MODULES.contains(m) && CALLEES.contains(f)
        }
        _ => false,
    }
}

/// Call `f` with the code tokens of each logical line of `src` (brackets and backslashes
/// join physical lines; `;` splits them), with whole string literals too if `strings`.
pub(super) fn logical_lines<'a>(src: &'a [u8], strings: bool, mut f: impl FnMut(&[T<'a>])) {
    let mut line: Vec<T<'_>> = Vec::new();
    let mut depth = 0i32;
    let mut continued = false;
    lexer::scan_python(src, |e| match e {
        Event::Run(r) if r.class == Class::Code => {
            if let Ok(w) = std::str::from_utf8(&src[r.start..r.end]) {
                line.push(T::Word(w));
            }
        }
        Event::Run(r) if strings && r.class == Class::String => {
            let q = r.start.checked_sub(1).map(|i| src[i]);
            if matches!(q, Some(b'\'' | b'"')) && src.get(r.end).copied() == q {
                if let Ok(w) = std::str::from_utf8(&src[r.start..r.end]) {
                    line.push(T::Str(w));
                }
            } else {
                // A piece of a longer string: no whole literal here.
                line.push(T::P(b'"', r.start));
            }
        }
        Event::Run(_) => {}
        Event::Punct(pos) => {
            let b = src[pos];
            match b {
                b'\\' => {
                    if matches!(src.get(pos + 1), Some(b'\n' | b'\r')) {
                        continued = true;
                    }
                }
                b'\r' if src.get(pos + 1) == Some(&b'\n') => {}
                b'\n' | b'\r' => {
                    if continued {
                        continued = false;
                    } else if depth <= 0 {
                        f(&line);
                        line.clear();
                        depth = 0;
                    }
                }
                b';' if depth <= 0 => {
                    f(&line);
                    line.clear();
                }
                b'(' | b'[' | b'{' => {
                    depth += 1;
                    line.push(T::P(b, pos));
                }
                b')' | b']' | b'}' => {
                    depth -= 1;
                    line.push(T::P(b, pos));
                }
                _ => line.push(T::P(b, pos)),
            }
        }
    });
    f(&line);
}

fn is_p(t: Option<&T<'_>>, c: u8) -> bool {
    matches!(t, Some(T::P(b, _)) if *b == c)
}

fn is_word(t: Option<&T<'_>>, w: &str) -> bool {
    matches!(t, Some(T::Word(x)) if *x == w)
}

/// Split `toks` at `sep` bytes that sit at bracket depth 0 (relative to the slice).
pub(super) fn split_top<'t, 'a>(toks: &'t [T<'a>], sep: u8) -> Vec<&'t [T<'a>]> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, t) in toks.iter().enumerate() {
        if let T::P(b, _) = t {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                _ if *b == sep && depth == 0 => {
                    parts.push(&toks[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
    }
    parts.push(&toks[start..]);
    parts
}

/// Index of the first depth-0 `:` that is not part of `:=`.
fn header_colon(toks: &[T<'_>], src: &[u8]) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate() {
        if let T::P(b, pos) = t {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b':' if depth == 0 && src.get(pos + 1) != Some(&b'=') => return Some(i),
                _ => {}
            }
        }
    }
    None
}

/// Whether the `=` at `pos` assigns (`=`, `+=`, `<<=`...) rather than compares.
pub(super) fn is_assign_eq(src: &[u8], pos: usize) -> bool {
    if src.get(pos + 1) == Some(&b'=') {
        return false;
    }
    let prev = pos.checked_sub(1).map(|i| src[i]);
    match prev {
        Some(b'=' | b'!' | b':') => false,
        Some(c @ (b'<' | b'>')) => pos >= 2 && src[pos - 2] == c,
        _ => true,
    }
}

/// Names bound by an assignment target such as `a`, `a, (b, *c)`, `self.attr`, `x: int`.
fn bind_targets<'a>(toks: &[T<'a>], out: &mut HashSet<&'a str>) {
    for piece in split_top(toks, b',') {
        // `x: int` binds `x`.
        let piece = match piece.iter().position(|t| is_p(Some(t), b':')) {
            Some(i) if !piece[..i].iter().any(|t| matches!(t, T::P(b'(' | b'[', _))) => &piece[..i],
            _ => piece,
        };
        let mut p = piece;
        while let [T::P(b'*', _), rest @ ..] = p {
            p = rest;
        }
        match p {
            [T::Word(w)] => {
                out.insert(w);
            }
            [T::P(open @ (b'(' | b'['), _), inner @ .., T::P(close, _)]
                if (*open == b'(' && *close == b')') || (*open == b'[' && *close == b']') =>
            {
                bind_targets(inner, out)
            }
            [.., T::P(b'.', _), T::Word(w)] => {
                out.insert(w);
            }
            _ => {}
        }
    }
}

/// Parameter names of a `def (...)` or `lambda ...:` list.
fn bind_params<'a>(toks: &[T<'a>], out: &mut HashSet<&'a str>) {
    for piece in split_top(toks, b',') {
        let mut p = piece;
        while let [T::P(b'*' | b'/', _), rest @ ..] = p {
            p = rest;
        }
        if let [T::Word(w), ..] = p {
            out.insert(w);
        }
    }
}

/// Index of the bracket closing the one at `open` (or the end).
pub(super) fn closing(toks: &[T<'_>], open: usize) -> usize {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate().skip(open) {
        if let T::P(b, _) = t {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return i;
                    }
                }
                _ => {}
            }
        }
    }
    toks.len()
}

/// Names bound anywhere in a line by constructs that may appear inside expressions:
/// `as` targets, comprehension `for` targets, walrus, lambda parameters.
fn bind_inline<'a>(toks: &[T<'a>], src: &[u8], out: &mut HashSet<&'a str>) {
    for (i, t) in toks.iter().enumerate() {
        match t {
            T::Word("as") => match toks.get(i + 1) {
                Some(T::Word(w)) => {
                    out.insert(w);
                }
                Some(T::P(b'(' | b'[', _)) => {
                    let end = closing(toks, i + 1);
                    bind_targets(&toks[i + 2..end.min(toks.len())], out);
                }
                _ => {}
            },
            T::Word("for") => {
                let rest = &toks[i + 1..];
                let end = rest
                    .iter()
                    .position(|t| is_word(Some(t), "in"))
                    .unwrap_or(rest.len());
                bind_targets(&rest[..end], out);
            }
            T::Word("lambda") => {
                let rest = &toks[i + 1..];
                let end = header_colon(rest, src).unwrap_or(rest.len());
                bind_params(&rest[..end], out);
            }
            T::Word(w) => {
                if let (Some(T::P(b':', p)), Some(T::P(b'=', q))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    if *q == p + 1 {
                        out.insert(w);
                    }
                }
            }
            _ => {}
        }
    }
}

/// One logical line (a simple statement, or a compound statement's header and its body on
/// the same line).
fn statement<'a>(toks: &[T<'a>], src: &[u8], out: &mut HashSet<&'a str>) {
    let mut toks = toks;
    // Decorators and `async` do not change what the line defines.
    while let [T::Word("async"), rest @ ..] = toks {
        toks = rest;
    }
    if toks.is_empty() {
        return;
    }
    if let [T::P(b'@', _), ..] = toks {
        bind_inline(toks, src, out);
        return;
    }
    match toks[0] {
        T::Word("def") => {
            if let Some(T::Word(name)) = toks.get(1) {
                out.insert(name);
            }
            let open = toks.iter().position(|t| is_p(Some(t), b'('));
            let mut body_from = toks.len();
            if let Some(o) = open {
                let c = closing(toks, o);
                bind_params(&toks[o + 1..c.min(toks.len())], out);
                bind_inline(&toks[o + 1..c.min(toks.len())], src, out);
                let after = &toks[(c + 1).min(toks.len())..];
                if let Some(k) = header_colon(after, src) {
                    body_from = c + 1 + k + 1;
                }
            }
            statement(&toks[body_from.min(toks.len())..], src, out);
        }
        T::Word("class") => {
            if let Some(T::Word(name)) = toks.get(1) {
                out.insert(name);
            }
            if let Some(k) = header_colon(toks, src) {
                bind_inline(&toks[..k], src, out);
                statement(&toks[k + 1..], src, out);
            }
        }
        T::Word(
            "if" | "elif" | "else" | "while" | "for" | "try" | "except" | "finally" | "with"
            | "match" | "case",
        ) => {
            let Some(k) = header_colon(toks, src) else {
                // `match` and `case` are soft keywords: without a colon this is code.
                simple(toks, src, out);
                return;
            };
            bind_inline(&toks[..k], src, out);
            statement(&toks[k + 1..], src, out);
        }
        T::Word("global" | "nonlocal") => {
            for t in &toks[1..] {
                if let T::Word(w) = t {
                    out.insert(w);
                }
            }
        }
        T::Word("import" | "from") => bind_inline(toks, src, out),
        _ => simple(toks, src, out),
    }
}

/// A simple statement: assignments (chained, augmented, annotated) and inline bindings.
fn simple<'a>(toks: &[T<'a>], src: &[u8], out: &mut HashSet<&'a str>) {
    bind_inline(toks, src, out);
    let mut depth = 0i32;
    let mut start = 0;
    let mut targets = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if let T::P(b, pos) = t {
            match b {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b'=' if depth == 0 && is_assign_eq(src, *pos) => {
                    // Drop the operator of an augmented assignment (`+=`, `<<=`).
                    let mut end = i;
                    while end > start
                        && matches!(toks[end - 1], T::P(c, _) if b"+-*/%&|^@<>".contains(&c))
                    {
                        end -= 1;
                    }
                    targets.push(&toks[start..end]);
                    start = i + 1;
                }
                _ => {}
            }
        }
    }
    for t in targets {
        bind_targets(t, out);
    }
    if start == 0 {
        // `x: int` (a declaration without a value).
        if let [T::Word(_), T::P(b':', p), ..] = toks {
            if src.get(p + 1) != Some(&b'=') {
                bind_targets(toks, out);
            }
        } else if let Some(k) = header_colon(toks, src) {
            if toks[..k].iter().any(|t| is_p(Some(t), b'.'))
                && !toks[..k]
                    .iter()
                    .any(|t| matches!(t, T::P(b'(' | b'[' | b'{', _)))
            {
                bind_targets(&toks[..k], out);
            }
        }
    }
}

/// Names defined in `src`, found with a full tree-sitter parse (the reference).
pub fn defined_names_tree_sitter(src: &[u8]) -> BTreeSet<String> {
    names_tree_sitter(src, false)
}

/// Names a module binds at its top level (assignments, `def`, `class`, imports, also inside
/// a top-level `if`/`try`/`for`/`with`), not the parameters and locals of its functions nor
/// the members of its classes: what a tool that reads the module's globals by name sees.
pub fn module_level_names(src: &[u8]) -> BTreeSet<String> {
    names_tree_sitter(src, true)
}

/// The names of `visit` over a tree-sitter parse; with `top_only`, functions and classes
/// give their own name and nothing inside them, and lambdas nothing.
fn names_tree_sitter(src: &[u8], top_only: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .is_err()
    {
        return out;
    }
    let Some(tree) = parser.parse(src, None) else {
        return out;
    };
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "function_definition" | "class_definition" if top_only => {
                add(node.child_by_field_name("name"), src, &mut out);
                continue;
            }
            "lambda" if top_only => continue,
            _ => visit(node, src, &mut out),
        }
        let mut c = node.walk();
        for child in node.children(&mut c) {
            stack.push(child);
        }
    }
    out
}

fn text<'a>(n: Node<'_>, src: &'a [u8]) -> Option<&'a str> {
    std::str::from_utf8(src.get(n.start_byte()..n.end_byte())?).ok()
}

fn add(n: Option<Node<'_>>, src: &[u8], out: &mut BTreeSet<String>) {
    if let Some(n) = n {
        if n.kind() == "identifier" {
            if let Some(t) = text(n, src) {
                out.insert(t.to_string());
            }
        }
    }
}

/// Identifiers bound by an assignment target (names, tuple elements, `obj.attr` attributes).
fn targets(n: Node<'_>, src: &[u8], out: &mut BTreeSet<String>) {
    match n.kind() {
        "identifier" => add(Some(n), src, out),
        "attribute" => add(n.child_by_field_name("attribute"), src, out),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "tuple"
        | "list"
        | "list_splat_pattern"
        | "parenthesized_expression"
        | "expression_list" => {
            let mut c = n.walk();
            for child in n.named_children(&mut c) {
                targets(child, src, out);
            }
        }
        _ => {}
    }
}

fn visit(n: Node<'_>, src: &[u8], out: &mut BTreeSet<String>) {
    match n.kind() {
        "function_definition" | "class_definition" => add(n.child_by_field_name("name"), src, out),
        "parameters" | "lambda_parameters" => {
            let mut c = n.walk();
            for p in n.named_children(&mut c) {
                match p.kind() {
                    "identifier" => add(Some(p), src, out),
                    "default_parameter" | "typed_default_parameter" => {
                        add(p.child_by_field_name("name"), src, out)
                    }
                    "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                        let mut c2 = p.walk();
                        for q in p.named_children(&mut c2) {
                            if q.kind() == "identifier" {
                                add(Some(q), src, out);
                                break;
                            }
                            if matches!(q.kind(), "list_splat_pattern" | "dictionary_splat_pattern")
                            {
                                let mut c3 = q.walk();
                                for r in q.named_children(&mut c3) {
                                    add(Some(r), src, out);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
            if let Some(l) = n.child_by_field_name("left") {
                targets(l, src, out);
            }
        }
        "named_expression" => add(n.child_by_field_name("name"), src, out),
        "as_pattern" => {
            if let Some(a) = n.child_by_field_name("alias") {
                let mut c = a.walk();
                for t in a.named_children(&mut c) {
                    targets(t, src, out);
                }
                targets(a, src, out);
            }
        }
        "aliased_import" => add(n.child_by_field_name("alias"), src, out),
        "global_statement" | "nonlocal_statement" => {
            let mut c = n.walk();
            for t in n.named_children(&mut c) {
                add(Some(t), src, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(src: &[u8]) -> (BTreeSet<String>, BTreeSet<String>) {
        let fast: BTreeSet<String> = defined_names(src).into_iter().map(str::to_string).collect();
        (fast, defined_names_tree_sitter(src))
    }

    /// Fields: a bare annotation, or a field made without one (attrs' `field()`, `attr.ib()`),
    /// never another call or a comparison.
    #[test]
    fn fields_include_attrs_fields_without_annotations() {
        let src = b"@define\nclass O:\n    _formatter = field()\n    y = attr.ib(default=1)\n    t: int = 3\n    z = other()\n    w == field(1)\n    v = obj.field(2)\n";
        let got: BTreeSet<&str> = file_defs(src).fields.into_iter().collect();
        assert_eq!(got, BTreeSet::from(["_formatter", "t", "y"]));
    }

    #[test]
    fn lexical_finder_covers_the_parse() {
        let srcs: Vec<&[u8]> = vec![
            include_bytes!("../../sample/bookmobile/desk.py"),
            include_bytes!("../../sample/bookmobile/catalog.py"),
            include_bytes!("../../sample/bookmobile/ledger.py"),
            include_bytes!("../../sample/bookmobile/patrons.py"),
            include_bytes!("../../sample/bookmobile/audit.py"),
            include_bytes!("../../sample/bookmobile/rules/fines.py"),
            include_bytes!("../../sample/bookmobile/rules/policies.py"),
            include_bytes!("../../sample/tests/test_desk.py"),
            include_bytes!("../../src/envscan.py"),
            DEFS_FIXTURE,
        ];
        for src in srcs {
            let (fast, reference) = both(src);
            let missing: Vec<_> = reference.difference(&fast).collect();
            assert!(missing.is_empty(), "lexical finder missed {missing:?}");
            // The pass that also lists groups sees the same definitions.
            let defs = file_defs(src);
            assert_eq!(defs.defined, defined_names(src));
            assert_eq!(defs.listed, super::super::listed::listed_together(src));
        }
    }

    const DEFS_FIXTURE: &[u8] = br#"
import os.path as osp
from json import dumps as to_json
LIMIT = 3
class ShelfCatalog(Base):
    kind: str = "x"
    def add_copy(self, copy_id, *extra, shelf=None, **opts):
        self.last_copy = copy_id
        total, count = 0, 1
        for item_row in extra:
            pass
        with open(x) as handle:
            pass
        return [r for row_item in extra if (hit := row_item)]
f = lambda lam_arg: lam_arg
"#;

    #[test]
    fn lexical_finder_handles_statements() {
        let src = br#"
a = b = 1
c += 2
d[k] = 3
e.f.g = 4
(h, [i, *j]) = t
x == y
if cond: inline_val = 5
def one_liner(p_one, p_two: int = 3, *, p_three) -> dict: local_val = 1
try:
    pass
except (ValueError, KeyError) as err_name:
    pass
counts = {key_name: 1 for key_name in items}
total_sum = compute(arg_kw=1)
def spread(first_arg, /, *pos_args, **kw_args): ...
global glob_name
ann_only: int
"#;
        let d = defined_names(src);
        for n in [
            "a",
            "b",
            "c",
            "g",
            "h",
            "i",
            "j",
            "inline_val",
            "one_liner",
            "p_one",
            "p_two",
            "p_three",
            "local_val",
            "err_name",
            "counts",
            "key_name",
            "total_sum",
            "spread",
            "first_arg",
            "pos_args",
            "kw_args",
            "glob_name",
            "ann_only",
        ] {
            assert!(d.contains(n), "missing {n}: {d:?}");
        }
        for n in [
            "d",
            "k",
            "e",
            "f",
            "x",
            "y",
            "cond",
            "compute",
            "arg_kw",
            "items",
            "ValueError",
        ] {
            assert!(!d.contains(n), "unexpected {n}");
        }
    }

    #[test]
    fn finds_definitions() {
        let (fast, d) = both(DEFS_FIXTURE);
        assert_eq!(fast, d);
        for n in [
            "osp",
            "to_json",
            "LIMIT",
            "ShelfCatalog",
            "kind",
            "add_copy",
            "self",
            "copy_id",
            "extra",
            "shelf",
            "opts",
            "last_copy",
            "total",
            "count",
            "item_row",
            "handle",
            "row_item",
            "hit",
            "f",
            "lam_arg",
        ] {
            assert!(d.contains(n), "missing {n}: {d:?}");
        }
        for n in ["os", "json", "dumps", "Base", "open", "x", "r", "str"] {
            assert!(!d.contains(n), "unexpected {n}");
        }
    }

    #[test]
    fn broken_files_still_yield_what_parses() {
        let d = defined_names_tree_sitter(b"def good_one(a):\n    pass\ndef broken(:\n");
        assert!(d.contains("good_one"));
        let d = defined_names(b"def good_one(a):\n    pass\ndef broken(:\n");
        assert!(d.contains("good_one"));
    }
}
