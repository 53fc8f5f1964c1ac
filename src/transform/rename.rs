//! Level 2: renaming as a lexical involution.
//!
//! Guarantee (law 3): `swap(swap(x)) == x` for every byte string and every file kind.
//! How: the token map is a set of disjoint pairs (original token <-> virtual word), so applying
//! it twice is the identity on tokens; every decision about a run (frozen? swapped in a
//! string?) is asked of the run *and* its image, so it comes out the same in both directions;
//! and the lexer finds the same runs in the swapped text (see `lexer`). Nothing depends on byte
//! lengths or on parsing.
//!
//! Binary files (a NUL byte) pass through untouched: swapping only ever replaces ASCII runs by
//! ASCII runs, so it keeps NUL bytes where they are and the check agrees in both directions.
//! Invalid UTF-8 is lexed like any text (its non-ASCII bytes never belong to a run).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::formats::{self, Ask};
use super::lexer::{self, Class};
use super::tokens::{self, Piece};

mod labels;
mod memo;

/// The Level 2 map: everything needed to swap text in either direction.
#[derive(Debug, Clone, Default)]
pub struct Renamer {
    /// Lowercase token -> lowercase token, holding both directions of every pair.
    tokens: HashMap<Box<str>, Box<str>>,
    /// Runs that never change (in original names; a run is frozen if it or its image is here).
    frozen_runs: HashSet<Box<str>>,
    /// Runs the repository's code uses (original names): strings and comments swap these.
    code_idents: HashSet<Box<str>>,
    /// The view's words (the second word of every pair): no original text holds one, as
    /// virtual words are drawn outside every token the repository has.
    virtual_words: HashSet<Box<str>>,
    /// Extensions of files in the tree (the parts after a name's first dot), kept wherever
    /// text shows them as an extension (`formats::spans`).
    extensions: HashSet<Box<str>>,
    /// Compounds of two or more words that begin or end a longer code run at a word boundary
    /// (`ParamType` of `IntParamType`, `dynamic_cookie` of `set_dynamic_cookie`): data
    /// compared with the ends of those names (`name.partition("ParamType")`, `endswith`).
    code_affixes: HashSet<Box<str>>,
    /// Tokens frozen because strings join names from them (`"prec_"`, `"renderer_" + name`):
    /// a compound that starts or ends with one is a name built at run time.
    fragments: HashSet<Box<str>>,
    /// Stems of the tree's file and directory names that join words with `_`
    /// (`normal_escape_snob` of `normal_escape_snob.html`): a compound naming a file is read
    /// for the code names it carries (`swap_compound_of_names`).
    path_stems: HashSet<Box<str>>,
    /// What each run became (`swap_run`), kept while the map stays as it is.
    memo: memo::Memo,
}

/// How a file's contents are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Python,
    Text,
    Binary,
}

/// The kind of a file from its (original or view: extensions never change) name and bytes.
///
/// Only a NUL byte makes a file binary. Text with a stray non-UTF-8 byte (a Latin-1 comment,
/// an agent's bad write) is still lexed byte by byte: non-ASCII bytes never belong to a run,
/// so the swap stays an involution, and one bad byte does not turn the whole file's
/// translation off (which would write view names back into the original).
pub fn file_kind(name: &[u8], content: &[u8]) -> FileKind {
    if content.contains(&0) {
        if is_python2_bytecode(name, content) {
            return FileKind::Text;
        }
        return FileKind::Binary;
    }
    if name.ends_with(b".py") || name.ends_with(b".pyi") || name.ends_with(b".pyw") {
        FileKind::Python
    } else {
        FileKind::Text
    }
}

/// Whether a file named as byte code (a `.pyc` or `.pyo` part in its name: `x.pyc`,
/// `0001_initial.pyc-tpl`) holds Python 2 byte code: a magic number of 20000 or more (Python
/// 1.5 to 2.7; Python 3's are 3000 to 3999) before `\r\n`. No Python 3 interpreter loads
/// such a file (importlib reads its magic and refuses it), so the names stored in it are
/// never looked up, and the view reads it as text: its runs are swapped like any text's, so
/// it neither keeps names from being renamed nor shows the original ones (Django's test
/// fixture of a stale `.pyc` had kept the package name `django`). The swap keeps the four
/// bytes of the magic (at most two letters, shorter than any mapped token), so the kind is
/// the same for a file and its image.
pub fn is_python2_bytecode(name: &[u8], content: &[u8]) -> bool {
    may_swap_binary(name)
        && content.get(2..4) == Some(b"\r\n")
        && content
            .get(0..2)
            .is_some_and(|m| u16::from_le_bytes([m[0], m[1]]) >= 20000)
}

/// Whether a file of this name may hold content the view swaps though it has a NUL byte
/// (`is_python2_bytecode`), so that the filesystem must not take its view for its bytes.
pub fn may_swap_binary(name: &[u8]) -> bool {
    let base = name.rsplit(|&b| b == b'/').next().unwrap_or(name);
    (0..base.len()).any(|i| {
        let part = &base[i..];
        (part.starts_with(b".pyc") || part.starts_with(b".pyo"))
            && !part.get(4).is_some_and(u8::is_ascii_alphanumeric)
    })
}

impl Renamer {
    /// Build from original->virtual pairs (lowercase tokens), frozen runs and code runs.
    /// Pairs that would break the involution (a word used twice) are rejected.
    pub fn new<'a>(
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
        frozen_runs: impl IntoIterator<Item = &'a str>,
        code_idents: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, String> {
        let mut map: HashMap<Box<str>, Box<str>> = HashMap::new();
        let mut virtual_words = HashSet::new();
        for (a, b) in pairs {
            if a == b || a.len() < 3 || b.len() < 3 {
                return Err(format!("bad pair {a} <-> {b}"));
            }
            if !a.bytes().all(|c| c.is_ascii_lowercase())
                || !b.bytes().all(|c| c.is_ascii_lowercase())
            {
                return Err(format!("pair {a} <-> {b} is not two lowercase words"));
            }
            if map.contains_key(a) || map.contains_key(b) {
                return Err(format!("pair {a} <-> {b} reuses a word"));
            }
            map.insert(a.into(), b.into());
            map.insert(b.into(), a.into());
            virtual_words.insert(b.into());
        }
        let code_idents: HashSet<Box<str>> = code_idents.into_iter().map(Into::into).collect();
        let code_affixes = code_idents.iter().flat_map(|r| affixes(r)).collect();
        Ok(Renamer {
            tokens: map,
            frozen_runs: frozen_runs.into_iter().map(Into::into).collect(),
            code_idents,
            virtual_words,
            extensions: HashSet::new(),
            code_affixes,
            fragments: HashSet::new(),
            path_stems: HashSet::new(),
            memo: memo::Memo::default(),
        })
    }

