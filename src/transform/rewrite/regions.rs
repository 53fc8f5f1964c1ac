//! `--rewrite-regions FILE`: the parts of the original an evaluator wants rewritten (for
//! example the functions a gold patch touches), read as `PATH:FIRST-LAST` lines (original
//! path, 1-based inclusive line numbers; `PATH:N` for one line; `#` comments). Each region
//! becomes the qualified names of the functions that overlap it, which is what the bundle
//! keeps: names, unlike line numbers, stay true while the file is edited.

use std::collections::{BTreeMap, BTreeSet};

/// One region: an original path and an inclusive range of 1-based lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub path: String,
    pub first: usize,
    pub last: usize,
}

/// Parse a regions file; errors name the line.
pub fn parse(text: &str) -> Result<Vec<Region>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let bad = |why: &str| {
            format!(
                "line {}: `{raw}`: {why} (write PATH:FIRST-LAST, original path, 1-based lines)",
                i + 1
            )
        };
        let (path, range) = line.rsplit_once(':').ok_or_else(|| bad("no `:`"))?;
        let (a, b) = range.split_once('-').unwrap_or((range, range));
        let first: usize = a.trim().parse().map_err(|_| bad("not a line number"))?;
        let last: usize = b.trim().parse().map_err(|_| bad("not a line number"))?;
        if first == 0 || last < first {
            return Err(bad("lines start at 1 and the range must not be empty"));
        }
        let path = path.trim().trim_start_matches("./").to_string();
        if path.is_empty() {
            return Err(bad("no path"));
        }
        out.push(Region { path, first, last });
    }
    Ok(out)
}

/// The qualified names of the functions of `text` whose lines overlap `first..=last`
/// (1-based), outer and inner alike.
pub fn functions_overlapping(text: &[u8], first: usize, last: usize) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let Some(tree) = super::python_parser().and_then(|mut p| p.parse(text, None)) else {
        return out;
    };
    super::walk(tree.root_node(), &mut |node, entering| {
        let (a, b) = (node.start_position().row + 1, node.end_position().row + 1);
        if entering && node.kind() == "function_definition" && a <= last && first <= b {
            out.insert(super::qualified_name(node, text));
        }
    });
    out
}

/// Regions resolved against the tree's files: original path -> functions to rewrite. A
/// region whose file is not a Python file of the tree, or that overlaps no function, is an
/// error: an evaluator who names a region wants to know it was taken.
pub fn resolve(
    regions: &[Region],
    file: impl Fn(&str) -> Option<Vec<u8>>,
) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in regions {
        let text = file(&r.path).ok_or_else(|| {
            format!(
                "rewrite region {}:{}-{}: no Python file {} in the tree",
                r.path, r.first, r.last, r.path
            )
        })?;
        let names = functions_overlapping(&text, r.first, r.last);
        if names.is_empty() {
            return Err(format!(
                "rewrite region {}:{}-{}: no function there (Level 4 rewrites function bodies)",
                r.path, r.first, r.last
            ));
        }
        out.entry(r.path.clone()).or_default().extend(names);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_parse_and_resolve_to_functions() {
        let regions = parse("# gold patch\npkg/a.py:4-5\n./pkg/a.py:1\n").unwrap();
        assert_eq!(regions.len(), 2);
        let src = b"def top():\n    pass\nclass C:\n    def m(self):\n        def inner():\n            pass\n";
        let got = resolve(&regions, |p| (p == "pkg/a.py").then(|| src.to_vec())).unwrap();
        let names: Vec<&str> = got["pkg/a.py"].iter().map(String::as_str).collect();
        assert_eq!(names, ["C.m", "C.m.inner", "top"]);
        assert!(resolve(&regions, |_| None)
            .unwrap_err()
            .contains("no Python file"));
        let blank = parse("pkg/a.py:3").unwrap();
        assert!(resolve(&blank, |_| Some(src.to_vec()))
            .unwrap_err()
            .contains("no function"));
        for bad in ["pkg/a.py", "pkg/a.py:0", "pkg/a.py:5-2", ":3", "pkg/a.py:x"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
