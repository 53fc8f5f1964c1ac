#!/usr/bin/env bash
# What one `schrodinger run` costs on Django, for sizing pods: the daemon's peak RSS and CPU
# seconds at the moment the agent starts (mount, map, environment scan) and at the end of a
# typical agent session (grep -rn over the tree, open 200 files, run one test module).
#
#   scripts/run-cost.sh [SCHRODINGER_BINARY]
#
# Runs as root. Uses the Django 4.2.16 sdist cached by scripts/bench.sh ($BENCH_CACHE,
# default /var/tmp/bench), copied under git in $WORK (default /var/tmp/run-cost). The
# environment-scan cache is used as it is (run it twice to see a cold and a warm scan).
set -euo pipefail
BIN=${1:-target/release/schrodinger}
BIN=$(realpath "$BIN")
BENCH_CACHE=${BENCH_CACHE:-/var/tmp/bench}
WORK=${WORK:-/var/tmp/run-cost}
TREE=$BENCH_CACHE/Django-4.2.16
[[ -d $TREE ]] || { echo "run scripts/bench.sh once first (it fetches $TREE)" >&2; exit 2; }
rm -rf "$WORK" && mkdir -p "$WORK"
cp -a "$TREE" "$WORK/testbed"
rm -rf "$WORK/testbed/.git"
git -C "$WORK/testbed" init -q && git -C "$WORK/testbed" add -A
git -C "$WORK/testbed" -c user.name=x -c user.email=x@x commit -qm base
module=$(printf basic | "$BIN" translate --seed 7 --to view "$WORK/testbed")
agent=$(cat <<EOF
touch /tmp/run-cost-started
cd $WORK/testbed
t() { s=\$(date +%s%N); "\$@"; echo "  \$(( (\$(date +%s%N) - s) / 1000000 )) ms: \$*" >&2; }
t sh -c 'grep -rn return . > /dev/null'
t sh -c "find . -name '*.py' | head -200 | xargs cat > /dev/null"
cd tests && t sh -c "PYTHONPATH=..:$BENCH_CACHE/pydeps python3 runtests.py $module -v 0 --parallel 1 2>&1 | tail -1"
EOF
)
# The same session on the original tree, for scale (no mount, no namespaces).
native=$(printf '%s' "$agent" | sed "s/runtests.py $module /runtests.py basic /")
/usr/bin/time -f "native session: %e s wall, %U s user + %S s sys" sh -c "$native"
rm -f /tmp/run-cost-started
sample() { # pid -> "rss_kib cpu_s"
  local pid=$1 hwm t
  hwm=$(awk '/VmHWM/{print $2}' /proc/$pid/status 2>/dev/null) || return 1
  t=$(awk '{print $14+$15}' /proc/$pid/stat 2>/dev/null) || return 1
  echo "$hwm $(awk -v t="$t" -v hz="$(getconf CLK_TCK)" 'BEGIN{printf "%.1f", t/hz}')"
}
(
  start=""; last=""
  while :; do
    pid=$(pgrep -f -- "--ready-fd .* $WORK/testbed " | head -1 || true)
    if [[ -n $pid ]]; then
      s=$(sample "$pid") || true
      [[ -n $s ]] && last=$s
      if [[ -z $start && -e /tmp/run-cost-started && -n $last ]]; then start=$last; fi
    elif [[ -n $last ]]; then break; fi
    sleep 0.2
  done
  echo "daemon at agent start: peak RSS ${start% *} KiB, CPU ${start#* } s"
  echo "daemon at the end:     peak RSS ${last% *} KiB, CPU ${last#* } s"
) &
sampler=$!
/usr/bin/time -f "run: %e s wall, %U s user + %S s sys (run and its children, daemon excluded)" \
  "$BIN" run --seed 7 --no-repoint --work "$WORK/work" --out "$WORK/out" "$WORK/testbed" \
  -- sh -c "$agent"
wait $sampler
