//! Which names the repository uses *on* outside code: the names that must stay when they
//! are also outside names, even outside names that outside code only defines
//! (`EnvScan::defined_only`, the rule "outside names outside code only defines").
//!
//! Guarantee (a measured one, like the rule it serves): a name the repository writes
//!
//! - as an attribute or method anywhere along a chain that starts from a name bound to an
//!   outside module or to a value derived from one (`werkzeug.utils.send_from_directory`,
//!   `conn = sqlite3.connect(..)` then `conn.create_function`),
//! - as a keyword argument of a call along such a chain, or as the string of a `getattr`
//!   on it,
//! - as a function decorated by such a chain, or a parameter of one (a hook an outside
//!   registry calls back),
//! - in a class derived, directly or through the repository's own classes, from a class
//!   that is not the repository's: its methods, their parameters, its class attributes, and
//!   the attributes and keywords its methods use on `self`, `cls` and `super()` (overrides
//!   and template methods outside code calls),
//!
//! is listed. "Derived from" a value: the names an assignment, `with ... as`, `for ... in`
//! or an annotation binds from such a chain, flow-insensitive over the file (a name bound
//! that way anywhere counts everywhere in the file). What it cannot see: values that reach
//! the repository through attributes of its own objects (`self.adapter = Adapter()` then
//! `self.adapter.rare_method()`), return values of its own functions, and outside objects
//! handed in by callers. Those are why the rule also requires the outside name to be rare
//! in the environment (`bundle::LOOSE_OUTSIDE_MAX_FILES`), and why it is measured on the
//! law-5 corpus.
//!
//! How: the lexer's logical lines with their indentation (`defs::logical_lines_indented`),
//! no parse; class bodies are tracked by indentation like `scope.rs` does. Doubt lists more
//! names, which costs strength, never behaviour.

use std::collections::{BTreeSet, HashMap, HashSet};

use rayon::prelude::*;

use crate::transform::defs::{is_assign_eq, logical_lines_indented, split_top, T};

/// The names the repository's Python files use on outside code (see the module note).
/// `is_outside(top)` says whether an absolute import of the top-level module `top` reads
/// outside code.
pub fn outside_uses(
    python: &[(&str, &[u8])],
    is_outside: &(dyn Fn(&str) -> bool + Sync),
) -> BTreeSet<String> {
    let files: Vec<FileUses<'_>> = python
        .par_iter()
        .map(|(_, src)| file_uses(src, is_outside))
        .collect();
    let mut out: BTreeSet<String> = BTreeSet::new();
    let mut classes: HashMap<&str, Vec<&ClassInfo<'_>>> = HashMap::new();
    for f in &files {
        out.extend(f.uses.iter().map(|s| s.to_string()));
        for c in &f.classes {
            classes.entry(c.name).or_default().push(c);
        }
    }
    // A class is derived from outside code when a base starts from an outside name, or is
    // no class of the repository (a builtin, a name imported through another of its
    // modules), or is a derived class of the repository.
    let mut derived: HashSet<&str> = HashSet::new();
    for (name, list) in &classes {
        let outside = list.iter().any(|c| {
            c.outside
                || c.bases
                    .iter()
                    .any(|b| *b != "object" && !classes.contains_key(b))
        });
        if outside {
            derived.insert(name);
        }
    }
    loop {
        let more: Vec<&str> = classes
            .iter()
            .filter(|(name, list)| {
                !derived.contains(*name)
                    && list
                        .iter()
                        .any(|c| c.bases.iter().any(|b| derived.contains(b)))
            })
            .map(|(name, _)| *name)
            .collect();
        if more.is_empty() {
            break;
        }
        derived.extend(more);
    }
    for name in &derived {
        for c in &classes[name] {
            out.extend(c.body.iter().map(|s| s.to_string()));
        }
    }
    out
}

/// One `class` statement of a file.
#[derive(Debug, Default)]
struct ClassInfo<'a> {
    name: &'a str,
    /// The last name of each base (`C` of `a.b.C`, `Generic` of `t.Generic[T]`).
    bases: Vec<&'a str>,
    /// A base (or the metaclass) starts from an outside name.
    outside: bool,
    /// What the class shares with its bases if they are outside code (module note).
    body: HashSet<&'a str>,
}

#[derive(Debug, Default)]
struct FileUses<'a> {
    uses: HashSet<&'a str>,
    classes: Vec<ClassInfo<'a>>,
}

