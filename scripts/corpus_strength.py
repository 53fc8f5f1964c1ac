"""Strength figures that do not trust the tool: the exported view against the original, read
with Python's own `ast` and the two file lists. Nothing here reads a bundle or calls
`schrodinger`, so a bug in the tool's map cannot make a name look hidden.

- package renamed: an import name of the project (`flask`) is a path component (a directory
  name or a file stem) nowhere in the view.
- module path components hidden: of the distinct directory names and file stems on the paths
  of the package's non-test modules (`flask`, `json`, `tag`, ...; dunder stems left out), the
  share that is a path component nowhere in the view.
- public names hidden: of the distinct public (no leading underscore) class, function and
  method names the package's non-test modules define, the share that occurs as no identifier
  in the view's non-test Python code (every name the parser sees: names, attributes,
  definitions, parameters, keywords, imported module and member names). A view file that does
  not parse counts every word in it as an identifier.
- absent from the whole view: the same names, counting one as hidden only when it occurs as
  no whole word (`[A-Za-z_][A-Za-z0-9_]*`) in any file of the view, text or binary, tests,
  docs and data included: what `grep -rw NAME` in the view would find.

"Non-test" is decided by path alone, the same way on both sides (a component `test`, `tests`
or `testing`, a stem starting with `test_` or ending with `_test`, `conftest`). Those words are
test-discovery words the view keeps; if a view ever renamed one, its tests would count as
non-test code there, which can only lower the hidden shares.
"""

import ast
import os
import re

HIDDEN_DIRS = {".git", "__pycache__", ".pytest_cache"}
TEST_DIRS = {"test", "tests", "testing"}
WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def stem(name):
    """The part of a file name before its first dot that is not the first byte."""
    i = name.find(".", 1)
    return name if i < 0 else name[:i]


def is_dunder(name):
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def is_test_path(rel):
    parts = rel.split(os.sep)
    if any(p in TEST_DIRS for p in parts[:-1]):
        return True
    s = stem(parts[-1])
    return s in TEST_DIRS or s == "conftest" or s.startswith("test_") or s.endswith("_test")


def tree_files(root):
    out = []
    for cur, ds, fs in os.walk(root):
        ds[:] = sorted(d for d in ds if d not in HIDDEN_DIRS)
        rel = os.path.relpath(cur, root)
        for f in sorted(fs):
            if not f.endswith((".pyc", ".pyo")):
                out.append(os.path.normpath(os.path.join(rel, f)))
    return out


def components(paths):
    """Directory names and file stems on the given relative paths."""
    out = set()
    for p in paths:
        parts = p.split(os.sep)
        out.update(parts[:-1])
        out.add(stem(parts[-1]))
    return out


def package_modules(orig, root, imports):
    """Non-test .py/.pyi files of the project's import packages, relative to ROOT."""
    base = os.path.normpath(os.path.join(orig, root))
    mods = []
    for name in imports:
        pkg = os.path.join(base, name)
        if os.path.isdir(pkg):
            for rel in tree_files(pkg):
                rel = os.path.join(name, rel)
                if rel.endswith((".py", ".pyi")) and not is_test_path(rel):
                    mods.append(rel)
        for ext in (".py", ".pyi"):
            if os.path.isfile(pkg + ext):
                mods.append(name + ext)
    return sorted(mods)


def public_defs(tree):
    """Public class, function and method names: module level (through if/try/with blocks)
    and class bodies, recursively; never inside function bodies."""
    names = set()

    def walk(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            elif isinstance(node, ast.ClassDef):
                names.add(node.name)
                walk(node.body)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    sub = getattr(node, field, None)
                    if isinstance(sub, list):
                        walk([n for n in sub if isinstance(n, ast.AST)])
                for case in getattr(node, "cases", []) or []:
                    walk(case.body)

    walk(tree.body)
    return {n for n in names if not n.startswith("_")}


def identifiers(tree):
    """Every identifier the parser sees in a module."""
    out = set()
    for node in ast.walk(tree):
        for field in ("id", "attr", "name", "arg", "asname", "rest"):
            v = getattr(node, field, None)
            if isinstance(v, str):
                out.update(v.split("."))
        if isinstance(node, ast.ImportFrom) and node.module:
            out.update(node.module.split("."))
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        if isinstance(node, ast.MatchClass):
            out.update(node.kwd_attrs)
    return out


def read(path):
    with open(path, "rb") as fh:
        return fh.read()


def parse(path):
    try:
        return ast.parse(read(path), filename=path)
    except (SyntaxError, ValueError, RecursionError):
        return None


def measure(orig, view, root, imports):
    mods = package_modules(orig, root, imports)
    vfiles = tree_files(view)
    vcomps = components(vfiles)

    defs, unparsable = set(), 0
    base = os.path.join(orig, root)
    for m in mods:
        tree = parse(os.path.join(base, m))
        if tree is None:
            unparsable += 1
        else:
            defs |= public_defs(tree)

    view_ids, view_words, view_unparsable = set(), set(), 0
    for f in vfiles:
        path = os.path.join(view, f)
        data = read(path)
        words = {w.decode("latin-1") for w in WORD.findall(data)}
        view_words |= words
        if f.endswith((".py", ".pyi")) and not is_test_path(f):
            tree = parse(path)
            if tree is None:
                view_unparsable += 1
                view_ids |= words
            else:
                view_ids |= identifiers(tree)

    mod_comps = sorted(c for c in components(mods) if not is_dunder(c))
    kept_comps = [c for c in mod_comps if c in vcomps]
    pkg_kept = [n for n in imports if n in vcomps]
    shown_code = sorted(n for n in defs if n in view_ids)
    shown_anywhere = sorted(n for n in defs if n in view_words)
    return {
        "imports": imports,
        "package_modules": len(mods),
        "packages_kept": pkg_kept,
        "module_components": len(mod_comps),
        "module_components_kept": kept_comps,
        "public_names": len(defs),
        "public_names_in_view_code": shown_code,
        "public_names_in_view_anywhere": shown_anywhere,
        "unparsable_original_modules": unparsable,
        "unparsable_view_files": view_unparsable,
    }
