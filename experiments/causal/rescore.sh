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
  read -r ours lo hi exps bexps <<<"$(python3 "$here/predict.py" ours "$dir" "$s" "$report" \
    2>/dev/null || echo NA NA NA 0 0)"
  if [[ -f $kept/phys-$p-$s.pairs ]]; then  # pairs of physical runs (since 2026-11-29)
    read -r actual alo ahi _ <<<"$(python3 "$here/predict.py" actual "$kept/phys-$p-$s.pairs")"
  elif [[ -f $kept/phys-$p-0 && -f $kept/phys-$p-$s ]]; then  # medians of separate runs
    p0=$(stats <"$kept/phys-$p-0" | cut -d' ' -f1)
    ps=$(stats <"$kept/phys-$p-$s" | cut -d' ' -f1)
    actual=$(awk -v a="$p0" -v b="$ps" 'BEGIN { printf "%.4f", (a - b) / a }') alo=NA ahi=NA
  else
    continue
  fi
  echo "$p $s $ours $lo $hi $exps+$bexps NA 0 $actual $alo $ahi" >>"$rows"
done
"$here/table.sh" "$rows"