fn file_uses<'a>(src: &'a [u8], is_outside: &(dyn Fn(&str) -> bool + Sync)) -> FileUses<'a> {
    // (indentation, code tokens, tokens with whole strings)
    let mut lines: Vec<(usize, Vec<T<'a>>, Vec<T<'a>>)> = Vec::new();
    logical_lines_indented(src, true, |indent, line| {
        let code: Vec<T<'a>> = line
            .iter()
            .filter(|t| !matches!(t, T::Str(_) | T::P(b'"', _)))
            .copied()
            .collect();
        if !code.is_empty() {
            lines.push((indent, code, line.to_vec()));
        }
    });
    let mut out = FileUses::default();
    let mut bound: HashSet<&'a str> = HashSet::new();
    for (_, code, _) in &lines {
        import_binds(code, is_outside, &mut bound, &mut out.uses);
    }
    if !bound.is_empty() {
        // Flow-insensitive: bind until nothing changes (a few rounds in practice).
        for _ in 0..6 {
            let before = bound.len();
            for (_, code, _) in &lines {
                for n in flow_binds(code, src, &bound) {
                    bound.insert(n);
                }
            }
            if bound.len() == before {
                break;
            }
        }
    }
    let mut decorated = false;
    // Open classes: (indentation of the `class` line, index in out.classes, body indentation).
    let mut open: Vec<(usize, usize, Option<usize>)> = Vec::new();
    let selves: HashSet<&str> = ["self", "cls", "super"].into_iter().collect();
    for (indent, code, raw) in &lines {
        if !bound.is_empty() {
            chains(code, src, &bound, &mut out.uses);
            getattr_strings(raw, &bound, &mut out.uses);
        }
        let def = def_header(code);
        if let [T::P(b'@', _), T::Word(w), ..] = code.as_slice() {
            decorated |= bound.contains(w);
        } else {
            if decorated {
                if let Some((name, params)) = &def {
                    out.uses.insert(name);
                    out.uses.extend(params.iter().copied());
                }
            }
            decorated = false;
        }
        while open.last().is_some_and(|(i, _, _)| *indent <= *i) {
            open.pop();
        }
        if let Some((_, k, body)) = open.last_mut() {
            let body_indent = *body.get_or_insert(*indent);
            let class = &mut out.classes[*k];
            if *indent == body_indent {
                if let Some((name, params)) = &def {
                    class.body.insert(name);
                    class.body.extend(params.iter().copied());
                } else if let [T::Word("class"), T::Word(name), ..] = code.as_slice() {
                    class.body.insert(name);
                } else {
                    class.body.extend(assigned_names(code, src));
                }
            }
            chains(code, src, &selves, &mut class.body);
        }
        if let [T::Word("class"), T::Word(name), rest @ ..] = code.as_slice() {
            let mut c = ClassInfo {
                name,
                ..ClassInfo::default()
            };
            if let [T::P(b'(', _), ..] = rest {
                let inner = &rest[1..matching(rest, 0).unwrap_or(rest.len())];
                for piece in split_top(inner, b',') {
                    // `metaclass=M` counts like a base when M is outside code's.
                    let (expr, keyword) = match piece {
                        [T::Word(_), T::P(b'=', _), value @ ..] => (value, true),
                        _ => (piece, false),
                    };
                    if root(expr).is_some_and(|r| bound.contains(r)) {
                        c.outside = true;
                    }
                    if !keyword {
                        c.bases.extend(last_name(expr));
                    }
                }
            }
            out.classes.push(c);
            open.push((*indent, out.classes.len() - 1, None));
        }
    }
    out
}

/// `import a.b as c`, `from a.b import x as y`: bind the local names of outside modules, and
/// note the module path parts and imported names as used.
fn import_binds<'a>(
    code: &[T<'a>],
    is_outside: &(dyn Fn(&str) -> bool + Sync),
    bound: &mut HashSet<&'a str>,
    uses: &mut HashSet<&'a str>,
) {
    match code {
        [T::Word("import"), rest @ ..] => {
            for piece in split_top(rest, b',') {
                let words = dotted(piece);
                let Some(top) = words.first() else { continue };
                if !is_outside(top) {
                    continue;
                }
                uses.extend(words[1..].iter().copied());
                bound.insert(alias(piece).unwrap_or(top));
            }
        }
        [T::Word("from"), T::Word(top), rest @ ..] if is_outside(top) => {
            let Some(at) = rest.iter().position(|t| matches!(t, T::Word("import"))) else {
                return;
            };
            uses.extend(dotted(&rest[..at]));
            let names: Vec<T<'a>> = rest[at + 1..]
                .iter()
                .filter(|t| !matches!(t, T::P(b'(' | b')', _)))
                .copied()
                .collect();
            for piece in split_top(&names, b',') {
                if let Some(T::Word(name)) = piece.first() {
                    uses.insert(name);
                    bound.insert(alias(piece).unwrap_or(name));
                }
            }
        }
        _ => {}
    }
}

