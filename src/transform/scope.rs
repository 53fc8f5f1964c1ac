//! Which runs of a Python file can reach code outside the repository (*exposed* runs), and
//! which are only ever local variables of the repository's own functions.
//!
//! Guarantee: a run that `exposed_runs` leaves out occurs in the file only as a name inside
//! function bodies: not at module level or directly in a class body, not after a `.`, not
//! as a parameter or keyword argument, not in an import or `global` statement, not in a
//! string the program can read (a docstring is dropped, so it does not count, unless
//! doctest runs its example lines), not in a function that hands its locals out
//! (`locals()`, `vars()`), and, in a file whose module namespace takes names from elsewhere
//! (a star import, `globals()`), only where its function binds it (`bind.rs`: a bound name
//! is that function's local, which no module namespace holds; a name a function only reads
//! may be one the namespace was given). Outside code could only reach such a name through
//! an attribute, a parameter, a keyword or a string, and each of those exposes it; so
//! renaming it everywhere, consistently, changes nothing outside code can observe. The policy
//! unions this over every file to rename pure locals that share a name with outside code
//! (`rv`, `result`, `items`).
//!
//! How: the lexer's events (code runs and punctuation; strings and comments already set
//! aside) are grouped into logical lines (brackets and backslashes join physical lines), and
//! scopes are tracked by the indentation of logical lines: a stack of `def`/`class` headers,
//! each popped by the first later line indented no deeper than it. No parse, so broken input
//! is read all the same; where brackets never close, a line starting in column 0 ends the
//! logical line, which can only make more runs exposed. Mistakes in this direction cost
//! strength, never behaviour; every rule is written so that doubt exposes.

use std::collections::HashSet;

use super::bind::{Binds, Next, RunAt};
use super::defs::is_assign_eq;
use super::lexer::{self, Class, Event};

/// Runs of `src` that may be seen by code outside the repository (see the module note).
pub fn exposed_runs(src: &[u8]) -> HashSet<&str> {
    let mut x = Exposure::new(src);
    lexer::scan_python(src, |e| x.event(e));
    x.finish().all
}

/// What one file exposes.
#[derive(Debug, Default)]
pub struct Exposed<'a> {
    /// Runs outside code may see (the module note): through code or a readable string.
    pub all: HashSet<&'a str>,
    /// Runs the file's *code* exposes (strings left out). A code run of the file missing
    /// here is a local variable whose name no code can look up: only a string could spell
    /// it, and a string is data, so strings that spell it need not change with it.
    pub by_code: HashSet<&'a str>,
}

/// What comes right before a code run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Def {
    /// Not in a `def` header.
    No,
    /// `def` was the last code event: the next run is the function's name.
    Name,
    /// The name came: the next `(` opens the parameters.
    Paren,
    /// Inside the type parameters (`def f[T](x)`) that opened at this depth.
    TypeParams(u32),
}

/// One run of the current logical line, before the line's own rules (imports, docstrings)
/// are known.
#[derive(Debug, Clone, Copy)]
struct LineRun<'a> {
    run: &'a str,
    start: usize,
    code: bool,
    exposed: bool,
    /// The innermost function around the run, if any.
    function: Option<usize>,
}

