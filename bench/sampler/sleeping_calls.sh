#!/usr/bin/env bash
# What `--clock wall` adds to a sleeping call that returns at once (a ready poll), against
# the same program alone and under the CPU clock, interleaved in one run:
#
#   bench/sampler/sleeping_calls.sh BUILD_DIR [ROUNDS]      (ROUNDS defaults to 7)
#
# Configurations, their order rotated from round to round:
#   plain      cprof-bench-sleeping-calls alone
#   sr-cpu     sample-run -f 1000 (CPU clock: the interposers only forward)
#   sr-wall    sample-run -f 1000 --clock wall (each call holds the sampling signal)
# Each run prints the loop's ns per call; the table gives the median [min..max] over the
# rounds, and each configuration's ratio to that round's plain run.
#
# Environment: CALLS (default 2000000).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" cprof-bench-sleeping-calls sample-run
rounds=${2:-7}
calls=${CALLS:-2000000}
program=$BIN/cprof-bench-sleeping-calls

tmp=$(mktemp -d /tmp/cprof-sleeping.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
data=$tmp/data  # config round ns_per_call

configs=(plain sr-cpu sr-wall)
run_one() {  # run_one CONFIG ROUND
  local config=$1 round=$2 out
  rm -rf "$tmp/res"
  case $config in
    plain) out=$("$program" "$calls") ;;
    sr-cpu) out=$("$BIN/sample-run" -q -f 1000 -o "$tmp/res" -- "$program" "$calls") ;;
    sr-wall) out=$("$BIN/sample-run" -q -f 1000 --clock wall -o "$tmp/res" -- "$program" "$calls") ;;
  esac
  echo "$config $round $(kv ns_per_call "$out")" >>"$data"
}

echo "sleeping_calls.sh: $rounds rounds of ${configs[*]}, $calls ready polls each"
for ((r = 1; r <= rounds; r++)); do
  for ((i = 0; i < ${#configs[@]}; i++)); do
    run_one "${configs[$(((i + r - 1) % ${#configs[@]}))]}" "$r"
  done
  echo "  round $r/$rounds done" >&2
done

echo
printf "%-8s | %-28s | %-24s\n" "" "ns per call, median [min..max]" "ratio to plain (per round)"
for c in "${configs[@]}"; do
  read -r med lo hi _ <<<"$(abs_stats "$c" 3)"
  read -r rmed rlo rhi _ <<<"$(ratio_stats "$c" 3)"
  printf "%-8s | %8.1f [%.1f..%.1f]%*s | %.2f [%.2f..%.2f]\n" "$c" "$med" "$lo" "$hi" 4 "" \
    "$rmed" "$rlo" "$rhi"
done
read -r plain_med _ <<<"$(abs_stats plain 3)"
read -r wall_med _ <<<"$(abs_stats sr-wall 3)"
read -r cpu_med _ <<<"$(abs_stats sr-cpu 3)"
awk -v p="$plain_med" -v w="$wall_med" -v c="$cpu_med" \
  'BEGIN { printf "each ready poll, medians: --clock wall adds %.0f ns, the CPU clock %.0f ns\n", w - p, c - p }'
