#!/usr/bin/env bash
# How long should one experiment be? causal-run's accuracy (accuracy.sh, without Coz) at
# several first-and-shortest experiment lengths (CPROF_CAUSAL_DURATION_MS), with the run
# length fixed: shorter experiments mean more of them in the same run.
#
#   experiments/causal/experiment_length.sh BUILD_DIR [PROGRAM...]
#
# A prediction compares experiments run at different times, so whatever changes the
# machine's speed between them (other tenants of a VM's host, frequency) is noise in it;
# many short experiments average that drift where a few long ones cannot. Against that,
# each experiment has a fixed cost (its warm-up, the cool-off after it) and a short one
# holds few samples and progress visits.
#
# Rounds (ROUNDS, default 2) run every length once each, in turn, so that a slow spell of
# the machine falls on all lengths alike. Prints, per length: the mean absolute error in
# points over every row of every round, against the row's own physical runs and against
# the pooled truth (the mean "actual" of that program and S over every round and length:
# each accuracy.sh invocation measures the physical programs anew, and on a noisy machine
# that truth moves by several points between invocations), the mean width of the 95%
# intervals, how many rows have one at all (the report gives none with fewer than 3
# baselines or 3 sped-up experiments), the mean number of experiments per row (sped-up +
# baseline), and the accuracy.sh table of its rows.
#
#   experiment_length.sh --summary DIR   prints the summary of an earlier run's rows again
#
# Environment: LENGTHS_MS (default "500 100 25"), ROUNDS, and accuracy.sh's (SPEEDUPS,
# PAIRS, CEXP_SCALE: default here 3, ~4.5 s of CPU per run, so that the 500 ms experiments
# have about ten per run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# Rows: program S ours ci_low ci_high sped+base coz coz_exps actual [actual_low actual_high] (fractions), in
# $1/rows-LENGTH-ROUND.
summary() {
  local out=$1 ms
  printf "%10s | %8s %11s %14s %8s %12s %5s\n" "experiment" "MAE" "MAE pooled" \
    "mean CI width" "with CI" "experiments" "rows"
  for ms in $(ls "$out" | sed -n 's/^rows-\([0-9]*\)-.*/\1/p' | sort -rnu); do
    awk -v want="$out/rows-$ms-" -v ms="$ms" '
      function abs(x) { return x < 0 ? -x : x }
      $9 != "NA" { pool[$1 " " $2] += $9; npool[$1 " " $2]++ }
      index(FILENAME, want) == 1 { rows[++nr] = $0 }
      END {
        for (i = 1; i <= nr; i++) {
          split(rows[i], f, " ")
          if (f[3] != "NA" && f[9] != "NA") {
            n++; e += abs(f[3] - f[9]) * 100
            ep += abs(f[3] - pool[f[1] " " f[2]] / npool[f[1] " " f[2]]) * 100
          }
          if (f[4] != "NA" && f[5] != "NA") { nw++; w += (f[5] - f[4]) * 100 }
          split(f[6], x, "+"); x1 += x[1] + x[2]
        }
        printf "%7d ms | %8s %11s %14s %8s %12s %5d\n", ms, n ? sprintf("%.2f", e / n) : "NA",
          n ? sprintf("%.2f", ep / n) : "NA", nw ? sprintf("%.1f", w / nw) : "NA",
          nw "/" nr, nr ? sprintf("%.0f", x1 / nr) : "NA", nr
      }' "$out"/rows-*
  done
}

if [[ ${1:-} == --summary ]]; then
  summary "${2:?usage: $0 --summary DIR}"
  exit
fi
build=${1:?usage: $0 BUILD_DIR [PROGRAM...]}
shift
programs=("$@")
((${#programs[@]})) || programs=(serial forkjoin-pthread pipeline)
lengths=(${LENGTHS_MS:-500 100 25})
rounds=${ROUNDS:-2}
export CEXP_SCALE=${CEXP_SCALE:-3}
out=$(mktemp -d /tmp/cprof-experiment-length.XXXXXX)
echo "experiment_length.sh: ${programs[*]}; lengths ${lengths[*]} ms; $rounds rounds;" \
  "CEXP_SCALE=$CEXP_SCALE; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  for ms in "${lengths[@]}"; do
    ROWS_OUT=$out/rows-$ms-$r DURATION_MS=$ms COZ=none \
      "$here/accuracy.sh" "$build" "${programs[@]}" >"$out/log-$ms-$r" 2>&1 ||
      echo "  accuracy.sh failed at $ms ms, round $r: $out/log-$ms-$r" >&2
    echo "  round $r, $ms ms: $(grep '^MAE causal-run' "$out/log-$ms-$r" || echo no rows)" >&2
  done
done
echo
summary "$out"
for ms in "${lengths[@]}"; do
  echo
  echo "== $ms ms experiments"
  "$here/table.sh" "$out"/rows-"$ms"-* | head -n -3
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg); logs: $out"
