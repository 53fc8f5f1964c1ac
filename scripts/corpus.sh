#!/usr/bin/env bash
# Corpus run (law 5, "same behaviour"): for each pinned PyPI source distribution, export the
# view, run the project's own tests on the original and on the view with the same arguments,
# compare test by test, and measure how much of the repository the view renames.
#
#   scripts/corpus.sh [--seed N] [--only NAME] [--work DIR]
#
# CORPUS_VIEW_OPTS adds view options to every export and translate (e.g.
# CORPUS_VIEW_OPTS=--rename-pure-locals to measure that opt-in rule). CORPUS_FREEZE_DIR=DIR
# adds `--freeze DIR/NAME.txt` for each project that has such a file (docs/corpus-freeze/
# holds the lists `verify --auto-freeze` found).
#
# Work dir layout (default /var/tmp/schrodinger-corpus):
#   cache/NAME-VER/      the downloaded sdist (kept between runs)
#   NAME/original/       the unpacked sdist, a git repository (never committed to this project)
#   NAME/venv/           pytest and the test dependencies; the project itself is NOT installed
#   NAME/view/           `schrodinger export` of original
#   NAME/results/        junit XML, logs, report.json
#
# Imports are arranged the same way on both sides: PYTHONPATH=<side>/<import root> (the view's
# import root is the translated name), tests run from <side> as the working directory.
# Network: pip talks to the package registry only; the tests themselves need none.
set -euo pipefail

SEED=7
ONLY=""
WORK=/var/tmp/schrodinger-corpus
while [ $# -gt 0 ]; do
    case "$1" in
        --seed) SEED="$2"; shift 2 ;;
        --only) ONLY="$2"; shift 2 ;;
        --work) WORK="$2"; shift 2 ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) echo "corpus.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${SCHRODINGER:-${CARGO_TARGET_DIR:-$ROOT/target}/release/schrodinger}
PYTHON=${CORPUS_PYTHON:-python3}
TEST_TIMEOUT=${CORPUS_TEST_TIMEOUT:-1800}

if [ ! -x "$BIN" ]; then
    (cd "$ROOT" && cargo build --release)
fi

# name|version|import root|test paths|test dependencies (pinned)|deselected test ids (original)
PROJECTS=(
    "flask|3.0.3|src|tests|pytest==8.3.3 werkzeug==3.0.4 jinja2==3.1.4 itsdangerous==2.2.0 click==8.1.7 blinker==1.8.2 asgiref==3.8.1 python-dotenv==1.0.1|"
    "click|8.1.7|src|tests|pytest==8.3.3|"
    "jinja2|3.1.4|src|tests|pytest==8.3.3 markupsafe==2.1.5|"
    "attrs|24.2.0|src|tests|pytest==8.3.3 hypothesis==6.112.1 cloudpickle==3.0.0|"
    "more-itertools|10.5.0|.|tests|pytest==8.3.3|"
    "toolz|0.12.1|.|toolz/tests|pytest==8.3.3|"
)

mkdir -p "$WORK/cache"
WORK=$(cd "$WORK" && pwd)

log() { printf '[corpus] %s\n' "$*" >&2; }

# translate DIRECTION NAME: stdin -> stdout with the project's view options
translate() {
    # shellcheck disable=SC2086
    "$BIN" translate --seed "$SEED" --python "$WORK/$2/venv/bin/python" ${VIEW_OPTS:-} \
        --to "$1" "$WORK/$2/original"
}

