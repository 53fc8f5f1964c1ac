//! Level 3, forward half: which lines of a Python file may move, and where they go.
//!
//! Guarantees:
//! - Only *units* move (top-level `def`/`class`, methods and nested classes in class bodies,
//!   each with its decorators and the comment lines directly above it), and only inside a
//!   *run*: a maximal sequence of sibling units separated by blank lines alone. Anchors (every
//!   other statement, loose comments) and the blank lines between units keep their place.
//! - Every definition-time dependency between units of a run keeps its direction (law 6):
//!   names read by decorators, defaults, annotations (unless `from __future__ import
//!   annotations`), bases, keywords and class bodies; functions those expressions call (their
//!   whole text counts), the class body's own functions included; redefinitions of a name;
//!   decorators that share a registry-like name.
//! - Anything unusual (syntax error, invalid UTF-8, a NUL byte, units sharing a line with other
//!   code, a unit holding the last line of a file without a final newline, an encoding cookie
//!   among attached comments) makes the affected units stay in place. Nothing panics on any
//!   input: all indexing is by line numbers computed from the same text.
//!
//! How: tree-sitter-python gives the statements of each block; lines are classified textually
//! (blank, comment, code) to attach comments; the order of each run is a seeded topological
//! sort (ChaCha8 seeded from seed, file path and a name-based key of the run, so edits in other
//! runs do not reshuffle it).

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha2::{Digest, Sha256};
use tree_sitter::{Node, Parser};

use super::lines;

/// Class bodies nested deeper than this are left as they are: it bounds recursion (and the
/// cost of walking the same subtree once per level) on adversarial input.
const MAX_DEPTH: usize = 48;

/// Decorator names that register nothing in order-sensitive places, so two units sharing them
/// need not keep their relative order. Any other name shared by two decorators of a run (an
/// `atexit.register`, a click group, a route table, `pytest`) keeps those units in order.
const PURE_DECORATOR_NAMES: &[&str] = &[
    "property",
    "staticmethod",
    "classmethod",
    "abstractmethod",
    "abc",
    "cached_property",
    "functools",
    "wraps",
    "lru_cache",
    "cache",
    "overload",
    "override",
    "typing",
    "final",
    "setter",
    "getter",
    "deleter",
];

/// One reorderable definition.
#[derive(Debug, Clone)]
pub struct Unit {
    /// Lines of the unit (decorators, attached comments, body), half-open.
    pub span: Range<usize>,
    /// The defined name.
    pub name: String,
    /// Names the unit binds in its enclosing scope (its name, walrus targets in headers).
    defs: BTreeSet<String>,
    /// Names read when the definition executes.
    deftime_refs: BTreeSet<String>,
    /// Names read by decorators.
    decorator_refs: BTreeSet<String>,
    /// Every identifier in the unit: what it may read when called at definition time.
    /// Shared: an enclosing class adds it to its own without walking the unit again.
    all_refs: std::rc::Rc<BTreeSet<String>>,
    /// Runs inside a class body.
    pub runs: Vec<Run>,
}

/// A maximal sequence of sibling units separated only by blank lines.
#[derive(Debug, Clone)]
pub struct Run {
    /// At least two units, in text order.
    pub units: Vec<Unit>,
    /// Names the run for seeding: enclosing classes, first unit's name, occurrence.
    pub key: String,
}

impl Run {
    pub fn lines(&self) -> Range<usize> {
        let start = self.units.first().map_or(0, |u| u.span.start);
        let end = self.units.last().map_or(0, |u| u.span.end);
        start..end
    }
}

/// The runs of a file (top-level runs; class-body runs hang off their class unit).
#[derive(Debug, Clone, Default)]
pub struct Structure {
    pub runs: Vec<Run>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Blank,
    Comment(usize),
    Code,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\x0c' | b'\x0b' | b'\r' | b'\n')
}

fn classify(line: &[u8]) -> LineKind {
    let indent = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t' || b == b'\x0c')
        .count();
    match line.iter().find(|&&b| !is_ws(b)) {
        None => LineKind::Blank,
        Some(b'#') => LineKind::Comment(indent),
        Some(_) => LineKind::Code,
    }
}

/// Whether a comment line could be an encoding declaration (PEP 263): such a line must never
/// move, because its position decides whether it takes effect.
fn is_coding_comment(line: &[u8]) -> bool {
    line.windows(7)
        .any(|w| &w[..6] == b"coding" && (w[6] == b':' || w[6] == b'='))
}

struct Ctx<'a> {
    text: &'a [u8],
    /// Byte offset of the start of each line, plus `text.len()` at the end.
    starts: Vec<usize>,
    kinds: Vec<LineKind>,
    future_annotations: bool,
    ends_with_newline: bool,
}

impl Ctx<'_> {
    fn n_lines(&self) -> usize {
        self.starts.len() - 1
    }

    fn line_of(&self, byte: usize) -> usize {
        // The last start <= byte; starts[0] == 0 so this never underflows.
        let i = self.starts.partition_point(|&s| s <= byte);
        i.saturating_sub(1).min(self.n_lines().saturating_sub(1))
    }

    fn line(&self, i: usize) -> &[u8] {
        &self.text[self.starts[i]..self.starts[i + 1]]
    }

    fn node_text(&self, n: Node) -> String {
        String::from_utf8_lossy(
            &self.text[n.start_byte().min(self.text.len())..n.end_byte().min(self.text.len())],
        )
        .into_owned()
    }
}

thread_local! {
    /// One parser per thread, set to Python once: a file's analysis then costs its parse
    /// alone (a fresh parser per file allocates its stacks and tables again).
    static PARSER: std::cell::RefCell<Option<Parser>> = const { std::cell::RefCell::new(None) };
}

