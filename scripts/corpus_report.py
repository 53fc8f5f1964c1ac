#!/usr/bin/env python3
"""Measurements and test comparison for scripts/corpus.sh.

  corpus_report.py project --bin B --seed N --python P --name NAME --version V --set S
          --runner pytest|django --root R --imports "N..." --dir WORK/NAME
      writes WORK/NAME/results/report.json and prints a one-line summary
  corpus_report.py failed --name NAME --version V --set S --step STEP --log FILE --dir WORK/NAME
      writes a report.json that records the step that failed
  corpus_report.py table [--no-details] --work WORK NAME...
      prints one markdown table per set and, below each, every difference found

Two strength numbers use the tool's own translation (`translate --to view`):
- owned identifiers: distinct identifiers the original's .py files define (ast: def/class
  names, parameters, assigned names and attributes, import aliases, except/match names),
  keywords and dunders left out; "renamed" = changed by `translate --to view`.
- path components: distinct directory names and file stems of the original tree; "renamed" =
  changed by `translate --to view` (stems only, as the view keeps extensions).
The others (corpus_strength.py) compare the exported view with the original and never ask
the tool.
"""

import argparse
import ast
import json
import keyword
import os
import subprocess
import statistics
import sys
import re
import xml.etree.ElementTree as ET

import corpus_strength

HIDDEN = {".git", "__pycache__", ".pytest_cache"}


def hidden(name):
    return name in HIDDEN or name.endswith((".pyc", ".pyo"))


def translate(args, direction, lines, path=None):
    """Translate a list of single-line strings in one batched call: as free text, or with
    `path` as the lines of that file (a `.py` path: the code rule)."""
    if not lines:
        return []
    text = "\n".join(lines) + "\n"
    out = subprocess.run(
        [args.bin, "translate", "--seed", str(args.seed), "--python", args.python,
         *os.environ.get("CORPUS_VIEW_OPTS", "").split(),
         *(["--path", path] if path else []),
         "--to", direction, os.path.join(args.dir, "original")],
        input=text.encode(), stdout=subprocess.PIPE, check=True,
    ).stdout.decode()
    res = out.split("\n")
    assert res[-1] == "" and len(res) == len(lines) + 1, "translate changed the line count"
    return res[:-1]


# pytest writes unprintable characters of parametrized ids as escapes (`\n` as a backslash
# and an `n`): an escape is no part of the word after it, so ids are translated piece by piece.
ID_ESCAPE = re.compile(r"(\\(?:[ntr0abfv\\'\"]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}))")


def translate_ids(args, ids):
    """View test ids back to original names, escapes kept as they are. A parametrised id
    that holds an absolute path (a test collecting the files of its checkout) names the view's
    directory where the original's names its own: that prefix is a place, not words, so it
    becomes the original's directory instead of being translated."""
    view_root = os.path.join(os.path.abspath(args.dir), "view")
    original_root = os.path.join(os.path.abspath(args.dir), "original")
    pieces = re.compile(ID_ESCAPE.pattern + "|(" + re.escape(view_root) + r"(?=/|\]|$))")

    def split(i):
        # Text, then (separator, text) pairs; a separator is an escape or the view's root.
        parts, at = [], 0
        for m in pieces.finditer(i):
            parts += [i[at:m.start()], m.group(0)]
            at = m.end()
        return parts + [i[at:]]

    split_ids = [split(i) for i in ids]
    texts = [p for parts in split_ids for p in parts[0::2]]
    done = iter(translate(args, "original", texts))
    out = []
    for parts in split_ids:
        out.append("".join(
            (original_root if p == view_root else p) if k % 2 else next(done)
            for k, p in enumerate(parts)))
    return out


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


