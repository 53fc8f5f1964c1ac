#!/usr/bin/env python3
"""How well a schrodinger view hides the *location cues* of real bug fixes.

A fix commit tells whoever knows it where to look: the files it edits and the definitions
(def/class names) around its changed lines. This script takes the most recent N fix commits
reachable from a base revision REV and asks, for each cue, whether the view of REV (seed S)
still shows it under the same spelling.

Fix commits: non-merge commits reachable from REV (`git log --no-merges REV`, newest first)
with a parent, whose subject has a word starting with "fix" (regex `\\bfix\\w*`, any case:
fix, fixes, fixed, fixing, fix:) and that change at least one non-test .py file. Test files:
a path component `tests`, a file name `test_*.py`, or `conftest.py`.

Cues of a commit (deduplicated per commit):
- file cue: each non-test .py file the commit changes that exists at REV under the same path;
- definition cue: for each hunk of `git diff -U0 C^ C -- FILE` (every non-test .py file
  changed), every name in the chain of def/class nodes (ast) enclosing a changed line:
  new-side lines in the file at C, old-side (deleted or replaced) lines in the file at C^.
  Kept only if some def/class of that name exists in REV's .py files (ast over the tree).

Hidden or not, in the view of REV written by `schrodinger export`:
- file cue: its path is translated with `schrodinger translate --to view` (free text). If the
  translated path is not a file of the exported view the cue is "unresolved" (reported,
  never counted hidden). Otherwise hidden iff the file stem (name without .py) changed;
  the number of renamed path components is reported too.
- definition cue: hidden iff `translate --to view` of the bare name changes its spelling
  (all names in one call, one per line). As a check, the report counts how many hidden names
  are still defined (def/class) in the exported view's .py files, and visible ones not.

Output: a Markdown report on stdout (also WORK/location_cues.md) and WORK/location_cues.json.
"""

import argparse
import ast
import json
import os
import re
import shutil
import subprocess
import sys

FIX = re.compile(r"\bfix\w*", re.I)
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def is_test(path):
    parts = path.split("/")
    name = parts[-1]
    return "tests" in parts[:-1] or name == "conftest.py" or (
        name.startswith("test_") and name.endswith(".py"))


def run(cmd, data=None, check=True):
    return subprocess.run(cmd, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          check=check).stdout


def git(args, *a, check=True):
    return run(["git", "--git-dir", args.repo, *a], check=check)


def def_names(root):
    """Names of every def/class in the .py files under root."""
    names = set()
    for cur, ds, fs in os.walk(root):
        ds[:] = [d for d in ds if d not in (".git", "__pycache__")]
        for f in fs:
            if f.endswith(".py"):
                try:
                    with open(os.path.join(cur, f), "rb") as fh:
                        tree = ast.parse(fh.read())
                except (SyntaxError, ValueError, RecursionError):
                    continue
                names |= {n.name for n in ast.walk(tree) if isinstance(n, DEFS)}
    return names


def chains(source, lines):
    """For each line number, names of the def/class nodes enclosing it, innermost first."""
    tree = ast.parse(source)
    spans = []
    for n in ast.walk(tree):
        if isinstance(n, DEFS):
            start = min([n.lineno] + [d.lineno for d in n.decorator_list])
            spans.append((start, n.end_lineno, n.name))
    out = []
    for line in lines:
        inside = [s for s in spans if s[0] <= line <= s[1]]
        inside.sort(key=lambda s: s[1] - s[0])  # innermost (shortest span) first
        out.append([s[2] for s in inside])
    return out


def changed_lines(diff):
    """Old-side and new-side line numbers of the changed lines of a -U0 diff."""
    old, new = set(), set()
    for line in diff.splitlines():
        m = HUNK.match(line)
        if m:
            a, m_, c, n = (int(x) if x is not None else 1 for x in m.groups())
            old.update(range(a, a + m_))
            new.update(range(c, c + n))
    return sorted(old), sorted(new)


