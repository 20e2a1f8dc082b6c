#!/usr/bin/env bash
# What a busy machine does to causal-run's predictions, and what the runtime says of it
# (docs/causal.md, "On a busy machine the predictions shrink"):
#
#   experiments/causal/busy_machine.sh BUILD_DIR
#
# Runs cexp-serial's hot line at a 50% virtual speedup beside 0, 1, 2 and 3 busy loops
# (shell loops, as other jobs would be), with CPROF_CAUSAL_CPU_WAIT_WARN=0 so the runtime
# always says how long the program's threads waited for a CPU. Prints per row the waited
# share of ready time, the predicted program speedup and its ratio to the row without
# loops. Environment: LOOPS (default "0 1 2 3"), REPS (runs per row, default 1; the
# median is printed), SPEEDUP (percent, default 50), CEXP_SCALE (the program's length,
# default 3: ~4.5 s of CPU), DURATION_MS (first and shortest experiment, default 100),
# KEEP=1 keeps the results.
set -euo pipefail
build=$(cd "${1:?usage: busy_machine.sh BUILD_DIR}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
loops_list=${LOOPS:-0 1 2 3}
reps=${REPS:-1}
speedup=${SPEEDUP:-50}
program="$build/bin/cexp-serial"
[[ -x "$program" ]] || { echo "busy_machine.sh: $program not built" >&2; exit 1; }
hot=$(grep -n '// HOT' "$here/serial.cpp" | head -1 | cut -d: -f1)
tmp=$(mktemp -d)
hogs=()
stop_hogs() {
  if ((${#hogs[@]})); then kill "${hogs[@]}" 2>/dev/null || true; wait "${hogs[@]}" 2>/dev/null || true; fi
  hogs=()
}
trap 'stop_hogs; [[ -n "${KEEP:-}" ]] || rm -rf "$tmp"' EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "NA"; else print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

printf "%-10s %10s %10s %8s\n" "busy loops" waited predicted ratio
base=""
for n in $loops_list; do
  : > "$tmp/wait"; : > "$tmp/pred"
  for ((r = 0; r < reps; r++)); do
    for ((i = 0; i < n; i++)); do
      sh -c 'while :; do :; done' & hogs+=("$!")
    done
    out="$tmp/run-$n-$r"
    log=$(CEXP_SCALE=${CEXP_SCALE:-3} CPROF_CAUSAL_DURATION_MS=${DURATION_MS:-100} \
      CPROF_CAUSAL_CPU_WAIT_WARN=0 "$build/bin/causal-run" -o "$out" --line "serial.cpp:$hot" \
      --fixed-speedup "$speedup" --seed $((r + 1)) -- "$program" 2>&1 >/dev/null)
    stop_hogs
    echo "$log" | grep -oE 'during the experiments, [0-9]+%' | grep -oE '[0-9]+' >> "$tmp/wait" || true
    "$build/bin/causal-report" --format json "$out" |
      grep -oE "\"speedup\": $(awk -v s="$speedup" 'BEGIN { print s / 100 }'), \"program_speedup\": [-0-9.e]+" |
      head -1 | awk '{ print $4 }' >> "$tmp/pred" || true
  done
  w=$(median < "$tmp/wait"); p=$(median < "$tmp/pred")
  [[ -z "$base" ]] && base=$p
  ratio=$(awk -v p="$p" -v b="$base" 'BEGIN { if (p == "NA" || b == "NA" || b == 0) print "NA"; else printf "%.2f", p / b }')
  printf "%-10s %9s%% %10s %8s\n" "$n" "$w" "$(awk -v p="$p" 'BEGIN { if (p == "NA") print p; else printf "%.3f", p }')" "$ratio"
done
