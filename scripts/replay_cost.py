#!/usr/bin/env python3
"""What a naming policy costs new code written in the view: real upstream changes replayed.

For each of the most recent N fix commits reachable from REV (the same selection as
`location_cues.py`), the view of the commit's parent is built (`schrodinger map --out`,
seed S, the given interpreter), and every line the commit adds to a .py file is written
"through the view" the way an agent that knows the view but not the original would write
it: each identifier run that the parent tree spells somewhere (in any text file) is written
as the view spells it (`translate --to view` of the bare run), and every other run (a word
the view does not show: an outside API the agent knows, a fresh name) is written literally.
The written lines are translated back (`translate --to original`) and compared with the
lines upstream wrote. A line that comes back different is a line of the agent's patch that
would be wrong in the original.

With several binaries (`--bin A --bin B`), each is replayed on the same lines, and the
report gives each one's count and the lines that differ between them: what a policy change
costs or saves.

Output: a Markdown report on stdout and WORK/replay_cost.json.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import location_cues as lc  # noqa: E402

RUN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def tree_runs(root):
    """Identifier runs of every text file under root (files over 2 MB skipped)."""
    runs = set()
    for cur, ds, fs in os.walk(root):
        ds[:] = [d for d in ds if d != ".git"]
        for f in fs:
            p = os.path.join(cur, f)
            try:
                if os.path.getsize(p) > 2 << 20:
                    continue
                with open(p, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            if b"\0" in data[:8192]:
                continue
            runs.update(RUN.findall(data.decode("utf-8", "replace")))
    return runs


def added_lines(args, sha):
    diff = lc.git(args, "diff", "-U0", "--no-renames", f"{sha}^", sha, "--", "*.py").decode(
        "utf-8", "replace")
    out = []
    for line in diff.splitlines():
        if line.startswith("+") and not line.startswith("+++"):
            text = line[1:]
            if RUN.search(text) and "\r" not in text:
                out.append(text)
    return out


def translate(binary, bundle, original, to, lines):
    if not lines:
        return []
    out = subprocess.run(
        [binary, "translate", "--bundle", bundle, "--to", to, original],
        input=("\n".join(lines) + "\n").encode(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, check=True).stdout.decode()
    res = out.split("\n")
    if res[-1] != "" or len(res) != len(lines) + 1:
        sys.exit(f"translate returned {len(res) - 1} lines for {len(lines)}")
    return res[:-1]


def replay(binary, args, parent, lines, shown, work):
    bundle = os.path.join(work, "bundle.json")
    subprocess.run([binary, "map", "--seed", str(args.seed), "--python", args.python,
                    "--out", bundle, parent], stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, check=True)
    words = sorted({w for line in lines for w in RUN.findall(line) if w in shown})
    view = dict(zip(words, translate(binary, bundle, parent, "view", words)))
    written = [RUN.sub(lambda m: view.get(m.group(0), m.group(0)), line) for line in lines]
    back = translate(binary, bundle, parent, "original", written)
    return [(line, w, b) for line, w, b in zip(lines, written, back) if b != line]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="git directory of the project")
    ap.add_argument("--base", required=True, help="revision the fix commits are taken from")
    ap.add_argument("--python", required=True, help="interpreter of the project's venv")
    ap.add_argument("--bin", action="append", required=True, help="schrodinger binary")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--fixes", type=int, default=50)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    fixes = lc.pick_fixes(args)
    totals = {b: 0 for b in args.bin}
    total_lines = 0
    per_commit = []
    for sha, subject, _ in fixes:
        lines = added_lines(args, sha)
        if not lines:
            continue
        with tempfile.TemporaryDirectory(dir=args.work) as tmp:
            parent = os.path.join(tmp, "parent")
            os.makedirs(parent)
            archive = lc.git(args, "archive", f"{sha}^")
            subprocess.run(["tar", "-x", "-C", parent], input=archive, check=True)
            shown = tree_runs(parent)
            wrong = {b: replay(b, args, parent, lines, shown, tmp) for b in args.bin}
        total_lines += len(lines)
        for b in args.bin:
            totals[b] += len(wrong[b])
        per_commit.append({"sha": sha, "subject": subject, "lines": len(lines),
                           "wrong": {b: wrong[b] for b in args.bin}})
        print(f"{sha[:10]} {len(lines):4} lines, wrong: "
              + " ".join(str(len(wrong[b])) for b in args.bin), file=sys.stderr)
    with open(os.path.join(args.work, "replay_cost.json"), "w") as fh:
        json.dump({"base": args.base, "seed": args.seed, "commits": per_commit,
                   "lines": total_lines, "wrong": totals}, fh, indent=1)
    print(f"{len(per_commit)} fix commits before {args.base}, {total_lines} added lines\n")
    print("| binary | lines that come back different | share |")
    print("|---|---|---|")
    for b in args.bin:
        print(f"| {b} | {totals[b]} | {100 * totals[b] / max(total_lines, 1):.2f}% |")
    if len(args.bin) >= 2:
        a, b = args.bin[0], args.bin[1]
        print(f"\nLines wrong with {b} and not with {a}:\n")
        for c in per_commit:
            wa = {x[0] for x in c["wrong"][a]}
            for line, written, back in c["wrong"][b]:
                if line not in wa:
                    print(f"- {c['sha'][:10]}: `{line.strip()}` came back `{back.strip()}`")


if __name__ == "__main__":
    main()
