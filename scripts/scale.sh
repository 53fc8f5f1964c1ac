#!/usr/bin/env bash
# Scale: trees of about 1, 5 and 10 times the size of Django 4.2.16's sdist, each made of real
# source distributions side by side (one directory per sdist: several Django releases, SymPy
# releases, ansible-core), then for each tree `scripts/bench.sh TREE` with its warm rows, the
# mount time (a first mount: a new state directory, the bundle built) and the daemon's peak
# RSS after the background scan and the runs.
#
#   sudo scripts/scale.sh
#
# Environment: SCALE_DIR (default /var/tmp/scale; sdists are downloaded once into
# SCALE_DIR/dl, trees unpacked into SCALE_DIR/trees), SCALE_SIZES (default "1 5 10":
# multiples of Django 4.2.16's file count; sdists are added in the order below until the
# tree has at least that many files), SCHRODINGER (binary, as for bench.sh), and bench.sh's
# own knobs (default here BENCH_ONLY=find_warm,grep_warm,cat_warm, BENCH_REPS=5,
# BENCH_MOUNT_REPS=2). One Markdown table per size is printed and kept in
# SCALE_DIR/scale-<size>x.md, and a summary (files, bytes, mount time, peak RSS per size).
set -euo pipefail
case "${1:-}" in
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    "") ;;
    *) echo "scale.sh: no arguments (see --help; settings come from the environment)" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")/.." && pwd)
DIR=${SCALE_DIR:-/var/tmp/scale}
SIZES=${SCALE_SIZES:-1 5 10}
SDISTS=(django==4.2.16 django==5.1.3 django==5.0.9 django==4.1.13 django==3.2.25
    sympy==1.13.2 sympy==1.12 ansible-core==2.17.6 django==4.0.10 django==3.1.14
    sympy==1.11.1 django==3.0.14 django==2.2.28)

[ "$(id -u)" = 0 ] || { echo "scale.sh: run as root (bench.sh mounts)" >&2; exit 1; }
mkdir -p "$DIR/dl" "$DIR/unpacked" "$DIR/trees"

# Download and unpack each sdist once.
unpacked=()
for spec in "${SDISTS[@]}"; do
    name=${spec%%==*} version=${spec##*==}
    file=$(ls "$DIR/dl/" 2>/dev/null | grep -i -E "^${name//-/[-_]}-$version\.tar\.gz$" | head -n1 || true)
    if [ -z "$file" ]; then
        pip download -q --no-deps --no-binary :all: "$spec" -d "$DIR/dl" >&2
        file=$(ls "$DIR/dl/" | grep -i -E "^${name//-/[-_]}-$version\.tar\.gz$" | head -n1)
    fi
    top=${file%.tar.gz}
    [ -d "$DIR/unpacked/$top" ] || tar xzf "$DIR/dl/$file" -C "$DIR/unpacked" --no-same-owner
    unpacked+=("$top")
done

count() { find "$1" -type f | wc -l; }
unit=$(count "$DIR/unpacked/${unpacked[0]}")

summary=()
for k in $SIZES; do
    tree="$DIR/trees/${k}x"
    if [ ! -d "$tree" ]; then
        mkdir -p "$tree"
        n=0
        for top in "${unpacked[@]}"; do
            [ "$n" -ge $((k * unit)) ] && break
            cp -a "$DIR/unpacked/$top" "$tree/"
            n=$(count "$tree")
        done
        if [ "$n" -lt $((k * unit)) ]; then
            echo "scale.sh: the sdists make only $n files, less than ${k}x ($((k * unit)))" >&2
        fi
    fi
    files=$(count "$tree")
    mb=$(du -sm "$tree" | cut -f1)
    echo "== ${k}x: $files files, $mb MB, $(find "$tree" -name '*.py' | wc -l) .py files" >&2
    BENCH_ONLY=${BENCH_ONLY:-find_warm,grep_warm,cat_warm} BENCH_REPS=${BENCH_REPS:-5} \
        BENCH_MOUNT_REPS=${BENCH_MOUNT_REPS:-2} BENCH_OUT="$DIR/scale-${k}x.md" \
        "$here/scripts/bench.sh" "$tree" >/dev/null
    cat "$DIR/scale-${k}x.md"
    mount=$(grep '^| mount until' "$DIR/scale-${k}x.md" | cut -d'|' -f6 | xargs)
    rss=$(grep '^| daemon peak RSS' "$DIR/scale-${k}x.md" | cut -d'|' -f6 | xargs)
    scan=$(grep '^| scan of the whole tree' "$DIR/scale-${k}x.md" | cut -d'|' -f6 | xargs || true)
    summary+=("| ${k}x | $files | $mb MB | $mount | ${scan:-?} | $rss |")
done

echo
echo "| size | files | bytes | mount until the view answers | background scan | daemon peak RSS |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${summary[@]}"