/// `text` parsed as Python. A parser left in a bad state by a panic is never reused: it is
/// taken out of its slot while it parses and put back only afterwards.
fn parse(text: &[u8]) -> Result<tree_sitter::Tree, String> {
    let mut parser = match PARSER.with(|p| p.borrow_mut().take()) {
        Some(p) => p,
        None => {
            let mut p = Parser::new();
            p.set_language(&tree_sitter_python::LANGUAGE.into())
                .map_err(|e| format!("tree-sitter language: {e}"))?;
            p
        }
    };
    let tree = parser.parse(text, None);
    parser.reset();
    PARSER.with(|p| *p.borrow_mut() = Some(parser));
    tree.ok_or_else(|| "parser gave up".to_string())
}

/// Parse `text` and find its runs. Errors say why the file is left in place.
pub fn analyze(text: &[u8]) -> Result<Structure, String> {
    if text.contains(&0) {
        return Err("NUL byte".into());
    }
    if std::str::from_utf8(text).is_err() {
        return Err("invalid UTF-8".into());
    }
    let tree = parse(text)?;
    let root = tree.root_node();
    if root.has_error() {
        return Err("syntax error".into());
    }
    let lines = lines::split_lines(text);
    let mut starts = Vec::with_capacity(lines.len() + 1);
    let mut at = 0;
    for l in &lines {
        starts.push(at);
        at += l.len();
    }
    starts.push(at);
    let ctx = Ctx {
        text,
        kinds: lines.iter().map(|l| classify(l)).collect(),
        starts,
        future_annotations: has_future_annotations(root, text),
        ends_with_newline: text.ends_with(b"\n"),
    };
    if ctx.n_lines() == 0 {
        return Ok(Structure::default());
    }
    check_indentation(&ctx, root)?;
    let runs = block_runs(&ctx, root, 0, ctx.n_lines(), "", 0, &mut HashMap::new());
    Ok(Structure { runs })
}

/// The node kinds the analysis tells apart, by tree-sitter's kind id: comparing ids is what
/// makes the walks cheap (`Node::kind` measures and checks a C string on every call). The
/// table is built from the kind names once, for every id, so aliased kinds that share a
/// name are matched exactly as the names would be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum K {
    Module,
    Block,
    Identifier,
    Extra,
    FunctionDefinition,
    ClassDefinition,
    DecoratedDefinition,
    Decorator,
    String,
    NamedExpression,
    /// A node that never holds a block (a simple statement, a parameter list, an argument
    /// list): see [`holds_no_block`].
    Blockless,
    Other,
}

fn kinds() -> &'static [K] {
    static TABLE: std::sync::OnceLock<Vec<K>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        (0..lang.node_kind_count())
            .map(|id| match lang.node_kind_for_id(id as u16) {
                Some("module") => K::Module,
                Some("block") => K::Block,
                Some("identifier") => K::Identifier,
                Some("function_definition") => K::FunctionDefinition,
                Some("class_definition") => K::ClassDefinition,
                Some("decorated_definition") => K::DecoratedDefinition,
                Some("decorator") => K::Decorator,
                Some("string") => K::String,
                Some("named_expression") => K::NamedExpression,
                Some(k) if BLOCKLESS_KINDS.contains(&k) => K::Blockless,
                Some(k) if is_extra_kind(k) => K::Extra,
                _ => K::Other,
            })
            .collect()
    })
}

/// Whether a node of kind `k` can hold no `block`, so the indentation check need not look
/// inside it.
fn holds_no_block(k: K) -> bool {
    matches!(k, K::Blockless | K::Decorator | K::Identifier | K::String)
}

/// Kinds of tree-sitter-python that never contain a `block`: Python's simple statements and
/// the header parts of compound ones that are expressions (decorators have a kind of their
/// own, [`K::Decorator`]). Missing a kind here only makes the
/// indentation check look at more nodes; a kind wrongly listed would hide a block from it,
/// which `blockless_kinds_hold_no_block` checks on real code.
const BLOCKLESS_KINDS: &[&str] = &[
    "expression_statement",
    "return_statement",
    "pass_statement",
    "break_statement",
    "continue_statement",
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "print_statement",
    "exec_statement",
    "assert_statement",
    "delete_statement",
    "raise_statement",
    "global_statement",
    "nonlocal_statement",
    "type_alias_statement",
    "parameters",
    "argument_list",
];

/// The child of `n` in field `name`, by field id: `Node::child_by_field_name` looks the
/// name up among all the grammar's field names on every call.
fn child<'t>(n: Node<'t>, name: &'static str) -> Option<Node<'t>> {
    static IDS: std::sync::OnceLock<Vec<(&'static str, Option<std::num::NonZeroU16>)>> =
        std::sync::OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        FIELDS
            .iter()
            .map(|&f| (f, lang.field_id_for_name(f)))
            .collect()
    });
    match ids.iter().find(|(f, _)| *f == name) {
        Some((_, Some(id))) => n.child_by_field_id(id.get()),
        Some((_, None)) => None,
        None => n.child_by_field_name(name),
    }
}

/// The fields the analysis reads.
const FIELDS: &[&str] = &[
    "body",
    "definition",
    "name",
    "parameters",
    "return_type",
    "superclasses",
    "type",
    "type_parameters",
    "value",
];

fn kind_of(n: Node) -> K {
    kinds()
        .get(n.kind_id() as usize)
        .copied()
        .unwrap_or(K::Other)
}

/// Visit `node` and its descendants in pre-order with one cursor (no allocation per node);
/// `visit` says whether to go into a node's children.
fn each_node<'t>(node: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    let mut cur = node.walk();
    // Counted here: `TreeCursor::depth` walks the cursor's stack on every call.
    let mut depth = 0usize;
    loop {
        if visit(cur.node()) && cur.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if depth == 0 {
                return;
            }
            if cur.goto_next_sibling() {
                break;
            }
            cur.goto_parent();
            depth -= 1;
        }
    }
}

fn leading_ws(line: &[u8]) -> &[u8] {
    let n = line
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t' || b == b'\x0c')
        .count();
    &line[..n]
}