    /// The same map, keeping these tree extensions in text.
    pub fn with_extensions<'a>(mut self, extensions: impl IntoIterator<Item = &'a str>) -> Self {
        self.extensions = extensions.into_iter().map(Into::into).collect();
        self.memo.clear();
        self
    }

    /// Whether word `w` (any case) is a fragment of names built at run time.
    fn is_fragment(&self, w: &str) -> bool {
        !self.fragments.is_empty() && self.fragments.contains(w.to_ascii_lowercase().as_str())
    }

    /// The same map, knowing which frozen tokens are fragments of names built at run time.
    pub fn with_fragments<'a>(mut self, fragments: impl IntoIterator<Item = &'a str>) -> Self {
        self.fragments = fragments.into_iter().map(Into::into).collect();
        self.memo.clear();
        self
    }

    /// The same map, knowing the stems of the tree's compound file names.
    pub fn with_path_stems<'a>(mut self, stems: impl IntoIterator<Item = &'a str>) -> Self {
        self.path_stems = stems.into_iter().map(Into::into).collect();
        self.memo.clear();
        self
    }

    /// Whether `run` or its image is the stem of a compound name in the tree.
    fn names_a_path(&self, run: &str) -> bool {
        !self.path_stems.is_empty()
            && (self.path_stems.contains(run)
                || self
                    .image(run)
                    .is_some_and(|y| self.path_stems.contains(y.as_str())))
    }

    /// The token-by-token image of a run, or `None` when no token changes.
    pub fn image(&self, run: &str) -> Option<String> {
        self.image_of_words(run, |_| true)
    }

    /// The image of a run in which only the words `mapped` accepts (lower case) change, or
    /// `None` when none does.
    fn image_of_words(&self, run: &str, mapped: impl Fn(&str) -> bool) -> Option<String> {
        let pieces = tokens::split(run);
        let mut changed = false;
        let mut out = String::with_capacity(run.len() + 8);
        for p in pieces {
            match p {
                Piece::Other(o) => out.push_str(o),
                Piece::Word(w, shape) => {
                    if w.len() >= 3 {
                        let key = w.to_ascii_lowercase();
                        if let Some(v) = self.tokens.get(key.as_str()).filter(|_| mapped(&key)) {
                            tokens::render(v, shape, &mut out);
                            changed = true;
                            continue;
                        }
                    }
                    out.push_str(w);
                }
            }
        }
        changed.then_some(out)
    }

    /// Frozen runs, and a frozen run followed by digits (`option_args0`: pytest builds such
    /// ids from a frozen argument name and an index). Not after an underscore: `arg_1`, a
    /// local beside the outside name `arg`, is a name of its own.
    fn is_frozen_run(&self, run: &str) -> bool {
        if is_dunder(run) || self.frozen_runs.contains(run) {
            return true;
        }
        let stem = run.trim_end_matches(|c: char| c.is_ascii_digit());
        stem.len() < run.len() && !stem.is_empty() && self.frozen_runs.contains(stem)
    }

    /// A run the code uses, also with an index appended (`scenario0`: pytest's id for the
    /// first case of the argument `scenario`; `subforms_0`: wtforms' name for the first
    /// entry of the list field `subforms`).
    fn is_code_ident(&self, run: &str) -> bool {
        if self.code_idents.contains(run) {
            return true;
        }
        // A frozen name with an index stays with its name (`"foo_0"` beside the outside
        // `foo`), as the name does; asked of the stem and of its image, so that the image's
        // `"tie_0"` stays too and the swap stays an involution.
        let frozen = |w: &str| self.frozen_runs.contains(w);
        index_stem(run).is_some_and(|stem| {
            self.code_idents.contains(stem)
                && !frozen(stem)
                && !self.image(stem).is_some_and(|img| frozen(&img))
        })
    }

    /// Whether `run` is in one case only (digits and `_` aside), not a single lower-case word
    /// (`tokens::other_case_name`), and its spelling in the other case is a run the code uses
    /// and renames: data that code turns into a name with
    /// `.lower()` or `.upper()` (`"BYMONTH"` to the keyword `bymonth=`, Django's
    /// `"sql_field=blue"` to the palette key `SQL_FIELD`). Data follows the name it becomes:
    /// when the name stays (dateutil's `interval=`, an outside name), `"INTERVAL"` stays too,
    /// or `name.lower()` would pass a keyword nobody takes.
    fn is_other_case_of_code_ident(&self, run: &str) -> bool {
        tokens::other_case_name(run).is_some_and(|other| self.is_renamed_code_ident(&other))
    }

    /// A name the code uses and the view renames (not frozen): what data in the other case
    /// follows.
    fn is_renamed_code_ident(&self, name: &str) -> bool {
        self.is_code_ident(name) && !self.is_frozen_run(name)
    }

    /// A single lower-case word of data written as a key or a value of `key=value` text
    /// (`freq` and `yearly` in dateutil's `"RRULE:freq=yearly;count=3"`) follows the
    /// upper-case code name it spells, as upper-case data follows a lower-case name
    /// (`is_other_case_of_code_ident`): parsers of such text fold the case of keys and values
    /// and look them up (`getattr(self, "_handle_" + name.upper())`, `_freq_map[value.upper()]`).
    /// A key comes after the start of the literal, a space or one of `; : , & ?` and before
    /// one `=`; a value after one `=` and before the end of the literal, a space or one of
    /// `; , &`. Elsewhere one lower-case word is a word of the data
    /// (`tokens::other_case_name`). The bytes around the run are never part of a run, so the
    /// view decides the same way.
    fn swap_data_key(&self, s: &[u8], r: &lexer::Run, run: &str) -> Option<String> {
        if r.class != Class::String || !run.bytes().all(|b| b.is_ascii_lowercase()) {
            return None;
        }
        let at = |k: Option<usize>| k.and_then(|k| s.get(k)).copied();
        let (b1, b2) = (at(r.start.checked_sub(1)), at(r.start.checked_sub(2)));
        let (a1, a2) = (at(Some(r.end)), at(Some(r.end + 1)));
        let key = a1 == Some(b'=')
            && a2 != Some(b'=')
            && matches!(
                b1,
                Some(b'"' | b'\'' | b' ' | b';' | b':' | b',' | b'&' | b'?')
            );
        let value = b1 == Some(b'=')
            && !matches!(b2, Some(b'=' | b'!' | b'<' | b'>'))
            && matches!(
                a1,
                None | Some(b'"' | b'\'' | b' ' | b'\n' | b';' | b',' | b'&')
            );
        if !key && !value {
            return None;
        }
        let img = self.image(run)?;
        let names = |x: &str| self.is_renamed_code_ident(&x.to_ascii_uppercase());
        let frozen = self.is_frozen_run(run) || self.is_frozen_run(&img);
        (!frozen && (names(run) || names(&img))).then_some(img)
    }

    /// Whether `run` is one capitalised word (`Isbn`) whose lower case is a code name that
    /// is not frozen: data made from the name with `.capitalize()` or `.title()` (Django's
    /// error message `"... with this Isbn already exists."` from the field `isbn`).
    fn is_capitalised_code_ident(&self, run: &str) -> bool {
        let b = run.as_bytes();
        if b.len() < 3 || !b[0].is_ascii_uppercase() || !b[1..].iter().all(u8::is_ascii_lowercase) {
            return false;
        }
        let lower = run.to_ascii_lowercase();
        self.is_code_ident(&lower) && !self.is_frozen_run(&lower)
    }

    /// Whether `run` is a compound of `_`-joined words in mixed case shapes (`Existing_Key`,
    /// `locale_NAME`; each word lower, upper or capitalised) whose lower case is a code name
    /// that is not frozen: data that code folds with `.lower()` to look the name up (a
    /// case-insensitive mapping filled from the keywords `existing_key=...`). Single-case runs
    /// are `is_other_case_of_code_ident`'s, a single capitalised word
    /// `is_capitalised_code_ident`'s; hyphen groups `swap_hyphen_group`'s.
    fn is_case_folded_code_ident(&self, run: &str) -> bool {
        let shaped = |w: &str| {
            let b = w.as_bytes();
            !b.is_empty()
                && b.iter().all(u8::is_ascii_alphabetic)
                && (b[1..].iter().all(u8::is_ascii_lowercase)
                    || b.iter().all(u8::is_ascii_uppercase))
        };
        // Asked of most words of prose: the checks that allocate come last.
        run.contains('_')
            && run.split('_').all(shaped)
            && tokens::other_case(run).is_none()
            && self.is_renamed_code_ident(&run.to_ascii_lowercase())
    }

    /// Whether a letter token of `run`, taken as a run of its own (as written or lowercase),
    /// is frozen: `"_Namespace__attrs"` names a mangled attribute of an outside class,
    /// `"TEST_ARG"` may be built at run time from the frozen `arg`.
    fn has_frozen_piece(&self, run: &str) -> bool {
        tokens::split(run).into_iter().any(|p| match p {
            Piece::Word(w, _) => self.is_frozen_word(w),
            Piece::Other(_) => false,
        })
    }

    /// A letter token frozen as a run of its own, as written or in lower case.
    fn is_frozen_word(&self, w: &str) -> bool {
        self.frozen_runs.contains(w) || self.frozen_runs.contains(w.to_ascii_lowercase().as_str())
    }

    /// The swap of a data compound with a frozen piece, or `None` when it stays. A compound
    /// made of names is a name built from names: pyrsistent names a class
    /// `int.__name__.capitalize() + PSet.__name__` and its tests compare that with
    /// `"IntPSet"`. So each span of pieces that spells a name the code uses (in the run or in
    /// its image) changes as that name does, and every span that spells a frozen name
    /// (`PVector`, a name of a compiled extension; `Int`) stays as the outside name it comes
    /// from. The compound stays whole when any other word of three letters or more is left
    /// (a literal joined at run time with a frozen name: `"TEST_" + arg.upper()` and
    /// `"TEST_ARG"`), and also when nothing shows that names were joined: a name of two or
    /// more words, a code name (`PSet`; html2text's `escape_snob` in the data file
    /// `normal_escape_snob.html`, which its tests find by `"escape_snob"`) or a frozen name
    /// (`PVector`). Without that, a literal of an outside system whose words merely are
    /// names somewhere (`"sqlite_master"`, SQLite's table, beside a code name `sqlite` of
    /// one word and a frozen `master`) would change. Spans are found longest first
    /// from the left with tests asked of a span and of its image alike, and pieces are kept
    /// or mapped by a test asked of a piece and of its image alike, so the swap is an
    /// involution.
    fn swap_compound_of_names(&self, run: &str) -> Option<String> {
        let pieces = tokens::split(run);
        let frozen = |w: &str| self.is_frozen_word(w);
        let names_code = |x: &str| self.is_code_ident(x) && !self.is_frozen_run(x);
        // An upper-case compound is how programs spell names joined at run time for the
        // environment (`f"{prefix}_{key}"` with flask's `prefix="FLASK"`, click's
        // `f"{prefix}_{name.upper()}"`): a span whose lower case is a code name is that name
        // upper-cased, as a single word in a string is (`is_other_case_of_code_ident`).
        let upper = !run.bytes().any(|b| b.is_ascii_lowercase());
        let upper_of_name =
            |x: &str| upper && !self.is_frozen_run(x) && self.is_other_case_of_code_ident(x);
        // Spans of at most this many pieces are tried: code names of more are rare.
        const SPAN: usize = 4;
        let text = |i: usize, j: usize| pieces[i..j].iter().map(Piece::text).collect::<String>();
        let words = |i: usize, j: usize| {
            pieces[i..j]
                .iter()
                .filter(|p| matches!(p, Piece::Word(..)))
                .count()
        };
        // The span `i..j` if it spells a code name: it changes as the name does.
        let code_at = |i: usize, j: usize| {
            let x = text(i, j);
            let img = self.image(&x);
            // Frozen on either side, the span is no name that changes (wtforms' `foo`, an
            // outside name whose token's image `tie` is a code name of its own).
            let kept =
                self.is_frozen_run(&x) || img.as_deref().is_some_and(|y| self.is_frozen_run(y));
            if !kept && (names_code(&x) || img.as_deref().is_some_and(names_code)) {
                // A name with an index joined to it (`subforms_0`) was built at run time.
                let joined = words(i, j) >= 2 || has_joined_index(&x);
                return Some((j, img.unwrap_or(x), joined));
            }
            if upper_of_name(&x) || img.as_deref().is_some_and(upper_of_name) {
                return img.map(|y| (j, y, true));
            }
            None
        };
        let longest = |i: usize| (i + 1..=(i + SPAN).min(pieces.len())).rev();
        // The span `i..j` if it is a frozen name of two or more pieces (kept). In the name
        // of a file, not when a code name starts inside it and ends past it: html2text's
        // data file `normal_escape_snob` carries the option `escape_snob` (its tests pick
        // the option by `"escape_snob"` in the file name), and reads as the frozen
        // `normal_escape` and a stray `snob` only by the accident of reading from the left.
        // Other data keeps the first reading: a literal of an outside system can hold a
        // code name across a frozen one (GEOS's `GEOSCoordSeq_getOrdinate` beside Django's
        // `get_ordinate`) and must stay.
        let file_name = self.names_a_path(run);
        let frozen_at = |i: usize, j: usize| {
            let x = text(i, j);
            let img = self.image(&x);
            let kept = j - i >= 2
                && (self.is_frozen_run(&x)
                    || img.as_deref().is_some_and(|y| self.is_frozen_run(y)));
            let overrun =
                || (i + 1..j).any(|k| longest(k).any(|e| e > j && code_at(k, e).is_some()));
            (kept && !(file_name && overrun())).then(|| (j, x, words(i, j) >= 2))
        };
        let mut joined = false;
        let mut out = String::with_capacity(run.len() + 8);
        let mut i = 0;
        while i < pieces.len() {
            // The longest span from here that spells a code name or a frozen name. Past the
            // start, a name begins at a word: the separator before it is no part of it
            // (wtforms' `"subforms_0_foo"` holds no `_foo`, a private name of its own).
            let at_word = i == 0 || matches!(pieces[i], Piece::Word(..));
            let span = at_word
                .then(|| longest(i).find_map(|j| code_at(i, j).or_else(|| frozen_at(i, j))))
                .flatten();
            if let Some((j, s, evidence)) = span {
                joined |= evidence;
                out.push_str(&s);
                i = j;
                continue;
            }
            let p = pieces[i];
            i += 1;
            let Piece::Word(w, _) = p else {
                out.push_str(p.text());
                continue;
            };
            // A fragment of names built at run time (a frozen token: `excepting` of toolz's
            // `'%s_excepting_%s' % (func.__name__, ...)`) is a piece of such a name.
            let img = self.image(w).unwrap_or_else(|| w.to_string());
            if w.len() >= 3 && !frozen(w) && !frozen(&img) && !self.is_fragment(w) {
                return None;
            }
            out.push_str(w);
        }
        (joined && out != run).then_some(out)
    }

    /// A data compound that starts or ends with a fragment of names built at run time (a
    /// token frozen because strings join names from it: `prec` of mistune's
    /// `m.lastgroup.replace('prec_', '')`, `renderer` of `'renderer_' + name + '.txt'`) is
    /// such a name: the fragment and the underscores next to it stay, and the rest changes
    /// as it would on its own (`'prec_auto_link'` beside the rule `'auto_link'`, the end of
    /// the method `parse_auto_link`; the file `renderer_markdown.txt` beside the renderer's
    /// `NAME = 'markdown'`). Fragments are frozen tokens, the same in a run and its image,
    /// and the rest is decided by `swap_segment`, asked of it and of its image: an involution.
    fn swap_around_fragment(&self, run: &str, class: Class) -> Option<String> {
        let pieces = tokens::split(run);
        let words: Vec<usize> = (0..pieces.len())
            .filter(|&k| matches!(pieces[k], Piece::Word(..)))
            .collect();
        let fragment = |k: usize| match pieces[k] {
            Piece::Word(w, _) => self.is_fragment(w),
            Piece::Other(_) => false,
        };
        let text = |a: usize, b: usize| pieces[a..b].iter().map(Piece::text).collect::<String>();
        let (&first, &last) = (words.first()?, words.last()?);
        if words.len() < 2 {
            return None;
        }
        // The fragment, then at least one separator, then the rest (or the mirror image).
        let (head, rest, tail) = if fragment(first) && matches!(pieces[first + 1], Piece::Other(_))
        {
            let mut r = first + 1;
            while matches!(pieces[r], Piece::Other(_)) {
                r += 1;
            }
            (text(0, r), text(r, pieces.len()), String::new())
        } else if fragment(last) && matches!(pieces[last - 1], Piece::Other(_)) {
            let mut r = last;
            while matches!(pieces[r - 1], Piece::Other(_)) {
                r -= 1;
            }
            (String::new(), text(0, r), text(r, pieces.len()))
        } else {
            return None;
        };
        let swapped = self.swap_segment(&rest, class)?;
        Some(format!("{head}{swapped}{tail}"))
    }

    /// What a run becomes in a given class, or `None` when it stays. A run made of segments
    /// joined by a double underscore (Django's `content_type__app_label`, a mangled
    /// `_Shelf__code`) is decided segment by segment, as the code that splits it at `__`
    /// looks each one up; the segments sit at the same places in the run and in its image.
    /// The segments of such a run in code are decided as in a string: the program looks
    /// them up as data (Django's `nulled_text_field__nulled` reaches the lookup registered
    /// as `lookup_name = "nulled"`), so a segment changes exactly where that string would.
    /// A mangled name (`_Shelf__code`, a leading underscore) is a name, not a lookup: its
    /// attribute follows the `__code` the class defines.
    pub fn swap_run(&self, run: &str, class: Class) -> Option<String> {
        self.memo.get_or(run, class, || self.decide_run(run, class))
    }

    /// [`Renamer::swap_run`], decided afresh.
    fn decide_run(&self, run: &str, class: Class) -> Option<String> {
        let Some(parts) = segments(run) else {
            return self.swap_segment(run, class);
        };
        if self.is_frozen_run(run) {
            return None;
        }
        let class = if class == Class::Code && !run.starts_with('_') {
            Class::String
        } else {
            class
        };
        let mut changed = false;
        let out: Vec<String> = parts
            .iter()
            .map(|p| match self.swap_segment(p, class) {
                Some(n) => {
                    changed = true;
                    n
                }
                None => p.to_string(),
            })
            .collect();
        changed.then(|| out.join("__"))
    }

    /// [`Renamer::swap_run`] for a run with no inner double underscore.
    fn swap_segment(&self, run: &str, class: Class) -> Option<String> {
        // Data and code alike: Django's test client passes `HTTP_ACCEPT_LANGUAGE="fr"` as a
        // keyword that becomes an environ key. Asked of the run and of its image, so that a
        // map in which `http` is a token (never so for a real bundle, where it is a word of
        // the standard library) still swaps as an involution.
        let img = self.image(run);
        if is_cgi_header_key(run) || img.as_deref().is_some_and(is_cgi_header_key) {
            return None;
        }
        let img = img?;
        if self.is_frozen_run(run) || self.is_frozen_run(&img) {
            return None;
        }
        match class {
            Class::Code => Some(img),
            Class::Fixed => None,
            // A distribution name changes only as a whole name the code uses.
            Class::Dist => (self.is_code_ident(run) || self.is_code_ident(&img)).then_some(img),
            Class::String | Class::Comment | Class::Text => {
                if self.is_code_ident(run) || self.is_code_ident(&img) {
                    return Some(img);
                }
                // A run whose spelling in the other case the code uses: data that code turns
                // into a name (`"BYMONTH"` to the keyword `bymonth=`, an HTTP method to its
                // handler), asked of the run and its image alike.
                if self.is_other_case_of_code_ident(run) || self.is_other_case_of_code_ident(&img) {
                    return Some(img);
                }
                if self.is_capitalised_code_ident(run) || self.is_capitalised_code_ident(&img) {
                    return Some(img);
                }
                if self.is_case_folded_code_ident(run) || self.is_case_folded_code_ident(&img) {
                    return Some(img);
                }
                // A code name between underscores (`_Markdown_`, emphasis in Markdown text
                // that the program renders as `<em>Markdown</em>`) is that name marked up.
                if self.is_emphasised_code_ident(run) || self.is_emphasised_code_ident(&img) {
                    return Some(img);
                }
                // In a text file or a comment, one underscore on one side is the edge of
                // emphasis over several words (`[_Python in Markdown_](url)`) or a reST link
                // (`Markdown_` and its target `.. _Markdown:`). Not in a string: there
                // `"_" + name` builds another attribute, which the family rules decide.
                if matches!(class, Class::Text | Class::Comment)
                    && (self.is_edge_of_emphasis(run) || self.is_edge_of_emphasis(&img))
                {
                    return Some(img);
                }
                if tokens::word_count(run) < 2 {
                    return None;
                }
                // The end or the start of code names, as data compared with them, follows them
                // (asked of the run and its image, like the rest).
                if self.code_affixes.contains(run) || self.code_affixes.contains(img.as_str()) {
                    return Some(img);
                }
                // A compound the code never uses, in a string or a text file (data the program
                // reads, names it builds): it may be joined at run time from a frozen piece
                // (`"TEST_" + arg.upper()`), so when a piece is frozen on its own (asked of the
                // run and of its image, so both directions agree) it is swapped only as a
                // compound made of names (`swap_compound_of_names`). Paths and free text
                // follow the same rule, so a file name, a data key and the string naming it
                // always agree. Comments have no run time.
                if class == Class::Comment
                    || !(self.has_frozen_piece(run) || self.has_frozen_piece(&img))
                {
                    return Some(img);
                }
                self.swap_around_fragment(run, class)
                    .or_else(|| self.swap_compound_of_names(run))
            }
        }
    }

    /// Whether `run` is `_name_` (one underscore each side, no dunder) around a code name
    /// that is not frozen.
    fn is_emphasised_code_ident(&self, run: &str) -> bool {
        run.strip_prefix('_')
            .and_then(|r| r.strip_suffix('_'))
            .is_some_and(|core| self.is_marked_up_code_ident(core))
    }

    /// Whether `core`, the run inside markup underscores, is a code name that is not frozen
    /// and has no underscore of its own at either end.
    fn is_marked_up_code_ident(&self, core: &str) -> bool {
        !core.starts_with('_')
            && !core.ends_with('_')
            && self.is_code_ident(core)
            && !self.is_frozen_run(core)
    }

    /// Whether `run` is `name_` or `_name` (one underscore, on one side) after a code name
    /// that is not frozen.
    fn is_edge_of_emphasis(&self, run: &str) -> bool {
        match (run.strip_prefix('_'), run.strip_suffix('_')) {
            (Some(core), None) | (None, Some(core)) => self.is_marked_up_code_ident(core),
            _ => false,
        }
    }

    /// Swap the runs of a file's contents according to its kind. Involution.
    pub fn swap_content<'a>(&self, name: &[u8], content: &'a [u8]) -> Cow<'a, [u8]> {
        match file_kind(name, content) {
            FileKind::Binary => Cow::Borrowed(content),
            FileKind::Python => self.apply(content, &formats::python_file_runs(content, self)),
            FileKind::Text => self.apply(content, &formats::text_file_runs(name, content, self)),
        }
    }

    /// `swap_content(name, new_in)` for text that extends `prev_in`, whose swap `prev_out`
    /// the caller holds, or `None` when it cannot be had from the new bytes alone.
    ///
    /// A plain text file (no format of its own, no NUL) is swapped line by line: every run,
    /// span and decision lies between two line breaks (`spans` chunks end at one, a label's
    /// words are joined by a space, a data key looks one byte past its run), so the swap of
    /// the text is the swap of its part up to a line break followed by the swap of the rest
    /// (property `plain_text_swaps_line_by_line` in tests/transform_props.rs). The lines of
    /// `prev_in` up to its last line break are therefore those of `prev_out`, and only the
    /// rest is swapped: a file written in pieces (`sed -i`'s temp file, one piece per stdio
    /// buffer) is swapped once in all instead of once per piece.
    pub fn swap_appended(
        &self,
        name: &[u8],
        prev_in: &[u8],
        prev_out: &[u8],
        new_in: &[u8],
    ) -> Option<Vec<u8>> {
        let plain = file_kind(name, new_in) == FileKind::Text
            && formats::format_of(name) == formats::Format::Plain;
        if !plain || !new_in.starts_with(prev_in) {
            return None;
        }
        let cut = prev_in.iter().rposition(|&b| b == b'\n')? + 1;
        // A swap keeps every line break (runs never hold one), so the last line of
        // `prev_out` is the swap of the last line of `prev_in`.
        let out_cut = prev_out.iter().rposition(|&b| b == b'\n')? + 1;
        let mut out = prev_out[..out_cut].to_vec();
        out.extend_from_slice(&self.swap_content(name, &new_in[cut..]));
        Some(out)
    }

    /// Swap free text (a problem statement, a traceback, a test id) with the string rule.
    pub fn swap_text(&self, text: &str) -> String {
        let b = text.as_bytes();
        match self.apply(b, &formats::free_text_runs(b, self)) {
            // Only ASCII runs are replaced by ASCII runs, so UTF-8 stays valid.
            Cow::Borrowed(_) => text.to_string(),
            Cow::Owned(v) => String::from_utf8(v)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        }
    }

    /// Text that only the view produced (a test id a run reports, a traceback) in original
    /// names: `swap_text`, then every word still left that is a view word goes back to its
    /// token. Names a program builds at run time from renamed data are no code names, so
    /// `swap_text` keeps them (markdown's test `test_marching_syntax`, made from the data
    /// file `marching-syntax.txt`, is `test_markdown_syntax` in the original). Only this
    /// direction can be decided word by word: text in the original never holds a view word,
    /// while an original word in a compound may be data the view keeps.
    pub fn view_text_to_original(&self, text: &str) -> String {
        let swapped = self.swap_text(text);
        let mut out = String::with_capacity(swapped.len());
        let mut last = 0;
        // Every span of ASCII letters, digits and `_`, also one that touches a non-ASCII letter:
        // the lexer holds no run in `intrude_৪` (a word of a Unicode identifier), but a runner
        // builds ids from data the view renamed word by word (jsonschema's test names from
        // the descriptions `invalid non-ASCII '৪'`), and a view word goes back wherever it is.
        let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        for span in lexer::spans_of(swapped.as_bytes(), is_word) {
            let run = &swapped[span.clone()];
            if let Some(back) = self.image_of_words(run, |w| self.virtual_words.contains(w)) {
                out.push_str(&swapped[last..span.start]);
                out.push_str(&back);
                last = span.end;
            }
        }
        out.push_str(&swapped[last..]);
        out
    }

    /// Swap one path component: runs before the extension use the string rule (so a file name
    /// and a string naming it agree); the extension and names of non-UTF-8 bytes are kept.
    pub fn swap_name<'a>(&self, name: &'a [u8]) -> Cow<'a, [u8]> {
        let stem_end = stem_len(name);
        let stem = &name[..stem_end];
        match self.apply(stem, &lexer::text_runs(stem)) {
            Cow::Borrowed(_) => Cow::Borrowed(name),
            Cow::Owned(mut v) => {
                v.extend_from_slice(&name[stem_end..]);
                Cow::Owned(v)
            }
        }
    }

    /// The swap of a hyphenated group of string runs (`"other-cmd"`, `"--start-after"`):
    /// when its underscore form is a code identifier (or that form's image is), each piece
    /// takes its token image, as the identifier does. `None` when the group is not such a name.
    ///
    /// A whole string literal whose pieces mix lower and upper case (`"locale-NAME"`) is that
    /// name's data folded with `.lower()` (`is_case_folded_code_ident`). Only a whole
    /// literal: inside longer text such a group is prose (`non-ASCII`, `JSON-data`), and
    /// capitalised pieces make a header (`Last-Translator`, compared with data that
    /// `keeps_group` may keep).
    fn swap_hyphen_group(
        &self,
        pieces: &[&str],
        index: &str,
        whole_literal: bool,
    ) -> Option<Vec<String>> {
        let joined = pieces.join("_") + index;
        let img = self.image(&joined)?;
        if self.is_frozen_run(&joined) || self.is_frozen_run(&img) {
            return None;
        }
        let folded = |x: &str| {
            whole_literal
                && x.split('_').all(|w| tokens::other_case(w).is_some())
                && self.is_case_folded_code_ident(x)
        };
        if !(self.is_code_ident(&joined)
            || self.is_code_ident(&img)
            || folded(&joined)
            || folded(&img))
        {
            return None;
        }
        Some(
            pieces
                .iter()
                .map(|p| self.image(p).unwrap_or_else(|| p.to_string()))
                .collect(),
        )
    }

    /// A piece of a hyphen group that is not one name, decided as on its own except that a
    /// capitalised word does not follow its lower-case code name there: the words of
    /// `Report-Msgid-Bugs-To`, a gettext header, are capitalised by convention, not made from
    /// a name with `.capitalize()` (polib writes the header from a catalog read from a
    /// binary `.mo` file, which keeps it). Asked of the piece and of its image.
    fn swap_group_piece(&self, p: &str, class: Class) -> Option<String> {
        let new = self.swap_run(p, class)?;
        let img = self.image(p);
        let capitalised = self.is_capitalised_code_ident(p)
            || img
                .as_deref()
                .is_some_and(|i| self.is_capitalised_code_ident(i));
        let named = self.is_code_ident(p) || img.as_deref().is_some_and(|i| self.is_code_ident(i));
        (named || !capitalised).then_some(new)
    }

    /// Whether a hyphenated group is a header name kept with its data: a whole string
    /// literal that is data kept as written (`"last-translator"`, compared with a header
    /// lowercased; `policy::FreezeReason::Data`; inside a longer string, `"last-translator="`,
    /// an option whose attribute is the code name `last_translator`, it swaps as usual), or a
    /// capitalised group whose lower case is a name that stays (`Metadata-Version`, with
    /// `metadata_version` an outside name), which parsers lowercase: it stays whole, though
    /// a piece (`Metadata`, a class) is renamed on its own elsewhere. `apply` asks it of the
    /// group and of what the group would become, so the swap stays an involution.
    fn keeps_group<S: AsRef<str>>(&self, pieces: &[S], whole_literal: bool) -> bool {
        let words: Vec<&str> = pieces.iter().map(AsRef::as_ref).collect();
        if whole_literal && self.frozen_runs.contains(words.join("-").as_str()) {
            return true;
        }
        // A group whose name stays stays too, inside longer text as well: `max-age` in
        // `"public, max-age=10"`, with `max_age` an outside name because `http.cookies`
        // holds `"max-age"` as data (the view had shown `max-dew`, word by word).
        self.is_frozen_run(&words.join("_").to_ascii_lowercase())
    }

    fn apply<'a>(&self, s: &'a [u8], runs: &[lexer::Run]) -> Cow<'a, [u8]> {
        let mut out: Option<Vec<u8>> = None;
        let mut last = 0;
        let mut i = 0;
        while i < runs.len() {
            let r = runs[i];
            if r.class == Class::Fixed {
                i += 1;
                continue;
            }
            if let Some((j, new)) = self.label_at(s, runs, i) {
                if new
                    .iter()
                    .zip(&runs[i..j])
                    .any(|(n, x)| n.as_bytes() != &s[x.start..x.end])
                {
                    put_runs(&mut out, s, &mut last, &runs[i..j], new);
                }
                i = j;
                continue;
            }
            // A group of string runs joined by single hyphens is decided as one name, and so
            // is a distribution name (`my-pkg`, `zope.interface`), which never changes piece
            // by piece. The grouping looks only at the bytes between runs and at classes,
            // which the swap never changes.
            let seps: &[u8] = if r.class == Class::Dist { b"-." } else { b"-" };
            let mut j = i + 1;
            if r.class != Class::Code {
                while j < runs.len()
                    && runs[j].class == r.class
                    && runs[j].start == runs[j - 1].end + 1
                    && seps.contains(&s[runs[j - 1].end])
                {
                    j += 1;
                }
            }
            if j - i >= 2 || r.class == Class::Dist {
                let pieces: Vec<&str> = runs[i..j]
                    .iter()
                    .map(|x| std::str::from_utf8(&s[x.start..x.end]).unwrap_or(""))
                    .collect();
                // The bytes around the group are never part of a run, so the view shows the
                // same quotes and decides the same way.
                let open = runs[i].start.checked_sub(1).map(|k| s[k]);
                let whole_literal =
                    matches!(open, Some(b'"' | b'\'')) && s.get(runs[j - 1].end).copied() == open;
                // An index after the last hyphen (`"--no-preview-line-length-1"`, black's
                // option for its field `no_preview_line_length_1`) is part of the name;
                // digits are no run, so the view has the same ones.
                let index = hyphen_index(&s[runs[j - 1].end..]);
                let group = self.swap_hyphen_group(
                    &pieces,
                    &index,
                    whole_literal && r.class == Class::String,
                );
                if r.class == Class::Dist && group.is_none() {
                    i = j;
                    continue;
                }
                // What the group becomes: as one name, else piece by piece.
                let new: Vec<String> = group.unwrap_or_else(|| {
                    runs[i..j]
                        .iter()
                        .zip(&pieces)
                        .map(|(x, p)| {
                            self.swap_group_piece(p, x.class)
                                .unwrap_or_else(|| p.to_string())
                        })
                        .collect()
                });
                let kept = r.class != Class::Dist
                    && (self.keeps_group(&pieces, whole_literal)
                        || self.keeps_group(&new, whole_literal));
                if !kept && new.iter().zip(&pieces).any(|(n, p)| n != p) {
                    put_runs(&mut out, s, &mut last, &runs[i..j], new);
                }
                i = j;
                continue;
            }
            for r in &runs[i..j] {
                // Runs are ASCII by construction.
                let Ok(run) = std::str::from_utf8(&s[r.start..r.end]) else {
                    continue;
                };
                let new = self
                    .swap_run(run, r.class)
                    .or_else(|| self.swap_data_key(s, r, run));
                if let Some(new) = new {
                    let o = out.get_or_insert_with(|| Vec::with_capacity(s.len() + 64));
                    o.extend_from_slice(&s[last..r.start]);
                    o.extend_from_slice(new.as_bytes());
                    last = r.end;
                }
            }
            i = j;
        }
        match out {
            None => Cow::Borrowed(s),
            Some(mut o) => {
                o.extend_from_slice(&s[last..]);
                Cow::Owned(o)
            }
        }
    }

    /// The word a renamed token of the original is swapped with.
    pub fn word_of(&self, token: &str) -> Option<&str> {
        self.tokens.get(token).map(|w| &**w)
    }

    /// Whether `word` is a token or a word of the map (the map is an involution, so either
    /// is a key).
    pub(crate) fn holds_word(&self, word: &str) -> bool {
        self.tokens.contains_key(word)
    }

    /// Give the renamed `token` the unused `word` in place of its own (both lowercase; the
    /// pair stays disjoint from every other, so the map stays an involution).
    pub(crate) fn rebind(&mut self, token: &str, word: &str) {
        self.memo.clear();
        if let Some(old) = self.tokens.remove(token) {
            self.tokens.remove(&old);
            self.virtual_words.remove(&old);
        }
        self.tokens.insert(token.into(), word.into());
        self.tokens.insert(word.into(), token.into());
        self.virtual_words.insert(word.into());
    }

    /// Keep what each run became (the default), or decide every run afresh while the map is
    /// being changed many times over (`order::keep_sibling_order`).
    pub(crate) fn memoize(&mut self, on: bool) {
        self.memo.set_on(on);
    }

    /// Exchange the words of two renamed tokens of the original.
    pub(crate) fn exchange(&mut self, a: &str, b: &str) {
        self.memo.clear();
        let (Some(wa), Some(wb)) = (self.tokens.get(a).cloned(), self.tokens.get(b).cloned())
        else {
            return;
        };
        self.tokens.insert(a.into(), wb.clone());
        self.tokens.insert(wb, a.into());
        self.tokens.insert(b.into(), wa.clone());
        self.tokens.insert(wa, b.into());
    }

    /// Number of token pairs.
    pub fn pair_count(&self) -> usize {
        self.tokens.len() / 2
    }
}

