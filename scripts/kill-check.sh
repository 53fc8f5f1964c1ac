#!/usr/bin/env bash
# End-to-end check of law 9 with a killed daemon (and law 2 across the remount, law 4 in the
# patch): mount the view of a copy of TREE, `sed -i '1i # edited'` over its first N Python
# files through the view, SIGKILL the daemon at once (the flusher is then settling), then
# report: stray files in the original after the kill, files still in the view's order,
# views after a remount that differ from what was written, and the original's `git diff`
# after the unmount (which settles everything: only insertions, one per non-empty file).
#
#   scripts/kill-check.sh [--runs R] [--files N] TREE
#
# TREE must be a git work tree with a clean status (scripts/bench.sh makes one of Django).
# SCHRODINGER picks the binary (default: target/release/schrodinger). Runs as root.
set -uo pipefail

RUNS=1
N=400
while [ $# -gt 1 ]; do
    case "$1" in
        --runs) RUNS="$2"; shift 2 ;;
        --files) N="$2"; shift 2 ;;
        *) echo "kill-check.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
TREE=${1:?usage: scripts/kill-check.sh [--runs R] [--files N] TREE}
here=$(cd "$(dirname "$0")/.." && pwd)
BIN=${SCHRODINGER:-$here/target/release/schrodinger}
[ -x "$BIN" ] || { echo "kill-check.sh: no binary at $BIN (cargo build --release)" >&2; exit 2; }
[ -z "$(git -C "$TREE" status --porcelain)" ] || { echo "kill-check.sh: $TREE is not clean" >&2; exit 2; }

work=$(mktemp -d /var/tmp/kill-check.XXXXXX)
trap 'umount -l "$work/mnt" 2>/dev/null; rm -rf "$work"' EXIT

daemon_of() { # the pid serving mountpoint $1
    for p in /proc/[0-9]*; do
        if tr '\0' '\n' 2>/dev/null < "$p/cmdline" | grep -qx -- "--ready-fd" &&
            tr '\0' '\n' 2>/dev/null < "$p/cmdline" | grep -qx -- "$1"; then
            basename "$p"
        fi
    done | head -1
}

failed=0
for run in $(seq 1 "$RUNS"); do
    rm -rf "$work/orig" "$work/st" "$work/before" && mkdir -p "$work/mnt" "$work/before"
    cp -a "$TREE" "$work/orig"
    "$BIN" mount --seed 7 --state "$work/st" "$work/orig" "$work/mnt" || exit 1
    mapfile -t files < <(cd "$work/mnt" && find . -path ./.git -prune -o -name '*.py' -print | sort | head -"$N")
    for f in "${files[@]}"; do
        mkdir -p "$work/before/$(dirname "$f")"
        cat "$work/mnt/$f" > "$work/before/$f"
    done
    (cd "$work/mnt" && sed -i '1i # edited' "${files[@]}")
    kill -9 "$(daemon_of "$work/mnt")"
    umount -l "$work/mnt"
    stray=$(git -C "$work/orig" status --porcelain --untracked-files=all | grep -vc '^ M')
    unsettled=$(git -C "$work/orig" diff --numstat | awk '$2 > 0' | wc -l)
    "$BIN" mount --seed 7 --state "$work/st" "$work/orig" "$work/mnt" || exit 1
    differ=0 nonempty=0
    for f in "${files[@]}"; do
        # sed's 1i adds nothing to an empty file.
        if [ -s "$work/before/$f" ]; then
            nonempty=$((nonempty + 1))
            (echo '# edited'; cat "$work/before/$f") > "$work/want"
        else
            cp "$work/before/$f" "$work/want"
        fi
        cmp -s "$work/want" "$work/mnt/$f" || differ=$((differ + 1))
    done
    "$BIN" unmount "$work/mnt"
    read -r added removed < <(git -C "$work/orig" diff --numstat | awk '{a += $1; r += $2} END {print a + 0, r + 0}')
    stray_after=$(git -C "$work/orig" status --porcelain --untracked-files=all | grep -vc '^ M')
    echo "run $run: stray after the kill $stray, files in the view's order $unsettled," \
        "views differing after the remount $differ of ${#files[@]}," \
        "patch +$added -$removed (want +$nonempty -0), stray after the unmount $stray_after"
    if [ "$stray" != 0 ] || [ "$differ" != 0 ] || [ "$added" != "$nonempty" ] ||
        [ "$removed" != 0 ] || [ "$stray_after" != 0 ]; then
        failed=$((failed + 1))
    fi
done
echo "kill-check: $failed of $RUNS runs failed"
[ "$failed" = 0 ]
