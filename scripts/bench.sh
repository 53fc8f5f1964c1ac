#!/usr/bin/env bash
# Benchmark the schrodinger view against the native tree and a bindfs mount of it.
#
#   scripts/bench.sh [TREE]
#
# TREE defaults to the Django 4.2.16 sdist from PyPI (downloaded once into $BENCH_CACHE).
# Runs as root (FUSE mounts, drop_caches). The same operations run on the native tree, on
# `bindfs TREE` and on `schrodinger mount --seed 7 TREE`, interleaved round-robin (every
# repetition runs each target once, in a rotating order), and the medians and ratios to
# native are printed as a Markdown table (also written to $BENCH_OUT, default
# $BENCH_CACHE/last.md).
#
# Environment: SCHRODINGER (binary; default target/release/schrodinger of this checkout,
# built if missing), BENCH_REPS (warm repetitions, default 7), BENCH_COLD_REPS (default 3),
# BENCH_MOUNT_REPS (default 3), BENCH_SEED (default 7), BENCH_LEVELS (default: the mount's
# default levels), BENCH_ONLY (comma list of operation ids to run, e.g. "find_warm,cat_warm";
# "first_grep" and "first_grep_new" are the first search after a mount, run last).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
BENCH_CACHE=${BENCH_CACHE:-/var/tmp/bench}
SEED=${BENCH_SEED:-7}
REPS=${BENCH_REPS:-7}
COLD_REPS=${BENCH_COLD_REPS:-3}
MOUNT_REPS=${BENCH_MOUNT_REPS:-3}
OUT=${BENCH_OUT:-$BENCH_CACHE/last.md}

[ "$(id -u)" = 0 ] || { echo "bench.sh: run as root (FUSE mounts, drop_caches)" >&2; exit 1; }
mkdir -p "$BENCH_CACHE"

need() { command -v "$1" >/dev/null 2>&1; }
if ! need bindfs; then
    echo "installing bindfs..." >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q bindfs >/dev/null
fi