/// The words of a dotted name at the start of `toks` (`a.b.c`).
fn dotted<'a>(toks: &[T<'a>]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for t in toks {
        match t {
            T::Word("as") => break,
            T::Word(w) => out.push(*w),
            T::P(b'.', _) => {}
            _ => break,
        }
    }
    out
}

fn alias<'a>(piece: &[T<'a>]) -> Option<&'a str> {
    match piece {
        [.., T::Word("as"), T::Word(a)] => Some(a),
        _ => None,
    }
}

/// The name a chain of attributes, calls and subscripts starts from (`a` of `a.b(c)[d]`),
/// after `await`, `yield` or `yield from`.
fn root<'a>(expr: &[T<'a>]) -> Option<&'a str> {
    let mut e = expr;
    while let [T::Word("await" | "yield" | "from"), rest @ ..] = e {
        e = rest;
    }
    match e.first() {
        Some(T::Word(w)) if !crate::transform::policy::is_keyword(w) => Some(w),
        _ => None,
    }
}

/// The last name of a base class expression before any subscript (`C` of `a.b.C[T]`).
fn last_name<'a>(expr: &[T<'a>]) -> Option<&'a str> {
    let mut last = None;
    for t in expr {
        match t {
            T::Word(w) => last = Some(*w),
            T::P(b'.', _) => {}
            _ => break,
        }
    }
    last
}

/// Index of the bracket closing the one at `open` in `toks`.
fn matching(toks: &[T<'_>], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t {
            T::P(b'(' | b'[' | b'{', _) => depth += 1,
            T::P(b')' | b']' | b'}', _) => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Simple names a target list binds (`a`, `a, *b`, `(a, b)`, `a: int`); attributes and
/// subscripts bind none.
fn target_words<'a>(toks: &[T<'a>]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for piece in split_top(toks, b',') {
        let piece = match piece.iter().position(|t| matches!(t, T::P(b':', _))) {
            Some(i) => &piece[..i],
            None => piece,
        };
        let words: Vec<&T<'a>> = piece
            .iter()
            .filter(|t| !matches!(t, T::P(b'*' | b'(' | b')' | b'[' | b']', _)))
            .collect();
        if piece.iter().any(|t| matches!(t, T::P(b'.', _))) {
            continue;
        }
        if piece
            .first()
            .is_some_and(|t| matches!(t, T::P(b'(' | b'[', _)))
        {
            out.extend(target_words(&piece[1..piece.len().saturating_sub(1)]));
        } else if let [T::Word(w)] = words.as_slice() {
            if !crate::transform::policy::is_keyword(w) {
                out.push(*w);
            }
        }
    }
    out
}

/// Depth-0 positions of assignment `=` in a logical line.
fn assign_eqs(code: &[T<'_>], src: &[u8]) -> Vec<usize> {
    let mut depth = 0i32;
    let mut out = Vec::new();
    for (i, t) in code.iter().enumerate() {
        match t {
            T::P(b'(' | b'[' | b'{', _) => depth += 1,
            T::P(b')' | b']' | b'}', _) => depth -= 1,
            T::P(b'=', pos) if depth == 0 && is_assign_eq(src, *pos) => out.push(i),
            _ => {}
        }
    }
    out
}

/// Names a statement binds at its own level: assignment targets, and annotated names.
fn assigned_names<'a>(code: &[T<'a>], src: &[u8]) -> Vec<&'a str> {
    if matches!(code.first(), Some(T::Word(w)) if crate::transform::policy::is_keyword(w)) {
        return Vec::new();
    }
    let eqs = assign_eqs(code, src);
    let mut out = Vec::new();
    let mut start = 0;
    for &e in &eqs {
        out.extend(target_words(&code[start..e]));
        start = e + 1;
    }
    if eqs.is_empty() {
        if let [T::Word(w), T::P(b':', _), ..] = code {
            out.push(*w);
        }
    }
    out
}