def defined_names(tree):
    """Names a module defines: def/class names, parameters, assigned names and attributes,
    import aliases, except/match names. Iterative (ast.walk), as deeply nested expressions
    (sympy's) exceed the recursion limit of a recursive visitor."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.alias):
            out.add(node.asname)
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
            out.add(node.name)
        elif isinstance(node, ast.MatchMapping):
            out.add(node.rest)
    out.discard(None)
    return out


def owned_identifiers(root, files):
    names = set()
    bad = 0
    for f in files:
        if not f.endswith((".py", ".pyi")):
            continue
        try:
            with open(os.path.join(root, f), "rb") as fh:
                tree = ast.parse(fh.read(), filename=f)
        except (SyntaxError, ValueError, RecursionError):
            bad += 1
            continue
        names |= defined_names(tree)
    names = {
        n for n in names
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


UNITTEST_START = re.compile(r"^(\w+) \(([\w.]+)\)(.*)$")
UNITTEST_STATUS = re.compile(
    r"(?:^|\s)\.\.\. (ok|FAIL|ERROR|skipped\b.*|expected failure|unexpected success)$")
UNITTEST_BLOCK = re.compile(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)")
UNITTEST_OUTCOME = {"ok": "passed", "FAIL": "failed", "ERROR": "error",
                    "expected failure": "skipped", "unexpected success": "failed"}


def unittest_log(path):
    """test id -> (outcome, first lines of the failure), from a `-v`/`--verbosity=2` log
    (Django's runtests.py). Ids are the dotted ids in parentheses; a status may follow on a
    later line (a docstring's first line is printed in between)."""
    out, details = {}, {}
    if not os.path.exists(path):
        return out
    with open(path, errors="replace") as fh:
        lines = fh.read().splitlines()
    pending = None
    i = 0
    while i < len(lines):
        ln = lines[i]
        blk = UNITTEST_BLOCK.match(ln)
        if blk and i > 0 and lines[i - 1].startswith("====="):
            body = []
            j = i + 2
            while j < len(lines) and not lines[j].startswith(("=====", "-----")):
                body.append(lines[j])
                j += 1
            tid = blk.group(3)
            details[tid] = "\n".join(body[-14:])[:3000]
            if tid not in out:
                out[tid] = (UNITTEST_OUTCOME[blk.group(1)], "")
            i = j
            continue
        m = UNITTEST_START.match(ln)
        if m:
            pending = m.group(2)
            ln = m.group(3)
        st = UNITTEST_STATUS.search(ln)
        if pending and st:
            word = st.group(1)
            out[pending] = ("skipped" if word.startswith("skipped") else UNITTEST_OUTCOME[word], "")
            pending = None
        i += 1
    return {k: (oc, details.get(k, d)) for k, (oc, d) in out.items()}


def results_of(runner, res_dir, side):
    if runner == "django":
        return unittest_log(os.path.join(res_dir, side + ".log"))
    return junit(os.path.join(res_dir, side + ".xml"))


def is_real_test(runner, tid):
    """A test, not a module that failed to import or collect."""
    if runner == "django":
        return not tid.startswith("unittest.loader.")
    return not tid.startswith("::") and "::" in tid


def read_text(path, default=""):
    try:
        with open(path, errors="replace") as fh:
            return fh.read()
    except OSError:
        return default


def tail(path, n=15):
    return "\n".join(read_text(path).rstrip().splitlines()[-n:])


def error_lines(path, n=8):
    """The lines of a log that say what went wrong, else its tail."""
    text = read_text(path).rstrip().splitlines()
    picked = [ln for ln in text if re.search(r"(?i)\berror\b|Traceback|Exception", ln)]
    return "\n".join((picked or text)[-n:])


def status_lines(path):
    return sorted(ln for ln in read_text(path).splitlines() if ln.strip())


def install_result(res_dir, side):
    rc = read_text(os.path.join(res_dir, f"install-{side}.rc")).strip()
    if not rc:
        return None
    log = os.path.join(res_dir, f"install-{side}.log")
    return {"rc": int(rc), "error": "" if rc == "0" else error_lines(log)}


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
    # Names defined in code, so their images by the code rule (a file that is a list of
    # bare names: nothing to reorder). Until run 15 this used the prose rule, which keeps
    # plain words the code only uses as locals.
    images = translate(args, "view", owned, path="strength_probe.py")
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
    o = results_of(args.runner, res_dir, "original")
    v_raw = results_of(args.runner, res_dir, "view")
    vids = sorted(v_raw)
    back = translate_ids(args, vids)
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

    o_status = status_lines(os.path.join(res_dir, "original-status.txt"))
    v_status = status_lines(os.path.join(res_dir, "view-status-translated.txt"))
    report = {
        "name": args.name, "version": args.version, "set": args.set, "runner": args.runner,
        "failed_step": None,
        "files": len(files), "py_files": sum(f.endswith(".py") for f in files),
        "unparsable_py": unparsable,
        "owned_identifiers": len(owned), "renamed_identifiers": len(renamed),
        "kept_identifiers": kept,
        "path_components": len(comps), "renamed_path_components": comps_renamed,
        "paths_not_found_in_view": missing_paths[:50],
        "original_tests": counts(o), "view_tests": counts(v),
        "original_real_tests": sum(is_real_test(args.runner, t) for t in o),
        "view_real_tests": sum(is_real_test(args.runner, t) for t in v_raw),
        "original_exit": read_text(os.path.join(res_dir, "original.rc")).strip(),
        "view_exit": read_text(os.path.join(res_dir, "view.rc")).strip(),
        "view_log_tail": tail(os.path.join(res_dir, "view.log")),
        "same": same, "differing": diffs,
        "original_status": o_status, "view_status": v_status,
        "install_view": install_result(res_dir, "view"),
        "install_original": install_result(res_dir, "original"),
        "strength": corpus_strength.measure(orig, view, args.root, args.imports.split()),
    }
    with open(os.path.join(res_dir, "report.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    print(summary(report))


def failed(args):
    res_dir = os.path.join(args.dir, "results")
    os.makedirs(res_dir, exist_ok=True)
    report = {"name": args.name, "version": args.version, "set": args.set,
              "failed_step": args.step, "error": tail(args.log, 20)}
    with open(os.path.join(res_dir, "report.json"), "w") as fh:
        json.dump(report, fh, indent=1)
    print(f"{args.name} {args.version}: {args.step} failed")


def pct(a, b):
    return f"{100.0 * a / b:.1f}%" if b else "-"


def pfes(c):
    return f"{c['passed']}/{c['failed']}/{c['error']}/{c['skipped']}"


def split_diffs(r):
    both = [d for d in r["differing"] if "missing" not in (d["original"], d["view"])]
    only_o = [d for d in r["differing"] if d["view"] == "missing"]
    only_v = [d for d in r["differing"] if d["original"] == "missing"]
    return both, only_o, only_v


def started(r):
    return r["view_real_tests"] > 0


def summary(r):
    both, only_o, only_v = split_diffs(r)
    return (f"{r['name']} {r['version']}: original {pfes(r['original_tests'])}, "
            f"view {pfes(r['view_tests'])}, same {r['same']}, differing {len(both)}, "
            f"only original {len(only_o)}, only view {len(only_v)}; owned identifiers "
            f"renamed {pct(r['renamed_identifiers'], r['owned_identifiers'])}")


def strength_cells(s):
    pkg = "yes" if not s["packages_kept"] else (
        "no" if len(s["packages_kept"]) == len(s["imports"]) else
        "partly (kept: " + ", ".join(s["packages_kept"]) + ")")
    n, m = s["public_names"], s["module_components"]
    return [pkg,
            f"{pct(m - len(s['module_components_kept']), m)} of {m}",
            f"{pct(n - len(s['public_names_in_view_code']), n)} of {n}",
            pct(n - len(s["public_names_in_view_anywhere"]), n)]


def install_cell(r):
    iv, io = r.get("install_view"), r.get("install_original")
    if iv is None:
        return "not tried"
    if iv["rc"] == 0:
        return "ok"
    what = "import fails" if iv["rc"] == 100 else "fails"
    if io is not None:
        what += " (original ok)" if io["rc"] == 0 else " (original fails too)"
    return what


def side_effects_cell(r):
    o, v = r["original_status"], r["view_status"]
    if o == v:
        return "same" + (f" ({len(o)} changes)" if o else " (none)")
    return f"differ ({len(o)} vs {len(v)})"


HEADER = ("| project | started on view | tests original / view | same | differing "
          "| only original | only view | side effects | `pip install -e .` in view "
          "| package renamed | module path components hidden | public names hidden in code "
          "| public names absent from view | owned identifiers renamed |")


def row(r):
    name = f"{r['name']} {r['version']}"
    if r.get("failed_step"):
        return f"| {name} | **{r['failed_step']} failed** |" + " - |" * 12
    both, only_o, only_v = split_diffs(r)
    start = "yes" if started(r) else (
        "**no**" if r["original_real_tests"] else "no (nor the original)")
    cells = [name, start,
             f"{sum(r['original_tests'].values())} / {sum(r['view_tests'].values())}",
             str(r["same"]), str(len(both)), str(len(only_o)), str(len(only_v)),
             side_effects_cell(r), install_cell(r), *strength_cells(r["strength"]),
             pct(r["renamed_identifiers"], r["owned_identifiers"])]
    return "| " + " | ".join(cells) + " |"


def details(r):
    if r.get("failed_step"):
        print(f"\n### {r['name']}: {r['failed_step']} failed\n\n```\n{r['error']}\n```")
        return
    both, only_o, only_v = split_diffs(r)
    if not started(r):
        print(f"\n### {r['name']}: the suite did not start on the view\n")
        print("```\n" + r["view_log_tail"] + "\n```")
    if r["original_status"] != r["view_status"]:
        print(f"\n{r['name']}: the test run changed the trees differently. Original: "
              f"{r['original_status'][:5]}; view (translated): {r['view_status'][:5]}")
    for side in ("view", "original"):
        inst = r.get(f"install_{side}")
        if inst and inst["rc"] != 0:
            print(f"\n{r['name']}: `pip install -e .` in the {side} failed (exit {inst['rc']}):\n")
            print("```\n" + inst["error"] + "\n```")
    if r["paths_not_found_in_view"]:
        print(f"\n{r['name']}: {len(r['paths_not_found_in_view'])} original paths whose "
              f"translation is not in the view, e.g. {r['paths_not_found_in_view'][:5]}")
    if not r["differing"]:
        return
    print(f"\n### {r['name']}: {len(both)} differing, {len(only_o)} only on the original, "
          f"{len(only_v)} only on the view\n")
    # Tests present on one side only (a module that failed to collect, or an id that
    # did not translate back) are grouped by module.
    missing = {}
    for d in only_o + only_v:
        side = "view" if d["view"] == "missing" else "original"
        mod = d["id"].split("::")[0] if "::" in d["id"] else d["id"].rsplit(".", 1)[0]
        missing.setdefault((mod, side), []).append(d)
    for (mod, side), ds in sorted(missing.items()):
        other = "original" if side == "view" else "view"
        outcomes = sorted({d[other] for d in ds})
        print(f"- {len(ds)} tests of `{mod}` missing on the {side} side "
              f"({'/'.join(outcomes)} on the {other}), e.g. `{ds[0]['id']}`"
              + (f" (view id `{ds[0]['view_id']}`)" if ds[0]["view_id"] else ""))
    shown = both + [d for d in only_v if d["view"] in ("failed", "error")]
    for d in shown[:40]:
        print(f"- `{d['id']}`: original {d['original']}, view {d['view']}"
              + (f" (view id `{d['view_id']}`)" if d["view_id"] and d["view_id"] != d["id"] else ""))
        detail = d["view_detail"] if d["view"] in ("failed", "error") else d["original_detail"]
        if detail:
            print("  ```")
            for ln in detail.splitlines()[:8]:
                print("  " + ln[:200])
            print("  ```")
    if len(shown) > 40:
        print(f"- ... and {len(shown) - 40} more (results/report.json)")


def table(args):
    rows = []
    for name in args.names:
        path = os.path.join(args.work, name, "results", "report.json")
        if not os.path.exists(path):
            rows.append({"name": name, "version": "?", "set": "?", "failed_step": "report",
                         "error": f"no {path}"})
            continue
        with open(path) as fh:
            rows.append(json.load(fh))
    for set_name, title in (("work", "Working set"), ("held", "Held-aside set"), ("?", "Projects without a report")):
        group = [r for r in rows if r.get("set") == set_name]
        if not group:
            continue
        print(f"\n## {title}\n")
        print(HEADER)
        print("|" + "---|" * 14)
        for r in group:
            print(row(r))
        if not args.no_details:
            for r in group:
                details(r)


def timing(args):
    """The tables of `corpus.sh --time-mounted`: per project, the suite's wall times on the
    original and on the mounted view (the latest line of each project in the TSV), medians
    and their ratio; one table for views mounted with a new state (the first round a first
    mount, shown apart) and one for states made by `mount --prepare`."""
    latest = {"new": {}, "prepared": {}}
    with open(args.tsv) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) in (4, 5):
                mode = parts[4] if len(parts) == 5 and parts[4] else "new"
                latest[mode][parts[0]] = [list(map(float, p.split())) for p in parts[1:4]]
    for mode, rows in latest.items():
        if not rows:
            continue
        print(f"\nState: {'new (the first round is a first mount)' if mode == 'new' else 'prepared by mount --prepare'}\n")
        print("| project | rounds | original, median (s) | mounted view, median (s) | ratio "
              "| view, first round | ratio, first round | mount (s) |")
        print("|---|---|---|---|---|---|---|---|")
        ratios = []
        for name, (orig, view, mounts) in rows.items():
            mo, mv = statistics.median(orig), statistics.median(view)
            ratio = mv / mo if mo else float("nan")
            ratios.append(ratio)
            first = view[0] / orig[0] if orig[0] else float("nan")
            print(f"| {name} | {len(orig)} | {mo:.2f} | {mv:.2f} | {ratio:.2f}x | {view[0]:.2f} "
                  f"| {first:.2f}x | {' '.join(f'{m:.2f}' for m in mounts)} |")
        print(f"\nmedian of the ratios: {statistics.median(ratios):.2f}x over {len(ratios)} "
              f"projects; at most 1.1x: {sum(r <= 1.1 for r in ratios)}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("project")
    for opt in ("--bin", "--seed", "--python", "--name", "--version", "--set", "--runner",
                "--root", "--imports", "--dir"):
        p.add_argument(opt, required=True)
    f = sub.add_parser("failed")
    for opt in ("--name", "--version", "--set", "--step", "--log", "--dir"):
        f.add_argument(opt, required=True)
    t = sub.add_parser("table")
    t.add_argument("--work", required=True)
    t.add_argument("--no-details", action="store_true", help="the tables only")
    t.add_argument("names", nargs="+")
    tm = sub.add_parser("timing")
    tm.add_argument("tsv")
    args = ap.parse_args()
    if args.cmd == "project":
        project(args)
    elif args.cmd == "failed":
        failed(args)
    elif args.cmd == "timing":
        timing(args)
    else:
        table(args)


if __name__ == "__main__":
    sys.exit(main())
