#!/usr/bin/env bash
# What `mount --trace` costs: warm reads on the native tree, on the default view, on a traced
# view (`--trace`), on a view mounted with --no-watch (files served through handles) and on a
# view traced with --trace-opens (which serves through handles too), interleaved round-robin
# in one invocation; medians and ratios printed.
#
#   scripts/trace-cost.sh [TREE]
#
# TREE defaults to the Django 4.2.16 sdist that scripts/bench.sh caches in $BENCH_CACHE.
# Environment: SCHRODINGER (binary; default target/release/schrodinger), REPS (default 7).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BENCH_CACHE=${BENCH_CACHE:-/var/tmp/bench}
REPS=${REPS:-7}
[ "$(id -u)" = 0 ] || { echo "trace-cost.sh: run as root (FUSE mounts)" >&2; exit 1; }
TREE=${1:-$BENCH_CACHE/Django-4.2.16}
if [ ! -d "$TREE" ]; then
    mkdir -p "$BENCH_CACHE"
    (cd "$BENCH_CACHE" && pip download -q --no-deps --no-binary :all: django==4.2.16 &&
        tar xzf Django-4.2.16.tar.gz --no-same-owner)
fi
TREE=$(cd "$TREE" && pwd)
BIN=${SCHRODINGER:-$here/target/release/schrodinger}
[ -x "$BIN" ] || (cd "$here" && cargo build --release -q)

work=$(mktemp -d /var/tmp/trace-cost.XXXXXX)
cleanup() {
    for v in default traced handles opens; do
        "$BIN" unmount "$work/$v" >/dev/null 2>&1 || umount -l "$work/$v" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/default" "$work/traced" "$work/handles" "$work/opens"
"$BIN" mount --seed 7 --state "$work/s-default" "$TREE" "$work/default"
"$BIN" mount --seed 7 --trace "$work/traced.jsonl" --state "$work/s-traced" "$TREE" "$work/traced"
"$BIN" mount --seed 7 --no-watch --state "$work/s-handles" "$TREE" "$work/handles"
"$BIN" mount --seed 7 --trace "$work/opens.jsonl" --trace-opens --state "$work/s-opens" \
    "$TREE" "$work/opens"
# Wait for the background scans (bounded), so that steady state is measured.
for s in s-default s-traced s-handles s-opens; do
    for _ in $(seq 1 600); do
        grep -qs "scan done" "$work/$s/schrodinger.log" && break
        sleep 0.2
    done
done

export TC_TREE=$TREE TC_WORK=$work TC_REPS=$REPS
python3 - <<'EOF'
import os, statistics, subprocess, time

E = os.environ
work = E["TC_WORK"]
targets = [("native", E["TC_TREE"])] + [
    (v, os.path.join(work, v)) for v in ("default", "traced", "handles", "opens")]
reps = int(E["TC_REPS"])

def sh(cmd, cwd):
    subprocess.run(cmd, shell=True, cwd=cwd, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

lists = {}
for name, root in targets:
    out = subprocess.run(["find", ".", "-type", "f", "-name", "*.py", "-print0"], cwd=root,
                         capture_output=True, check=True).stdout
    lists[name] = os.path.join(work, f"py-{name}.lst")
    with open(lists[name], "wb") as f:
        f.write(out)

ops = [
    ("find -type f", lambda n, r: "find . -type f >/dev/null"),
    ("grep -rn return", lambda n, r: "grep -rn return . >/dev/null"),
    ("cat every .py", lambda n, r: f"xargs -0 cat <{lists[n]} >/dev/null"),
]
print(f"| warm, median of {reps} (s) | " + " | ".join(n for n, _ in targets)
      + " | default / native | traced / default | opens / handles | opens / default |")
print("|---" * (len(targets) + 5) + "|")
for label, cmd in ops:
    times = {n: [] for n, _ in targets}
    for n, r in targets:  # warm-up
        sh(cmd(n, r), r)
    for i in range(reps):
        order = targets[i % len(targets):] + targets[:i % len(targets)]
        for n, r in order:
            t0 = time.perf_counter()
            sh(cmd(n, r), r)
            times[n].append(time.perf_counter() - t0)
    med = {n: statistics.median(v) for n, v in times.items()}
    cells = " | ".join(f"{med[n]:.3f}" for n, _ in targets)
    print(f"| {label} | {cells} | {med['default'] / med['native']:.2f}x | "
          f"{med['traced'] / med['default']:.2f}x | {med['opens'] / med['handles']:.2f}x | "
          f"{med['opens'] / med['default']:.2f}x |")
EOF
echo
echo "trace lines written during the run: --trace $(wc -l <"$work/traced.jsonl"), \
--trace-opens $(wc -l <"$work/opens.jsonl")"