/// tree-sitter accepts indentation that Python rejects (an indented first statement, a dedent
/// to no enclosing level, a body less indented than its header); reordering such text could
/// not be checked against what Python would do, so such files stay in place. Every statement
/// that opens its line must share its block's indentation, deeper than the block's header.
fn check_indentation(ctx: &Ctx, root: Node) -> Result<(), String> {
    let mut result = Ok(());
    each_node(root, |n| {
        let k = kind_of(n);
        if result.is_ok() && matches!(k, K::Module | K::Block) {
            result = check_block_indentation(ctx, n, k == K::Module);
        }
        result.is_ok() && !holds_no_block(k)
    });
    result
}

/// [`check_indentation`] of one module or block node.
fn check_block_indentation(ctx: &Ctx, n: Node, module: bool) -> Result<(), String> {
    {
        let mut cur = n.walk();
        let children: Vec<Node> = n.children(&mut cur).collect();
        {
            let (header_line, min_len) = if module {
                (None, 0)
            } else {
                let p = n.parent().unwrap_or(n);
                let hl = ctx.line_of(p.start_byte());
                (Some(hl), leading_ws(ctx.line(hl)).len() + 1)
            };
            let stmts: Vec<Node> = children
                .iter()
                .copied()
                .filter(|c| c.is_named() && kind_of(*c) != K::Extra)
                .collect();
            let inline = stmts
                .first()
                .is_some_and(|f| Some(ctx.line_of(f.start_byte())) == header_line);
            if !inline {
                let mut indent: Option<&[u8]> = None;
                let mut prev_end_line: Option<usize> = None;
                for st in &stmts {
                    let line = ctx.line_of(st.start_byte());
                    let opens = prev_end_line.is_none_or(|pe| line > pe);
                    prev_end_line = Some(ctx.line_of(st.end_byte().max(1) - 1));
                    if !opens {
                        continue;
                    }
                    let mut text = ctx.line(line);
                    let mut offset = ctx.starts[line];
                    if line == 0 && text.starts_with(b"\xef\xbb\xbf") {
                        text = &text[3..];
                        offset += 3;
                    }
                    let ws = leading_ws(text);
                    if offset + ws.len() != st.start_byte() {
                        return Err("statement does not start its line".into());
                    }
                    if module && !ws.is_empty() {
                        return Err("indented module-level statement".into());
                    }
                    if ws.len() < min_len || indent.is_some_and(|i| i != ws) {
                        return Err("inconsistent indentation".into());
                    }
                    indent = Some(ws);
                }
            }
        }
    }
    Ok(())
}

fn has_future_annotations(root: Node, text: &[u8]) -> bool {
    let mut cur = root.walk();
    let found = root.named_children(&mut cur).any(|s| {
        s.kind() == "future_import_statement" && {
            let mut c2 = s.walk();
            let hit = s
                .children_by_field_name("name", &mut c2)
                .any(|n| n.utf8_text(text).map(str::trim) == Ok("annotations"));
            hit
        }
    });
    found
}

fn is_extra_kind(kind: &str) -> bool {
    matches!(kind, "comment" | "line_continuation")
}

/// End byte of the last real token of `node`: comments that tree-sitter tucks into a block
/// belong to whatever follows them, and zero-width tokens (indent, dedent) carry no text.
fn content_end(node: Node) -> usize {
    // The last such token in text order ends last: walk back from the end, one cursor, and
    // stop at the first token with text (tokens never overlap).
    let mut cur = node.walk();
    let mut depth = 0usize;
    loop {
        let n = cur.node();
        if kind_of(n) != K::Extra {
            if n.child_count() == 0 {
                if n.end_byte() > n.start_byte() {
                    return n.end_byte().max(node.start_byte());
                }
            } else if cur.goto_last_child() {
                depth += 1;
                continue;
            }
        }
        loop {
            if depth == 0 {
                return node.start_byte();
            }
            if cur.goto_previous_sibling() {
                break;
            }
            cur.goto_parent();
            depth -= 1;
        }
    }
}

struct Item<'t> {
    node: Node<'t>,
    core: Range<usize>,
    ext: Range<usize>,
    unit: bool,
    movable: bool,
    indent: usize,
}

