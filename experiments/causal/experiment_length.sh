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
# points over every row of every round, the mean width of the 95% intervals, the mean
# number of experiments per row (sped-up + baseline), and the accuracy.sh table of its rows.
#
# Environment: LENGTHS_MS (default "500 100 25"), ROUNDS, and accuracy.sh's (SPEEDUPS,
# REPS, CEXP_SCALE: default here 3, ~4.5 s of CPU per run, so that the 500 ms experiments
# have about ten per run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
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
printf "%10s | %10s %14s %12s %6s\n" "experiment" "MAE" "mean CI width" "experiments" "rows"
for ms in "${lengths[@]}"; do
  # Row: program S ours ci_low ci_high sped+base coz coz_exps actual (fractions).
  cat "$out"/rows-"$ms"-* | awk -v ms="$ms" '
    $3 != "NA" { n++; e += ($3 > $9 ? $3 - $9 : $9 - $3) * 100 }
    $4 != "NA" && $5 != "NA" { nw++; w += ($5 - $4) * 100 }
    { split($6, x, "+"); ne++; x1 += x[1] + x[2] }
    END {
      printf "%7d ms | %10s %14s %12s %6d\n", ms, n ? sprintf("%.2f", e / n) : "NA",
        nw ? sprintf("%.1f", w / nw) : "NA", ne ? sprintf("%.0f", x1 / ne) : "NA", ne
    }'
done
for ms in "${lengths[@]}"; do
  echo
  echo "== $ms ms experiments"
  "$here/table.sh" "$out"/rows-"$ms"-* | head -n -3
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg); logs: $out"