/// Names one statement binds from a value rooted in `bound` (module note).
fn flow_binds<'a>(code: &[T<'a>], src: &[u8], bound: &HashSet<&'a str>) -> Vec<&'a str> {
    let rooted = |e: &[T<'a>]| root(e).is_some_and(|r| bound.contains(r));
    let mut out = Vec::new();
    let body = match code {
        [T::Word("async"), rest @ ..] => rest,
        _ => code,
    };
    match body {
        [T::Word("with"), rest @ ..] => {
            let head = &rest[..header_end(rest)];
            for item in split_top(head, b',') {
                if let Some(k) = item.iter().position(|t| matches!(t, T::Word("as"))) {
                    if rooted(&item[..k]) {
                        out.extend(target_words(&item[k + 1..]));
                    }
                }
            }
        }
        [T::Word("for"), rest @ ..] => {
            if let Some(k) = rest.iter().position(|t| matches!(t, T::Word("in"))) {
                let end = k + 1 + header_end(&rest[k + 1..]);
                if rooted(&rest[k + 1..end]) {
                    out.extend(target_words(&rest[..k]));
                }
            }
        }
        [T::Word("def"), T::Word(name), ..] => {
            if let Some(k) = body.iter().position(|t| matches!(t, T::P(b'-', _))) {
                if matches!(body.get(k + 1), Some(T::P(b'>', _))) && rooted(&body[k + 2..]) {
                    out.push(*name);
                }
            }
            out.extend(annotated_params(body, bound));
        }
        [T::Word("class"), T::Word(name), tail @ ..]
            if matches!(tail.first(), Some(T::P(b'(', _))) =>
        {
            let close = matching(tail, 0).unwrap_or(tail.len());
            if split_top(&tail[1..close], b',').iter().any(|b| rooted(b)) {
                out.push(*name);
            }
        }
        [T::Word(w), ..] if crate::transform::policy::is_keyword(w) => {}
        _ => {
            let eqs = assign_eqs(code, src);
            if let Some(&last) = eqs.last() {
                if rooted(&code[last + 1..]) {
                    let mut start = 0;
                    for &e in &eqs {
                        out.extend(target_words(&code[start..e]));
                        start = e + 1;
                    }
                }
            }
            // `x: outside.Type` with or without a value.
            if let [T::Word(w), T::P(b':', _), ann @ ..] = code {
                if rooted(ann) {
                    out.push(*w);
                }
            }
        }
    }
    out
}

/// Where a compound statement's header ends: its depth-0 `:`.
fn header_end(toks: &[T<'_>]) -> usize {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate() {
        match t {
            T::P(b'(' | b'[' | b'{', _) => depth += 1,
            T::P(b')' | b']' | b'}', _) => depth -= 1,
            T::P(b':', _) if depth == 0 => return i,
            _ => {}
        }
    }
    toks.len()
}

/// A `def` line's name and parameter names.
fn def_header<'a>(code: &[T<'a>]) -> Option<(&'a str, Vec<&'a str>)> {
    let body = match code {
        [T::Word("async"), rest @ ..] => rest,
        _ => code,
    };
    let [T::Word("def"), T::Word(name), rest @ ..] = body else {
        return None;
    };
    let open = rest.iter().position(|t| matches!(t, T::P(b'(', _)))?;
    let close = matching(rest, open).unwrap_or(rest.len());
    let mut params = Vec::new();
    for piece in split_top(&rest[open + 1..close], b',') {
        let mut p = piece;
        while let [T::P(b'*' | b'/', _), tail @ ..] = p {
            p = tail;
        }
        if let Some(T::Word(w)) = p.first() {
            params.push(*w);
        }
    }
    Some((name, params))
}

/// Parameters of a `def` line annotated with a type rooted in `bound`.
fn annotated_params<'a>(body: &[T<'a>], bound: &HashSet<&'a str>) -> Vec<&'a str> {
    let Some(open) = body.iter().position(|t| matches!(t, T::P(b'(', _))) else {
        return Vec::new();
    };
    let close = matching(body, open).unwrap_or(body.len());
    let mut out = Vec::new();
    for piece in split_top(&body[open + 1..close], b',') {
        let mut p = piece;
        while let [T::P(b'*' | b'/', _), tail @ ..] = p {
            p = tail;
        }
        if let [T::Word(w), T::P(b':', _), ann @ ..] = p {
            if root(ann).is_some_and(|r| bound.contains(r)) {
                out.push(*w);
            }
        }
    }
    out
}