/// Runs among the statements of `block` (the module or a class body), whose lines lie in
/// `lo..hi`. Every unit made on the way leaves the identifiers it holds in `made`, under its
/// statement's node id, so that an enclosing class need not walk its methods again.
fn block_runs(
    ctx: &Ctx,
    block: Node,
    lo: usize,
    hi: usize,
    container: &str,
    depth: usize,
    made: &mut HashMap<usize, std::rc::Rc<BTreeSet<String>>>,
) -> Vec<Run> {
    let mut cur = block.walk();
    let stmts: Vec<Node> = block
        .named_children(&mut cur)
        .filter(|n| kind_of(*n) != K::Extra)
        .collect();
    let mut items: Vec<Item> = Vec::with_capacity(stmts.len());
    for s in stmts {
        let start_byte = s.start_byte();
        let raw_start = ctx.line_of(start_byte);
        let start = raw_start.max(lo);
        let end = (ctx.line_of(content_end(s).max(start_byte + 1) - 1) + 1)
            .clamp(start + 1, hi.max(start + 1));
        let line_start = ctx.starts[start];
        let prefix = &ctx.text[line_start.min(start_byte)..start_byte];
        let clean = prefix
            .iter()
            .all(|&b| b == b' ' || b == b'\t' || b == b'\x0c');
        let unit = matches!(
            kind_of(s),
            K::FunctionDefinition | K::ClassDefinition | K::DecoratedDefinition
        );
        items.push(Item {
            node: s,
            core: start..end,
            ext: start..end,
            unit,
            movable: unit && clean && raw_start >= lo && end <= hi,
            indent: prefix.len(),
        });
    }
    // Statements sharing a line cannot move apart.
    for i in 1..items.len() {
        if items[i].core.start < items[i - 1].core.end {
            items[i].movable = false;
            items[i - 1].movable = false;
        }
    }
    // Comments indented deeper than a statement, right after it, close its body.
    for i in 0..items.len() {
        let limit = items.get(i + 1).map_or(hi, |n| n.core.start).min(hi);
        let mut e = items[i].core.end;
        while e < limit {
            match ctx.kinds[e] {
                LineKind::Comment(ind) if ind > items[i].indent => e += 1,
                _ => break,
            }
        }
        items[i].ext.end = e.max(items[i].core.end);
    }
    // Comments directly above a unit belong to it (never the first two lines of the file:
    // shebang and encoding declarations stay put).
    for i in 0..items.len() {
        if !items[i].unit {
            continue;
        }
        let floor = if i == 0 { lo } else { items[i - 1].ext.end }.max(2);
        let mut s = items[i].core.start;
        while s > floor && matches!(ctx.kinds[s - 1], LineKind::Comment(_)) {
            s -= 1;
        }
        items[i].ext.start = s.min(items[i].core.start);
        if (s..items[i].core.start).any(|l| is_coding_comment(ctx.line(l))) {
            items[i].movable = false;
        }
    }
    // Lines 0 and 1 are where shebangs and encoding declarations live, and their comments
    // are never attached; a unit there stays, so no attached comment can move into them.
    for it in items.iter_mut() {
        if it.ext.start < 2 {
            it.movable = false;
        }
    }
    // A last line without a newline must stay last.
    if !ctx.ends_with_newline {
        for it in items.iter_mut() {
            if it.ext.end >= ctx.n_lines() {
                it.movable = false;
            }
        }
    }

    let mut runs: Vec<Run> = Vec::new();
    let mut current: Vec<Unit> = Vec::new();
    let mut prev_end: Option<usize> = None;
    for it in &items {
        let unit = if it.unit {
            let u = make_unit(ctx, it, container, depth);
            made.insert(it.node.id(), std::rc::Rc::clone(&u.all_refs));
            Some(u)
        } else {
            None
        };
        match unit {
            Some(u) if it.movable => {
                let joined = prev_end.is_some_and(|pe| {
                    pe <= it.ext.start
                        && (pe..it.ext.start).all(|l| ctx.kinds[l] == LineKind::Blank)
                });
                if !joined {
                    flush_run(&mut current, &mut runs);
                }
                current.push(u);
                prev_end = Some(it.ext.end);
            }
            other => {
                flush_run(&mut current, &mut runs);
                prev_end = None;
                // A unit that stays put may still hold a class body whose methods move.
                if let Some(u) = other {
                    runs.extend(u.runs);
                }
            }
        }
    }
    flush_run(&mut current, &mut runs);
    runs.sort_by_key(|r| r.lines().start);
    // Name-based keys: adding or removing a run elsewhere does not change this run's seed.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in runs.iter_mut() {
        if r.key.is_empty() {
            let base = format!("{container}\u{0}{}", r.units[0].name);
            let k = seen.entry(base.clone()).or_insert(0);
            r.key = format!("{base}\u{0}{k}");
            *k += 1;
        }
    }
    runs
}

/// Moves finished units into a run when there are at least two; a lone unit only
/// contributes its class-body runs.
fn flush_run(current: &mut Vec<Unit>, runs: &mut Vec<Run>) {
    if current.len() >= 2 {
        runs.push(Run {
            units: std::mem::take(current),
            key: String::new(),
        });
    } else if let Some(u) = current.pop() {
        runs.extend(u.runs);
    }
}

fn make_unit(ctx: &Ctx, it: &Item, container: &str, depth: usize) -> Unit {
    let stmt = it.node;
    let decorated = kind_of(stmt) == K::DecoratedDefinition;
    let def = if decorated {
        child(stmt, "definition").unwrap_or(stmt)
    } else {
        stmt
    };
    let def_kind = kind_of(def);
    let name = def
        .child_by_field_name("name")
        .map(|n| ctx.node_text(n))
        .unwrap_or_default();
    let mut defs = BTreeSet::new();
    defs.insert(name.clone());
    let mut deftime_refs = BTreeSet::new();
    let mut decorator_refs = BTreeSet::new();
    if decorated {
        let mut cur = stmt.walk();
        for d in stmt
            .children(&mut cur)
            .filter(|c| kind_of(*c) == K::Decorator)
        {
            collect_deftime(ctx, d, &mut decorator_refs, &mut defs);
        }
        deftime_refs.extend(decorator_refs.iter().cloned());
    }
    if matches!(def_kind, K::FunctionDefinition | K::ClassDefinition) {
        header_refs(ctx, def, &mut deftime_refs, &mut defs);
    }
    let mut runs = Vec::new();
    let mut made = HashMap::new();
    if def_kind == K::ClassDefinition && depth < MAX_DEPTH {
        if let Some(body) = child(def, "body") {
            // The body starts on the line after the header's colon.
            let header_end = body
                .prev_sibling()
                .map_or(def.start_byte(), |p| p.end_byte().max(1) - 1);
            let lo = (ctx.line_of(header_end) + 1).max(it.core.start);
            let path = if container.is_empty() {
                name.clone()
            } else {
                format!("{container}.{name}")
            };
            if lo < it.ext.end {
                runs = block_runs(ctx, body, lo, it.ext.end, &path, depth + 1, &mut made);
            }
        }
    }
    // The identifiers of the whole statement: the units of the class body gave theirs.
    let mut all_refs = BTreeSet::new();
    collect_identifiers_but(ctx, stmt, &made, &mut all_refs);
    for refs in made.into_values() {
        match std::rc::Rc::try_unwrap(refs) {
            Ok(refs) => all_refs.extend(refs),
            Err(shared) => all_refs.extend(shared.iter().cloned()),
        }
    }
    Unit {
        span: it.ext.clone(),
        name,
        defs,
        deftime_refs,
        decorator_refs,
        all_refs: std::rc::Rc::new(all_refs),
        runs,
    }
}

