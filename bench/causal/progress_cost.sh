#!/usr/bin/env bash
# What counting one visit of a --progress FILE:LINE point costs, by counter: patched into
# the program's code (the default where the line's code can be moved: causal/patch_plan.h),
# a uprobe, a hardware breakpoint. Side by side in one run:
#
#   bench/causal/progress_cost.sh BUILD_DIR [ROUNDS]      (ROUNDS defaults to 5)
#
# The program is the test suite's causal_patch_cases (tests/causal/programs): N rounds of
# seven small functions; the point is patch_cases.S's RIP_LOAD_LINE, visited once a round.
# Each round and counter: causal-run on the program without the point, then with it
# (CPROF_CAUSAL_VISIT_COUNTER picks the counter; unset for the patched one), each timed
# from outside (user + system CPU of causal-run and all it waited for); the cost per visit
# is the difference over the N visits. N is PATCH_N (default 20,000,000) for the patched
# counter, KERNEL_N (default 200,000) for the others, which cost thousands of times more.
# The table gives the median and [min..max] over the rounds, in ns per visit, and says NA
# where a counter counts nothing on this machine (breakpoints in many VMs).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../sampler/common.sh"
find_build_tools "${1:-}" causal-run
rounds=${2:-5}
program=$(cd "$1" && pwd)/causal-programs/causal_patch_cases
[[ -x $program ]] || { echo "$0: $program not built (ninja causal_patch_cases)" >&2; exit 1; }
source_dir=$here/../../tests/causal/programs
line_of() { grep -n "$2" "$source_dir/$1" | head -1 | cut -d: -f1; }
point="patch_cases.S:$(line_of patch_cases.S RIP_LOAD_LINE)"
work="patch_cases_main.c:$(line_of patch_cases_main.c WORK_LINE)"
patch_n=${PATCH_N:-20000000}
kernel_n=${KERNEL_N:-200000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu_seconds ENV N [--progress POINT]: user + system seconds of one causal-run.
cpu_seconds() {
  local env=$1 n=$2
  shift 2
  rm -rf "$tmp/out"
  env $env /usr/bin/time -f '%U %S' -o "$tmp/time" "$BIN/causal-run" -q -o "$tmp/out" \
    --line "$work" "$@" -- "$program" "$n" >/dev/null 2>"$tmp/stderr" || true
  if [[ $# -gt 0 ]] && grep -q "will count no visit" "$tmp/stderr"; then
    echo NA
    return
  fi
  awk '{ printf "%.4f", $1 + $2 }' "$tmp/time"
}

declare -A costs
kinds=(patched uprobe breakpoint)
echo "progress_cost.sh: $rounds rounds; $point; N = $patch_n (patched), $kernel_n (kernel); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  for kind in "${kinds[@]}"; do
    env_words=CPROF_BENCH=1
    n=$kernel_n
    if [[ $kind == patched ]]; then n=$patch_n; else env_words="CPROF_CAUSAL_VISIT_COUNTER=$kind"; fi
    base=$(cpu_seconds "$env_words" "$n")
    counted=$(cpu_seconds "$env_words" "$n" --progress "$point")
    cost=$(awk -v b="$base" -v c="$counted" -v n="$n" \
      'BEGIN { if (c == "NA") print "NA"; else printf "%.1f", (c - b) / n * 1e9 }')
    costs[$kind]+="$cost "
    echo "  round $r $kind: $base s without the point, $counted s with it: $cost ns a visit"
  done
done
echo
printf '%-11s %s\n' counter "ns per visit: median [min..max]"
for kind in "${kinds[@]}"; do
  printf '%-11s %s\n' "$kind" "$(echo "${costs[$kind]}" | tr ' ' '\n' | grep -v '^$' | sort -g | awk '
    /NA/ { na = 1 } !/NA/ { v[n++] = $1 }
    END { if (na || n == 0) { print "NA (counts nothing here)"; exit }
          printf "%.1f [%.1f..%.1f]", (n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2), v[0], v[n - 1] }')"
done