def pick_fixes(args):
    """[(sha, subject, [changed non-test .py paths])], newest first."""
    out = git(args, "log", "--no-merges", "--no-renames", "--name-only",
              "--format=%x01%H%x00%P%x00%s", args.base).decode(errors="replace")
    picked = []
    for rec in out.split("\x01")[1:]:
        head, _, files = rec.partition("\n")
        sha, parents, subject = head.split("\x00")
        if not parents or not FIX.search(subject):
            continue
        py = sorted({f for f in files.split() if f.endswith(".py") and not is_test(f)})
        if py:
            picked.append((sha, subject, py))
            if len(picked) == args.fixes:
                break
    return picked


def commit_cues(args, sha, py, base_files, base_defs, notes):
    files = [f for f in py if f in base_files]
    defs, where = [], {}
    for f in py:
        old, new = changed_lines(git(args, "diff", "-U0", "--no-renames", f"{sha}^", sha,
                                     "--", f).decode(errors="replace"))
        for rev, lines in ((f"{sha}^", old), (sha, new)):
            if not lines:
                continue
            src = git(args, "show", f"{rev}:{f}", check=False)
            try:
                found = chains(src, lines)
            except (SyntaxError, ValueError, RecursionError):
                notes.append(f"{sha[:8]} {rev[len(sha):] or 'C'} {f}: does not parse, skipped")
                continue
            for chain in found:
                for name in chain:
                    if name in base_defs and name not in where:
                        defs.append(name)
                        where[name] = f"{f}: {'.'.join(reversed(chain))}"
    return files, defs, where


def translate(args, lines):
    if not lines:
        return []
    out = run([args.bin, "translate", "--seed", str(args.seed), "--python", args.python,
               "--to", "view", args.original], ("\n".join(lines) + "\n").encode()).decode()
    res = out.split("\n")
    if res[-1] != "" or len(res) != len(lines) + 1:
        sys.exit(f"translate returned {len(res) - 1} lines for {len(lines)}")
    return res[:-1]