/// Names read when a `def`/`class` statement executes (not its decorators).
fn header_refs(ctx: &Ctx, def: Node, refs: &mut BTreeSet<String>, defs: &mut BTreeSet<String>) {
    if kind_of(def) == K::FunctionDefinition {
        if let Some(params) = child(def, "parameters") {
            let mut cur = params.walk();
            for p in params.named_children(&mut cur) {
                for field in ["type", "value"] {
                    if field == "type" && ctx.future_annotations {
                        continue;
                    }
                    if let Some(x) = child(p, field) {
                        collect_deftime_in(ctx, x, refs, defs, field == "value");
                    }
                }
            }
        }
        if !ctx.future_annotations {
            if let Some(r) = child(def, "return_type") {
                collect_deftime_in(ctx, r, refs, defs, false);
            }
        }
        if let Some(t) = child(def, "type_parameters") {
            collect_deftime(ctx, t, refs, defs);
        }
    } else {
        for field in ["superclasses", "type_parameters", "body"] {
            if let Some(x) = child(def, field) {
                collect_deftime(ctx, x, refs, defs);
            }
        }
        add_bodies_of_local_functions(ctx, def, refs);
    }
}

/// A function defined in a class body runs while the class is defined when the body names
/// it (pygments's `KconfigLexer` builds `tokens = {'indent7': do_indent(7), ...}` with helpers
/// of its own body that call the module's `_rx_indent`): the whole text of such a function
/// is read then, and of the body functions it names in turn. Naming is enough (a function
/// passed to `property` is not called, but telling the two apart is not worth a missed call).
/// Nested class bodies run with the class, so their functions count too. Iterative: no
/// recursion on the depth of the input.
fn add_bodies_of_local_functions(ctx: &Ctx, class: Node, refs: &mut BTreeSet<String>) {
    let mut local: HashMap<String, Node> = HashMap::new();
    let mut classes = vec![class];
    while let Some(c) = classes.pop() {
        let Some(body) = child(c, "body") else {
            continue;
        };
        let mut cur = body.walk();
        for stmt in body.named_children(&mut cur) {
            let d = if kind_of(stmt) == K::DecoratedDefinition {
                child(stmt, "definition").unwrap_or(stmt)
            } else {
                stmt
            };
            match kind_of(d) {
                K::FunctionDefinition => {
                    if let Some(n) = child(d, "name") {
                        local.entry(ctx.node_text(n)).or_insert(d);
                    }
                }
                K::ClassDefinition => classes.push(d),
                _ => {}
            }
        }
    }
    if local.is_empty() {
        return;
    }
    let mut queue: Vec<String> = refs
        .iter()
        .filter(|r| local.contains_key(r.as_str()))
        .cloned()
        .collect();
    let mut done: BTreeSet<String> = BTreeSet::new();
    while let Some(name) = queue.pop() {
        let Some(&f) = local.get(&name) else {
            continue;
        };
        if !done.insert(name) {
            continue;
        }
        let mut read = BTreeSet::new();
        collect_identifiers(ctx, f, &mut read);
        for r in read {
            if local.contains_key(&r) && !done.contains(&r) {
                queue.push(r.clone());
            }
            refs.insert(r);
        }
    }
}

/// Identifiers read when `node` is evaluated as part of a definition: everything except the
/// bodies of nested functions (which only run when called). Over-approximates (attribute
/// names, lambda bodies) on purpose: an extra constraint only means less shuffling.
fn collect_deftime(
    ctx: &Ctx,
    node: Node,
    refs: &mut BTreeSet<String>,
    defs: &mut BTreeSet<String>,
) {
    collect_deftime_in(ctx, node, refs, defs, true)
}

/// [`collect_deftime`]; `strings: false` for an annotation, whose strings are forward
/// references that nothing reads when the definition runs.
fn collect_deftime_in(
    ctx: &Ctx,
    node: Node,
    refs: &mut BTreeSet<String>,
    defs: &mut BTreeSet<String>,
    strings: bool,
) {
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match kind_of(n) {
            K::FunctionDefinition => header_refs(ctx, n, refs, defs),
            K::ClassDefinition => {
                for field in ["superclasses", "type_parameters", "body"] {
                    if let Some(x) = child(n, field) {
                        stack.push(x);
                    }
                }
            }
            K::Identifier => {
                refs.insert(ctx.node_text(n));
            }
            // A string that spells a (dotted) name may be looked up when the definition runs:
            // pyrsistent resolves `field(type='class_test.Point')` in a class body by importing
            // the module and reading the attribute, so `Point` must already be defined.
            K::String => {
                if let Some(name) = named_by_string(&ctx.node_text(n)).filter(|_| strings) {
                    refs.insert(name);
                }
                let mut cur = n.walk();
                stack.extend(n.children(&mut cur));
            }
            K::NamedExpression => {
                if let Some(t) = child(n, "name") {
                    defs.insert(ctx.node_text(t));
                }
                let mut cur = n.walk();
                stack.extend(n.children(&mut cur));
            }
            _ => {
                let mut cur = n.walk();
                stack.extend(n.children(&mut cur));
            }
        }
    }
}

