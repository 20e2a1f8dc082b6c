#!/usr/bin/env bash
# What sample-run adds to every process a program starts: a shell loop that runs
# /bin/true N times (as builds and scripts do), plain and under sample-run, interleaved:
#
#   bench/sampler/startup.sh BUILD_DIR [ROUNDS]        (ROUNDS defaults to 7)
#
# WORKLOAD=fork measures forked children instead: cprof-bench-fork-children forks N
# children that exit at once, with no exec (a server's workers, a shell's subshells);
# WORKLOAD=fork_exit the same with children that end through _exit() (Python's
# multiprocessing workers), where sample-run's last write happens in the interposed _exit.
# WORKLOAD=make builds a generated project of N small C files (qsort and a loop each) with
# `make -j2` and gcc -O2 -g, cleaned before each run, untimed: short-lived processes in
# large binaries (cc1: 33 MB, a 2.4 MB .eh_frame), as a build under sample-run is; the
# figures per process are then per file (gcc, cc1, as: three processes a file).
#
# Configurations, their order rotated every round:
#   plain        the loop alone
#   sr           sample-run -f 500 (dwarf unwinder: CFI tables parsed on demand)
#   sr-fp        sample-run -f 500 --unwind fp (no CFI tables at all)
#   sr-other     the same as sr with OTHER_BIN's sample-run (another build's bin/, e.g. an
#                older commit's), only when OTHER_BIN is set
# Per round: the command's wall and CPU (user+sys of everything it waited for) as ratios
# to that round's plain run, and the cost added per process, (config - plain) / N, in ms.
#
# Environment: N (default 100; 80 for make), WORKLOAD (exec, the default, fork, fork_exit
# or make),
# OTHER_BIN, KEEP=1 keeps the temp dir.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" cprof-bench-time sample-run cprof-bench-fork-children
rounds=${2:-7}
n=${N:-100}
[[ ${WORKLOAD:-exec} == make && -z ${N:-} ]] && n=80
tmp=$(mktemp -d /tmp/cprof-startup.XXXXXX)
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi
prepare() { :; }  # before each run, untimed
case ${WORKLOAD:-exec} in
  exec)
    loop="for i in \$(seq $n); do /bin/true; done"
    cmd=(sh -c "$loop")
    ;;
  fork)
    loop="$n forks"
    cmd=("$BIN/cprof-bench-fork-children" "$n")
    ;;
  fork_exit)
    loop="$n forks ending in _exit"
    cmd=("$BIN/cprof-bench-fork-children" "$n" _exit)
    ;;
  make)
    proj=$tmp/proj
    mkdir -p "$proj"
    for ((i = 1; i <= n; i++)); do
      cat >"$proj/f$i.c" <<EOF
#include <stdlib.h>
static int cmp$i(const void* a, const void* b) { return *(const int*)a - *(const int*)b; }
int func$i(int n) {
  int* v = malloc(n * sizeof(int));
  for (int k = 0; k < n; k++) v[k] = (k * $i * 7919) % 1009;
  qsort(v, n, sizeof(int), cmp$i);
  int s = v[n / 2];
  free(v);
  return s;
}
EOF
    done
    {
      for ((i = 1; i <= n; i++)); do echo "int func$i(int);"; done
      echo "int main(void) { int s = 0;"
      for ((i = 1; i <= n; i++)); do echo "  s += func$i(100);"; done
      echo "  return s == 42; }"
    } >"$proj/main.c"
    printf '%s\n' 'OBJS := $(patsubst %.c,%.o,$(wildcard *.c))' 'app: $(OBJS)' \
      '	$(CC) -o $@ $^' '%.o: %.c' '	$(CC) -O2 -g -c $< -o $@' >"$proj/Makefile"
    loop="make -j2 of $n C files"
    cmd=(make -s -j2 -C "$proj")
    prepare() { rm -f "$proj"/*.o "$proj/app"; }
    ;;
  *)
    echo "startup.sh: WORKLOAD must be exec, fork, fork_exit or make, not '$WORKLOAD'" >&2
    exit 1
    ;;
esac

data=$tmp/data  # config round wall cpu

configs=(plain sr sr-fp)
if [[ -n ${OTHER_BIN:-} ]]; then
  if [[ ! -x $OTHER_BIN/sample-run ]]; then
    echo "startup.sh: $OTHER_BIN/sample-run is missing" >&2
    exit 1
  fi
  configs+=(sr-other)
fi

run_one() {  # run_one CONFIG ROUND
  local config=$1 round=$2 res=$tmp/res
  rm -rf "$res" "$tmp/time"
  prepare
  case $config in
    plain) "$BIN/cprof-bench-time" "$tmp/time" -- "${cmd[@]}" ;;
    sr) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q -f 500 -o "$res" -- \
      "${cmd[@]}" ;;
    sr-fp) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q -f 500 --unwind fp \
      -o "$res" -- "${cmd[@]}" ;;
    sr-other) "$BIN/cprof-bench-time" "$tmp/time" -- "$OTHER_BIN/sample-run" -q -f 500 \
      -o "$res" -- "${cmd[@]}" ;;
  esac
  local t
  t=$(cat "$tmp/time")
  echo "$config $round $(kv wall_s "$t") $(kv cpu_s "$t")" >>"$data"
}

# added_ms CONFIG COLUMN: per round, (CONFIG - plain) / N in ms, summarized.
added_ms() {
  awk -v c="$1" -v col="$2" -v n="$n" '
    $1 == "plain" { p[$2] = $col }
    $1 == c { v[$2] = $col }
    END { for (r in v) if (r in p) print (v[r] - p[r]) * 1000 / n }' "$data" | stats
}

echo "startup.sh: $rounds rounds of ${configs[*]}; each runs ${cmd[*]}"
for ((r = 1; r <= rounds; r++)); do
  k=${#configs[@]}
  for ((i = 0; i < k; i++)); do
    run_one "${configs[$(((i + r - 1) % k))]}" "$r"
  done
  echo "  round $r/$rounds done" >&2
done

echo
echo "Median [min..max] over $rounds rounds (per round against that round's plain run)"
printf "%-9s | %-22s %-22s | %-24s %-24s\n" "" "command wall ratio" "command cpu ratio" \
  "wall added per process" "cpu added per process"
for c in "${configs[@]}"; do
  [[ $c == plain ]] && continue
  read -r wm wmin wmax _ <<<"$(added_ms "$c" 3)"
  read -r cm cmin cmax _ <<<"$(added_ms "$c" 4)"
  printf "%-9s | %-22s %-22s | %6.2f ms [%5.2f..%5.2f] %6.2f ms [%5.2f..%5.2f]\n" "$c" \
    "$(fmt_ratio "$(ratio_stats "$c" 3)")" "$(fmt_ratio "$(ratio_stats "$c" 4)")" \
    "$wm" "$wmin" "$wmax" "$cm" "$cmin" "$cmax"
done
read -r pw _ <<<"$(abs_stats plain 3)"
echo "plain, median: command wall ${pw} s for $n processes"
if [[ ${KEEP:-0} == 1 ]]; then echo "raw data: $data"; fi
