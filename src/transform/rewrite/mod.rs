//! Level 4: local implementation restated by seeded, behaviour-preserving syntax-tree
//! rewrites (one rule per file of this module, each saying why it keeps behaviour).
//!
//! Guarantees:
//! - Exact involution: [`Rewriter::apply`] is its own inverse on every input, so the view's
//!   write path is the same function as its read path and needs no state: reading back a
//!   write gives exactly what was written (law 2), an unchanged view gives the original back
//!   byte for byte (law 1), and the original depends only on the final view (law 4). Each
//!   rule is an involution on its own sites (it matches only a canonical spelling and keeps
//!   every byte it does not rewrite), the sites of one chunk (a top-level statement, see
//!   `apply`) are found on one parse and applied at once ([`site::render`]), and the whole
//!   is *checked*: a chunk is rewritten only when rewriting the result again gives the chunk
//!   back. That check is symmetric, so the checked function is an involution whatever a rule
//!   does.
//! - Locality (law 4): a site belongs to the innermost function around it; which functions
//!   are rewritten, and by which rules, depends only on the seed, the file's path and the
//!   function's qualified name, none of which a rewrite changes. An edit inside one
//!   function therefore changes only that function's lines in the original, and one that
//!   breaks the syntax changes only its top-level statement (which then goes back as
//!   written, in the rewritten form).
//! - Only Python source outside tests is touched (test modules, `conftest.py`, files under a
//!   `tests`/`test`/`testing` directory keep their text), and never a file whose lines the tree
//!   records (`transform::pinned`); a file that does not parse, or holds a NUL byte or invalid
//!   UTF-8, passes unchanged.
//! - A rule changes text only inside a function body and keeps the file's line count, so
//!   Level 3's units and Level 2's map see the same structure.

pub mod de_morgan;
pub mod fold_negation;
pub mod invert_conditional;
pub mod invert_if;
pub mod membership_literal;
pub mod regions;
pub mod site;
pub mod swap_equality;
pub mod swap_quotes;

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};
use tree_sitter::{Node, Parser};

use site::Site;

/// The rules, in the order their bits sit in a function's mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    InvertIf,
    SwapEquality,
    FoldNegation,
    DeMorgan,
    InvertConditional,
    MembershipLiteral,
    SwapQuotes,
}

impl Rule {
    pub const ALL: [Rule; 7] = [
        Rule::InvertIf,
        Rule::SwapEquality,
        Rule::FoldNegation,
        Rule::DeMorgan,
        Rule::InvertConditional,
        Rule::MembershipLiteral,
        Rule::SwapQuotes,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rule::InvertIf => "invert_if",
            Rule::SwapEquality => "swap_equality",
            Rule::FoldNegation => "fold_negation",
            Rule::DeMorgan => "de_morgan",
            Rule::InvertConditional => "invert_conditional",
            Rule::MembershipLiteral => "membership_literal",
            Rule::SwapQuotes => "swap_quotes",
        }
    }

    pub fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// The mask of rules named in a comma-separated list (`invert_if,swap_quotes`).
    pub fn mask_of(list: &str) -> Result<u8, String> {
        let mut mask = 0;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let r = Rule::ALL.iter().find(|r| r.name() == name).ok_or_else(|| {
                let known: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
                format!("no Level 4 rule `{name}` (rules: {})", known.join(", "))
            })?;
            mask |= r.bit();
        }
        if mask == 0 {
            return Err("no Level 4 rule named".into());
        }
        Ok(mask)
    }

    /// The names of the rules of `mask`, comma-separated.
    pub fn names_of(mask: u8) -> String {
        Rule::ALL
            .iter()
            .filter(|r| mask & r.bit() != 0)
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(",")
    }
}

/// Every rule on.
pub const ALL_RULES: u8 = 0b111_1111;

/// Which functions a view rewrites.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rewriter {
    seed: u64,
    /// Percent of functions rewritten.
    share: u8,
    /// Functions that are always rewritten, with every rule: original path -> qualified names.
    forced: BTreeMap<Vec<u8>, BTreeSet<String>>,
    /// Functions never rewritten (their rewrite changed a test's outcome).
    skipped: BTreeMap<Vec<u8>, BTreeSet<String>>,
    /// Files shown in their own text (`transform::pinned`).
    pinned: BTreeSet<Vec<u8>>,
    /// The rules in use (a mask of `Rule::bit`); `None`: all.
    rules: Option<u8>,
}