run_project() {
    local name=$1 version=$2 root=$3 testpaths=$4 deps=$5 deselect=$6
    VIEW_OPTS=${CORPUS_VIEW_OPTS:-}
    if [ -n "${CORPUS_FREEZE_DIR:-}" ] && [ -f "$CORPUS_FREEZE_DIR/$name.txt" ]; then
        VIEW_OPTS="$VIEW_OPTS --freeze $(cd "$CORPUS_FREEZE_DIR" && pwd)/$name.txt"
    fi
    local dir="$WORK/$name" cache="$WORK/cache/$name-$version"
    log "== $name $version"

    # 1. sdist -> original (a git repository, so that any change the tests make shows up)
    if ! ls "$cache"/*.tar.gz >/dev/null 2>&1; then
        mkdir -p "$cache"
        "$PYTHON" -m pip download -q --no-deps --no-binary :all: "$name==$version" -d "$cache"
    fi
    local sdist
    sdist=$(ls "$cache"/*.tar.gz | head -n1)
    rm -rf "$dir/original" "$dir/view" "$dir/results"
    mkdir -p "$dir/original" "$dir/results"
    tar xzf "$sdist" -C "$dir/original" --strip-components=1
    git -C "$dir/original" init -q
    git -C "$dir/original" add -A -f
    git -C "$dir/original" -c user.name=corpus -c user.email=corpus@localhost \
        commit -q -m "$name $version sdist"

    # 2. venv with pytest and the test dependencies (never the project itself)
    if [ ! -f "$dir/venv/.deps" ] || [ "$(cat "$dir/venv/.deps")" != "$deps" ]; then
        rm -rf "$dir/venv"
        "$PYTHON" -m venv "$dir/venv"
        # shellcheck disable=SC2086
        "$dir/venv/bin/python" -m pip install -q $deps
        printf '%s' "$deps" >"$dir/venv/.deps"
    fi
    local py="$dir/venv/bin/python"

    # 3. the view
    # shellcheck disable=SC2086
    "$BIN" export --seed "$SEED" --python "$py" ${VIEW_OPTS:-} "$dir/original" "$dir/view" \
        2>"$dir/results/export.log"

    # 4./5. the same test command on both sides; view paths are translated
    local vroot vtestpaths vdeselect
    vroot=$(printf '%s' "$root" | translate view "$name")
    vtestpaths=$(printf '%s' "$testpaths" | translate view "$name")
    vdeselect=$(printf '%s' "$deselect" | translate view "$name")
    printf 'root=%s\ntestpaths=%s\ndeselect=%s\n' "$vroot" "$vtestpaths" "$vdeselect" >"$dir/results/view-args.txt"

    run_side() {
        local side=$1 sroot=$2 stests=$3 sdesel=$4
        local args=() d
        for d in $sdesel; do args+=(--deselect "$d"); done
        # shellcheck disable=SC2086
        (cd "$dir/$side" && env PYTHONPATH="$dir/$side/$sroot" PYTHONDONTWRITEBYTECODE=1 \
            PYTHONHASHSEED=0 HYPOTHESIS_STORAGE_DIRECTORY="$dir/results/hypothesis-$side" timeout "$TEST_TIMEOUT" "$py" -m pytest -q -p no:cacheprovider --continue-on-collection-errors \
            --junitxml="$dir/results/$side.xml" $stests ${args[@]+"${args[@]}"}) \
            >"$dir/results/$side.log" 2>&1 || true
        log "$side: $(tail -n1 "$dir/results/$side.log")"
    }
    run_side original "$root" "$testpaths" "$deselect"
    run_side view "$vroot" "$vtestpaths" "$vdeselect"

    # the tests must not have changed the original
    git -C "$dir/original" status --porcelain >"$dir/results/original-status.txt"
    if [ -s "$dir/results/original-status.txt" ]; then
        log "warning: the test run changed the original (see results/original-status.txt)"
    fi

    # 6. compare and measure
    CORPUS_VIEW_OPTS="$VIEW_OPTS" "$PYTHON" "$ROOT/scripts/corpus_report.py" project --bin "$BIN" --seed "$SEED" \
        --python "$py" --name "$name" --version "$version" --dir "$dir"
}

ran=()
for p in "${PROJECTS[@]}"; do
    IFS='|' read -r name version root testpaths deps deselect <<<"$p"
    if [ -n "$ONLY" ] && [ "$ONLY" != "$name" ]; then continue; fi
    run_project "$name" "$version" "$root" "$testpaths" "$deps" "$deselect"
    ran+=("$name")
done
if [ ${#ran[@]} -eq 0 ]; then
    echo "corpus.sh: no project named $ONLY" >&2
    exit 2
fi
"$PYTHON" "$ROOT/scripts/corpus_report.py" table --work "$WORK" "${ran[@]}"