/// Attributes along every chain that starts from a name in `roots`, and the keywords of
/// the calls along it.
fn chains<'a>(code: &[T<'a>], src: &[u8], roots: &HashSet<&str>, out: &mut HashSet<&'a str>) {
    for i in 0..code.len() {
        let T::Word(w) = code[i] else { continue };
        if !roots.contains(w) || (i > 0 && matches!(code[i - 1], T::P(b'.', _))) {
            continue;
        }
        let mut j = i + 1;
        loop {
            match (code.get(j), code.get(j + 1)) {
                (Some(T::P(b'.', _)), Some(T::Word(a))) => {
                    out.insert(a);
                    j += 2;
                }
                (Some(T::P(b'(', _)), _) => {
                    let end = matching(code, j).unwrap_or(code.len());
                    call_keywords(&code[j + 1..end], src, out);
                    j = end + 1;
                }
                (Some(T::P(b'[', _)), _) => j = matching(code, j).unwrap_or(code.len()) + 1,
                _ => break,
            }
        }
    }
}

/// Keyword argument names among a call's arguments.
fn call_keywords<'a>(args: &[T<'a>], src: &[u8], out: &mut HashSet<&'a str>) {
    for piece in split_top(args, b',') {
        if let [T::Word(k), T::P(b'=', pos), ..] = piece {
            if is_assign_eq(src, *pos) {
                out.insert(k);
            }
        }
    }
}

/// `getattr(x, "name")` (and `hasattr`, `setattr`, `delattr`) with `x` in `bound`.
fn getattr_strings<'a>(raw: &[T<'a>], bound: &HashSet<&'a str>, out: &mut HashSet<&'a str>) {
    for w in raw.windows(6) {
        if let [T::Word(f), T::P(b'(', _), T::Word(x), T::P(b',', _), T::P(b'"', _) | T::Str(_), ..] =
            w
        {
            if matches!(*f, "getattr" | "hasattr" | "setattr" | "delattr") && bound.contains(x) {
                if let Some(T::Str(s)) = w[4..].iter().find(|t| matches!(t, T::Str(_))) {
                    out.insert(s);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(files: &[&str]) -> BTreeSet<String> {
        let python: Vec<(&str, &[u8])> = files.iter().map(|s| ("m.py", s.as_bytes())).collect();
        outside_uses(&python, &|top: &str| top != "mine")
    }

    #[test]
    fn attributes_and_keywords_on_outside_modules_and_values() {
        let u = uses(&["import werkzeug.utils\nimport sqlite3 as db\nfrom mine import helper\n\ndef f(p):\n    werkzeug.utils.send_from_directory(p, max_age=3)\n    conn = db.connect(p)\n    conn.create_function('f', 1, p, deterministic=True)\n    helper.not_outside(q=1)\n    return getattr(conn, 'isolation_level')\n"]);
        for n in [
            "utils",
            "send_from_directory",
            "max_age",
            "connect",
            "create_function",
            "deterministic",
            "isolation_level",
        ] {
            assert!(u.contains(n), "{n} missing from {u:?}");
        }
        assert!(!u.contains("not_outside") && !u.contains("q"), "{u:?}");
    }

    #[test]
    fn names_of_classes_derived_from_outside_ones_across_files() {
        let u = uses(&[
            "import click\n\nclass Group(click.Group):\n    kind = 1\n\n    def get_command(self, ctx, cmd_name):\n        return self.lookup_extra(name=cmd_name)\n\ndef standalone(x):\n    x.plain_method()\n",
            "from .a import Group\n\nclass AppGroup(Group):\n    def list_commands(self, ctx):\n        return super().list_commands(ctx)\n\nclass Plain:\n    def only_mine(self):\n        pass\n",
        ]);
        for n in [
            "Group",
            "kind",
            "get_command",
            "ctx",
            "cmd_name",
            "lookup_extra",
            "name",
            "list_commands",
        ] {
            assert!(u.contains(n), "{n} missing from {u:?}");
        }
        assert!(
            !u.contains("only_mine") && !u.contains("plain_method"),
            "{u:?}"
        );
    }

    #[test]
    fn decorated_hooks_and_annotated_values() {
        let u = uses(&["import pluggy\nimport typing as t\nhookimpl = pluggy.HookimplMarker('x')\n\n@hookimpl\ndef my_hook(config, items):\n    pass\n\ndef g(r: t.Any):\n    return r.rare_attr\n"]);
        for n in [
            "HookimplMarker",
            "my_hook",
            "config",
            "items",
            "Any",
            "rare_attr",
        ] {
            assert!(u.contains(n), "{n} missing from {u:?}");
        }
    }
}