def stem(path):
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".py") else name


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repo", required=True, help="git directory with full history")
    ap.add_argument("--base", required=True, help="base revision REV (a tag)")
    ap.add_argument("--fixes", type=int, default=50, help="number of fix commits N")
    ap.add_argument("--bin", required=True, help="schrodinger binary")
    ap.add_argument("--python", required=True, help="interpreter of the project's venv")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--work", required=True, help="work dir: original/, view/, reports")
    args = ap.parse_args()
    args.original = os.path.join(args.work, "original")
    view = os.path.join(args.work, "view")
    for d in (args.original, view):
        shutil.rmtree(d, ignore_errors=True)
    os.makedirs(args.original)
    tar = git(args, "archive", args.base)
    run(["tar", "-x", "-C", args.original], tar)
    export = [args.bin, "export", "--seed", str(args.seed), "--python", args.python,
              args.original, view]
    run(export)

    base_files = set(git(args, "ls-tree", "-r", "--name-only", args.base).decode().split("\n"))
    base_defs, view_defs = def_names(args.original), def_names(view)
    notes, rows = [], []
    for sha, subject, py in pick_fixes(args):
        files, defs, where = commit_cues(args, sha, py, base_files, base_defs, notes)
        rows.append({"sha": sha, "subject": subject, "changed_py": py,
                     "files": files, "defs": defs, "where": where})

    # One translate call for every distinct path and name.
    words = sorted({w for r in rows for w in r["files"] + r["defs"]})
    tr = dict(zip(words, translate(args, words)))
    for r in rows:
        cues = []
        for f in r["files"]:
            v = tr[f]
            c = {"kind": "file", "cue": f, "view": v}
            if not os.path.isfile(os.path.join(view, v)):
                c.update(status="unresolved", hidden=False)
            else:
                a, b = f.split("/"), v.split("/")
                c["components_renamed"] = sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
                c["components"] = len(a)
                c["hidden"] = stem(v) != stem(f)
                c["status"] = "hidden" if c["hidden"] else "visible"
            cues.append(c)
        for n in r["defs"]:
            hid = tr[n] != n
            cues.append({"kind": "def", "cue": n, "view": tr[n], "where": r["where"][n],
                         "hidden": hid, "status": "hidden" if hid else "visible",
                         "in_view_defs": n in view_defs})
        r["cues"] = cues
        del r["where"]

    def pct(a, b):
        return f"{a}/{b} ({100 * a / b:.1f}%)" if b else f"{a}/0"

    allc = [c for r in rows for c in r["cues"]]
    fc = [c for c in allc if c["kind"] == "file"]
    dc = [c for c in allc if c["kind"] == "def"]
    with_cues = [r for r in rows if r["cues"]]
    totals = {
        "fixes": len(rows),
        "fixes_with_cues": len(with_cues),
        "cues_hidden": sum(c["hidden"] for c in allc), "cues": len(allc),
        "file_cues_hidden": sum(c["hidden"] for c in fc), "file_cues": len(fc),
        "file_cues_unresolved": sum(c["status"] == "unresolved" for c in fc),
        "file_components_renamed": sum(c.get("components_renamed", 0) for c in fc),
        "file_components": sum(c.get("components", 0) for c in fc),
        "def_cues_hidden": sum(c["hidden"] for c in dc), "def_cues": len(dc),
        "def_hidden_but_still_defined_in_view": sum(c["hidden"] and c["in_view_defs"] for c in dc),
        "def_visible_but_not_defined_in_view": sum(not c["hidden"] and not c["in_view_defs"]
                                                   for c in dc),
        "fixes_all_hidden": sum(all(c["hidden"] for c in r["cues"]) for r in with_cues),
    }
    commands = [
        " ".join(sys.argv),
        f"git --git-dir {args.repo} archive {args.base} | tar -x -C {args.original}",
        " ".join(export),
        f"{args.bin} translate --seed {args.seed} --python {args.python} --to view "
        f"{args.original} < (one path or name per line)",
    ]
    md = [f"# Location cues of fix commits: {args.repo} at {args.base}, seed {args.seed}", "",
          "Fix commits: the most recent non-merge commits reachable from the base with a "
          "subject word starting with `fix` (any case) that change a non-test .py file "
          "(tests: a `tests/` directory, `test_*.py`, `conftest.py`).", "",
          "| commit | subject | cues | hidden | all hidden | visible cues |",
          "|---|---|---|---|---|---|"]
    for r in rows:
        vis = [("file " if c["kind"] == "file" else "") + c["cue"]
               + (" (unresolved)" if c["status"] == "unresolved" else "")
               for c in r["cues"] if not c["hidden"]]
        subj = r["subject"] if len(r["subject"]) <= 50 else r["subject"][:47] + "..."
        subj = subj.replace("|", "\\|")
        n, h = len(r["cues"]), sum(c["hidden"] for c in r["cues"])
        md.append(f"| {r['sha'][:8]} | {subj} | {n} | {h} | "
                  f"{'-' if not n else 'yes' if h == n else 'no'} | "
                  f"{', '.join(f'`{v}`' for v in vis)} |")
    t = totals
    md += ["", "## Totals", "",
           f"- fix commits: {t['fixes']} ({t['fixes_with_cues']} with at least one cue)",
           f"- cues hidden: {pct(t['cues_hidden'], t['cues'])}",
           f"- file cues hidden: {pct(t['file_cues_hidden'], t['file_cues'])}"
           f" ({t['file_cues_unresolved']} unresolved; path components renamed: "
           f"{pct(t['file_components_renamed'], t['file_components'])})",
           f"- definition cues hidden: {pct(t['def_cues_hidden'], t['def_cues'])}"
           f" (check against the view's defs: {t['def_hidden_but_still_defined_in_view']} "
           f"hidden but still defined in the view, {t['def_visible_but_not_defined_in_view']}"
           " visible but not defined there)",
           f"- fixes with every cue hidden: {pct(t['fixes_all_hidden'], t['fixes_with_cues'])}",
           "", "## Commands", "", *[f"    {c}" for c in commands]]
    if notes:
        md += ["", "## Notes", "", *[f"- {n}" for n in notes]]
    text = "\n".join(md) + "\n"
    with open(os.path.join(args.work, "location_cues.md"), "w") as fh:
        fh.write(text)
    with open(os.path.join(args.work, "location_cues.json"), "w") as fh:
        json.dump({"repo": args.repo, "base": args.base, "seed": args.seed,
                   "rule": "subject matches \\bfix\\w* (any case), non-merge, changes a "
                           "non-test .py file", "commands": commands, "totals": totals,
                   "notes": notes, "commits": rows}, fh, indent=1)
    print(text, end="")


if __name__ == "__main__":
    main()