/// Share of functions rewritten when none is given.
pub const DEFAULT_SHARE: u8 = 50;

impl Rewriter {
    pub fn new(seed: u64, share: u8) -> Rewriter {
        Rewriter {
            seed,
            share: share.min(100),
            ..Rewriter::default()
        }
    }

    pub fn forcing(mut self, forced: BTreeMap<Vec<u8>, BTreeSet<String>>) -> Rewriter {
        self.forced = forced;
        self
    }

    pub fn skipping(mut self, skipped: BTreeMap<Vec<u8>, BTreeSet<String>>) -> Rewriter {
        self.skipped = skipped;
        self
    }

    /// Use only the rules of `mask` (see [`Rule::mask_of`]).
    pub fn using(mut self, mask: u8) -> Rewriter {
        self.rules = Some(mask);
        self
    }

    pub fn keeping_text_of(mut self, pinned: impl IntoIterator<Item = Vec<u8>>) -> Rewriter {
        self.pinned = pinned.into_iter().collect();
        self
    }

    /// The rules (a mask of [`Rule::bit`]) applied inside function `qualname` of `path`; 0
    /// when the function keeps its text.
    pub fn mask(&self, path: &[u8], qualname: &str) -> u8 {
        self.mask_of_all_rules(path, qualname) & self.rules.unwrap_or(ALL_RULES)
    }

    fn mask_of_all_rules(&self, path: &[u8], qualname: &str) -> u8 {
        let has = |m: &BTreeMap<Vec<u8>, BTreeSet<String>>| {
            m.get(path).is_some_and(|s| s.contains(qualname))
        };
        if has(&self.skipped) {
            return 0;
        }
        if has(&self.forced) {
            return ALL_RULES;
        }
        let mut h = Sha256::new();
        h.update(b"schrodinger level 4\0");
        h.update(self.seed.to_le_bytes());
        h.update(path);
        h.update([0]);
        h.update(qualname.as_bytes());
        let d = h.finalize();
        if u16::from_le_bytes([d[0], d[1]]) % 100 >= u16::from(self.share) {
            return 0;
        }
        // Each rule on with probability 3/4 (two bits not both zero); never none.
        let mut mask = 0;
        for r in Rule::ALL {
            let bits = (d[2 + r as usize / 4] >> (2 * (r as usize % 4))) & 0b11;
            if bits != 0 {
                mask |= r.bit();
            }
        }
        if mask == 0 {
            ALL_RULES
        } else {
            mask
        }
    }

    /// Whether `path` (original, relative) is a file this level may rewrite.
    pub fn takes(&self, path: &[u8]) -> bool {
        path.ends_with(b".py") && !is_test_path(path) && !self.pinned.contains(path)
    }

    /// The view of `text` (and, being an involution, the original of a view).
    ///
    /// The file is rewritten chunk by chunk: a chunk starts at each line that begins with
    /// code in the first column (a top-level statement, or what looks like one), so a syntax
    /// error in one top-level definition leaves the others rewritten, and an edit inside one
    /// never changes another. No rule changes a line's first column, and a chunk whose
    /// rewrite would is kept as is, so the chunks of a view are the chunks of its original.
    pub fn apply(&self, path: &[u8], text: &[u8]) -> Vec<u8> {
        if !self.takes(path) || text.contains(&0) || std::str::from_utf8(text).is_err() {
            return text.to_vec();
        }
        let Some(mut parser) = python_parser() else {
            return text.to_vec();
        };
        let mut out = Vec::with_capacity(text.len());
        for chunk in chunks(text) {
            out.extend_from_slice(&self.apply_chunk(&mut parser, path, chunk));
        }
        out
    }