/// The name a string literal spells whole (`'Point'`, the last part of `'pkg.mod.Point'`),
/// if it spells one.
fn named_by_string(literal: &str) -> Option<String> {
    let body = literal.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let q = body.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = body.trim_start_matches(q).trim_end_matches(q);
    let ident = |p: &str| {
        p.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    let last = body.rsplit('.').next()?;
    (body.split('.').all(ident)).then(|| last.to_string())
}

fn collect_identifiers(ctx: &Ctx, node: Node, out: &mut BTreeSet<String>) {
    collect_identifiers_but(ctx, node, &HashMap::new(), out)
}

/// [`collect_identifiers`], not looking inside the statements whose node ids `skip` holds.
fn collect_identifiers_but(
    ctx: &Ctx,
    node: Node,
    skip: &HashMap<usize, std::rc::Rc<BTreeSet<String>>>,
    out: &mut BTreeSet<String>,
) {
    each_node(node, |n| {
        if kind_of(n) != K::Identifier {
            return skip.is_empty() || !skip.contains_key(&n.id());
        }
        let text = &ctx.text[n.start_byte().min(ctx.text.len())..n.end_byte().min(ctx.text.len())];
        let text = String::from_utf8_lossy(text);
        if !out.contains(text.as_ref()) {
            out.insert(text.into_owned());
        }
        false
    });
}

/// Pairs `(a, b)`, `a < b` in run order, whose relative order must be kept.
pub fn constraints(run: &Run) -> Vec<(usize, usize)> {
    let units = &run.units;
    let mut definers: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, u) in units.iter().enumerate() {
        for d in &u.defs {
            definers.entry(d.as_str()).or_default().push(i);
        }
    }
    let mut pairs: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut add = |a: usize, b: usize| {
        if a != b {
            pairs.insert((a.min(b), a.max(b)));
        }
    };
    for list in definers.values() {
        for w in list.windows(2) {
            add(w[0], w[1]);
        }
    }
    let mut by_decorator: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, u) in units.iter().enumerate() {
        for r in &u.decorator_refs {
            if !PURE_DECORATOR_NAMES.contains(&r.as_str()) {
                by_decorator.entry(r.as_str()).or_default().push(i);
            }
        }
    }
    for list in by_decorator.values() {
        for w in list.windows(2) {
            add(w[0], w[1]);
        }
    }
    // Test runners run what they collect in definition order (pytest's modules and classes),
    // and a suite may depend on that order (pyparsing's `Test03_EnablePackratParsing` turns a
    // global cache on for the classes after it): collected units keep their relative order.
    let collected: Vec<usize> = (0..units.len())
        .filter(|&i| is_collected(&units[i]))
        .collect();
    for w in collected.windows(2) {
        add(w[0], w[1]);
    }
    for (i, u) in units.iter().enumerate() {
        // Names the definition reads, closed over units it may call while executing.
        let mut reached: BTreeSet<&str> = u.deftime_refs.iter().map(String::as_str).collect();
        let mut queue: Vec<&str> = reached.iter().copied().collect();
        let mut called = vec![false; units.len()];
        while let Some(name) = queue.pop() {
            for &v in definers.get(name).map_or(&[][..], |v| v.as_slice()) {
                add(i, v);
                if v != i && !called[v] {
                    called[v] = true;
                    for r in units[v].all_refs.iter() {
                        if reached.insert(r.as_str()) {
                            queue.push(r.as_str());
                        }
                    }
                }
            }
        }
    }
    pairs.into_iter().collect()
}

/// Whether a test runner collects the unit: pytest's default `test*` functions and methods and
/// `Test*` classes, and any class with `test*` methods (a `unittest.TestCase` of any name).
fn is_collected(u: &Unit) -> bool {
    let test = |n: &str| n.starts_with("test") || n.starts_with("Test");
    test(&u.name)
        || u.runs
            .iter()
            .any(|r| r.units.iter().any(|m| m.name.starts_with("test")))
}

/// A seeded topological order of `run` (slot -> unit index) keeping every constraint, and
/// the relative order of the units named in `ordered` (names a program collects by a name
/// part and may take in definition order, `policy::Findings::ordered`). That set only narrows
/// the seeded choice: the inverse direction needs no knowledge of it, since it restores the
/// original order, which keeps every order.
pub(super) fn seeded_order(
    run: &Run,
    seed: u64,
    path: &[u8],
    ordered: &BTreeSet<String>,
) -> Vec<usize> {
    let k = run.units.len();
    let mut h = Sha256::new();
    h.update(b"schrodinger-level3\0");
    h.update(seed.to_le_bytes());
    h.update(path);
    h.update(b"\0");
    h.update(run.key.as_bytes());
    let mut rng = ChaCha8Rng::from_seed(h.finalize().into());
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); k];
    let mut indeg = vec![0usize; k];
    let mut pairs = constraints(run);
    let picked: Vec<usize> = (0..k)
        .filter(|&i| ordered.contains(&run.units[i].name))
        .collect();
    pairs.extend(picked.windows(2).map(|w| (w[0], w[1])));
    pairs.sort_unstable();
    pairs.dedup();
    for (a, b) in pairs {
        succ[a].push(b);
        indeg[b] += 1;
    }
    let mut ready: Vec<usize> = (0..k).filter(|&i| indeg[i] == 0).collect();
    let mut order = Vec::with_capacity(k);
    while !ready.is_empty() {
        // Modulo bias is irrelevant here; what matters is the same result on every machine.
        let pick = (rng.next_u64() % ready.len() as u64) as usize;
        let u = ready.remove(pick);
        order.push(u);
        for &v in &succ[u] {
            indeg[v] -= 1;
            if indeg[v] == 0 {
                ready.push(v);
            }
        }
    }
    if order.len() != k {
        // Constraints only go forward in text order, so this cannot happen; stay put if it does.
        return (0..k).collect();
    }
    order
}

/// The line sequence of a text whose structure is `runs`, with each run's units placed in
/// the order `choose` gives (slot -> unit index). Blank lines between units keep their slots.
pub fn emit(n: usize, runs: &[Run], choose: &mut dyn FnMut(&Run) -> Vec<usize>) -> Vec<usize> {
    let mut out = Vec::with_capacity(n);
    emit_range(0, n, runs, choose, &mut out);
    out
}