/// The renamer answers a lexer's questions about a run for the run and its image alike, so
/// the answer is the same in the view (`formats::Ask`).
impl Ask for Renamer {
    fn is_one_of(&self, run: &str, words: &[&str]) -> bool {
        let hit = |r: &str| words.iter().any(|w| w.eq_ignore_ascii_case(r));
        hit(run) || self.image(run).is_some_and(|i| hit(&i))
    }

    fn is_extension(&self, run: &str) -> bool {
        self.extensions.contains(run)
            || self
                .image(run)
                .is_some_and(|i| self.extensions.contains(i.as_str()))
    }
}

/// Writes `new` in place of `runs` (in order, after `last`) into the output of
/// `Renamer::apply`, started on first use.
fn put_runs(
    out: &mut Option<Vec<u8>>,
    s: &[u8],
    last: &mut usize,
    runs: &[lexer::Run],
    new: Vec<String>,
) {
    let o = out.get_or_insert_with(|| Vec::with_capacity(s.len() + 64));
    for (x, n) in runs.iter().zip(new) {
        o.extend_from_slice(&s[*last..x.start]);
        o.extend_from_slice(n.as_bytes());
        *last = x.end;
    }
}

/// The proper prefixes and suffixes of `run` that start or end at a word (two words at least,
/// with the pieces between them): `IntParamType` gives `ParamType` and `IntParam`.
pub(crate) fn affixes(run: &str) -> Vec<Box<str>> {
    let pieces = tokens::split(run);
    let words: Vec<usize> = pieces
        .iter()
        .enumerate()
        .filter(|(_, p)| matches!(p, Piece::Word(..)))
        .map(|(i, _)| i)
        .collect();
    if words.len() < 3 {
        return Vec::new();
    }
    let text = |a: usize, b: usize| -> String {
        pieces[a..b]
            .iter()
            .map(|p| match p {
                Piece::Word(w, _) | Piece::Other(w) => *w,
            })
            .collect()
    };
    let mut out = Vec::new();
    for k in 1..=words.len() - 2 {
        // Suffix from the k-th word to the end, prefix up to the (len-1-k)-th word.
        out.push(text(words[k], pieces.len()).into_boxed_str());
        let last = words[words.len() - 1 - k];
        out.push(text(0, last + 1).into_boxed_str());
    }
    out
}