    /// One chunk, rewritten when rewriting the result again gives the chunk back and the
    /// result has no other first-column line (both conditions hold for the result exactly
    /// when they hold for the chunk, which makes this an involution).
    fn apply_chunk<'a>(
        &self,
        parser: &mut Parser,
        path: &[u8],
        chunk: &'a [u8],
    ) -> std::borrow::Cow<'a, [u8]> {
        use std::borrow::Cow;
        let Some(once) = self.rewrite_chunk(parser, path, chunk) else {
            return Cow::Borrowed(chunk);
        };
        if once == chunk {
            return Cow::Borrowed(chunk);
        }
        let back = self.rewrite_chunk(parser, path, &once);
        if back.as_deref() == Some(chunk) && chunks(&once).nth(1).is_none() {
            Cow::Owned(once)
        } else {
            tracing::debug!(
                path = %String::from_utf8_lossy(path),
                "level 4: a rewrite here is not its own inverse; chunk kept as is"
            );
            Cow::Borrowed(chunk)
        }
    }

    /// Every site of every rewritten function applied once, chunk by chunk, unchecked
    /// (chunks that do not parse pass unchanged); `None` when the sites of a chunk collide.
    /// For measurements and tests: views use `apply`.
    pub fn rewrite(&self, path: &[u8], text: &[u8]) -> Option<Vec<u8>> {
        let mut parser = python_parser()?;
        let mut out = Vec::with_capacity(text.len());
        for chunk in chunks(text) {
            match self.rewrite_chunk(&mut parser, path, chunk) {
                Some(c) => out.extend_from_slice(&c),
                None if self.sites_with(&mut parser, path, chunk).is_none() => {
                    out.extend_from_slice(chunk)
                }
                None => return None,
            }
        }
        Some(out)
    }

    fn rewrite_chunk(&self, parser: &mut Parser, path: &[u8], chunk: &[u8]) -> Option<Vec<u8>> {
        let mut sites = self.sites_with(parser, path, chunk)?;
        site::render(chunk, &mut sites)
    }

    /// The sites of `text` parsed whole (`None`: not Python this level can read).
    #[cfg(test)]
    fn sites(&self, path: &[u8], text: &[u8]) -> Option<Vec<Site>> {
        self.sites_with(&mut python_parser()?, path, text)
    }

    fn sites_with(&self, parser: &mut Parser, path: &[u8], text: &[u8]) -> Option<Vec<Site>> {
        Some(self.found_in(parser, path, text)?.sites)
    }

    /// What Level 4 does to one file: functions, the ones the seed picked, the ones whose
    /// text the view changes, sites applied by rule, and chunks the self-check kept as they
    /// were. For `map`.
    pub fn measure(&self, path: &[u8], text: &[u8]) -> Measure {
        let mut m = Measure::default();
        self.each_chunk(path, text, |found, rewritten| {
            m.functions += found.functions.len();
            m.picked += found.functions.iter().filter(|f| f.1 != 0).count();
            if found.sites.is_empty() {
                return;
            }
            if !rewritten {
                m.chunks_kept += 1;
                return;
            }
            for (rule, _) in &found.tags {
                m.sites[*rule as usize] += 1;
            }
            m.changed += found.owners().len();
        });
        m
    }

    /// Qualified names of the functions of one file whose text the view changes.
    pub fn changed_functions(&self, path: &[u8], text: &[u8]) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.each_chunk(path, text, |found, rewritten| {
            if rewritten {
                out.extend(
                    found
                        .owners()
                        .into_iter()
                        .map(|o| found.functions[o].0.clone()),
                );
            }
        });
        out
    }

    /// `f(found, rewritten)` for each chunk of a file this level takes that parses: what it
    /// holds, and whether the view changes it.
    fn each_chunk(&self, path: &[u8], text: &[u8], mut f: impl FnMut(&Found, bool)) {
        if !self.takes(path) || text.contains(&0) || std::str::from_utf8(text).is_err() {
            return;
        }
        let Some(mut parser) = python_parser() else {
            return;
        };
        for chunk in chunks(text) {
            let Some(found) = self.found_in(&mut parser, path, chunk) else {
                continue;
            };
            let rewritten =
                !found.sites.is_empty() && self.apply_chunk(&mut parser, path, chunk) != chunk;
            f(&found, rewritten);
        }
    }

    fn found_in(&self, parser: &mut Parser, path: &[u8], text: &[u8]) -> Option<Found> {
        if text.contains(&0) || std::str::from_utf8(text).is_err() {
            return None;
        }
        let tree = parser.parse(text, None)?;
        let root = tree.root_node();
        if root.has_error() {
            return None;
        }
        let lines = Lines::new(text);
        let mut found = Found::default();
        let mut scopes: Vec<Scope> = Vec::new();
        walk(root, &mut |node, entering| {
            if !entering {
                if scopes.last().is_some_and(|s| s.id == node.id()) {
                    scopes.pop();
                }
                return;
            }
            if matches!(node.kind(), "function_definition" | "class_definition") {
                let qual = qualified_name(node, text);
                let mask = if node.kind() == "function_definition" {
                    self.mask(path, &qual)
                } else {
                    0
                };
                let body = node
                    .child_by_field_name("body")
                    .map_or(usize::MAX, |b| b.start_byte());
                let function = (node.kind() == "function_definition").then(|| {
                    found.functions.push((qual.clone(), mask));
                    found.functions.len() - 1
                });
                scopes.push(Scope {
                    id: node.id(),
                    mask,
                    body,
                    function,
                });
                return;
            }
            // Parameters' defaults and annotations run where the function is defined: they
            // belong to the scope around it, which keeps its text.
            let Some(scope) = scopes.last().filter(|s| node.start_byte() >= s.body) else {
                return;
            };
            if let (Some(owner), true) = (scope.function, scope.mask != 0) {
                if let Some((rule, site)) = site_of(node, text, &lines, scope.mask) {
                    found.sites.push(site);
                    found.tags.push((rule, owner));
                }
            }
        });
        Some(found)
    }
}

