//! Names listed together in code, whose relative order the view keeps (law 5).
//!
//! Code sorts names at run time (`sorted(d.keys())`, a lookup's "Choices are: ..." message,
//! a YAML dump of a dict) and tests compare the result with names they list in the order the
//! original's spelling sorts (`== ['foo', 'hello']`). When `hello` becomes a word that sorts
//! before `foo`, the outcome changes. So the places where code lists names side by side are
//! groups that `order::keep_sibling_order` keeps sorted as in the original, like the entries
//! of a directory:
//!
//! - the items of a list, tuple or set display that are all whole string literals;
//! - the string keys of a dict display;
//! - the keyword names of one call (`dict(foo=1, hello=2)`);
//! - the `test*` functions and methods of a module, and its classes when it has such tests:
//!   `unittest` runs a module's `TestCase` classes in the order of `dir(module)` and each
//!   class's test methods in the order of their names, so a suite whose tests leak state
//!   into the ones after them (a cache, a registry) needs that order kept (`TestOrder`).
//!
//! - the attribute names of one markup tag written in sorted order (`<system_message
//!   backrefs="p-1" ids="m-1" level="2">`, in any text file or string): serializers sort a
//!   node's attributes (docutils' pseudo-XML, `xml.etree` since Python 3.8 keeps insertion
//!   order but many writers sort), and expected output in tests spells them sorted
//!   (`sorted_attributes`).
//!
//! Found lexically (`defs::logical_lines`), like the definitions: a group the lexer misreads
//! only adds or drops an order constraint, never changes what a name maps to.

use super::defs::{closing, is_assign_eq, logical_lines, split_top, T};

/// Groups of two names or more listed together in `src`, each in source order.
pub fn listed_together(src: &[u8]) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    let mut tests = TestOrder::default();
    logical_lines(src, true, |line| {
        groups_in_line(line, src, &mut out);
        tests.line(line);
    });
    tests.finish(&mut out);
    out
}

pub(super) fn groups_in_line<'a>(line: &[T<'a>], src: &[u8], out: &mut Vec<Vec<&'a str>>) {
    for (i, t) in line.iter().enumerate() {
        let T::P(open @ (b'(' | b'[' | b'{'), _) = t else {
            continue;
        };
        let close = closing(line, i);
        let inner = &line[i + 1..close.min(line.len())];
        let mut items = split_top(inner, b',');
        // A trailing comma leaves an empty last item.
        if items.last().is_some_and(|x| x.is_empty()) {
            items.pop();
        }
        if items.len() < 2 || items.iter().any(|x| x.is_empty()) {
            continue;
        }
        let call = *open == b'('
            && matches!(
                i.checked_sub(1).map(|j| line[j]),
                Some(T::Word(_) | T::P(b')' | b']', _))
            );
        let group: Option<Vec<&str>> = if call {
            keyword_names(&items, src)
        } else {
            items
                .iter()
                .map(|x| match x {
                    [T::Str(s)] => Some(*s),
                    [T::Str(s), T::P(b':', _), ..] if *open == b'{' => Some(*s),
                    _ => None,
                })
                .collect()
        };
        if let Some(g) = group.filter(|g| g.len() >= 2) {
            out.push(g);
        }
    }
}

/// The attribute names of each markup tag in `text` (`<name a="1" b='2' c=3>`) that holds two
/// or more and lists them in strictly ascending byte order, each group once. A tag whose
/// attributes are not sorted was written by hand or in insertion order, and constrains
/// nothing.
pub fn sorted_attributes(text: &[u8]) -> std::collections::BTreeSet<Vec<&str>> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = std::collections::BTreeSet::new();
    let mut i = 0;
    while let Some(at) = text[i..].iter().position(|&b| b == b'<') {
        i += at + 1;
        // The tag's name.
        let name_end = i + text[i..]
            .iter()
            .take_while(|&&b| word(b) || b == b'-' || b == b':')
            .count();
        if name_end == i || !text[i].is_ascii_alphabetic() {
            continue;
        }
        let mut j = name_end;
        let mut names: Vec<&str> = Vec::new();
        loop {
            let ws = text[j..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            let start = j + ws;
            let end = start + text[start..].iter().take_while(|&&b| word(b)).count();
            if ws == 0 || end == start || text.get(end) != Some(&b'=') {
                break;
            }
            // The value: quoted, or a bare run up to white space or the tag's end.
            let v = end + 1;
            let after = match text.get(v) {
                Some(&q @ (b'"' | b'\'')) => {
                    match text[v + 1..].iter().position(|&b| b == q || b == b'\n') {
                        Some(k) if text[v + 1 + k] == q => v + 2 + k,
                        _ => break,
                    }
                }
                Some(_) => {
                    v + text[v..]
                        .iter()
                        .take_while(|&&b| !b.is_ascii_whitespace() && b != b'>')
                        .count()
                }
                None => break,
            };
            match std::str::from_utf8(&text[start..end]) {
                Ok(n) => names.push(n),
                Err(_) => break,
            }
            j = after;
        }
        if names.len() >= 2 && names.windows(2).all(|p| p[0] < p[1]) {
            out.insert(names);
        }
        i = j.max(i);
    }
    out
}

