//! Names joined from a parameter: the fixed parts of a family that the callers pass.
//!
//! ```python
//! def __get_rule_handler(self, domain, rule):
//!     methodname = '_{0}_{1}'.format(domain, rule.replace(' ', '_'))
//!     return getattr(self, methodname, None)
//! ...
//! self.__get_rule_handler('check_with', checks)
//! ```
//!
//! builds `_check_with_schema` from a literal a caller passes, separators and a run-time
//! part read from data (a schema's `{'check_with': 'schema'}`). The join's string holds only
//! separators, so the string rule (`families::fragments_in_runs`) sees no fixed part; the
//! fixed parts are the literals the function is called with. Each becomes a joined prefix
//! fragment (`_check_with_`), and the family rules then treat `_check_with_schema` as they
//! treat `"clean_%s" % name`'s members: a member whose run-time part stays as data stays.
//!
//! Found lexically, without flow: a `def` whose body (the lines after its header indented
//! deeper) holds a separator-only join whose first part is one of its parameters
//! (`"_{0}_{1}".format(p, ...)`, `"{}_{}".format(p, ...)`, `"%s_%s" % (p, ...)`,
//! `f"{p}_{...}"`, `p + "_" + ...`, `"_" + p + "_"`); then every call of that function's
//! name in any file of the repository (`name(...)`, or `x.name(...)` for a method, whose
//! `self` is not among the arguments) whose argument in that parameter's place is a whole
//! identifier literal of two letters or more. A function called through another name, or
//! with the value in a variable, keeps its family's names renamable, as before this rule.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use rayon::prelude::*;
use regex::bytes::Regex;

use super::families::Fragment;
use super::listed_joins::{body_end, indentation, join_parts, two_letters, JOIN};

/// A `def` header up to its opening bracket: the indentation and the function's name.
static DEF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^([ \t]*)(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(")
        .expect("a valid pattern")
});

/// Any name called, and the bracket after it: the fallback when the pattern of the joining
/// functions' own names is too large to build.
static ANY_CALL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*\(").expect("a valid pattern"));

/// A function one of whose parameters is the first part of a name it joins.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JoiningParam {
    /// The function's name.
    pub function: String,
    /// The parameter's place among the arguments a call spells (`self` not counted for a
    /// method).
    pub index: usize,
    /// Whether the function is a method (first parameter `self` or `cls`): only calls of
    /// an attribute (`x.name(...)`) pass its arguments in that order.
    pub method: bool,
    /// The separator before the parameter in the joined name (`_` of `"_{0}_{1}"`), if any.
    pub lead: String,
    /// The separator after it.
    pub sep: String,
}

/// The functions of `src` that join a parameter first into a name (see the module note).
pub fn joining_params(src: &[u8]) -> BTreeSet<JoiningParam> {
    let mut out = BTreeSet::new();
    if !JOIN.is_match(src) {
        return out;
    }
    for c in DEF.captures_iter(src) {
        let (Some(whole), Some(name)) = (c.get(0), c.get(2)) else {
            continue;
        };
        let indent = indentation(&c[1]);
        let Some((params, close)) = arguments(src, whole.end()) else {
            continue;
        };
        let names: Vec<&[u8]> = params.iter().map(|p| leading_name(p)).collect();
        let method = matches!(names.first(), Some(&(b"self" | b"cls")));
        let body = &src[close..body_end(src, close, indent)];
        for j in JOIN.captures_iter(body) {
            let Some((var, lead, sep)) = join_parts(&j) else {
                continue;
            };
            let Some(at) = names.iter().position(|n| *n == var) else {
                continue;
            };
            if method && at == 0 {
                continue;
            }
            let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            out.insert(JoiningParam {
                function: text(name.as_bytes()),
                index: if method { at - 1 } else { at },
                method,
                lead: text(lead),
                sep: text(sep),
            });
        }
    }
    out
}