/// The segments of a run joined by inner double underscores (each `__` with a non-underscore
/// byte on both sides), or `None` when it has none. Dunders, leading underscores and runs of
/// three underscores are never split. Four underscores between words are the mangled name
/// of a private attribute of a class with a dunder name (`__cast` in class `__proxy__` is
/// `_proxy____cast`): the cut is after the first two, so the class part keeps its dunder
/// tail (`_proxy__`, which stays as the class name stays) and the attribute is the segment.
pub fn segments(run: &str) -> Option<Vec<&str>> {
    let b = run.as_bytes();
    let mut cuts = Vec::new();
    let mut i = 1;
    while i + 2 < b.len() {
        let quad = run.starts_with('_')
            && b[i - 1] != b'_'
            && b.get(i..i + 4) == Some(b"____")
            && b.get(i + 4).is_some_and(|&c| c != b'_');
        if quad {
            cuts.push(i + 2);
            i += 4;
        } else if b[i] == b'_' && b[i + 1] == b'_' && b[i - 1] != b'_' && b[i + 2] != b'_' {
            cuts.push(i);
            i += 2;
        } else {
            i += 1;
        }
    }
    if cuts.is_empty() || is_dunder(run) {
        return None;
    }
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for c in cuts {
        out.push(&run[start..c]);
        start = c + 2;
    }
    out.push(&run[start..]);
    Some(out)
}