if [ $# -ge 1 ]; then
    TREE=$(cd "$1" && pwd)
    NAME=$(basename "$TREE")
else
    TREE=$BENCH_CACHE/Django-4.2.16
    NAME="Django 4.2.16 (sdist)"
    if [ ! -d "$TREE" ]; then
        (cd "$BENCH_CACHE" && pip download -q --no-deps --no-binary :all: django==4.2.16 &&
            tar xzf Django-4.2.16.tar.gz --no-same-owner)
    fi
    # git refuses a work tree owned by another user (the sdist's uid, kept by older runs).
    chown -R "$(id -u):$(id -g)" "$TREE"
    # A checkout, as an agent gets one: the git rows compare `git status` and `git diff` in
    # the original with the same commands in the view's shadow repository.
    if [ ! -d "$TREE/.git" ]; then
        git -C "$TREE" init -q
        git -C "$TREE" add -A
        git -C "$TREE" -c user.name=bench -c user.email=bench@localhost commit -q -m sdist
    fi
fi

# Django imports need its two runtime dependencies; they go to a private directory, never
# into the system site-packages.
PYDEPS=$BENCH_CACHE/pydeps
if [ -f "$TREE/django/__init__.py" ] && [ ! -d "$PYDEPS/asgiref" ]; then
    pip install -q --target "$PYDEPS" asgiref sqlparse
fi

BIN=${SCHRODINGER:-$here/target/release/schrodinger}
if [ ! -x "$BIN" ] || [ -z "${SCHRODINGER:-}" ]; then
    (cd "$here" && cargo build --release -q)
fi
commit=$(git -C "$here" rev-parse --short HEAD)
git -C "$here" diff --quiet HEAD -- src Cargo.toml Cargo.lock || commit="$commit+dirty"

work=$(mktemp -d /var/tmp/bench-run.XXXXXX)
BIND=$work/bind VIEW=$work/view STATE=$work/state
mkdir -p "$BIND" "$VIEW"
cleanup() {
    "$BIN" unmount "$VIEW" >/dev/null 2>&1 || umount -l "$VIEW" 2>/dev/null || true
    umount "$BIND" 2>/dev/null || umount -l "$BIND" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

levels=()
[ -n "${BENCH_LEVELS:-}" ] && levels=(--levels "$BENCH_LEVELS")

bindfs "$TREE" "$BIND"

# Mount time: from `schrodinger mount` until the view answers a stat of its root listing.
# Repeated, each with a fresh state directory; the last mount stays for the benchmarks.
mount_times=()
for i in $(seq 1 "$MOUNT_REPS"); do
    rm -rf "$STATE"
    t0=$(date +%s%N)
    "$BIN" mount --seed "$SEED" "${levels[@]}" --state "$STATE" "$TREE" "$VIEW"
    ls "$VIEW" >/dev/null
    t1=$(date +%s%N)
    mount_times+=("$(( (t1 - t0) / 1000000 ))")
    if [ "$i" -lt "$MOUNT_REPS" ]; then "$BIN" unmount "$VIEW"; fi
done
# Measure the steady state: wait (bounded) for a background scan of the tree to finish.
scan_ms=""
for _ in $(seq 1 600); do
    line=$(grep "scan done" "$STATE/schrodinger.log" 2>/dev/null | tail -1 || true)
    if [ -n "$line" ]; then
        scan_ms=$(sed -n 's/.*elapsed=\([0-9.]*\)\(m\?s\).*/\1 \2/p' <<<"$line")
        break
    fi
    sleep 0.2
done
# Stale pid files of earlier mounts may be left over: take the first live daemon of this view
# (no early-closing pipe, which pipefail would turn into an exit).
pid=""
for f in /run/schrodinger/*.pid; do
    p=$(cat "$f" 2>/dev/null) || continue
    if [ -n "$p" ] && grep -qs "$VIEW" "/proc/$p/cmdline"; then pid=$p; break; fi
done

# The view's names for the import benchmark.
modules=()
viewmods=()
if [ -f "$TREE/django/__init__.py" ]; then
    modules=(django django.db.models django.http django.template django.urls django.forms)
    for m in "${modules[@]}"; do
        viewmods+=("$("$BIN" translate --seed "$SEED" "${levels[@]}" --to view "$TREE" <<<"$m")")
    done
fi

export BENCH_TREE=$TREE BENCH_BIND=$BIND BENCH_VIEW=$VIEW BENCH_WORK=$work
export BENCH_REPS=$REPS BENCH_COLD_REPS=$COLD_REPS BENCH_PID=${pid:-}
export BENCH_MODULES="${modules[*]}" BENCH_VIEWMODS="${viewmods[*]}" BENCH_PYDEPS=$PYDEPS
export BENCH_MOUNT_MS="${mount_times[*]}" BENCH_COMMIT=$commit BENCH_NAME=$NAME
export BENCH_LEVELS_SHOWN=${BENCH_LEVELS:-default} BENCH_SCAN="$scan_ms"
export BENCH_BIN=$BIN BENCH_SEED=$SEED BENCH_STATE=$STATE BENCH_LEVEL_ARGS="${levels[*]}"

python3 - "$OUT" <<'EOF'
import os, platform, shutil, statistics, subprocess, sys, time

E = os.environ
targets = [("native", E["BENCH_TREE"]), ("bindfs", E["BENCH_BIND"]), ("view", E["BENCH_VIEW"])]
work = E["BENCH_WORK"]
reps, cold_reps = int(E["BENCH_REPS"]), int(E["BENCH_COLD_REPS"])
only = set(filter(None, E.get("BENCH_ONLY", "").split(",")))

def sh(cmd, cwd=None, env=None):
    subprocess.run(cmd, shell=True, cwd=cwd, env=env, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def drop_caches():
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")

# Per-target lists of .py files (so `cat` measures reading, not walking).
lists = {}
for name, root in targets:
    out = subprocess.run(["find", ".", "-type", "f", "-name", "*.py", "-print0"], cwd=root,
                         capture_output=True, check=True).stdout
    path = os.path.join(work, f"py-{name}.lst")
    with open(path, "wb") as f:
        f.write(out)
    lists[name] = path

mods = dict(zip(["native", "bindfs", "view"],
                [E["BENCH_MODULES"], E["BENCH_MODULES"], E["BENCH_VIEWMODS"]]))
pyenv = dict(E, PYTHONDONTWRITEBYTECODE="1", PYTHONPATH=E["BENCH_PYDEPS"])

def op_find(name, root): return lambda: sh("find . -type f >/dev/null", cwd=root)
def op_grep(name, root): return lambda: sh("grep -rn return . >/dev/null", cwd=root)
def op_cat(name, root): return lambda: sh(f"xargs -0 cat <{lists[name]} >/dev/null", cwd=root)
def op_import(name, root):
    stmt = "import " + ", ".join(mods[name].split())
    return lambda: sh(f"python3 -c '{stmt}'", cwd=root, env=pyenv)
def op_compile(name, root):
    prefix = os.path.join(work, f"pyc-{name}")
    def run():
        shutil.rmtree(prefix, ignore_errors=True)
        sh("python3 -m compileall -q .", cwd=root, env=dict(E, PYTHONPYCACHEPREFIX=prefix))
    return run

# An agent's edit of many files: `sed -i` rewrites 400 .py files over 1 KiB in place (each
# through a temp file and a rename), leaving their bytes as they were, so the tree, which
# the three targets share, stays the same. The same files are rewritten on native and bindfs,
# which the view's watcher sees as changes from outside: its files are read once, untimed,
# before each of its runs (as an agent reads a file before editing it).
sed_lists = {}
for name, root in targets:
    out = subprocess.run("find . -name '*.py' -size +1k -print0 | head -z -n 400", shell=True,
                         cwd=root, capture_output=True, check=True).stdout
    path = os.path.join(work, f"sed-{name}.lst")
    with open(path, "wb") as f:
        f.write(out)
    sed_lists[name] = path
def op_sed(name, root):
    def run():
        sh(f"xargs -0 sed -i 's/$//' <{sed_lists[name]}", cwd=root)
    return run
def prepare_sed(name, root):
    if name == "view":
        sh(f"xargs -0 cat <{sed_lists[name]} >/dev/null", cwd=root)
# The same files, each given one line at the top (a real edit: the view inverts every file
# through Level 3), and the line removed again after each run, untimed, through the same
# target, so the tree is back to its bytes before the next target runs.
def op_sed_edit(name, root):
    def run():
        sh(f"xargs -0 sed -i '1s/^/# bench edit\\n/' <{sed_lists[name]}", cwd=root)
    return run
def undo_sed_edit(name, root):
    sh(f"xargs -0 sed -i '1d' <{sed_lists[name]}", cwd=root)
prepares = {"sed_400": prepare_sed, "sed_edit_400": prepare_sed}
finishes = {"sed_edit_400": undo_sed_edit}

ops = [
    ("find_warm", "find -type f, warm", op_find, False, reps, "1.3"),
    ("find_cold", "find -type f, cold", op_find, True, cold_reps, ""),
    ("grep_warm", "grep -rn return, warm", op_grep, False, reps, "2.0"),
    ("cat_warm", "cat every .py, warm", op_cat, False, reps, "1.5"),
    ("cat_cold", "cat every .py, cold", op_cat, True, cold_reps, ""),
]
if E["BENCH_MODULES"]:
    ops.append(("import_warm", "python3 -c 'import django, django.db.models, ...', warm",
                op_import, False, reps, "1.1"))
ops.append(("sed_400", "sed -i over 400 .py files (bytes unchanged)", op_sed, False,
            cold_reps, "2.0"))
ops.append(("sed_edit_400", "sed -i adding a line to 400 .py files (then undone, untimed)",
            op_sed_edit, False, cold_reps, "2.0"))
ops.append(("compileall", "python3 -m compileall -q (fresh PYTHONPYCACHEPREFIX)",
            op_compile, False, cold_reps, ""))
has_git = os.path.isdir(os.path.join(E["BENCH_TREE"], ".git"))
def op_git(args):
    return lambda name, root: (lambda: sh(f"git {args} >/dev/null", cwd=root))
if has_git:
    ops.append(("git_status_warm", "git status, warm", op_git("status"), False, reps, "1.5"))
    ops.append(("git_diff_warm", "git diff, warm", op_git("diff"), False, reps, "1.5"))

# The agent's first search: grep over the whole tree right after `mount` returned, with the
# page cache dropped. The view is unmounted and mounted again before each of its runs, the
# daemon starting with nothing transformed: with the same state directory (the saved bundle
# and the views the first scan rendered, as a state prepared with `mount --prepare` when the
# image was built), or with a new state directory each time (a first mount: the bundle is
# built and the view's `.git` rendered in the background while grep runs). Run last: they
# leave a fresh daemon behind.
def remount_view(new_state):
    view = E["BENCH_VIEW"]
    state = E["BENCH_STATE"]
    if new_state:
        state = os.path.join(work, f"state-{time.monotonic_ns()}")
    subprocess.run([E["BENCH_BIN"], "unmount", view], check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([E["BENCH_BIN"], "mount", "--seed", E["BENCH_SEED"],
                    *E["BENCH_LEVEL_ARGS"].split(), "--state", state,
                    E["BENCH_TREE"], view], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
first_touch = [
    ("first_grep", "grep -rn return, first after mount, state kept (cold cache)", False),
    ("first_grep_new", "grep -rn return, first after a first mount (new state, cold cache)",
     True),
]

def daemon_quiet(timeout=20.0):
    """Wait until the view's daemon uses no CPU for 0.2 s: a write-back may leave work to
    its flusher (settling a Python file's order, src/fs/settle.rs), which must not run into
    the next target's timed run."""
    pid = E.get("BENCH_PID")
    if not pid:
        return
    def cpu():
        try:
            f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
            return int(f[11]) + int(f[12])
        except OSError:
            return None
    end = time.monotonic() + timeout
    last, still = cpu(), 0
    while still < 2 and time.monotonic() < end:
        time.sleep(0.1)
        now = cpu()
        still = still + 1 if now == last else 0
        last = now

results = []
for oid, label, make, cold, n, target in ops:
    if only and oid not in only:
        continue
    fns = {name: make(name, root) for name, root in targets}
    times = {name: [] for name, _ in targets}
    tails = []
    if not cold:
        for name, root in targets:  # warm-up, not counted
            fns[name]()
            if oid in finishes:
                finishes[oid](name, root)
            if name == "view" and oid in prepares:
                daemon_quiet()
    for i in range(n):
        order = targets[i % 3:] + targets[:i % 3]
        for name, root in order:
            if oid in prepares:
                prepares[oid](name, root)
            if cold:
                drop_caches()
            t0 = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t0)
            if name == "view" and oid in prepares:
                # How long the daemon kept working after the command returned (printed
                # below, not counted in the row).
                t1 = time.perf_counter()
                daemon_quiet()
                tails.append(time.perf_counter() - t1)
            if oid in finishes:
                finishes[oid](name, root)
            if name == "view" and oid in prepares:
                daemon_quiet()
    med = {k: statistics.median(v) for k, v in times.items()}
    results.append((label, med, n, target))
    print(f"  {label}: " + ", ".join(f"{k} {v*1000:.0f} ms" for k, v in med.items()),
          file=sys.stderr)
    if tails:
        print(f"    the view's daemon busy after the command (until 0.2 s without CPU), "
              f"median {statistics.median(tails)*1000:.0f} ms: "
              + ", ".join(f"{t*1000:.0f}" for t in tails), file=sys.stderr)

def peak_rss(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith(("VmHWM", "VmRSS")):
                yield line.split()[0].rstrip(":"), int(line.split()[1]) // 1024
    except (OSError, ValueError):
        return

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "?")
mount_ms = [int(x) for x in E["BENCH_MOUNT_MS"].split()]
rss = dict(peak_rss(E["BENCH_PID"])) if E["BENCH_PID"] else {}

for oid, label, new_state in first_touch:
    if only and oid not in only:
        continue
    fns = {name: op_grep(name, root) for name, root in targets}
    times = {name: [] for name, _ in targets}
    for i in range(cold_reps):
        order = targets[i % 3:] + targets[:i % 3]
        for name, _ in order:
            if name == "view":
                remount_view(new_state)
            drop_caches()
            t0 = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    results.append((label, med, cold_reps, "1.5"))
    print(f"  {label}: " + ", ".join(f"{k} {v*1000:.0f} ms" for k, v in med.items()),
          file=sys.stderr)

lines = []
lines.append(f"- tree: {E['BENCH_NAME']} ({E['BENCH_TREE']}), levels: {E['BENCH_LEVELS_SHOWN']}")
lines.append(f"- machine: {os.cpu_count()} cores ({cpu}), kernel {platform.release()}")
lines.append(f"- commit: {E['BENCH_COMMIT']}, date: {time.strftime('%Y-%m-%d %H:%M')}")
lines.append("")
lines.append("| operation | runs | native | bindfs | view | target |")
lines.append("|---|---|---|---|---|---|")
for label, med, n, target in results:
    nat = med["native"]
    cell = lambda k: f"{med[k]*1000:.0f} ms ({med[k]/nat:.2f}x)" if nat > 0 else "?"
    lines.append(f"| {label} | {n} | {nat*1000:.0f} ms | {cell('bindfs')} | {cell('view')} | "
                 f"{'<= ' + target + 'x' if target else ''} |")
if not has_git:
    lines.append("| git status in the view | - | - | - | skipped: the tree is no git checkout | |")
lines.append(f"| mount until the view answers | {len(mount_ms)} | - | - | "
             f"{statistics.median(mount_ms)} ms (runs: {', '.join(map(str, mount_ms))}) | < 3000 ms |")
if E.get("BENCH_SCAN"):
    lines.append(f"| scan of the whole tree (background after the mount answers) | 1 | - | - | "
                 f"{E['BENCH_SCAN']} | |")
lines.append(f"| daemon peak RSS (VmHWM) after the runs | - | - | - | "
             f"{rss.get('VmHWM', '?')} MB (now {rss.get('VmRSS', '?')} MB) | < 300 MB |")
text = "\n".join(lines) + "\n"
print(text)
with open(sys.argv[1], "w") as f:
    f.write(text)
EOF
