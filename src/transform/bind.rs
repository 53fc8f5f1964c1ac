//! Which names each function *binds*, for the exposure scan (`scope.rs`).
//!
//! Guarantee: `Binds::binds(f, run)` is true only if function `f` binds `run` somewhere in
//! its body, which in Python makes `run` a local of `f` (or of a comprehension inside it)
//! everywhere in `f`: no module namespace, however opened (`globals()`, a star import), holds
//! it. A `global run` line would undo that, but the scan exposes every run of such a line
//! anyway. Only bindings read without doubt count:
//! - plain assignment targets: `x = ...`, `x, *rest = ...`, `x += ...`, `x: T = ...`, on a
//!   logical line that starts with the target (not with a keyword: `if c: x = 1` is left
//!   alone) and has no `;`;
//! - loop and comprehension targets between `for` and `in`;
//! - the name after `as` (`with ... as x`, `except E as x`).
//!
//! A target followed by `.`, `[` or `(` is an attribute, item or call, not a binding. Missing
//! a binding only keeps a name exposed (strength, never behaviour); a false binding would
//! hide a module-level name from the open namespace, so every doubt is resolved as "not
//! bound".

use std::collections::HashSet;

/// The event that follows a candidate target.
#[derive(Debug, Clone, Copy)]
pub enum Next<'a> {
    Run(&'a str),
    Punct(u8),
    /// A string, or the end of the logical line.
    Other,
}

/// Where a code run sits.
#[derive(Debug, Clone, Copy)]
pub struct RunAt {
    pub depth: u32,
    /// The first code event of the logical line.
    pub first: bool,
    pub after_dot: bool,
    pub function: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Assign,
    For,
    As,
}

#[derive(Debug, Default)]
pub struct Binds<'a> {
    bound: HashSet<(usize, &'a str)>,
    /// A candidate target waiting for the event after it.
    pending: Option<(usize, &'a str, Kind)>,
    /// The line may still be a plain assignment whose targets come first.
    assign_closed: bool,
    /// After the `:` of an annotated target: the annotation binds nothing.
    annotation: bool,
    assign_targets: Vec<(usize, &'a str)>,
    /// Inside the targets of a `for` opened at this depth.
    for_depth: Option<u32>,
    for_targets: Vec<(usize, &'a str)>,
    after_as: bool,
}

const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

impl<'a> Binds<'a> {
    /// Whether function `f` binds `run`.
    pub fn binds(&self, f: usize, run: &str) -> bool {
        self.bound.contains(&(f, run))
    }

    /// Decide the pending candidate by what follows it.
    pub fn settle(&mut self, next: Next<'_>) {
        let Some((f, run, kind)) = self.pending.take() else {
            return;
        };
        let binding = match next {
            Next::Run(r) => kind == Kind::For && r == "in",
            Next::Punct(b) => !matches!(b, b'.' | b'[' | b'('),
            Next::Other => false,
        };
        if !binding {
            return;
        }
        match kind {
            Kind::Assign => self.assign_targets.push((f, run)),
            Kind::For => self.for_targets.push((f, run)),
            Kind::As => {
                self.bound.insert((f, run));
            }
        }
    }

    /// A code run (after `settle`).
    pub fn code_run(&mut self, run: &'a str, at: RunAt) {
        let keyword = KEYWORDS.contains(&run);
        if at.first && keyword {
            self.assign_closed = true;
        }
        let after_as = std::mem::take(&mut self.after_as);
        if at.after_dot {
            return;
        }
        match run {
            "for" => {
                self.for_depth = Some(at.depth);
                self.for_targets.clear();
                return;
            }
            "in" if self.for_depth == Some(at.depth) => {
                self.for_depth = None;
                self.bound.extend(self.for_targets.drain(..));
                return;
            }
            "as" => {
                self.after_as = true;
                return;
            }
            _ => {}
        }
        let (Some(f), false) = (at.function, keyword) else {
            return;
        };
        let kind = if after_as {
            Kind::As
        } else if self.for_depth.is_some_and(|d| at.depth >= d) {
            Kind::For
        } else if !self.assign_closed && !self.annotation && at.depth == 0 {
            Kind::Assign
        } else {
            return;
        };
        self.pending = Some((f, run, kind));
    }

    /// A punctuation byte at bracket depth `depth` (after `settle`); `assign_eq`: it is an
    /// `=` that assigns (not part of `==`, `<=`...).
    pub fn punct(&mut self, b: u8, depth: u32, assign_eq: bool) {
        self.after_as = false;
        match b {
            b';' => self.assign_closed = true,
            b':' if depth == 0 && !self.assign_closed => self.annotation = true,
            b'=' if depth == 0 && assign_eq && !self.assign_closed => {
                self.bound.extend(self.assign_targets.drain(..));
                self.assign_closed = true;
            }
            _ => {}
        }
    }

    /// The logical line ended.
    pub fn end_line(&mut self) {
        self.settle(Next::Other);
        self.assign_closed = false;
        self.annotation = false;
        self.assign_targets.clear();
        self.for_depth = None;
        self.for_targets.clear();
        self.after_as = false;
    }
}
