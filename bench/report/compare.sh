#!/usr/bin/env bash
# causal-report against another build's, side by side: the report benchmark's generated
# directory (cprof-bench-report: 10 million samples, 64 threads, 8 processes, no symbols)
# reported by this build's causal-report and by OTHER_BIN's, alternating, ROUNDS times
# each, so that the machine's drift falls on both alike:
#
#   OTHER_BIN=/old/build/bin bench/report/compare.sh BUILD_DIR [ROUNDS]   (ROUNDS: 4)
#
# Prints each run's line, then per format the median ratio this/other of wall and CPU
# time and of peak RSS, with the [min..max] of the per-round ratios. Environment:
# FORMATS (default text,json), SAMPLES (default 10000000).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../sampler/common.sh"
find_build_tools "${1:-}" cprof-bench-report causal-report
rounds=${2:-4}
if [[ -z ${OTHER_BIN:-} || ! -x $OTHER_BIN/causal-report ]]; then
  echo "compare.sh: set OTHER_BIN to a build's bin/ that holds causal-report" >&2
  exit 1
fi
formats=${FORMATS:-text,json}
tmp=$(mktemp -d /tmp/cprof-report-compare.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
data=$tmp/data  # round which format wall cpu rss_mb
for ((r = 0; r < rounds; ++r)); do
  # Alternate which goes first, so neither always runs on a warmer machine.
  order=(this other)
  ((r % 2)) && order=(other this)
  for which in "${order[@]}"; do
    report=$BIN/causal-report
    [[ $which == other ]] && report=$OTHER_BIN/causal-report
    "$BIN/cprof-bench-report" --samples "${SAMPLES:-10000000}" --dir "$tmp/results" \
      --report "$report" --formats "$formats" | tee "$tmp/out" | sed "s/^/$which round $r: /"
    awk -v r="$r" -v w="$which" '/^causal-report --format/ {
        print r, w, $3, $5, $10, $14 }' "$tmp/out" >>"$data"
  done
done
echo
echo "this/other, median [min..max] over $rounds rounds:"
awk '
  { key = $1 " " $3; v[key, $2, "wall"] = $4; v[key, $2, "cpu"] = $5; v[key, $2, "rss"] = $6
    formats[$3] = 1; rounds[$1] = 1 }
  END {
    for (f in formats) {
      line = sprintf("  %-10s", f)
      split("wall cpu rss", what, " ")
      for (m = 1; m <= 3; ++m) {
        n = 0
        for (r in rounds) ratio[++n] = v[r " " f, "this", what[m]] / v[r " " f, "other", what[m]]
        for (i = 2; i <= n; ++i) {  # insertion sort: mawk has no asort
          x = ratio[i]
          for (j = i - 1; j >= 1 && ratio[j] > x; --j) ratio[j + 1] = ratio[j]
          ratio[j + 1] = x
        }
        med = n % 2 ? ratio[(n + 1) / 2] : (ratio[n / 2] + ratio[n / 2 + 1]) / 2
        line = line sprintf("  %s %.2f [%.2f..%.2f]", what[m], med, ratio[1], ratio[n])
        delete ratio
      }
      print line
    }
  }' "$data"
