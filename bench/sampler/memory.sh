#!/usr/bin/env bash
# Resident memory the sampling runtime adds to a program with 1 and with 1000 threads:
#
#   bench/sampler/memory.sh BUILD_DIR [ROUNDS]      (ROUNDS defaults to 3)
#
# cprof-bench-memory-threads N starts N threads; each works ~4 ms of CPU (a couple of
# samples at 500 Hz) and waits on a barrier; with all N waiting, the main thread reads its
# own VmRSS and VmHWM from /proc/self/status. Each thread count runs plain and under
# `sample-run -f 500` (interleaved, ROUNDS times); the table shows medians and the
# difference, in total and per thread: (added at 1000 - added at 1) / 999.
# Target: added memory under 16 MB + 64 KB per thread.
#
# Environment: THREADS (default "1 1000"), SR_ARGS (default "-f 500").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" cprof-bench-memory-threads sample-run
rounds=${2:-3}
counts=(${THREADS:-1 1000})
sr_args=${SR_ARGS:--f 500}
tmp=$(mktemp -d /tmp/cprof-memory.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prog=$BIN/cprof-bench-memory-threads

echo "memory.sh: $rounds rounds, threads ${counts[*]}, sample-run $sr_args"
for ((r = 1; r <= rounds; r++)); do
  for n in "${counts[@]}"; do
    for which in plain sampled; do
      rm -rf "$tmp/res"
      if [[ $which == plain ]]; then
        out=$("$prog" "$n")
      else
        # shellcheck disable=SC2086
        out=$("$BIN/sample-run" -q $sr_args -o "$tmp/res" -- "$prog" "$n")
      fi
      echo "$which $n $(kv rss_kb "$out") $(kv hwm_kb "$out")" >>"$tmp/data"
    done
  done
done

med() {  # med WHICH N COLUMN
  awk -v w="$1" -v n="$2" -v c="$3" '$1 == w && $2 == n { print $c }' "$tmp/data" | stats | cut -d' ' -f1
}
echo
printf "%8s | %12s %12s %12s | %12s %12s %12s\n" threads "plain RSS" "sampled RSS" "added RSS" \
  "plain HWM" "sampled HWM" "added HWM"
declare -A added_rss added_hwm
for n in "${counts[@]}"; do
  pr=$(med plain "$n" 3)
  sr=$(med sampled "$n" 3)
  ph=$(med plain "$n" 4)
  sh=$(med sampled "$n" 4)
  added_rss[$n]=$(awk -v a="$sr" -v b="$pr" 'BEGIN { print a - b }')
  added_hwm[$n]=$(awk -v a="$sh" -v b="$ph" 'BEGIN { print a - b }')
  awk -v n="$n" -v pr="$pr" -v sr="$sr" -v ph="$ph" -v sh="$sh" 'BEGIN {
    printf "%8d | %9.1f MB %9.1f MB %9.1f MB | %9.1f MB %9.1f MB %9.1f MB\n",
      n, pr / 1024, sr / 1024, (sr - pr) / 1024, ph / 1024, sh / 1024, (sh - ph) / 1024 }'
done
if [[ ${#counts[@]} -ge 2 ]]; then
  lo=${counts[0]}
  hi=${counts[-1]}
  awk -v lo="$lo" -v hi="$hi" -v rlo="${added_rss[$lo]}" -v rhi="${added_rss[$hi]}" \
    -v hlo="${added_hwm[$lo]}" -v hhi="${added_hwm[$hi]}" 'BEGIN {
    per = (rhi - rlo) / (hi - lo); perh = (hhi - hlo) / (hi - lo)
    fixed = rlo - per * lo
    printf "\nper thread: %.1f KB RSS (%.1f KB HWM); fixed part: %.1f MB\n", per, perh, fixed / 1024
    limit_hi = 16 * 1024 + 64 * hi
    printf "target: under 16 MB + 64 KB/thread: at %d thread(s) %.1f MB (limit 16.1 MB), at %d threads %.1f MB (limit %.1f MB): %s\n",
      lo, rlo / 1024, hi, rhi / 1024, limit_hi / 1024,
      (rlo < 16 * 1024 + 64 * lo && rhi < limit_hi && per < 64) ? "within target" : "OVER target"
  }'
fi