/// The length of a file name's stem: the extension starts at the first dot that is not the
/// first byte (`swap_name` keeps what follows).
pub(crate) fn stem_len(name: &[u8]) -> usize {
    name.iter()
        .skip(1)
        .position(|&b| b == b'.')
        .map_or(name.len(), |p| p + 1)
}

/// Whether a run is the CGI and WSGI name of a request header (`HTTP_IF_MODIFIED_SINCE`
/// for `If-Modified-Since`, PEP 3333): servers build it from the header the client sends, so
/// it is the header's, not the name of the attribute that reads it (webob's
/// `if_modified_since` reads `environ["HTTP_IF_MODIFIED_SINCE"]`). It stays, and so does a
/// run whose image is one (`Renamer::swap_segment`).
pub(crate) fn is_cgi_header_key(run: &str) -> bool {
    cgi_header_of(run).is_some()
}

/// The header part of a CGI key (`IF_MODIFIED_SINCE` of `HTTP_IF_MODIFIED_SINCE`), if `run`
/// is one (`is_cgi_header_key`).
pub(crate) fn cgi_header_of(run: &str) -> Option<&str> {
    run.strip_prefix("HTTP_")
        .filter(|rest| !rest.is_empty() && !rest.bytes().any(|b| b.is_ascii_lowercase()))
}

/// The name before an index that ends `run`: digits, or digits after an underscore, any
/// number of times (`scenario0`, `subforms_0`, `cell_1_2`). `None` when no index ends the
/// run or nothing is left before it.
fn index_stem(run: &str) -> Option<&str> {
    if !run.ends_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let stem = run.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_');
    (!stem.is_empty()).then_some(stem)
}