fn emit_range(
    lo: usize,
    hi: usize,
    runs: &[Run],
    choose: &mut dyn FnMut(&Run) -> Vec<usize>,
    out: &mut Vec<usize>,
) {
    let mut at = lo;
    for run in runs {
        let r = run.lines();
        if r.start < at || r.end > hi {
            continue; // Not nested as promised: leave those lines to the plain walk.
        }
        out.extend(at..r.start);
        let mut order = choose(run);
        if order.len() != run.units.len() {
            order = (0..run.units.len()).collect();
        }
        for (slot, &ui) in order.iter().enumerate() {
            let u = &run.units[ui];
            emit_range(u.span.start, u.span.end, &u.runs, choose, out);
            if let Some(next) = run.units.get(slot + 1) {
                out.extend(run.units[slot].span.end..next.span.start);
            }
        }
        at = r.end;
    }
    out.extend(at..hi);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::layout::{self, plan};

    fn run_of(src: &str) -> Run {
        let s = analyze(src.as_bytes()).expect("parses");
        assert_eq!(s.runs.len(), 1, "{s:?}");
        s.runs.into_iter().next().unwrap()
    }

    #[test]
    fn property_setter_and_overloads_keep_order() {
        let r = run_of("\"\"\"doc\"\"\"\n\ndef a():\n    pass\n\n@property\ndef x(self):\n    pass\n\n@x.setter\ndef x(self, v):\n    pass\n");
        assert_eq!(constraints(&r), vec![(1, 2)]);
    }

    #[test]
    fn functions_called_at_definition_time_bring_their_body() {
        // `reg` runs while `b` is defined and reads `helper`: helper must stay before b.
        let src = "import x\n\ndef helper():\n    pass\n\ndef reg(f):\n    helper()\n    return f\n\n@reg\ndef b():\n    pass\n\ndef free():\n    pass\n";
        let r = run_of(src);
        let c = constraints(&r);
        assert!(c.contains(&(0, 2)) && c.contains(&(1, 2)), "{c:?}");
        assert!(!c.iter().any(|&(a, b)| a == 3 || b == 3), "{c:?}");
    }

    /// A class body that names another class of the module in a string (pyrsistent's
    /// `field(type='class_test.Point')`, resolved while the class is created) stays after it.
    #[test]
    fn names_spelled_by_strings_at_definition_time_count() {
        let src = "import x\n\nclass Point:\n    pass\n\nclass Line:\n    start = field(type='shapes.Point')\n\nclass Free:\n    doc = 'not a name'\n";
        let c = constraints(&run_of(src));
        assert_eq!(c, vec![(0, 1)]);
        assert_eq!(named_by_string("r'a.b_c'"), Some("b_c".into()));
        assert_eq!(named_by_string("\"two words\""), None);
        assert_eq!(named_by_string("''"), None);
        assert_eq!(named_by_string("'a..b'"), None);
    }

    #[test]
    fn annotations_count_unless_postponed() {
        let eager = "import x\n\nclass A:\n    pass\n\ndef f(a: A) -> A:\n    pass\n";
        assert_eq!(constraints(&run_of(eager)), vec![(0, 1)]);
        let lazy = "from __future__ import annotations\n\nclass A:\n    pass\n\ndef f(a: A) -> A:\n    pass\n";
        assert!(constraints(&run_of(lazy)).is_empty());
    }

    /// A class body that calls a function of its own body, which reads a module function,
    /// needs that module function first (law 6; pygments's `KconfigLexer` and `_rx_indent`
    /// had been swapped, and the module raised `NameError` at import).
    #[test]
    fn functions_of_a_class_body_called_by_it_bring_their_body() {
        let src = "import x\n\ndef _rx(level):\n    return level\n\nclass Lexer:\n    def call(level):\n        return indent(level)\n\n    def indent(level):\n        return _rx(level)\n\n    tokens = {'a': call(7)}\n\ndef free():\n    pass\n";
        let c = constraints(&run_of(src));
        assert!(c.contains(&(0, 1)), "{c:?}");
        assert!(!c.iter().any(|&(a, b)| a == 2 || b == 2), "{c:?}");
        // Not named by the body: its functions are not run when the class is defined.
        let quiet = "import x\n\ndef _rx(level):\n    return level\n\nclass Lexer:\n    def call(self):\n        return _rx(self)\n\n    tokens = {'a': 7}\n";
        assert!(constraints(&run_of(quiet)).is_empty());
    }

    #[test]
    fn class_bodies_bases_and_keywords_are_definition_time() {
        let src = "import x\n\nclass M(type):\n    pass\n\nclass B:\n    pass\n\nclass C(B, metaclass=M):\n    y = helper()\n\ndef helper():\n    pass\n";
        let c = constraints(&run_of(src));
        assert!(
            c.contains(&(0, 2)) && c.contains(&(1, 2)) && c.contains(&(2, 3)),
            "{c:?}"
        );
    }

    /// Definitions a program picks by a name part (`Findings::ordered`) keep their relative
    /// order under every seed; the others still move.
    #[test]
    fn picked_names_keep_their_order() {
        let src = b"def t_b(t):\n    pass\n\n\ndef other(x):\n    pass\n\n\ndef t_a(t):\n    pass\n\n\ndef more(x):\n    pass\n\n\ndef t_c(t):\n    pass\n";
        let ordered: BTreeSet<String> = ["t_b", "t_a", "t_c"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let mut moved = false;
        let mut kept_without = true;
        for seed in 0..40 {
            let names = |set: &BTreeSet<String>| -> Vec<String> {
                let view = layout::render(src, &plan(b"lex.py", src, seed, set));
                String::from_utf8(view)
                    .unwrap()
                    .lines()
                    .filter_map(|l| l.strip_prefix("def "))
                    .map(|l| l.split('(').next().unwrap().to_string())
                    .collect()
            };
            let with = names(&ordered);
            let picked: Vec<&String> = with.iter().filter(|n| n.starts_with("t_")).collect();
            assert_eq!(picked, ["t_b", "t_a", "t_c"], "seed {seed}: {with:?}");
            moved |= with != ["t_b", "other", "t_a", "more", "t_c"];
            let without = names(&BTreeSet::new());
            let picked: Vec<&String> = without.iter().filter(|n| n.starts_with("t_")).collect();
            kept_without &= picked == ["t_b", "t_a", "t_c"];
        }
        assert!(moved, "the other definitions never moved");
        assert!(
            !kept_without,
            "the order was kept without the set: the test shows nothing"
        );
    }

    #[test]
    fn shared_registry_decorators_keep_order_but_pure_ones_do_not() {
        let src = "import x\n\n@atexit.register\ndef a():\n    pass\n\n@atexit.register\ndef b():\n    pass\n\n@staticmethod\ndef c():\n    pass\n\n@staticmethod\ndef d():\n    pass\n";
        assert_eq!(constraints(&run_of(src)), vec![(0, 1)]);
    }

    /// Collected tests keep their relative order (a suite may depend on it); other units
    /// between them stay free.
    #[test]
    fn collected_tests_keep_their_order() {
        let src = "import x\n\nclass Test01:\n    pass\n\ndef helper():\n    pass\n\ndef test_b():\n    pass\n\nclass Checks:\n    def test_x(self):\n        pass\n\n    def test_y(self):\n        pass\n\ndef other():\n    pass\n";
        let c = constraints(&run_of(src));
        assert!(c.contains(&(0, 2)) && c.contains(&(2, 3)), "{c:?}");
        assert!(
            !c.iter()
                .any(|&(a, b)| [1, 4].contains(&a) || [1, 4].contains(&b)),
            "{c:?}"
        );
    }

    #[test]
    fn indentation_python_rejects_is_not_analyzed() {
        assert!(analyze(b"    def a():\n        pass\nclass b:\n    pass\n").is_err());
        assert!(analyze(
            b"class A:\n        def f(self):\n            pass\n    def g(self):\n        pass\n"
        )
        .is_err());
        assert!(analyze(b"\xef\xbb\xbfdef a():\n    pass\n").is_ok());
    }

    #[test]
    fn units_on_the_first_two_lines_stay() {
        // Regression: a unit with an attached comment moved to line 0 made that comment
        // unattached in the original, so view and original disagreed about the run.
        let src = b"def a():\n    return 1\n\n# about b\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n";
        for seed in 0..16 {
            let l = plan(b"m.py", src, seed, &BTreeSet::new());
            assert_eq!(l.order()[..2], [0, 1]);
        }
    }

    /// The indentation check does not look inside blockless kinds: no block of real code
    /// (every compound statement, clause and nesting Python has) lies inside one.
    #[test]
    fn blockless_kinds_hold_no_block() {
        let src = "@dec(lambda x: x)\nasync def f(a=[i for i in range(3)], *, b: int = 2) -> None:\n    async with a as b, c:\n        pass\n    async for x in y:\n        pass\n    else:\n        pass\n    while x:\n        break\n    else:\n        continue\n    try:\n        raise E from e\n    except* (A, B) as e:\n        pass\n    else:\n        pass\n    finally:\n        pass\n    try:\n        pass\n    except A:\n        pass\n    match p:\n        case [1, *r] if r:\n            pass\n        case {\"k\": v}:\n            pass\n        case _:\n            pass\n    if a:\n        pass\n    elif b:\n        pass\n    else:\n        pass\n    with open(x) as f:\n        global g\n        nonlocal n\n        del d\n        assert a, b\n        return (yield x)\n\n\nclass C(B, metaclass=M):\n    class D[T]:\n        type X = int\n        def g[U](self): print(f\"{self!r:>{w}}\")\n    x = [y async for y in z]\n\n\nfrom __future__ import annotations\nimport os\nfrom a import (b, c)\n";
        let tree = parse(src.as_bytes()).unwrap();
        assert!(!tree.root_node().has_error());
        let mut blocks = 0;
        let mut stack = vec![(tree.root_node(), false)];
        while let Some((n, inside)) = stack.pop() {
            if matches!(kind_of(n), K::Module | K::Block) {
                blocks += 1;
                assert!(!inside, "a block inside a blockless kind: {}", n.to_sexp());
            }
            let prune = inside || holds_no_block(kind_of(n));
            let mut cur = n.walk();
            for c in n.children(&mut cur) {
                stack.push((c, prune));
            }
        }
        assert!(blocks >= 20, "{blocks} blocks");
        // And the check still finds what it is for inside compound statements.
        assert!(check_indentation_of("if a:\n    x = 1\n   y = 2\n").is_err());
        assert!(
            check_indentation_of("match p:\n    case 1:\n        x = 1\n       y = 2\n").is_err()
        );
    }

    fn check_indentation_of(src: &str) -> Result<(), String> {
        analyze(src.as_bytes()).map(|_| ())
    }

    #[test]
    fn garbage_never_panics() {
        for src in [
            &b""[..],
            b"\n",
            b"\r\r\r",
            b"def",
            b"class A:\n  def f(self): pass\n  def g(self): pass",
            b"@\n@\ndef f(:\n",
            b"\xff\xfe\x00",
            b"def a(): pass\ndef b(): pass\n",
            b"x = 1; y = 2\n",
            b"class A: pass\nclass B: pass\n\n\nclass C: pass\n",
        ] {
            let l = plan(b"g.py", src, 1, &BTreeSet::new());
            assert_eq!(layout::render(src, &l).len(), src.len());
        }
        let deep = "class A:\n".to_string()
            + &(1..200)
                .map(|i| format!("{}class A{i}:\n", "    ".repeat(i)))
                .collect::<String>()
            + &"    ".repeat(200)
            + "pass\n";
        let l = plan(b"deep.py", deep.as_bytes(), 1, &BTreeSet::new());
        assert!(l.is_valid_for(layout::split_lines(deep.as_bytes()).len()));
    }
}