/// The exposure scan of one file, fed the lexer's events in order (so a caller that lexes
/// the file for other reasons can share the pass).
pub struct Exposure<'a> {
    src: &'a [u8],
    exposed: HashSet<&'a str>,
    /// The part of `exposed` that code exposes.
    by_code: HashSet<&'a str>,
    /// Code runs not exposed where they occur, with their function: exposed after all if the
    /// function hands out its locals, or the module's namespace is open.
    local: Vec<(&'a str, usize)>,
    /// Per function: whether it calls `locals()` or `vars()`.
    hands_out_locals: Vec<bool>,
    /// The module namespace takes names from elsewhere (a star import, `globals()`, `locals()`
    /// at module level): a name read in a function may be one of them.
    open_namespace: bool,
    /// Open `def`/`class` headers: indentation and, for a `def`, its function number.
    scopes: Vec<(usize, Option<usize>)>,
    // The current logical line: whether it has begun, its indentation and first byte, its
    // runs, and the function it sits in.
    started: bool,
    indent: usize,
    line_start: usize,
    line: Vec<LineRun<'a>>,
    function: Option<usize>,
    /// No code run or punctuation yet: only string literals (a docstring).
    only_strings: bool,
    /// An import or `global` statement: every run of the line is exposed.
    whole_line: bool,
    /// A `def` (true) or `class` (false) header whose colon is still to come.
    header: Option<bool>,
    /// No code event yet (so a `def` or `class` now starts a header).
    first_code: bool,
    depth: u32,
    /// A backslash ended the physical line.
    continued: bool,
    after_dot: bool,
    /// The index in `line` of a run that is a keyword argument if an `=` follows.
    keyword_candidate: Option<usize>,
    def: Def,
    /// Depth outside the parentheses of a `def` header, while inside them.
    params_depth: Option<u32>,
    /// Depths of the `lambda`s whose parameter list is open.
    lambdas: Vec<u32>,
    /// `import` was the last code event (a `*` next is a star import).
    after_import: bool,
    /// A call without arguments of `globals` (true), `locals` or `vars` (false) is under way:
    /// the name was the last code event, then perhaps the `(`.
    namespace_call: Option<(bool, bool)>,
    /// `class` was the last code event: the next run is a class name.
    after_class: bool,
    /// `eval` or `exec` was the last code event: called, it reads the caller's locals by the
    /// names its text holds.
    eval_call: bool,
    /// Runs each function binds (`(function, run)`): such a run is that function's local
    /// wherever it occurs in it, so no namespace opened elsewhere reaches it (`bind.rs`).
    binds: Binds<'a>,
}

impl<'a> Exposure<'a> {
    pub fn new(src: &'a [u8]) -> Self {
        let (indent, line_start) = indent_at(src, 0);
        Exposure {
            src,
            exposed: HashSet::new(),
            by_code: HashSet::new(),
            local: Vec::new(),
            hands_out_locals: Vec::new(),
            open_namespace: false,
            scopes: Vec::new(),
            started: false,
            indent,
            line_start,
            line: Vec::new(),
            function: None,
            only_strings: true,
            whole_line: false,
            header: None,
            first_code: true,
            depth: 0,
            continued: false,
            after_dot: false,
            keyword_candidate: None,
            def: Def::No,
            params_depth: None,
            lambdas: Vec::new(),
            after_import: false,
            namespace_call: None,
            eval_call: false,
            after_class: false,
            binds: Binds::default(),
        }
    }

    /// Take the next event of `lexer::scan_python` over the same source.
    pub fn event(&mut self, e: Event) {
        match e {
            Event::Run(r) => {
                let Some(run) = self
                    .src
                    .get(r.start..r.end)
                    .and_then(|b| std::str::from_utf8(b).ok())
                else {
                    return;
                };
                match r.class {
                    Class::Code => self.code_run(run, r.start),
                    Class::String => {
                        self.start_line();
                        self.binds.settle(Next::Other);
                        self.line.push(LineRun {
                            run,
                            start: r.start,
                            code: false,
                            exposed: false,
                            function: self.function,
                        });
                        self.after_dot = false;
                        self.keyword_candidate = None;
                        self.after_import = false;
                        self.namespace_call = None;
                        self.eval_call = false;
                        self.after_class = false;
                    }
                    // Nothing reads names in comments.
                    Class::Comment | Class::Text | Class::Fixed | Class::Dist => {}
                }
            }
            Event::Punct(pos) => self.punct(pos),
        }
    }