/// The index that ends a hyphen group, in the form its underscore name has (`_1` of
/// `line-length-1`): a hyphen and digits that no letter, digit or underscore follows.
fn hyphen_index(after: &[u8]) -> String {
    let Some(rest) = after.strip_prefix(b"-") else {
        return String::new();
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let ends = rest
        .get(digits)
        .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'));
    if digits == 0 || !ends {
        return String::new();
    }
    format!("_{}", String::from_utf8_lossy(&rest[..digits]))
}

/// Whether `run` is a name and an index joined by an underscore (`subforms_0`): a name
/// built at run time.
fn has_joined_index(run: &str) -> bool {
    index_stem(run).is_some_and(|stem| run.as_bytes().get(stem.len()) == Some(&b'_'))
}

/// `__name__`-style runs are Python's own protocol and never change; nor does a run that
/// ends like one (`dunder_default__`): code makes such names from a dunder by stripping its
/// leading underscores (attrs names `__init__` keywords that way), and the dunder stays.
/// Asked of a run and of its image alike, since the swap keeps underscores where they are.
pub fn is_dunder(run: &str) -> bool {
    run.len() > 2 && run.ends_with("__")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamer() -> Renamer {
        Renamer::new(
            [
                ("query", "ledger"),
                ("set", "suite"),
                ("http", "cable"),
                ("response", "reply"),
                ("user", "otter"),
            ],
            ["get", "setUp"],
            ["query", "user", "QuerySet"],
        )
        .unwrap()
    }

    pub(super) fn swap_py(r: &Renamer, s: &str) -> String {
        String::from_utf8(r.swap_content(b"m.py", s.as_bytes()).into_owned()).unwrap()
    }

    /// A renamer remembers what each run became only while its map stays as it is: after
    /// `rebind` and `exchange`, runs decided before are decided again with the new words.
    #[test]
    fn a_changed_map_forgets_what_runs_became() {
        let mut r = renamer();
        let src = "x = query.user\ns = 'QuerySet'\n";
        assert_eq!(swap_py(&r, src), "x = ledger.otter\ns = 'LedgerSuite'\n");
        r.rebind("query", "parcel");
        assert_eq!(swap_py(&r, src), "x = parcel.otter\ns = 'ParcelSuite'\n");
        r.exchange("query", "user");
        assert_eq!(swap_py(&r, src), "x = otter.parcel\ns = 'OtterSuite'\n");
        // A copy starts with nothing remembered and answers the same.
        assert_eq!(swap_py(&r.clone(), src), swap_py(&r, src));
    }

    #[test]
    fn python2_byte_code_is_read_as_text_and_other_binaries_are_not() {
        let mut old = vec![0x03, 0xf3, b'\r', b'\n', 0, 0, 0, 0];
        old.extend_from_slice(b"c\x00shelf.ledger");
        assert_eq!(file_kind(b"a/0001_initial.pyc-tpl", &old), FileKind::Text);
        assert_eq!(file_kind(b"old.pyo", &old), FileKind::Text);
        // Named otherwise, or Python 3's magic (3413 is 3.8's), it is binary.
        assert_eq!(file_kind(b"a/data.bin", &old), FileKind::Binary);
        assert_eq!(file_kind(b"a.pyc/data.bin", &old), FileKind::Binary);
        let mut new = old.clone();
        new[0..2].copy_from_slice(&3413u16.to_le_bytes());
        assert_eq!(file_kind(b"new.pyc", &new), FileKind::Binary);
        assert_eq!(file_kind(b"short.pyc", b"\x03\xf3\x00"), FileKind::Binary);
        assert!(may_swap_binary(b"x/0001_initial.pyc-tpl"));
        assert!(may_swap_binary(b"old.pyc.bak"));
        assert!(!may_swap_binary(b"x.pyc/data.bin"));
        assert!(!may_swap_binary(b"setup.pyconfig"));
        assert_eq!(file_kind(b"setup.pyconfig", &old), FileKind::Binary);
    }

    #[test]
    fn dunders_and_their_tails_stay() {
        let r = renamer();
        // `query_user__` is `__query_user__` with the leading underscores stripped; the
        // image `ledger_otter__` must come back unchanged too (asked in both directions).
        let src = "__query__ query_user__ C(query_user__=1) 'query__' __query query_user";
        assert_eq!(
            swap_py(&r, src),
            "__query__ query_user__ C(query_user__=1) 'query__' __ledger ledger_otter"
        );
        assert_eq!(
            swap_py(&r, "ledger_otter__ ledger__"),
            "ledger_otter__ ledger__"
        );
    }

    #[test]
    fn keeps_case_and_shape() {
        let r = renamer();
        assert_eq!(
            swap_py(&r, "QuerySet query_set QUERY_SET HTTPResponse"),
            "LedgerSuite ledger_suite LEDGER_SUITE CABLEReply"
        );
    }

    #[test]
    fn frozen_runs_and_their_images_stay() {
        let r = renamer();
        // `setUp` is frozen, so is its image `suiteUp`.
        assert_eq!(swap_py(&r, "setUp suiteUp get"), "setUp suiteUp get");
    }

    #[test]
    fn strings_swap_known_identifiers_and_compounds_only() {
        let r = renamer();
        assert_eq!(
            swap_py(
                &r,
                "x = ['query', 'set', 'user_set', 'http']  # query set\n"
            ),
            "x = ['ledger', 'set', 'otter_suite', 'http']  # ledger set\n"
        );
    }

    /// A test id the view's run built from renamed data (`test_` + the stem of the data
    /// file `ledger-syntax.txt`) goes back word by word; code names go back as always, and
    /// original words the view kept stay.
    #[test]
    fn view_text_goes_back_word_by_word() {
        // `syntax` is frozen, so strings keep the compound whole.
        let r = Renamer::new(
            [("query", "ledger"), ("user", "otter")],
            ["syntax"],
            ["query_user", "TestQuery"],
        )
        .unwrap();
        assert_eq!(r.swap_text("test_ledger_syntax"), "test_ledger_syntax");
        assert_eq!(
            r.view_text_to_original(
                "tests/test_x.py::TestLedger::test_ledger_syntax ledger_otter user"
            ),
            "tests/test_x.py::TestQuery::test_query_syntax query_user user"
        );
        // A view word that touches a non-ASCII letter (an id a runner built from renamed data)
        // goes back too, though the lexer holds no run there.
        assert_eq!(
            r.view_text_to_original("test_ledger_non_ASCII_\u{9ea}_a ledger\u{e9}"),
            "test_query_non_ASCII_\u{9ea}_a query\u{e9}"
        );
    }

    /// A hyphen group whose underscore form stays (`max_age`, outside data of `http.cookies`)
    /// stays inside longer text too, though its piece `age` is a code name renamed elsewhere;
    /// a group that would become such a group stays as well, so the swap comes back.
    #[test]
    fn a_group_whose_name_stays_stays_in_longer_text() {
        let r = Renamer::new([("age", "dew")], ["max_age"], ["age"]).unwrap();
        let src = "cc = parse('public, max-age=10')
x = 'max-dew'
age = 1
";
        let want = "cc = parse('public, max-age=10')
x = 'max-dew'
dew = 1
";
        assert_eq!(swap_py(&r, src), want);
        assert_eq!(swap_py(&r, want), src);
    }

    /// Header names: a whole literal frozen as data (`"last-translator"`) stays, while the
    /// same words inside a longer string (an option, `"last-translator="`) swap as the code
    /// name; a capitalised group whose lower case stays (`Metadata-Version`, with
    /// `metadata_version` frozen) stays whole though its piece `Metadata` is a code name.
    #[test]
    fn header_names_stay_with_their_data() {
        let r = Renamer::new(
            [("translator", "ledger"), ("metadata", "otter")],
            ["last-translator", "metadata_version"],
            ["last_translator", "Metadata"],
        )
        .unwrap();
        let src = concat!(
            "if name == 'last-translator': opts = ['last-translator=', '--last-translator']\n",
            "h = 'Metadata-Version: 2.3 Metadata'\n"
        );
        let want = concat!(
            "if name == 'last-translator': opts = ['last-ledger=', '--last-ledger']\n",
            "h = 'Metadata-Version: 2.3 Otter'\n"
        );
        assert_eq!(swap_py(&r, src), want);
        assert_eq!(swap_py(&r, want), src);
        // Asked of what the group would become as well (found by the involution
        // properties): `Meta-otter` would become `Meta-translator` piece by piece, a kept
        // header; so both stay, or the swap would not come back.
        let r = Renamer::new(
            [("translator", "ledger")],
            ["meta_translator"],
            ["translator"],
        )
        .unwrap();
        for s in ["h = 'Meta-ledger'\n", "h = 'Meta-translator'\n"] {
            assert_eq!(swap_py(&r, s), s);
        }
    }

    /// markdown's tests render `"A _Markdown_ paragraph"` to `<em>Markdown</em>`: the name
    /// between underscores swaps as the class does; a dunder and a name that is no code
    /// name stay.
    #[test]
    fn code_names_between_underscores_follow_them() {
        let r = Renamer::new(
            [("markdown", "ledger"), ("user", "otter")],
            [],
            ["Markdown"],
        )
        .unwrap();
        let src = "s = 'A _Markdown_ and <em>Markdown</em>, __Markdown__, _user_'\n";
        let want = "s = 'A _Ledger_ and <em>Ledger</em>, __Markdown__, _user_'\n";
        assert_eq!(swap_py(&r, src), want);
        assert_eq!(swap_py(&r, want), src);
    }

    /// Emphasis over several words leaves one underscore on each edge word; a reST link
    /// reference ends with one. In a text file both follow the code name; in a string an
    /// underscore joined on one side stays (`"_" + name` builds another name).
    #[test]
    fn edges_of_emphasis_in_text_follow_code_names() {
        let r = Renamer::new([("markdown", "ledger")], [], ["Markdown"]).unwrap();
        let text = "[_Python in Markdown_](u) see Markdown_\n\n.. _Markdown: u\n";
        let want = "[_Python in Ledger_](u) see Ledger_\n\n.. _Ledger: u\n";
        assert_eq!(
            r.swap_content(b"README.md", text.as_bytes()),
            want.as_bytes()
        );
        assert_eq!(
            r.swap_content(b"README.md", want.as_bytes()),
            text.as_bytes()
        );
        let src = "s = 'Markdown_'  # Markdown_\n";
        let py = "s = 'Markdown_'  # Ledger_\n";
        assert_eq!(swap_py(&r, src), py);
        assert_eq!(swap_py(&r, py), src);
    }

    #[test]
    fn hyphenated_strings_follow_their_identifier() {
        let r = Renamer::new(
            [("query", "ledger"), ("user", "otter")],
            ["get"],
            ["query_user", "user_query_1"],
        )
        .unwrap();
        assert_eq!(
            swap_py(
                &r,
                "x = ['query-user', '--query-user', 'user-get', 'query-other']\n"
            ),
            "x = ['ledger-otter', '--ledger-otter', 'user-get', 'query-other']\n"
        );
        // An index ends the option of a name with an index (black's
        // `--no-preview-line-length-1`); other digits after a group are not part of it.
        let orig = "x = ['--user-query-1', 'user-query-2', 'user-query-1x']\n";
        let view = "x = ['--otter-ledger-1', 'user-query-2', 'user-query-1x']\n";
        assert_eq!(swap_py(&r, orig), view);
        assert_eq!(swap_py(&r, view), orig, "both directions agree");
    }

    #[test]
    fn cgi_header_keys_stay_in_code_and_data() {
        // webob's `if_modified_since` reads `environ["HTTP_IF_MODIFIED_SINCE"]`, which the
        // server builds from the header `If-Modified-Since`; Django's test client takes the
        // key as a keyword. The attribute is renamed, the key is the header's.
        let r = Renamer::new(
            [("modified", "doubling"), ("since", "fence")],
            [],
            ["if_modified_since"],
        )
        .unwrap();
        let orig =
            "x = req.if_modified_since or env['HTTP_IF_MODIFIED_SINCE'] or 'IF_MODIFIED_SINCE'\n\
                    get('/', HTTP_IF_MODIFIED_SINCE=now)\n";
        let view =
            "x = req.if_doubling_fence or env['HTTP_IF_MODIFIED_SINCE'] or 'IF_DOUBLING_FENCE'\n\
                    get('/', HTTP_IF_MODIFIED_SINCE=now)\n";
        assert_eq!(swap_py(&r, orig), view);
        assert_eq!(swap_py(&r, view), orig);
    }

    #[test]
    fn string_compounds_with_a_frozen_piece_stay() {
        let r = Renamer::new(
            [("query", "ledger"), ("user", "otter")],
            ["Namespace", "arg"],
            [],
        )
        .unwrap();
        assert_eq!(
            swap_py(
                &r,
                "a = ['_Namespace__query', 'TEST_ARG_USER', 'user_query', 'arg0']\n"
            ),
            "a = ['_Namespace__query', 'TEST_ARG_USER', 'otter_ledger', 'arg0']\n"
        );
    }

    #[test]
    fn compounds_of_code_names_follow_them_past_a_frozen_piece() {
        // pyrsistent names classes `Something.__name__ + "PSet"` and
        // `int.__name__.capitalize() + "PSet"`, and its tests compare them with
        // "SomethingPSet" and "IntPSet": made only of names (the frozen `set` inside the code
        // name `PSet`, the frozen `Int`), the compounds follow their code names.
        // "WidgetSet" and "TEST_ARG_USER" hold a word that is no name beside a frozen one:
        // they stay.
        let r = Renamer::new(
            [
                ("something", "pressure"),
                ("user", "otter"),
                ("int", "fry"),
                ("vector", "ladle"),
                ("sqlite", "gravel"),
                ("escape", "flashy"),
                ("snob", "mint"),
            ],
            [
                "set",
                "arg",
                "int",
                "PVector",
                "master",
                "normal",
                "normal_escape",
            ],
            ["Something", "PSet", "user", "sqlite", "escape_snob"],
        )
        .unwrap()
        .with_path_stems(["normal_escape_snob"]);
        // `PVector` is a frozen name as a whole (its `Vector` alone is not): it stays.
        // "sqlite_master" is a code name `sqlite` and a frozen `master`, and nothing shows
        // they were joined: it stays.
        // "normal_escape_snob", a file's name, joins a frozen `normal` to a code name of two
        // words: it follows the name, though it also starts with the frozen name
        // `normal_escape`. As data that names no file, the frozen name read first keeps it.
        let orig = "a = ['SomethingPSet', 'SomethingIntPSet', 'SomethingIntPVector', \
                    'WidgetSet', 'TEST_ARG_USER', 'sqlite_master', 'normal_escape_snob']\n";
        let view = "a = ['PressurePSet', 'PressureIntPSet', 'PressureIntPVector', \
                    'WidgetSet', 'TEST_ARG_USER', 'sqlite_master', 'normal_flashy_mint']\n";
        assert_eq!(swap_py(&r, orig), view);
        assert_eq!(swap_py(&r, view), orig, "both directions agree");
        assert_eq!(r.swap_run("sqlite_master", Class::String), None);
        assert_eq!(
            r.swap_name(b"normal_flashy_mint.html").as_ref(),
            b"normal_escape_snob.html"
        );
        let not_a_file = r.clone().with_path_stems(["other"]);
        assert_eq!(
            not_a_file.swap_run("normal_escape_snob", Class::String),
            None
        );
        assert_eq!(
            r.swap_run("SomethingIntPSet", Class::String).as_deref(),
            Some("PressureIntPSet")
        );
    }

    #[test]
    fn upper_case_compounds_of_upper_cased_names_follow_them_past_a_frozen_piece() {
        // flask reads `os.environ` for `f"{prefix}_"` with `prefix="FLASK"` and its tests set
        // "FLASK_STRING"; click's `auto_envvar_prefix` builds "TEST_FOO_BAR_BAZ" from the
        // option `baz`. Upper-case spans whose lower case is a code name change as the name;
        // a word that is no name still keeps the compound (`NOTE`), and lower-case data
        // (`"flask_string"`) is no environment name.
        let r = Renamer::new(
            [("flask", "genre"), ("baz", "fly"), ("note", "pear")],
            ["string", "test", "foo", "bar"],
            ["flask", "baz"],
        )
        .unwrap();
        let orig =
            "a = ['FLASK_STRING', 'TEST_FOO_BAR_BAZ', 'FLASK_NOTE_STRING', 'flask_string']\n";
        let view =
            "a = ['GENRE_STRING', 'TEST_FOO_BAR_FLY', 'FLASK_NOTE_STRING', 'flask_string']\n";
        assert_eq!(swap_py(&r, orig), view);
        assert_eq!(swap_py(&r, view), orig, "both directions agree");
    }

    /// Law 3 for the local-host rule of `formats::spans`: the path of a URL on `localhost`
    /// or a reserved name, and a URL of the program's own scheme, follow the words they
    /// hold; other URLs stay whole; the view goes back exactly.
    #[test]
    fn paths_of_local_urls_follow_their_routes_both_ways() {
        let r = Renamer::new([("meh", "dig")], [], ["meh"]).unwrap();
        let orig = "@route('/meh')\nu = ['http://localhost/meh', 'http://127.0.0.1:5000/meh', \
                    'https://example.com/meh', 'https://python.org/meh', 'otp://meh/x']\n";
        let view = "@route('/dig')\nu = ['http://localhost/dig', 'http://127.0.0.1:5000/dig', \
                    'https://example.com/dig', 'https://python.org/meh', 'otp://dig/x']\n";
        assert_eq!(swap_py(&r, orig), view);
        assert_eq!(swap_py(&r, view), orig, "both directions agree");
    }

    #[test]
    fn names_built_from_a_fragment_follow_their_run_time_part() {
        // mistune reads `m.lastgroup.replace('prec_', '')` and looks the rest up among its
        // rule names (`'auto_link'`, the end of the method `parse_auto_link`); its tests
        // load `'renderer_' + name + '.txt'` for a renderer whose name is `'markdown'`, a
        // module. `prec` and `renderer` are fragments (frozen tokens), `link` is frozen on
        // its own: without the fragment the compounds would stay while their run-time parts
        // change. A fragment inside a run, or a run with a word that is no name, stays.
        let r = Renamer::new(
            [
                ("auto", "taps"),
                ("link", "ails"),
                ("markdown", "hydrants"),
                ("parse", "sugar"),
                ("widget", "glove"),
            ],
            ["link", "prec", "renderer"],
            ["parse_auto_link", "markdown"],
        )
        .unwrap()
        .with_fragments(["prec", "renderer"]);
        let orig = "a = ['prec_auto_link', 'auto_link', 'renderer_markdown', \
                    'auto_prec_link', 'prec_widget_link']\n";
        let view = "a = ['prec_taps_ails', 'taps_ails', 'renderer_hydrants', \
                    'auto_prec_link', 'prec_widget_link']\n";
        assert_eq!(swap_py(&r, orig), view);
        assert_eq!(swap_py(&r, view), orig, "both directions agree");
        assert_eq!(
            r.swap_name(b"renderer_markdown.txt").as_ref(),
            b"renderer_hydrants.txt",
            "a file name agrees with the string naming it"
        );
        // Only a fragment makes the start of a code name count inside a compound:
        // pyrsistent's `"IntToFloatPMap"` (built from `int.__name__.capitalize()`) stays
        // beside a class `IntToFloatSetMap` whose start it shares.
        let r = Renamer::new(
            [("int", "owe"), ("float", "woven"), ("set", "suite")],
            ["int", "float", "pmap"],
            ["IntToFloatSetMap"],
        )
        .unwrap()
        .with_fragments(["prec"]);
        assert_eq!(r.swap_run("IntToFloatPMap", Class::String), None);
        // A fragment inside a compound of names is a piece of the name: toolz names a
        // function `'%s_excepting_%s' % (func.__name__, ...)` and its tests compare the
        // result with `'getzero_excepting_IndexError_or_KeyError'`.
        let r = Renamer::new(
            [("getzero", "monitor"), ("index", "ledger"), ("key", "lock")],
            ["IndexError", "KeyError", "error"],
            ["getzero"],
        )
        .unwrap()
        .with_fragments(["excepting"]);
        assert_eq!(
            r.swap_run("getzero_excepting_IndexError_or_KeyError", Class::String)
                .as_deref(),
            Some("monitor_excepting_IndexError_or_KeyError")
        );
    }

    /// wtforms names the entries of a list field `f"{name}{sep}{index}"` and its tests
    /// compare them with `"subforms_0-foo"` and `"subforms_0_foo"` (`foo` frozen): a code
    /// name with an index after an underscore is that name, alone or joined to others.
    /// A word that is no code name keeps its index (`"item_0"`); digits right after the
    /// name are an index too (`"subforms0"`, as pytest numbers the cases of an argument).
    #[test]
    fn a_code_name_with_an_index_follows_the_name() {
        // `foo` is frozen, its token's image `tie` is a code name of its own, and so is the
        // private `_foo`.
        let r = Renamer::new(
            [("subforms", "trotting"), ("item", "gadget"), ("foo", "tie")],
            ["foo"],
            ["subforms", "foo", "tie", "_foo"],
        )
        .unwrap();
        let orig = "a = ['subforms_0', 'subforms_12_foo', 'subforms_1_2', 'item_0', 'subforms0', 'foo_0']\n";
        let view = "a = ['trotting_0', 'trotting_12_foo', 'trotting_1_2', 'item_0', 'trotting0', 'foo_0']\n";
        assert_eq!(swap_py(&r, orig), view);
        assert_eq!(swap_py(&r, view), orig, "both directions agree");
    }

    #[test]
    fn ends_of_code_names_in_data_follow_them() {
        // `set` is frozen on its own, which alone would keep the compound `query_set` in a
        // string; as the end of the code name `user_query_set` it follows that name.
        let r = Renamer::new(
            [("query", "ledger"), ("user", "otter"), ("set", "suite")],
            ["set"],
            ["user_query_set"],
        )
        .unwrap();
        assert_eq!(
            swap_py(
                &r,
                "n.endswith('query_set') or n.startswith('user_query') or 'set_user'\n"
            ),
            "n.endswith('ledger_suite') or n.startswith('otter_ledger') or 'set_user'\n"
        );
        assert_eq!(
            swap_py(
                &r,
                "n.endswith('ledger_suite') or n.startswith('otter_ledger') or 'set_user'\n"
            ),
            "n.endswith('query_set') or n.startswith('user_query') or 'set_user'\n"
        );
    }

    #[test]
    fn lookups_are_decided_segment_by_segment() {
        // `set` is frozen here as a run of its own (`get` too); `query_user` is not. `user`
        // is no code name on its own: a segment of a lookup in code is decided as in a
        // string (Django's `lookup_name = "nulled"` is reached by `field__nulled`), so it
        // stays, in the keyword as in the string.
        let r = Renamer::new(
            [("query", "ledger"), ("user", "otter"), ("set", "suite")],
            ["set", "get"],
            ["query_user"],
        )
        .unwrap();
        assert_eq!(
            swap_py(
                &r,
                "f(set__query_user=1, user__set='set__query_user', u='user__set')\n"
            ),
            "f(set__ledger_otter=1, user__set='set__ledger_otter', u='user__set')\n"
        );
        // Both ways, and dunders and triple underscores stay whole.
        assert_eq!(
            swap_py(
                &r,
                "f(set__ledger_otter=1, user__set='set__ledger_otter', u='user__set')\n"
            ),
            "f(set__query_user=1, user__set='set__query_user', u='user__set')\n"
        );
        assert_eq!(swap_py(&r, "__user__ user___set"), "__user__ otter___suite");
        // A mangled name in code follows its attribute as a name.
        assert_eq!(
            r.swap_run("_Shelf__user", Class::Code).as_deref(),
            Some("_Shelf__otter")
        );
    }

    #[test]
    fn a_mangled_name_of_a_dunder_class_keeps_the_class_part() {
        // Django's lazy `__proxy__` class defines `__cast`, which Python stores as
        // `_proxy____cast`, and other code calls it by that name. The class name stays (a
        // dunder), so the class part of the mangled name must stay while the attribute
        // follows `__cast`.
        let r = Renamer::new([("proxy", "tolls"), ("cast", "banjo")], [], ["cast"]).unwrap();
        let src = "class __proxy__:\n    def __cast(self):\n        pass\nv._proxy____cast()\n";
        let view = swap_py(&r, src);
        assert_eq!(
            view,
            "class __proxy__:\n    def __banjo(self):\n        pass\nv._proxy____banjo()\n"
        );
        assert_eq!(swap_py(&r, &view), src);
        assert_eq!(segments("_proxy____cast"), Some(vec!["_proxy__", "cast"]));
        // Not a mangled name: no leading underscore, or more than four underscores.
        assert_eq!(segments("proxy____cast"), None);
        assert_eq!(segments("_proxy_____cast"), None);
    }

    #[test]
    fn upper_case_data_follows_the_lower_case_name() {
        let r = renamer();
        // `query` is a code identifier: its upper-case spelling in data follows it, both ways.
        assert_eq!(
            swap_py(&r, "kwargs['QUERY'.lower()] = x  # QUERY\nm = 'SET'\n"),
            "kwargs['LEDGER'.lower()] = x  # LEDGER\nm = 'SET'\n"
        );
        assert_eq!(
            swap_py(&r, "kwargs['LEDGER'.lower()] = x  # LEDGER\nm = 'SET'\n"),
            "kwargs['QUERY'.lower()] = x  # QUERY\nm = 'SET'\n"
        );
    }

    /// In a hyphenated group that is no name, a capitalised word stays: a header's words are
    /// capitalised by convention (`Report-Query-Bugs-To`), not made from names.
    #[test]
    fn capitalised_words_of_a_hyphenated_header_stay() {
        let r = renamer();
        let kept = "h = 'Report-Query-Bugs-To: x'\n";
        assert_eq!(swap_py(&r, kept), kept);
        let view = "h = 'Report-Ledger-Bugs-To: x'\n";
        assert_eq!(swap_py(&r, view), view);
        // Alone, it follows the name.
        assert_eq!(swap_py(&r, "h = 'Query'\n"), "h = 'Ledger'\n");
    }

    /// A two-letter fragment (`id` of Django's `"id_%s"`) starts names built at run time like
    /// a longer one: `"id_user"` is the id made from the code name `user`.
    #[test]
    fn names_built_from_a_two_letter_fragment_follow_their_rest() {
        let r = Renamer::new([("user", "otter")], ["id"], ["user"])
            .unwrap()
            .with_fragments(["id"]);
        assert_eq!(swap_py(&r, "s = 'id_user'\n"), "s = 'id_otter'\n");
        assert_eq!(swap_py(&r, "s = 'id_otter'\n"), "s = 'id_user'\n");
        let without = Renamer::new([("user", "otter")], ["id"], ["user"]).unwrap();
        assert_eq!(swap_py(&without, "s = 'id_user'\n"), "s = 'id_user'\n");
    }

    /// A capitalised word whose lower case is a code name follows it (Django's message
    /// `"... with this Isbn already exists."` from the field `isbn`), both ways; a word whose
    /// lower case is no code name (`Set`) stays.
    #[test]
    fn capitalised_data_follows_the_lower_case_name() {
        let r = renamer();
        let (o, v) = (
            "e = ['Book with this Query already exists.', 'Set']\n",
            "e = ['Book with this Ledger already exists.', 'Set']\n",
        );
        assert_eq!(swap_py(&r, o), v);
        assert_eq!(swap_py(&r, v), o);
    }

    /// Data spelling a renamed compound name in mixed case shapes follows it both ways
    /// (humanfriendly's `CaseInsensitiveDict(existing_key=42).get('Existing_Key')`, arrow's
    /// `get_locale("locale-NAME")`), though a frozen piece (`existing`, `locale`) keeps other
    /// compounds; a folded compound that names nothing (`Existing_Other`), a hyphen group
    /// inside longer text (prose: `a locale-NAME pair`) and a capitalised hyphen group (a
    /// header: `Locale-Name`) stay.
    #[test]
    fn case_folded_data_follows_the_compound_name() {
        let r = Renamer::new(
            [("key", "pit"), ("name", "chop"), ("other", "ledger")],
            ["existing", "locale"],
            ["existing_key", "locale_name"],
        )
        .unwrap();
        let o = "d = D(existing_key=1)\nd.get('Existing_Key', 'EXISTING_key', 'Existing_Other')\n\
                 f(locale_name, 'locale-NAME', 'a locale-NAME pair', 'Locale-Name')\n";
        let v = "d = D(existing_pit=1)\nd.get('Existing_Pit', 'EXISTING_pit', 'Existing_Other')\n\
                 f(locale_chop, 'locale-CHOP', 'a locale-NAME pair', 'Locale-Name')\n";
        assert_eq!(swap_py(&r, o), v);
        assert_eq!(swap_py(&r, v), o);
    }

    /// Lower-case data follows an upper-case name the code uses (Django reads
    /// `"sql_field=blue"` and looks up `role.upper()` among keys such as `SQL_FIELD`), even
    /// with a frozen piece that would keep another compound.
    #[test]
    fn lower_case_data_follows_the_upper_case_name() {
        let r = Renamer::new([("field", "ledger")], ["sql"], ["SQL_FIELD"]).unwrap();
        assert_eq!(
            swap_py(
                &r,
                "P = {'SQL_FIELD': 1}\nparse('sql_field=blue;sql_other=red')\n"
            ),
            "P = {'SQL_LEDGER': 1}\nparse('sql_ledger=blue;sql_other=red')\n"
        );
        assert_eq!(swap_py(&r, "parse('sql_ledger')\n"), "parse('sql_field')\n");
    }

    /// A single lower-case word is data, whatever constant or class the code spells in upper
    /// case: num2words' Finnish suffix `'ine'` beside the case constant `INE`.
    #[test]
    fn a_lower_case_word_does_not_follow_an_upper_case_name() {
        let r = Renamer::new([("ine", "ledger"), ("prng", "otter")], [], ["INE", "PRNG"]).unwrap();
        let o = "X = {INE: ('ine', 'issa')}\ng = PRNG('prng-%d' % n)\n";
        let v = "X = {LEDGER: ('ine', 'issa')}\ng = OTTER('prng-%d' % n)\n";
        assert_eq!(swap_py(&r, o), v);
        assert_eq!(swap_py(&r, v), o);
    }

    /// A single lower-case word written as a key or a value of `key=value` text follows the
    /// upper-case name it spells (dateutil's `"rrule:freq=yearly;count=3"` against
    /// `_handle_FREQ` and the map keyed `"YEARLY"`), both ways; the same word elsewhere, a
    /// comparison (`==`) or a frozen name (`count`) stays.
    #[test]
    fn a_lower_case_key_or_value_follows_the_upper_case_name() {
        let r = Renamer::new(
            [("freq", "ledger"), ("yearly", "otter"), ("count", "pebble")],
            ["count"],
            ["FREQ", "YEARLY", "COUNT"],
        )
        .unwrap();
        let o = "s = 'rrule:freq=yearly;count=3'\nt = 'freq yearly'\nu = 'a==yearly'\n";
        let v = "s = 'rrule:ledger=otter;count=3'\nt = 'freq yearly'\nu = 'a==yearly'\n";
        assert_eq!(swap_py(&r, o), v);
        assert_eq!(swap_py(&r, v), o);
        // No upper-case name: the key is a word of the data.
        let none = Renamer::new([("freq", "ledger")], [], ["freq_map"]).unwrap();
        assert_eq!(swap_py(&none, "s = 'freq=1'\n"), "s = 'freq=1'\n");
    }

    /// When the lower-case name is frozen (dateutil's outside `interval=` keyword, while its
    /// token changes in `_interval`), the upper-case data stays with it.
    #[test]
    fn upper_case_data_of_a_frozen_name_stays() {
        let r = Renamer::new(
            [("interval", "ledger")],
            ["interval"],
            ["interval", "_interval"],
        )
        .unwrap();
        assert_eq!(
            swap_py(&r, "x._interval = kw['INTERVAL'.lower()]\n"),
            "x._ledger = kw['INTERVAL'.lower()]\n"
        );
    }

    #[test]
    fn code_identifier_with_an_index_swaps_in_text() {
        let r = renamer();
        assert_eq!(&*r.swap_text("t[query0] t[query]"), "t[ledger0] t[ledger]");
    }

    #[test]
    fn frozen_run_with_digits_stays() {
        let r = Renamer::new([("option", "ledger")], ["option_args"], []).unwrap();
        assert_eq!(
            swap_py(&r, "option_args0 option_x"),
            "option_args0 ledger_x"
        );
    }

    #[test]
    fn names_keep_extension() {
        let r = renamer();
        assert_eq!(&*r.swap_name(b"query_set.py"), b"ledger_suite.py");
        assert_eq!(&*r.swap_name(b"user.query.json"), b"otter.query.json");
        assert_eq!(&*r.swap_name(b".query"), b".ledger");
        assert_eq!(&*r.swap_name(b"__init__.py"), b"__init__.py");
    }

    #[test]
    fn binary_passes_through() {
        let r = renamer();
        let data = b"query\0set";
        assert_eq!(&*r.swap_content(b"a.py", data), data);
        // A stray non-UTF-8 byte does not stop the rename of the rest.
        let bad = b"query \xff set_user";
        assert_eq!(&*r.swap_content(b"a.txt", bad), b"ledger \xff suite_otter");
    }

    #[test]
    fn rejects_pairs_that_break_involution() {
        assert!(Renamer::new([("abc", "def"), ("def", "ghi")], [], []).is_err());
        assert!(Renamer::new([("ab", "def")], [], []).is_err());
    }
}
