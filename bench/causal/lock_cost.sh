#!/usr/bin/env bash
# What causal-run adds to an uncontended pthread_mutex_lock/unlock pair (the pattern of a
# program that locks in most of its calls with no other thread holding the lock: SQLite),
# side by side in one run:
#
#   bench/causal/lock_cost.sh BUILD_DIR [ROUNDS]        (ROUNDS defaults to 5)
#   OTHER_BIN=OTHER_BUILD_DIR bench/causal/lock_cost.sh BUILD_DIR   (also another build)
#
# The program is the test suite's causal_uncontended_locks (tests/causal/programs): N
# (default 20,000,000) lock/unlock pairs in one thread, a progress point every 1000. Each
# round runs the plain program, then causal-run at --fixed-speedup 0 on the locked line
# (each build), each timed from outside (user + system CPU of everything it waited for),
# each at N and at N/20 pairs: the slope between the two leaves out what does not grow
# with the pairs (causal-run's start, resolving the line, writing the results). The cost
# is causal-run's slope less the plain program's. The table gives the median and
# [min..max] over the rounds, in ns per pair.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../sampler/common.sh"
find_build_tools "${1:-}" causal-run
rounds=${2:-5}
program=$(cd "$1" && pwd)/causal-programs/causal_uncontended_locks
[[ -x $program ]] || { echo "$0: $program not built (ninja causal_uncontended_locks)" >&2; exit 1; }
source_dir=$here/../../tests/causal/programs
line="uncontended_locks.cpp:$(grep -n LOCKED_WORK "$source_dir/uncontended_locks.cpp" | head -1 | cut -d: -f1)"
n=${N:-20000000}
builds=(this)
declare -A bin=([this]=$BIN)
if [[ -n ${OTHER_BIN:-} ]]; then
  builds+=(other)
  bin[other]=$(cd "$OTHER_BIN" && pwd)/bin
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu_seconds COMMAND...: user + system seconds of one run.
cpu_seconds() {
  rm -rf "$tmp/out"
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/stderr" || true
  awk '{ printf "%.4f", $1 + $2 }' "$tmp/time"
}

declare -A costs
echo "lock_cost.sh: $rounds rounds; N = $n; ${builds[*]}; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
small=$((n / 20))
# slope COMMAND...: CPU seconds per pair of COMMAND N less COMMAND N/20.
slope() {
  local big little
  big=$(cpu_seconds "$@" "$n")
  little=$(cpu_seconds "$@" "$small")
  awk -v b="$big" -v l="$little" -v d="$((n - small))" 'BEGIN { printf "%.3f", (b - l) / d * 1e9 }'
}
for ((r = 1; r <= rounds; r++)); do
  plain=$(slope "$program")
  line_out="  round $r: plain $plain ns a pair"
  for b in "${builds[@]}"; do
    t=$(slope "${bin[$b]}/causal-run" -q -o "$tmp/out" --line "$line" --fixed-speedup 0 \
      -- "$program")
    cost=$(awk -v p="$plain" -v c="$t" 'BEGIN { printf "%.1f", c - p }')
    costs[$b]+="$cost "
    line_out+=", $b $t ($cost added)"
  done
  echo "$line_out"
done
echo
printf '%-6s %s\n' build "ns added per uncontended lock/unlock pair: median [min..max]"
for b in "${builds[@]}"; do
  read -r med min max _ <<<"$(echo "${costs[$b]}" | tr ' ' '\n' | grep -v '^$' | stats)"
  printf '%-6s %.1f [%.1f..%.1f]\n' "$b" "$med" "$min" "$max"
done
