#!/usr/bin/env bash
# Scores the runs an accuracy.sh run kept (KEEP=1 prints "kept: DIR") again with another
# causal-report: the same experiments and the same physical runs, the predictions and
# intervals of that report. For comparing two ways of computing the intervals on one set
# of runs, where a second accuracy.sh run would also change the runs:
#
#   experiments/causal/rescore.sh KEPT_DIR CAUSAL_REPORT
#
# Prints table.sh's table (predicted against actual, interval coverage, MAE) without the
# Coz column.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../bench/sampler/common.sh"
kept=$(realpath "$1")
report=$(realpath "$2")
rows=$(mktemp /tmp/cprof-rescore.XXXXXX)
trap 'rm -f "$rows"' EXIT
for dir in "$kept"/ours-*; do
  [[ -d $dir ]] || continue
  name=${dir#"$kept"/ours-}
  p=${name%-*}
  s=${name##*-}
  [[ -f $kept/phys-$p-0 && -f $kept/phys-$p-$s ]] || continue
  read -r ours lo hi exps bexps <<<"$(python3 "$here/predict.py" ours "$dir" "$s" "$report" \
    2>/dev/null || echo NA NA NA 0 0)"
  p0=$(stats <"$kept/phys-$p-0" | cut -d' ' -f1)
  ps=$(stats <"$kept/phys-$p-$s" | cut -d' ' -f1)
  actual=$(awk -v a="$p0" -v b="$ps" 'BEGIN { printf "%.4f", (a - b) / a }')
  echo "$p $s $ours $lo $hi $exps+$bexps NA 0 $actual" >>"$rows"
done
"$here/table.sh" "$rows"
