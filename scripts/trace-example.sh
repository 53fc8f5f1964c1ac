#!/usr/bin/env bash
# The worked example of the README: one task, a scripted "agent", run on the identity view
# (--levels 0) and on the transformed view (default levels), both traced; then the two
# trace summaries side by side.
#
#   scripts/trace-example.sh
#
# The agent gets the task statement translated with `translate --statement`, takes the first
# name in inline code, lists the tree, greps for the name's definition, reads the file that
# defines it and appends a fix to it. Needs root (FUSE). SCHRODINGER: the binary (default
# target/release/schrodinger).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${SCHRODINGER:-$here/target/release/schrodinger}
[ -x "$BIN" ] || (cd "$here" && cargo build --release -q)
work=$(mktemp -d /tmp/trace-example.XXXXXX)
trap '"$BIN" unmount "$work/mnt" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

cat >"$work/statement.md" <<'EOF'
# `renew_loan` renews a loan that is already overdue

`CirculationDesk.renew_loan()` in bookmobile/desk.py should refuse an overdue loan.
EOF

cat >"$work/agent.sh" <<'EOF'
#!/bin/sh
# A scripted agent: explore, localize, fix. Runs in the view's root.
name=$(grep -o '`[A-Za-z_]*`' "$1" | head -1 | tr -d '`')
ls >/dev/null
ls */ >/dev/null
grep -rn "def $name" . >/dev/null
file=$(grep -rl "def $name" --include=*.py . | head -1)
cat "$file" >/dev/null
printf '\n# fixed: %s refuses overdue loans\n' "$name" >>"$file"
EOF
chmod +x "$work/agent.sh"

run_one() { # LEVELS TRACE
    rm -rf "$work/orig" && cp -r "$here/sample" "$work/orig"
    git -C "$work/orig" init -q -b main && git -C "$work/orig" add -A
    git -C "$work/orig" -c user.name=ex -c user.email=ex@localhost commit -q -m sample
    mkdir -p "$work/mnt"
    "$BIN" translate --seed 7 --levels "$1" --to view --statement "$work/orig" \
        <"$work/statement.md" >"$work/task.md" 2>/dev/null
    "$BIN" mount --seed 7 --levels "$1" --trace "$2" --state "$work/state-$1" "$work/orig" "$work/mnt"
    (cd "$work/mnt" && "$work/agent.sh" "$work/task.md")
    "$BIN" unmount "$work/mnt"
    echo "== --levels $1: the task as the agent saw it"
    sed -n 1p "$work/task.md"
    echo "== what landed in the original"
    git -C "$work/orig" diff --stat | tail -1
}

run_one 0 "$work/level0.jsonl"
run_one 2,3 "$work/level23.jsonl"
echo
echo "== schrodinger trace compare level0.jsonl level23.jsonl"
"$BIN" trace compare "$work/level0.jsonl" "$work/level23.jsonl"
