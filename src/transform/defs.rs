//! Which names a Python file *defines*: the repository owns these (modules, classes,
//! functions, methods, parameters, module and class attributes, attributes assigned on
//! objects, local names, loop and `with` targets, import aliases).
//!
//! Found with tree-sitter-python, which never fails: a file with syntax errors still yields
//! the definitions tree-sitter could recognise. Ownership only decides which tokens the map
//! covers; whether a run is swapped is decided lexically (see `rename`), so parse errors can
//! never break the involution.

use std::collections::BTreeSet;

use tree_sitter::{Node, Parser};

/// Names defined in `src`.
pub fn defined_names(src: &[u8]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .is_err()
    {
        return out;
    }
    let Some(tree) = parser.parse(src, None) else {
        return out;
    };
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        visit(node, src, &mut out);
        let mut c = node.walk();
        for child in node.children(&mut c) {
            stack.push(child);
        }
    }
    out
}

fn text<'a>(n: Node<'_>, src: &'a [u8]) -> Option<&'a str> {
    std::str::from_utf8(src.get(n.start_byte()..n.end_byte())?).ok()
}

fn add(n: Option<Node<'_>>, src: &[u8], out: &mut BTreeSet<String>) {
    if let Some(n) = n {
        if n.kind() == "identifier" {
            if let Some(t) = text(n, src) {
                out.insert(t.to_string());
            }
        }
    }
}

/// Identifiers bound by an assignment target (names, tuple elements, `obj.attr` attributes).
fn targets(n: Node<'_>, src: &[u8], out: &mut BTreeSet<String>) {
    match n.kind() {
        "identifier" => add(Some(n), src, out),
        "attribute" => add(n.child_by_field_name("attribute"), src, out),
        "pattern_list"
        | "tuple_pattern"
        | "list_pattern"
        | "tuple"
        | "list"
        | "list_splat_pattern"
        | "parenthesized_expression"
        | "expression_list" => {
            let mut c = n.walk();
            for child in n.named_children(&mut c) {
                targets(child, src, out);
            }
        }
        _ => {}
    }
}

fn visit(n: Node<'_>, src: &[u8], out: &mut BTreeSet<String>) {
    match n.kind() {
        "function_definition" | "class_definition" => add(n.child_by_field_name("name"), src, out),
        "parameters" | "lambda_parameters" => {
            let mut c = n.walk();
            for p in n.named_children(&mut c) {
                match p.kind() {
                    "identifier" => add(Some(p), src, out),
                    "default_parameter" | "typed_default_parameter" => {
                        add(p.child_by_field_name("name"), src, out)
                    }
                    "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                        let mut c2 = p.walk();
                        for q in p.named_children(&mut c2) {
                            if q.kind() == "identifier" {
                                add(Some(q), src, out);
                                break;
                            }
                            if matches!(q.kind(), "list_splat_pattern" | "dictionary_splat_pattern")
                            {
                                let mut c3 = q.walk();
                                for r in q.named_children(&mut c3) {
                                    add(Some(r), src, out);
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
            if let Some(l) = n.child_by_field_name("left") {
                targets(l, src, out);
            }
        }
        "named_expression" => add(n.child_by_field_name("name"), src, out),
        "as_pattern" => {
            if let Some(a) = n.child_by_field_name("alias") {
                let mut c = a.walk();
                for t in a.named_children(&mut c) {
                    targets(t, src, out);
                }
                targets(a, src, out);
            }
        }
        "aliased_import" => add(n.child_by_field_name("alias"), src, out),
        "global_statement" | "nonlocal_statement" => {
            let mut c = n.walk();
            for t in n.named_children(&mut c) {
                add(Some(t), src, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_definitions() {
        let src = br#"
import os.path as osp
from json import dumps as to_json
LIMIT = 3
class ShelfCatalog(Base):
    kind: str = "x"
    def add_copy(self, copy_id, *extra, shelf=None, **opts):
        self.last_copy = copy_id
        total, count = 0, 1
        for item_row in extra:
            pass
        with open(x) as handle:
            pass
        return [r for row_item in extra if (hit := row_item)]
f = lambda lam_arg: lam_arg
"#;
        let d = defined_names(src);
        for n in [
            "osp",
            "to_json",
            "LIMIT",
            "ShelfCatalog",
            "kind",
            "add_copy",
            "self",
            "copy_id",
            "extra",
            "shelf",
            "opts",
            "last_copy",
            "total",
            "count",
            "item_row",
            "handle",
            "row_item",
            "hit",
            "f",
            "lam_arg",
        ] {
            assert!(d.contains(n), "missing {n}: {d:?}");
        }
        for n in ["os", "json", "dumps", "Base", "open", "x", "r", "str"] {
            assert!(!d.contains(n), "unexpected {n}");
        }
    }

    #[test]
    fn broken_files_still_yield_what_parses() {
        let d = defined_names(b"def good_one(a):\n    pass\ndef broken(:\n");
        assert!(d.contains("good_one"));
    }
}