/// The sites of a text, each with its rule and the function it belongs to, and the
/// functions (qualified name, mask).
#[derive(Default)]
struct Found {
    sites: Vec<Site>,
    tags: Vec<(Rule, usize)>,
    functions: Vec<(String, u8)>,
}

impl Found {
    /// The functions (indices into `functions`) that hold a site.
    fn owners(&self) -> BTreeSet<usize> {
        self.tags.iter().map(|(_, o)| *o).collect()
    }
}

/// What `Rewriter::measure` counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Measure {
    /// Functions (and methods) in the files this level takes.
    pub functions: usize,
    /// Functions the seed (or a region) picked.
    pub picked: usize,
    /// Functions whose text the view changes.
    pub changed: usize,
    /// Sites rewritten, by rule (in `Rule::ALL` order).
    pub sites: [usize; 7],
    /// Chunks with sites that the self-check kept as they were.
    pub chunks_kept: usize,
}

impl Measure {
    pub fn add(&mut self, o: &Measure) {
        self.functions += o.functions;
        self.picked += o.picked;
        self.changed += o.changed;
        for (a, b) in self.sites.iter_mut().zip(o.sites) {
            *a += b;
        }
        self.chunks_kept += o.chunks_kept;
    }
}

struct Scope {
    id: usize,
    mask: u8,
    /// Where the body starts.
    body: usize,
    /// Index of the function in `Found::functions` (`None` for a class).
    function: Option<usize>,
}

/// The site of `node` under the rules of `mask`, if any. At most one rule matches a node:
/// they look at different node kinds, or (De Morgan against `invert_if`) defer explicitly.
fn site_of(node: Node, text: &[u8], lines: &Lines, mask: u8) -> Option<(Rule, Site)> {
    let on = |r: Rule| mask & r.bit() != 0;
    let tag = |r: Rule| move |s: Site| (r, s);
    let fold = || {
        on(Rule::FoldNegation)
            .then(|| fold_negation::site(node, text))
            .flatten()
            .map(tag(Rule::FoldNegation))
    };
    let de_morgan = || de_morgan_site(node, text, on).map(tag(Rule::DeMorgan));
    match node.kind() {
        "if_statement" if on(Rule::InvertIf) => {
            invert_if::site(node, text, lines).map(tag(Rule::InvertIf))
        }
        "comparison_operator" => on(Rule::SwapEquality)
            .then(|| swap_equality::site(node, text))
            .flatten()
            .map(tag(Rule::SwapEquality))
            .or_else(fold),
        "not_operator" => fold().or_else(de_morgan),
        "boolean_operator" => de_morgan(),
        "conditional_expression" => on(Rule::InvertConditional)
            .then(|| invert_conditional::site(node, text))
            .flatten()
            .map(tag(Rule::InvertConditional)),
        "string" => on(Rule::SwapQuotes)
            .then(|| swap_quotes::site(node, text))
            .flatten()
            .map(tag(Rule::SwapQuotes)),
        "list" | "tuple" => on(Rule::MembershipLiteral)
            .then(|| {
                node.parent()
                    .and_then(|p| membership_literal::site(p, text))
            })
            .flatten()
            .filter(|s| s.range == node.byte_range())
            .map(tag(Rule::MembershipLiteral)),
        _ => None,
    }
}