    /// The exposed runs of the whole file.
    pub fn finish(mut self) -> Exposed<'a> {
        self.end_line(self.src.len());
        for (run, f) in std::mem::take(&mut self.local) {
            let handed_out = self.hands_out_locals.get(f).copied().unwrap_or(true);
            if handed_out || (self.open_namespace && !self.binds.binds(f, run)) {
                self.exposed.insert(run);
                self.by_code.insert(run);
            }
        }
        Exposed {
            all: self.exposed,
            by_code: self.by_code,
        }
    }

    fn start_line(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        while self.scopes.last().is_some_and(|s| s.0 >= self.indent) {
            self.scopes.pop();
        }
        self.function = self.scopes.last().and_then(|s| s.1);
    }

    fn code_run(&mut self, run: &'a str, start: usize) {
        self.start_line();
        self.binds.settle(Next::Run(run));
        let first = self.first_code;
        self.only_strings = false;
        let after_dot = std::mem::take(&mut self.after_dot);
        self.keyword_candidate = None;
        self.after_import = false;
        // The name of a function or class, nested ones too: its `__name__` is data that
        // outside code reads (click names a command after its function), so strings that
        // spell it must follow it. (Renaming it everywhere alike is still safe: the opt-in
        // pure-local rule may.)
        if self.def == Def::Name || std::mem::take(&mut self.after_class) {
            self.by_code.insert(run);
        }
        let exposed = self.function.is_none()
            || after_dot
            || self.params_depth.is_some_and(|d| self.depth > d)
            || !self.lambdas.is_empty();
        self.after_class = run == "class" && !after_dot;
        if self.first_code && run != "async" {
            self.first_code = false;
            self.header = match run {
                "def" => Some(true),
                "class" => Some(false),
                _ => None,
            };
        }
        self.def = match (self.def, run) {
            (_, "def") => Def::Name,
            (Def::Name, _) => Def::Paren,
            (Def::TypeParams(d), _) => Def::TypeParams(d),
            _ => Def::No,
        };
        match run {
            "import" => {
                self.whole_line = true;
                self.after_import = true;
            }
            "global" => self.whole_line = true,
            "lambda" => self.lambdas.push(self.depth),
            _ => {}
        }
        self.namespace_call = match run {
            "globals" | "locals" | "vars" if !after_dot => Some((run == "globals", false)),
            _ => None,
        };
        self.eval_call = matches!(run, "eval" | "exec") && !after_dot;
        if self.depth > 0 && !exposed {
            self.keyword_candidate = Some(self.line.len());
        }
        let at = RunAt {
            depth: self.depth,
            first,
            after_dot,
            function: self.function,
        };
        self.binds.code_run(run, at);
        self.line.push(LineRun {
            run,
            start,
            code: true,
            exposed,
            function: self.function,
        });
    }

    fn punct(&mut self, pos: usize) {
        let src = self.src;
        let b = src[pos];
        match b {
            b'\\' => {
                if matches!(src.get(pos + 1), Some(b'\n' | b'\r')) {
                    self.continued = true;
                }
                return;
            }
            b'\r' if src.get(pos + 1) == Some(&b'\n') => return,
            b'\n' | b'\r' => {
                self.newline(pos);
                return;
            }
            _ => {}
        }
        self.start_line();
        self.binds.settle(Next::Punct(b));
        self.binds.punct(b, self.depth, is_assign_eq(src, pos));
        self.only_strings = false;
        self.first_code = false;
        if std::mem::take(&mut self.after_import) && b == b'*' {
            self.open_namespace = true;
        }
        if std::mem::take(&mut self.eval_call) && b == b'(' {
            if let Some(f) = self.function {
                self.hands_out_locals[f] = true;
            }
        }
        match self.namespace_call.take() {
            Some((globals, false)) if b == b'(' => self.namespace_call = Some((globals, true)),
            Some((globals, true)) if b == b')' => {
                // A namespace read or filled as a dictionary: `globals()` (and `locals()` at
                // module level) make any name a function reads possibly one of its keys, and
                // a function's `locals()` hands its local names out.
                match self.function {
                    Some(f) if !globals => self.hands_out_locals[f] = true,
                    _ => self.open_namespace = true,
                }
            }
            _ => {}
        }
        if let Some(k) = self.keyword_candidate.take() {
            if b == b'=' && is_assign_eq(src, pos) {
                self.line[k].exposed = true;
            }
        }
        let def = self.def;
        self.def = match (def, b) {
            (Def::Paren, b'[') => Def::TypeParams(self.depth),
            (Def::TypeParams(d), b']') if self.depth == d + 1 => Def::Paren,
            (Def::TypeParams(d), _) => Def::TypeParams(d),
            _ => Def::No,
        };
        match b {
            b'(' | b'[' | b'{' => {
                if b == b'(' && def == Def::Paren && self.params_depth.is_none() {
                    self.params_depth = Some(self.depth);
                }
                self.depth += 1;
            }
            b')' | b']' | b'}' => {
                self.depth = self.depth.saturating_sub(1);
                if self.params_depth == Some(self.depth) {
                    self.params_depth = None;
                }
            }
            b':' if src.get(pos + 1) != Some(&b'=') => {
                if self.lambdas.last() == Some(&self.depth) {
                    self.lambdas.pop();
                } else if self.depth == 0 {
                    if let Some(is_def) = self.header.take() {
                        // A body on the header's own line already belongs to the new scope.
                        let f = is_def.then(|| {
                            self.hands_out_locals.push(false);
                            self.hands_out_locals.len() - 1
                        });
                        self.scopes.push((self.indent, f));
                        self.function = f;
                    }
                }
            }
            _ => {}
        }
        self.after_dot = b == b'.';
    }

    fn newline(&mut self, pos: usize) {
        if std::mem::take(&mut self.continued) {
            return;
        }
        if self.depth > 0 {
            // Unclosed brackets (broken input) would otherwise swallow the rest of the file
            // into one line of the current scope; a statement-like line in column 0 ends it.
            let next = self.src.get(pos + 1).copied().unwrap_or(b' ');
            if !(next.is_ascii_alphabetic() || next == b'_' || next == b'@') {
                return;
            }
        }
        self.end_line(pos);
        (self.indent, self.line_start) = indent_at(self.src, pos + 1);
    }

    fn end_line(&mut self, end: usize) {
        self.binds.end_line();
        if self.started {
            // A line of nothing but string literals is a docstring or a comment in disguise:
            // its value is dropped. Doctest runs its example lines, though, in the module's
            // namespace.
            let docstring = self.only_strings;
            let doctest = docstring
                && self
                    .src
                    .get(self.line_start..end)
                    .is_some_and(|t| t.windows(3).any(|w| w == b">>>"));
            let mut line = std::mem::take(&mut self.line);
            for r in line.drain(..) {
                let exposed = self.whole_line
                    || if r.code {
                        r.exposed
                    } else {
                        !docstring || (doctest && is_example_line(self.src, r.start))
                    };
                if exposed {
                    self.exposed.insert(r.run);
                    if r.code || self.whole_line {
                        self.by_code.insert(r.run);
                    }
                } else if let Some(f) = r.function.filter(|_| r.code) {
                    self.local.push((r.run, f));
                }
            }
            self.line = line;
        }
        self.line.clear();
        self.started = false;
        self.only_strings = true;
        self.whole_line = false;
        self.header = None;
        self.first_code = true;
        self.depth = 0;
        self.after_dot = false;
        self.keyword_candidate = None;
        self.def = Def::No;
        self.params_depth = None;
        self.lambdas.clear();
        self.after_import = false;
        self.namespace_call = None;
        self.eval_call = false;
        self.after_class = false;
    }
}