/// The run order `unittest` gives a module's tests: it sorts the names of test methods (the
/// default prefix `test`) and of the classes it finds in the module. One group holds every
/// `def test*` of the file (methods of all its classes together: a wider group than
/// `unittest` sorts, which only adds constraints), the other every class of a file that has
/// such tests.
#[derive(Debug, Default)]
pub(super) struct TestOrder<'a> {
    tests: Vec<&'a str>,
    classes: Vec<&'a str>,
}

impl<'a> TestOrder<'a> {
    /// Read one logical line of code tokens (strings left out).
    pub(super) fn line(&mut self, code: &[T<'a>]) {
        let code = match code {
            [T::Word("async"), rest @ ..] => rest,
            _ => code,
        };
        match code {
            [T::Word("def"), T::Word(name), ..] if name.starts_with("test") => {
                self.tests.push(name)
            }
            [T::Word("class"), T::Word(name), ..] => self.classes.push(name),
            _ => {}
        }
    }

    /// The groups of the file read, each of two names or more.
    pub(super) fn finish(self, out: &mut Vec<Vec<&'a str>>) {
        if self.tests.is_empty() {
            return;
        }
        for g in [self.tests, self.classes] {
            if g.len() >= 2 {
                out.push(g);
            }
        }
    }
}

/// The names of a call's keyword arguments, if it has two or more; positional arguments and
/// `**kwargs` around them are skipped.
fn keyword_names<'a>(items: &[&[T<'a>]], src: &[u8]) -> Option<Vec<&'a str>> {
    let names: Vec<&str> = items
        .iter()
        .filter_map(|x| match x {
            [T::Word(w), T::P(b'=', pos), ..] if is_assign_eq(src, *pos) => Some(*w),
            _ => None,
        })
        .collect();
    (names.len() >= 2).then_some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_displays_dict_keys_and_keywords_are_groups() {
        let src = b"assert sorted(b.keys()) == ['foo', 'hello']\n\
                    d = {'zeta': 1, \"alpha\": f(x=1)}\n\
                    m = Munch(foo='bar', hello=42, **rest)\n\
                    t = ('one',)\n\
                    n = ['a b', 'c']\n\
                    c = f(a == b, c)\n";
        let g = listed_together(src);
        assert_eq!(
            g,
            vec![
                vec!["foo", "hello"],
                vec!["zeta", "alpha"],
                vec!["foo", "hello"]
            ]
        );
    }

    fn test_order(src: &[u8]) -> Vec<Vec<&str>> {
        let mut order = TestOrder::default();
        logical_lines(src, false, |line| order.line(line));
        let mut out = Vec::new();
        order.finish(&mut out);
        out
    }

    #[test]
    fn test_methods_and_the_classes_beside_them_are_groups() {
        let src = b"class TestZeta(unittest.TestCase):\n    def test_b(self): pass\n\
                    \n    async def test_a(self):\n        def test_inner(): pass\n\
                    class Helper:\n    def setUp(self): pass\n    def helper(self): pass\n";
        assert_eq!(
            test_order(src),
            vec![
                vec!["test_b", "test_a", "test_inner"],
                vec!["TestZeta", "Helper"]
            ]
        );
    }

    #[test]
    fn a_module_without_tests_gives_no_group() {
        let src = b"class B:\n    def run(self): pass\nclass A:\n    pass\ndef check(): pass\n";
        assert!(test_order(src).is_empty());
        // One test alone: nothing to order among tests, but the classes still are.
        let one = b"def test_only(): pass\nclass B: pass\nclass A: pass\n";
        assert_eq!(test_order(one), vec![vec!["B", "A"]]);
    }

    #[test]
    fn sorted_attributes_of_a_tag_are_a_group() {
        let text = b"<system_message backrefs=\"p-1\" ids=\"m-1\" level=\"2\">\n\
                     <image uri='a.png' alt='x'> <a href=x b=1/> <p> a<b and c=d\n\
                     <reference name=\"x\" refuri=\"y\">";
        let g: Vec<Vec<&str>> = sorted_attributes(text).into_iter().collect();
        // `uri` before `alt` and `href` before `b` are not sorted: written in insertion
        // order, they constrain nothing. `a<b and c=d` is no tag with attributes.
        assert_eq!(
            g,
            vec![vec!["backrefs", "ids", "level"], vec!["name", "refuri"]]
        );
    }

    #[test]
    fn groups_span_lines_inside_brackets() {
        let src = b"__all__ = [\n    'Beta',\n    'Alpha',  # kept\n]\n";
        assert_eq!(listed_together(src), vec![vec!["Beta", "Alpha"]]);
    }
}
