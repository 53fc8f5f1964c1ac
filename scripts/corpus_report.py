#!/usr/bin/env python3
"""Measurements and test comparison for scripts/corpus.sh.

  corpus_report.py project --bin B --seed N --python P --name NAME --version V --dir WORK/NAME
      writes WORK/NAME/results/report.json and prints a one-line summary
  corpus_report.py table --work WORK NAME...
      prints the markdown table and every differing test

Strength numbers are computed from the trees (there is no `schrodinger map` yet):
- owned identifiers: distinct identifiers the original's .py files define (ast: def/class
  names, parameters, assigned names and attributes, import aliases, except/match names),
  keywords and dunders left out; "renamed" = changed by `translate --to view`.
- path components: distinct directory names and file stems of the original tree; "renamed" =
  changed by `translate --to view` (stems only, as the view keeps extensions).
"""

import argparse
import ast
import json
import keyword
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

HIDDEN = {".git", "__pycache__", ".pytest_cache"}


def hidden(name):
    return name in HIDDEN or name.endswith((".pyc", ".pyo"))


def translate(args, direction, lines):
    """Translate a list of single-line strings in one batched call."""
    if not lines:
        return []
    text = "\n".join(lines) + "\n"
    out = subprocess.run(
        [args.bin, "translate", "--seed", str(args.seed), "--python", args.python,
         *os.environ.get("CORPUS_VIEW_OPTS", "").split(),
         "--to", direction, os.path.join(args.dir, "original")],
        input=text.encode(), stdout=subprocess.PIPE, check=True,
    ).stdout.decode()
    res = out.split("\n")
    assert res[-1] == "" and len(res) == len(lines) + 1, "translate changed the line count"
    return res[:-1]


def walk(root):
    """Relative paths of visible files and directories, sorted."""
    files, dirs = [], []
    for cur, ds, fs in os.walk(root):
        ds[:] = sorted(d for d in ds if not hidden(d))
        rel = os.path.relpath(cur, root)
        for d in ds:
            dirs.append(os.path.normpath(os.path.join(rel, d)))
        for f in sorted(fs):
            if not hidden(f):
                files.append(os.path.normpath(os.path.join(rel, f)))
    return sorted(files), sorted(dirs)


def stem_split(name):
    """Stem and extension as the view splits them: at the first dot that is not the first byte."""
    i = name.find(".", 1)
    return (name, "") if i < 0 else (name[:i], name[i:])


class Defs(ast.NodeVisitor):
    def __init__(self):
        self.names = set()

    def add(self, n):
        if n:
            self.names.add(n)

    def visit_FunctionDef(self, node):
        self.add(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.add(node.name)
        self.generic_visit(node)

    def visit_arg(self, node):
        self.add(node.arg)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Store):
            self.add(node.id)

    def visit_Attribute(self, node):
        if isinstance(node.ctx, ast.Store):
            self.add(node.attr)
        self.generic_visit(node)

    def visit_alias(self, node):
        self.add(node.asname)

    def visit_ExceptHandler(self, node):
        self.add(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node):
        self.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        self.add(node.name)

    def visit_MatchMapping(self, node):
        self.add(node.rest)
        self.generic_visit(node)


def owned_identifiers(root, files):
    defs = Defs()
    bad = 0
    for f in files:
        if not f.endswith((".py", ".pyi")):
            continue
        try:
            with open(os.path.join(root, f), "rb") as fh:
                tree = ast.parse(fh.read(), filename=f)
        except (SyntaxError, ValueError):
            bad += 1
            continue
        defs.visit(tree)
    names = {
        n for n in defs.names
        if not keyword.iskeyword(n) and not keyword.issoftkeyword(n)
        and not (len(n) > 4 and n.startswith("__") and n.endswith("__"))
    }
    return sorted(names), bad


def outcome_of(tc):
    kinds = {c.tag for c in tc}
    if "error" in kinds:
        return "error"
    if "failure" in kinds:
        return "failed"
    if "skipped" in kinds:
        return "skipped"
    return "passed"


RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}


def junit(path):
    """test id -> (outcome, first lines of the failure)."""
    out = {}
    if not os.path.exists(path):
        return out
    for tc in ET.parse(path).getroot().iter("testcase"):
        cls, name = tc.get("classname", ""), tc.get("name", "")
        tid = f"{cls}::{name}" if cls else name
        tid = tid.replace("\n", "\\n")
        oc = outcome_of(tc)
        detail = ""
        for c in tc:
            if c.tag in ("failure", "error"):
                msg = (c.get("message") or "").strip()
                body = (c.text or "").rstrip().splitlines()
                elines = [ln for ln in body if ln.startswith("E ")]
                lines = ([msg] if msg else []) + (elines[:12] or body[-12:])
                detail = "\n".join(lines)[:3000]
        prev = out.get(tid)
        if prev is None or RANK[oc] > RANK[prev[0]]:
            out[tid] = (oc, detail or (prev[1] if prev else ""))
    return out


def counts(results):
    c = {"passed": 0, "failed": 0, "error": 0, "skipped": 0}
    for oc, *_ in results.values():
        c[oc] += 1
    return c


def project(args):
    orig = os.path.join(args.dir, "original")
    view = os.path.join(args.dir, "view")
    res_dir = os.path.join(args.dir, "results")
    # The original's own files: what git tracks (tests may leave files behind, e.g. .hypothesis).
    tracked = subprocess.run(["git", "-C", orig, "ls-files", "-z"], stdout=subprocess.PIPE,
                             check=True).stdout.decode().split("\0")
    files = sorted(f for f in tracked if f and not any(hidden(c) for c in f.split("/")))
    dirs = sorted({os.path.dirname(f) for f in files} - {""})
    while True:
        more = {os.path.dirname(d) for d in dirs} - {""} - set(dirs)
        if not more:
            break
        dirs = sorted(set(dirs) | more)
    vfiles, vdirs = walk(view)

    # owned identifiers
    owned, unparsable = owned_identifiers(orig, files)
    images = translate(args, "view", owned)
    renamed = [o for o, v in zip(owned, images) if o != v]
    kept = [o for o, v in zip(owned, images) if o == v]

    # path components: dir names and file stems
    comps = set()
    for p in files + dirs:
        for i, c in enumerate(p.split(os.sep)):
            is_file = i == len(p.split(os.sep)) - 1 and p in files
            comps.add(stem_split(c)[0] if is_file else c)
    comps = sorted(comps)
    cimages = dict(zip(comps, translate(args, "view", comps)))
    comps_renamed = sum(1 for c in comps if cimages[c] != c)

    def view_path(p):
        parts = p.split(os.sep)
        out = []
        for i, c in enumerate(parts):
            if i == len(parts) - 1 and p in files:
                s, e = stem_split(c)
                out.append(cimages[s] + e)
            else:
                out.append(cimages[c])
        return os.sep.join(out)

    vset = set(vfiles) | set(vdirs)
    missing_paths = [p for p in files + dirs if view_path(p) not in vset]

    # tests
    o = junit(os.path.join(res_dir, "original.xml"))
    v_raw = junit(os.path.join(res_dir, "view.xml"))
    vids = sorted(v_raw)
    back = translate(args, "original", vids)
    v = {}
    for vid, oid in zip(vids, back):
        v[oid] = v_raw[vid] + (vid,)
    same = 0
    diffs = []
    for tid in sorted(set(o) | set(v)):
        a = o.get(tid, ("missing", ""))
        b = v.get(tid, ("missing", "", ""))
        if a[0] == b[0]:
            same += 1
        else:
            diffs.append({
                "id": tid, "view_id": b[2] if len(b) > 2 else "",
                "original": a[0], "view": b[0],
                "original_detail": a[1], "view_detail": b[1],
            })
    report = {
        "name": args.name, "version": args.version,
        "files": len(files), "py_files": sum(f.endswith(".py") for f in files),
        "unparsable_py": unparsable,
        "owned_identifiers": len(owned), "renamed_identifiers": len(renamed),
        "kept_identifiers": kept,
        "path_components": len(comps), "renamed_path_components": comps_renamed,
        "paths_not_found_in_view": missing_paths[:50],
        "original_tests": counts(o), "view_tests": counts(v),
        "same": same, "differing": diffs,
    }
    with open(os.path.join(res_dir, "report.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    print(summary(report))


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"


def pfes(c):
    return f"{c['passed']}/{c['failed']}/{c['error']}/{c['skipped']}"


def summary(r):
    return (f"{r['name']} {r['version']}: files {r['files']}, owned identifiers "
            f"{r['owned_identifiers']} renamed {pct(r['renamed_identifiers'], r['owned_identifiers'])}, "
            f"path components {pct(r['renamed_path_components'], r['path_components'])}, "
            f"original {pfes(r['original_tests'])}, view {pfes(r['view_tests'])}, "
            f"same {r['same']}, differing {len(r['differing'])}")


def table(args):
    rows = []
    for name in args.names:
        with open(os.path.join(args.work, name, "results", "report.json")) as fh:
            rows.append(json.load(fh))
    print("| project | files (.py) | owned identifiers | renamed | path components | renamed "
          "| original p/f/e/s | view p/f/e/s | same outcome | differing |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['name']} {r['version']} | {r['files']} ({r['py_files']}) "
              f"| {r['owned_identifiers']} | {pct(r['renamed_identifiers'], r['owned_identifiers'])} "
              f"| {r['path_components']} | {pct(r['renamed_path_components'], r['path_components'])} "
              f"| {pfes(r['original_tests'])} | {pfes(r['view_tests'])} "
              f"| {r['same']} | {len(r['differing'])} |")
    for r in rows:
        if r["paths_not_found_in_view"]:
            print(f"\n{r['name']}: {len(r['paths_not_found_in_view'])} original paths whose "
                  f"translation is not in the view, e.g. {r['paths_not_found_in_view'][:5]}")
        if not r["differing"]:
            continue
        print(f"\n### {r['name']}: {len(r['differing'])} differing tests\n")
        # Tests present on one side only (a module that failed to collect, or an id that
        # did not translate back) are grouped by module.
        missing = {}
        for d in r["differing"]:
            if "missing" in (d["original"], d["view"]):
                side = "view" if d["view"] == "missing" else "original"
                missing.setdefault((d["id"].split("::")[0], side), []).append(d)
        for (mod, side), ds in sorted(missing.items()):
            other = "original" if side == "view" else "view"
            outcomes = sorted({d[other] for d in ds})
            print(f"- {len(ds)} tests of `{mod}` missing on the {side} side "
                  f"({'/'.join(outcomes)} on the {other}), e.g. `{ds[0]['id']}`"
                  + (f" (view id `{ds[0]['view_id']}`)" if ds[0]["view_id"] else ""))
        for d in r["differing"]:
            if "missing" in (d["original"], d["view"]) and not (
                    d["view"] in ("failed", "error") and "::" not in d["id"]):
                continue
            print(f"- `{d['id']}`: original {d['original']}, view {d['view']}"
                  + (f" (view id `{d['view_id']}`)" if d["view_id"] and d["view_id"] != d["id"] else ""))
            detail = d["view_detail"] if d["view"] in ("failed", "error") else d["original_detail"]
            if detail:
                print("  ```")
                for ln in detail.splitlines()[:8]:
                    print("  " + ln[:200])
                print("  ```")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("project")
    p.add_argument("--bin", required=True)
    p.add_argument("--seed", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--name", required=True)
    p.add_argument("--version", required=True)
    p.add_argument("--dir", required=True)
    t = sub.add_parser("table")
    t.add_argument("--work", required=True)
    t.add_argument("names", nargs="+")
    args = ap.parse_args()
    if args.cmd == "project":
        project(args)
    else:
        table(args)


if __name__ == "__main__":
    sys.exit(main())