/// Whether the physical line holding `pos` is a doctest example (`>>> ` or `... `).
fn is_example_line(src: &[u8], pos: usize) -> bool {
    let start = src[..pos.min(src.len())]
        .iter()
        .rposition(|b| *b == b'\n' || *b == b'\r')
        .map_or(0, |i| i + 1);
    let text = &src[start..];
    let lead = text
        .iter()
        .position(|b| *b != b' ' && *b != b'\t')
        .unwrap_or(text.len());
    text[lead..].starts_with(b">>>") || text[lead..].starts_with(b"...")
}

/// Indentation column of the line starting at `i` (tabs to multiples of 8, as Python reads
/// them) and where its first non-blank byte is.
fn indent_at(src: &[u8], mut i: usize) -> (usize, usize) {
    let mut col = 0;
    while let Some(&b) = src.get(i) {
        match b {
            b' ' => col += 1,
            b'\t' => col = (col / 8 + 1) * 8,
            b'\x0c' => col = 0,
            _ => break,
        }
        i += 1;
    }
    (col, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exposed(src: &str) -> HashSet<&str> {
        exposed_runs(src.as_bytes())
    }

    #[track_caller]
    fn check(src: &str, yes: &[&str], no: &[&str]) {
        let e = exposed(src);
        for w in yes {
            assert!(e.contains(w), "{w} should be exposed in:\n{src}\n{e:?}");
        }
        for w in no {
            assert!(
                !e.contains(w),
                "{w} should not be exposed in:\n{src}\n{e:?}"
            );
        }
    }

    #[test]
    fn a_pure_local_is_not_exposed() {
        check(
            "def f(a):\n    rv = a + 1\n    for item in rv:\n        total = item\n    return rv\n",
            &["f", "a", "def"],
            &["rv", "item", "total"],
        );
    }

    #[test]
    fn module_and_class_level_names_are_exposed() {
        check(
            "rv = 1\nclass C(Base, metaclass=Meta):\n    field = rv\n    def m(self):\n        local = 2\n        return local\nafter = 3\n",
            &["rv", "C", "Base", "Meta", "field", "m", "after"],
            &["local"],
        );
    }

    #[test]
    fn decorators_and_defaults_at_module_level_are_exposed() {
        check(
            "@register(kind)\ndef f(x=default_value):\n    tmp = x\n    return tmp\n",
            &["register", "kind", "default_value", "x"],
            &["tmp"],
        );
    }

    #[test]
    fn attributes_are_exposed() {
        check(
            "def f(obj):\n    obj.value = 1\n    other = (obj\n        .chained)\n    return other\n",
            &["value", "chained"],
            &["other"],
        );
    }

    #[test]
    fn parameters_are_exposed_also_of_nested_functions_and_lambdas() {
        check(
            "def f():\n    def inner(p, *rest, q: hint = dflt, **kw) -> ret:\n        body = p\n        return body\n    key = lambda item, idx=0: item\n    return inner, key\n",
            &["p", "rest", "q", "hint", "dflt", "kw", "item", "idx"],
            &["inner", "body", "key", "ret"],
        );
    }

    #[test]
    fn lambda_body_is_not_a_parameter() {
        check(
            "def f(xs):\n    total = 0\n    return map(lambda v: v + total, xs)\n",
            &["v", "xs"],
            &["total"],
        );
    }

    #[test]
    fn keyword_arguments_are_exposed_comparisons_are_not() {
        check(
            "def f():\n    name = 1\n    same = 2\n    walrus = 3\n    g(name=name, k=(same == 1), w=(walrus := 4))\n    if (same <= 2) or (same != 3):\n        pass\n",
            &["name", "k", "w"],
            &["same", "walrus"],
        );
    }

    #[test]
    fn keyword_argument_on_a_continuation_line() {
        check(
            "def f():\n    g(\n        flag\n        = 1,\n    )\n",
            &["flag"],
            &[],
        );
    }

    #[test]
    fn import_and_global_lines_are_exposed() {
        check(
            "def f():\n    import json as codec\n    from .sibling import (helper,\n        other)\n    global counter\n    counter = codec\n    loc = 1\n",
            &["json", "codec", "sibling", "helper", "other", "counter"],
            &["loc"],
        );
    }

    #[test]
    fn strings_expose_docstrings_do_not() {
        let src = "def f():\n    \"\"\"Return rv, the\n    doc_word.\"\"\"\n    rv = 1\n    'also_doc' 'implicit'\n    key = d['looked_up']\n    msg = f'{rv} fstr_word'\n    return rv\n";
        check(
            src,
            &["looked_up", "fstr_word"],
            &["rv", "doc_word", "also_doc", "implicit", "key", "msg"],
        );
    }

    #[test]
    fn doctests_expose() {
        check(
            "def f():\n    \"\"\"The chain of prose.\n\n    >>> from itertools import chain\n    >>> for x in (\n    ...     links): pass\n    >>> 1\n    output_word\n    \"\"\"\n    chain = 1\n    prose = links = output_word = 2\n    return chain\n",
            &["chain", "links"],
            &["prose", "output_word"],
        );
    }

    #[test]
    fn comments_never_expose() {
        check(
            "def f():\n    rv = 1  # rv is comment_word\n    return rv\n",
            &[],
            &["rv", "comment_word"],
        );
    }

    #[test]
    fn star_import_exposes_every_name_a_function_reads_without_binding() {
        check(
            "from helpers import *\ndef f():\n    return rv\n",
            &["rv", "helpers"],
            &[],
        );
        // Bound in the function, so a local there: the module namespace cannot hold it.
        check(
            "from helpers import *\ndef f():\n    rv = 1\n    return rv\n",
            &["helpers"],
            &["rv"],
        );
        check(
            "globals().update(vars(operator))\ndef f(a, b):\n    return add(a, b)\n",
            &["add"],
            &[],
        );
        check(
            "locals().update(table)\ndef f(a, b):\n    return add(a, b)\n",
            &["add"],
            &[],
        );
        check(
            "import os\nfrom .globals import request\ndef f(vars):\n    rv = os.sep * vars\n    globals = rv\n    return rv\n",
            &["os", "sep", "globals"],
            &["rv"],
        );
    }

    #[test]
    fn globals_in_one_function_leaves_the_locals_of_others_alone() {
        // pyparsing's tests: `exec(..., globals(), locals())` in one test, a local `aba`
        // beside the data string "aba" in another.
        let src = "def t():\n    exec(code, globals(), locals())\n\
                   def u():\n    aba = a + b\n    g = aba | abc\n    return g.parse('aba')\n";
        let mut x = Exposure::new(src.as_bytes());
        lexer::scan_python(src.as_bytes(), |e| x.event(e));
        let e = x.finish();
        assert!(e.by_code.contains("code"));
        assert!(!e.by_code.contains("aba") && !e.by_code.contains("g"));
        // Read, never bound in `u`: possibly a name `globals()` filled in.
        for w in ["abc", "a", "b"] {
            assert!(e.by_code.contains(w), "{w}");
        }
    }

    #[test]
    fn only_plain_bindings_make_locals_under_an_open_namespace() {
        let open = "from m import *\ndef f(p):\n";
        let body = [
            // (line, bound, not bound)
            ("    x, *rest = p\n", &["x", "rest"][..], &[][..]),
            ("    total += p\n", &["total"], &[]),
            ("    width: int = 3\n", &["width"], &["int"]),
            ("    for i, (k, v) in p: pass\n", &["i", "k", "v"], &[]),
            ("    q = [w for w in p]\n", &["q", "w"], &[]),
            (
                "    with p as fh, o as (aa, bb): pass\n",
                &["fh"],
                &["o", "aa", "bb"],
            ),
            ("    obj.attr = p\n", &[], &["obj"]),
            ("    table[key] = p\n", &[], &["table", "key"]),
            ("    if flag: other = p\n", &[], &["flag", "other"]),
            ("    a = b = p\n", &["a"], &["b"]),
            ("    left == right\n", &[], &["left", "right"]),
            ("    lo <= hi\n", &[], &["lo", "hi"]),
            ("    one = 1; two = 2\n", &["one"], &["two"]),
            ("    call(kw=p)\n", &[], &["call"]),
            ("    for it.x in p: pass\n", &[], &["it"]),
        ];
        for (line, bound, read) in body {
            let src = format!("{open}{line}");
            let e = exposed(&src);
            for w in bound {
                assert!(!e.contains(w), "{w} is bound in:\n{src}\n{e:?}");
            }
            for w in read {
                assert!(e.contains(w), "{w} is not bound in:\n{src}\n{e:?}");
            }
        }
    }

    #[test]
    fn type_parameters_do_not_hide_parameters() {
        check(
            "def f():\n    def g[T: (int, str)](x: T) -> T:\n        y = x\n        return y\n",
            &["x"],
            &["y", "g"],
        );
    }

    #[test]
    fn locals_handed_out_expose_that_function_only() {
        check(
            "def f():\n    shown = 1\n    return render(**locals())\ndef g():\n    hidden = 1\n    return vars(hidden), (locals)\n",
            &["shown"],
            &["hidden"],
        );
    }

    #[test]
    fn code_exposure_leaves_strings_out_and_eval_hands_out_locals() {
        let src = "def f():\n    cannot = 'cannot'\n    return cannot\n\
                   def g():\n    read = 1\n    return eval('read')\n\
                   def h():\n    spelled = 2\n    return x.eval(spelled)\n";
        let e = {
            let mut x = Exposure::new(src.as_bytes());
            lexer::scan_python(src.as_bytes(), |ev| x.event(ev));
            x.finish()
        };
        // A string spells `cannot`: exposed to outside code, not by code.
        assert!(e.all.contains("cannot"));
        assert!(!e.by_code.contains("cannot"), "{:?}", e.by_code);
        // `eval` reads its caller's locals by name; a method named `eval` does not.
        assert!(e.by_code.contains("read") && e.all.contains("read"));
        assert!(!e.by_code.contains("spelled") && !e.all.contains("spelled"));
        assert!(e.by_code.contains("f") && e.by_code.contains("eval"));
    }

    #[test]
    fn nested_functions_and_classes_are_named_for_outside_code() {
        // click names a command after its function's `__name__`, so a test's
        // `def subcommand():` inside a test function is compared with `"subcommand"`.
        let src = b"def test():\n    @group.command()\n    def subcommand():\n        local = 1\n    class Inner:\n        pass\n";
        let mut x = Exposure::new(src);
        lexer::scan_python(src, |ev| x.event(ev));
        let e = x.finish();
        assert!(e.by_code.contains("subcommand") && e.by_code.contains("Inner"));
        assert!(!e.by_code.contains("local"));
    }

    #[test]
    fn one_line_bodies_belong_to_the_new_scope() {
        check(
            "def f(): return rv\nclass C: attr = 1\nasync def g(): await thing\n",
            &["f", "C", "attr", "g"],
            &["rv", "thing"],
        );
    }

    #[test]
    fn nested_functions_and_classes() {
        check(
            "def outer():\n    helper = 1\n    def inner():\n        deep = helper\n        return deep\n    class Local:\n        member = 2\n        def meth(self):\n            inside = 3\n            return inside\n    tail = inner\n    return tail\nmodule_name = 1\n",
            &["member", "module_name", "outer"],
            &["helper", "inner", "deep", "Local", "inside", "tail"],
        );
    }

    #[test]
    fn dedent_back_to_class_and_module_scope() {
        check(
            "class C:\n    def m(self):\n        loc = 1\n\n        # comment\n    cattr = 2\nif cond:\n    modvar = 4\n",
            &["cattr", "modvar", "cond"],
            &["loc"],
        );
    }

    #[test]
    fn brackets_and_backslashes_join_lines() {
        check(
            "def f(\n    a,\n):\n    rv = [\n  1,\n    ]\n    also = \\\n        rv\n    return also\n",
            &["a"],
            &["rv", "also"],
        );
    }

    #[test]
    fn broken_input_never_panics_and_exposes_what_follows_unclosed_brackets() {
        check(
            "def f():\n    x = g(\nmodule_level = 1\n",
            &["module_level"],
            &[],
        );
        for src in [
            &b"def"[..],
            b")))\n(((\n",
            b"def f(:\n  ]\n\tlambda\n",
            b"\xff\xfe def \xc3( x",
            b"x = '''unterminated\n",
            b"f'{",
            b"\\",
            b"\r\r\n\n",
        ] {
            let _ = exposed_runs(src);
        }
    }
}

#[cfg(test)]
mod props {
    use super::*;
    use proptest::prelude::*;

    /// Bytes that steer the scanner: brackets, quotes, colons, newlines, indentation, the
    /// keywords it watches, and invalid UTF-8.
    fn piece() -> impl Strategy<Value = &'static [u8]> {
        prop::sample::select(vec![
            &b"def "[..],
            b"class ",
            b"lambda ",
            b"import ",
            b"from ",
            b"global ",
            b"locals",
            b"globals",
            b"async ",
            b"rv",
            b"name",
            b"(",
            b")",
            b"[",
            b"]",
            b"{",
            b"}",
            b":",
            b"=",
            b"==",
            b":=",
            b".",
            b",",
            b"*",
            b"@",
            b"'",
            b"\"",
            b"'''",
            b"f'",
            b"#",
            b"\\",
            b"\n",
            b"\r\n",
            b"\r",
            b"    ",
            b"\t",
            b" ",
            b">>>",
            b"\xff",
            b"\xc3",
        ])
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]

        #[test]
        fn never_panics_and_exposes_only_runs_of_the_file(
            parts in prop::collection::vec(piece(), 0..64)
        ) {
            let src: Vec<u8> = parts.concat();
            let runs: HashSet<&str> = lexer::python_runs(&src)
                .into_iter()
                .filter_map(|r| std::str::from_utf8(&src[r.start..r.end]).ok())
                .collect();
            for e in exposed_runs(&src) {
                prop_assert!(runs.contains(e), "{e}");
            }
        }
    }
}
