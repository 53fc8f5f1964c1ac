#!/usr/bin/env bash
# POSIX conformance of the view beside a native directory and a bindfs mount, in one run:
# the pjdfstest suite (the Rust version, `cargo install pjdfstest`) on each, then the tests
# that fail in the view but not under bindfs.
#
#   scripts/posix.sh [SCHRODINGER_BINARY]
#
# Then fsx (`cargo install fsx`) with $FSX_OPS operations (default 20000) on a data file on
# each, and on a `.py` file in the view (Python files take the Level 3 path), timed.
#
# Runs as root. Needs bindfs (apt), the users `nobody` and `tests` (the script creates a
# system user `tests` when it is missing: pjdfstest switches to both), and network access to
# crates.io once (pjdfstest and fsx are installed into $POSIX_CACHE, default /var/tmp/posix). Logs and
# the summary are in $POSIX_CACHE. The C suite (github.com/pjd/pjdfstest, run with `prove
# -rv tests/` from inside the directory under test) is the manual complement; it is not run
# here.
set -euo pipefail
BIN=$(realpath "${1:-target/release/schrodinger}")
CACHE=${POSIX_CACHE:-/var/tmp/posix}
mkdir -p "$CACHE"
PJD=$CACHE/bin/pjdfstest
[[ -x $PJD ]] || cargo install --quiet --root "$CACHE" pjdfstest
FSX=$CACHE/bin/fsx
[[ -x $FSX ]] || cargo install --quiet --root "$CACHE" fsx
FSX_OPS=${FSX_OPS:-20000}
command -v bindfs >/dev/null || { echo "bindfs is needed (apt-get install bindfs)" >&2; exit 2; }
id tests >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin tests
nogroup=$(id -gn nobody)
cat > "$CACHE/pjdfstest.toml" <<EOF
[features]
posix_fallocate = {}

[settings]
# Longer than the kernel's timestamp granularity (a jiffy), or time tests fail natively.
naptime = 0.02
allow_remount = false

[dummy_auth]
entries = [
  ["nobody", "$nogroup"],
  ["tests", "tests"],
]
EOF

run() { # name dir
  local name=$1 dir=$2
  mkdir -p "$dir/pjd"
  chmod 0777 "$dir/pjd"
  (cd "$dir/pjd" && timeout 1800 "$PJD" -c "$CACHE/pjdfstest.toml" -p "$dir/pjd" > "$CACHE/$name.log" 2>&1) || true
  rm -rf "$dir/pjd"
  grep -E ' (ok|FAILED|skipped)$' "$CACHE/$name.log" | awk '{print $1, $NF}' | sort > "$CACHE/$name.results"
  printf '%-8s %5d ok %5d failed %5d skipped\n' "$name" \
    "$(grep -c ' ok$' "$CACHE/$name.results" || true)" \
    "$(grep -c ' FAILED$' "$CACHE/$name.results" || true)" \
    "$(grep -c ' skipped$' "$CACHE/$name.results" || true)"
}

fsx_run() { # name dir file
  local name=$1 dir=$2 file=$3 start end
  mkdir -p "$dir/fsx"
  start=$(date +%s%N)
  if (cd "$dir/fsx" && "$FSX" -N "$FSX_OPS" -S 7 -q "$file" > "$CACHE/fsx-$name.log" 2>&1); then
    end=$(date +%s%N)
    printf 'fsx %-12s %6d ops  %6.1f s  ok\n' "$name" "$FSX_OPS" "$(awk -v a="$start" -v b="$end" 'BEGIN { print (b - a) / 1e9 }')"
  else
    printf 'fsx %-12s FAILED (see %s)\n' "$name" "$CACHE/fsx-$name.log"
  fi
  rm -rf "$dir/fsx"
}

cleanup() {
  "$BIN" unmount "$CACHE/view" 2>/dev/null || true
  umount "$CACHE/bind" 2>/dev/null || true
}
trap cleanup EXIT
rm -rf "$CACHE/native" "$CACHE/bindsrc" "$CACHE/bind" "$CACHE/orig" "$CACHE/view" "$CACHE/state"
mkdir -p "$CACHE/native" "$CACHE/bindsrc" "$CACHE/bind" "$CACHE/orig" "$CACHE/view"
printf 'def hello():\n    return 1\n' > "$CACHE/orig/hello.py"
bindfs "$CACHE/bindsrc" "$CACHE/bind"
"$BIN" mount --seed 1 --state "$CACHE/state" "$CACHE/orig" "$CACHE/view"

{
  run native "$CACHE/native"
  run bindfs "$CACHE/bind"
  run view "$CACHE/view"
  echo
  echo "failing in the view, not under bindfs:"
  comm -23 <(grep ' FAILED$' "$CACHE/view.results" | cut -d' ' -f1 | LC_ALL=C sort) \
           <(grep ' FAILED$' "$CACHE/bindfs.results" | cut -d' ' -f1 | LC_ALL=C sort) | sed 's/^/  /'
  echo
  fsx_run native "$CACHE/native" data.bin
  fsx_run bindfs "$CACHE/bind" data.bin
  fsx_run view "$CACHE/view" data.bin
  fsx_run view-py "$CACHE/view" module.py
  echo "left in the original after the run:"
  (cd "$CACHE/orig" && find . -mindepth 1 ! -name hello.py | sed 's/^/  /')
} | tee "$CACHE/summary.txt"