/// The joined prefix fragments (`_check_with_`) of the identifier literals that calls in
/// `files` pass to the functions of `joins` in their joined parameter's place. Each file is
/// read once for all the functions.
pub fn fragments(joins: &BTreeSet<JoiningParam>, files: &[(&str, &[u8])]) -> Vec<Fragment> {
    let mut by_name: HashMap<&[u8], Vec<&JoiningParam>> = HashMap::new();
    for jp in joins {
        by_name.entry(jp.function.as_bytes()).or_default().push(jp);
    }
    if by_name.is_empty() {
        return Vec::new();
    }
    // A call of one of these names and its bracket: the regex looks for the names' letters,
    // not for every identifier of every file.
    let names: Vec<String> = joins.iter().map(|jp| regex::escape(&jp.function)).collect();
    let call =
        Regex::new(&format!(r"({})[ \t]*\(", names.join("|"))).unwrap_or_else(|_| ANY_CALL.clone());
    let texts: BTreeSet<String> = files
        .par_iter()
        .flat_map_iter(|(_, src)| passed_literals(src, &call, &by_name))
        .collect();
    texts.into_iter().map(Fragment::joined_prefix).collect()
}

/// The fixed parts that the calls in `src` of the functions in `by_name` make from the
/// literals they pass (`name(...)`, or `x.name(...)` for a method).
fn passed_literals(
    src: &[u8],
    call: &Regex,
    by_name: &HashMap<&[u8], Vec<&JoiningParam>>,
) -> Vec<String> {
    let mut out = Vec::new();
    for c in call.captures_iter(src) {
        let (Some(call), Some(name)) = (c.get(0), c.get(1)) else {
            continue;
        };
        let Some(joins) = by_name.get(name.as_bytes()) else {
            continue;
        };
        let before = name.start().checked_sub(1).map(|i| src[i]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
            || defines(src, name.start())
        {
            continue;
        }
        let Some((args, _)) = arguments(src, call.end()) else {
            continue;
        };
        for jp in joins {
            if jp.method && before != Some(b'.') {
                continue;
            }
            let item = args.get(jp.index).and_then(|a| identifier_literal(a));
            if let Some(item) = item.filter(|i| two_letters(i)) {
                out.push(format!("{}{item}{}", jp.lead, jp.sep));
            }
        }
    }
    out
}

/// Whether the name at `start` is the one a `def` defines.
fn defines(src: &[u8], start: usize) -> bool {
    let head = src[..start].trim_ascii_end();
    head.ends_with(b"def") && {
        let k = head.len() - 3;
        k == 0 || !(head[k - 1].is_ascii_alphanumeric() || head[k - 1] == b'_')
    }
}

/// The top-level arguments of a bracket opened just before `from`, trimmed, and where the
/// closing bracket is; `None` when it does not close. Brackets inside string literals are
/// skipped.
fn arguments(src: &[u8], from: usize) -> Option<(Vec<&[u8]>, usize)> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut start = from;
    let mut out = Vec::new();
    let mut i = from;
    while i < src.len() {
        let b = src[i];
        if let Some(q) = quote {
            if b == b'\\' {
                i += 1;
            } else if b == q {
                quote = None;
            }
        } else {
            match b {
                b'"' | b'\'' => quote = Some(b),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' if depth > 0 => depth -= 1,
                b')' => {
                    let last = src[start..i].trim_ascii();
                    if !last.is_empty() {
                        out.push(last);
                    }
                    return Some((out, i + 1));
                }
                b',' if depth == 0 => {
                    out.push(src[start..i].trim_ascii());
                    start = i + 1;
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The parameter or argument name an entry starts with (`domain` of `domain=None`,
/// `*args` gives `args`).
fn leading_name(p: &[u8]) -> &[u8] {
    let p = p.trim_ascii_start();
    let p = &p[p.iter().take_while(|&&b| b == b'*').count()..];
    let n = p
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    &p[..n]
}

/// The text of an argument that is one plain string literal spelling an identifier.
fn identifier_literal(a: &[u8]) -> Option<&str> {
    let (&q, rest) = a.split_first()?;
    if !matches!(q, b'"' | b'\'') || rest.last() != Some(&q) {
        return None;
    }
    let inner = std::str::from_utf8(&rest[..rest.len() - 1]).ok()?;
    let ident = inner
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && inner
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_');
    ident.then_some(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(src: &str) -> Vec<(String, usize, bool, String, String)> {
        joining_params(src.as_bytes())
            .into_iter()
            .map(|j| (j.function, j.index, j.method, j.lead, j.sep))
            .collect()
    }

    fn jp(function: &str, index: usize, method: bool, lead: &str) -> JoiningParam {
        JoiningParam {
            function: function.into(),
            index,
            method,
            lead: lead.into(),
            sep: "_".into(),
        }
    }

    #[test]
    fn a_parameter_joined_first_is_found_in_each_spelling() {
        let src = "class V:\n    def __get_rule_handler(self, domain, rule):\n        methodname = '_{0}_{1}'.format(domain, rule.replace(' ', '_'))\n        return getattr(self, methodname, None)\n";
        assert_eq!(
            params(src),
            [("__get_rule_handler".into(), 0, true, "_".into(), "_".into())]
        );
        let src = "def with_prefix(prefix):\n    return [x for x in dir(C) if x.startswith('_' + prefix + '_')]\n";
        assert_eq!(
            params(src),
            [("with_prefix".into(), 0, false, "_".into(), "_".into())]
        );
        let src = "def hook(obj, kind, name):\n    return getattr(obj, f'{kind}_{name}')\n";
        assert_eq!(
            params(src),
            [("hook".into(), 1, false, "".into(), "_".into())]
        );
    }

    #[test]
    fn a_join_outside_the_body_or_of_no_parameter_finds_nothing() {
        let src = "def f(domain):\n    return domain\n\nx = '{0}_{1}'.format(domain, rule)\n";
        assert!(params(src).is_empty(), "{:?}", params(src));
        let src = "def f(a):\n    kind = a.kind\n    return '{0}_{1}'.format(kind, a)\n";
        assert!(params(src).is_empty(), "{:?}", params(src));
        // `self` is not a fixed part callers pass.
        let src = "class C:\n    def f(self, x):\n        return '{}_{}'.format(self, x)\n";
        assert!(params(src).is_empty(), "{:?}", params(src));
    }

    /// The fragment texts `fragments` makes for `joins` from one file.
    fn texts(joins: &[JoiningParam], src: &str) -> Vec<String> {
        let joins: BTreeSet<JoiningParam> = joins.iter().cloned().collect();
        fragments(&joins, &[("m.py", src.as_bytes())])
            .into_iter()
            .map(|f| {
                assert!(f.joined && f.prefix, "{f:?}");
                f.text
            })
            .collect()
    }

    #[test]
    fn callers_literals_in_the_parameters_place_are_read() {
        let j = jp("__get_rule_handler", 0, true, "_");
        let src = "h = self.__get_rule_handler('check_with', checks)\nh = self.__get_rule_handler(\"validate\", rule)\nh = self.__get_rule_handler(domain, rule)\nh = self.__get_rule_handler('a', rule)\n";
        assert_eq!(
            texts(std::slice::from_ref(&j), src),
            ["_check_with_", "_validate_"]
        );
        // A method's name called plainly is another function.
        assert!(texts(&[j], "__get_rule_handler('x_y', z)\n").is_empty());
        // The definition is no call; a longer name is another function.
        let j = jp("with_prefix", 0, false, "_");
        let src = "def with_prefix(prefix):\n    pass\n\nwith_prefix('validate')\nwith_prefix('not an ident')\nmy_with_prefix('other')\n";
        assert_eq!(texts(&[j], src), ["_validate_"]);
    }

    #[test]
    fn every_function_of_a_name_reads_its_own_place() {
        // Two joins of one function: the first argument after `_`, the second before `-`.
        let a = jp("hook", 0, false, "_");
        let b = JoiningParam {
            index: 1,
            lead: String::new(),
            sep: "-".into(),
            ..jp("hook", 0, false, "")
        };
        let src = "hook('pre_save', 'field_name', x)\n";
        assert_eq!(texts(&[a, b], src), ["_pre_save_", "field_name-"]);
    }
}