fn de_morgan_site(node: Node, text: &[u8], on: impl Fn(Rule) -> bool) -> Option<Site> {
    if !on(Rule::DeMorgan) || !de_morgan::is_condition(node) {
        return None;
    }
    let parent = node.parent()?;
    if on(Rule::InvertIf) && invert_if::applies(parent, text) {
        return None;
    }
    de_morgan::site(node, text)
}

/// The qualified name of a function or class definition: the names of the definitions
/// around it and its own, dotted (`Cart.total.inner`). The one definition for choosing
/// functions (`Rewriter::mask`), for regions and for skip lists, so that they agree.
pub fn qualified_name(def: Node, text: &[u8]) -> String {
    let name_of = |n: Node| {
        n.child_by_field_name("name")
            .and_then(|n| n.utf8_text(text).ok())
            .unwrap_or("")
            .to_string()
    };
    let mut parts = vec![name_of(def)];
    let mut up = def.parent();
    while let Some(n) = up {
        if matches!(n.kind(), "function_definition" | "class_definition") {
            parts.push(name_of(n));
        }
        up = n.parent();
    }
    parts.reverse();
    parts.join(".")
}

pub(crate) fn python_parser() -> Option<Parser> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .ok()?;
    Some(parser)
}

/// A line that starts a chunk: code in its first column (not indentation, a comment or a
/// blank line).
fn starts_chunk(line: &[u8]) -> bool {
    line.first()
        .is_some_and(|b| !matches!(b, b' ' | b'\t' | b'#' | b'\r' | b'\n' | b'\x0c'))
}

/// `text` cut before every line that starts a chunk; the pieces join back to `text`.
fn chunks(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut starts: Vec<usize> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive(|&b| b == b'\n') {
        if at == 0 || starts_chunk(line) {
            starts.push(at);
        }
        at += line.len();
    }
    let ends: Vec<usize> = starts.iter().skip(1).copied().chain([text.len()]).collect();
    starts.into_iter().zip(ends).map(move |(a, b)| &text[a..b])
}

/// Pre-order walk with one cursor; `f(node, true)` on entering, `f(node, false)` on leaving.
fn walk<'t>(root: Node<'t>, f: &mut impl FnMut(Node<'t>, bool)) {
    let mut cursor = root.walk();
    loop {
        f(cursor.node(), true);
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            f(cursor.node(), false);
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Test code keeps its text: a test's assertion message shows its own source.
pub fn is_test_path(path: &[u8]) -> bool {
    let parts: Vec<&[u8]> = path.split(|&b| b == b'/').collect();
    let Some((name, dirs)) = parts.split_last() else {
        return false;
    };
    name.starts_with(b"test_")
        || name.ends_with(b"_test.py")
        || *name == b"conftest.py"
        || *name == b"tests.py"
        || dirs
            .iter()
            .any(|d| matches!(*d, b"tests" | b"test" | b"testing"))
}

/// Byte offsets of a text's lines.
pub struct Lines {
    starts: Vec<usize>,
    text_len: usize,
    /// For each line, where its content ends (before `\n` or `\r\n`).
    ends: Vec<usize>,
}

impl Lines {
    pub fn new(text: &[u8]) -> Lines {
        let mut starts = vec![0];
        let mut ends = Vec::new();
        for (i, &b) in text.iter().enumerate() {
            if b == b'\n' {
                let end = if i > 0 && text[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                };
                ends.push(end);
                starts.push(i + 1);
            }
        }
        ends.push(text.len());
        Lines {
            starts,
            text_len: text.len(),
            ends,
        }
    }

    /// Where row `row` starts.
    pub fn start(&self, row: usize) -> Option<usize> {
        self.starts
            .get(row)
            .copied()
            .filter(|&s| s <= self.text_len)
    }

    /// Where the content of row `row` ends (its line break excluded).
    pub fn content_end(&self, row: usize) -> Option<usize> {
        self.ends.get(row).copied()
    }
}

#[cfg(test)]
mod tests;
