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
//! - the keyword names of one call (`dict(foo=1, hello=2)`).
//!
//! Found lexically (`defs::logical_lines`), like the definitions: a group the lexer misreads
//! only adds or drops an order constraint, never changes what a name maps to.

use super::defs::{closing, is_assign_eq, logical_lines, split_top, T};

/// Groups of two names or more listed together in `src`, each in source order.
pub fn listed_together(src: &[u8]) -> Vec<Vec<&str>> {
    let mut out = Vec::new();
    logical_lines(src, true, |line| groups_in_line(line, src, &mut out));
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

    #[test]
    fn groups_span_lines_inside_brackets() {
        let src = b"__all__ = [\n    'Beta',\n    'Alpha',  # kept\n]\n";
        assert_eq!(listed_together(src), vec![vec!["Beta", "Alpha"]]);
    }
}
