#!/usr/bin/env bash
# Cost of one sample, end to end (signal delivery, handler, unwinding, copying into the
# thread's buffer, the writer thread draining it), at recorded stack depths 10 and 50:
#
#   bench/sampler/sample_cost.sh BUILD_DIR [ROUNDS] [HZ]    (defaults: 7 rounds, 10000 Hz)
#
# Per depth and round, the CPU-bound workload (2 threads) runs plain and under
# `sample-run -f HZ` (interleaved); cost per sample = (program CPU sampled - program CPU
# plain) / samples taken, where program CPU is CLOCK_PROCESS_CPUTIME_ID (every thread,
# the runtime's writer included) from the first worker's start to the last join, read by
# the program itself, and samples are counted in the results file. Prints median
# [min..max] ns per sample; a second column counts only the sampled worker threads' own
# CPU (the handler path, without the runtime's writer thread). The recorded depth (frames per sample) is checked from the
# results: --chain is the depth minus the 4 frames outside the chain (leaf_kernel,
# worker_main, start_thread, clone3).
#
# Reference rows: `sample-run --depth 1` (the same path without unwinding: the fixed cost
# of a sample) and `perf record -F HZ -g` (the kernel's own sampling, no user handler: the
# floor this machine puts under any sampler).
#
# Environment: BACKEND (default perf; timer samples only at the kernel tick, so it cannot
# reach high rates), WORKLOAD_ARGS (default "--threads 2 --rounds 50000").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" cprof-bench-cpu-workload cprof-bench-samples sample-run
rounds=${2:-7}
hz=${3:-10000}
backend=${BACKEND:-perf}
workload_args=${WORKLOAD_ARGS:---threads 2 --rounds 50000}
tmp=$(mktemp -d /tmp/cprof-sample-cost.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
workload=$BIN/cprof-bench-cpu-workload

perf_bin=${PERF:-perf}
have_perf=1
"$perf_bin" --version >/dev/null 2>&1 || have_perf=0

# Rows: LABEL DEPTH KIND [SAMPLE-RUN OPTIONS]. KIND: sr (sample-run) or perf (perf record -g,
# the reference: the kernel's own sampling and frame-pointer call chain, no user handler).
rows=(
  "sample-run:d10 10 sr"
  "sample-run:d50 50 sr"
  "sample-run:d10,--depth=1 10 sr --depth 1"
)
((have_perf)) && rows+=("perf-record-g:d10 10 perf" "perf-record-g:d50 50 perf")

echo "sample_cost.sh: $rounds rounds, -f/-F $hz, backend $backend, program: $workload $workload_args"
results=()
for row in "${rows[@]}"; do
  read -r label depth kind extra <<<"$row"
  chain=$((depth - 4))
  : >"$tmp/ns"
  : >"$tmp/frames"
  : >"$tmp/samples"
  : >"$tmp/ratio"
  : >"$tmp/wns"
  for ((r = 1; r <= rounds; r++)); do
    plain="" sampled="" info="" samples=0
    for which in $([[ $((r % 2)) == 1 ]] && echo "plain sampled" || echo "sampled plain"); do
      rm -rf "$tmp/res" "$tmp/perf.data"
      # shellcheck disable=SC2086
      if [[ $which == plain ]]; then
        plain=$("$workload" $workload_args --chain "$chain")
      elif [[ $kind == sr ]]; then
        sampled=$("$BIN/sample-run" -q -f "$hz" --backend "$backend" $extra -o "$tmp/res" -- \
          "$workload" $workload_args --chain "$chain")
        info=$("$BIN/cprof-bench-samples" "$tmp/res")
        samples=$(kv samples "$info")
      else
        sampled=$("$perf_bin" record -q -F "$hz" -g -o "$tmp/perf.data" -- \
          "$workload" $workload_args --chain "$chain" 2>/dev/null)
        samples=$("$perf_bin" script -i "$tmp/perf.data" -F tid -G 2>/dev/null | wc -l)
        info="samples=$samples mean_frames=NA dropped=0 truncated=0"
      fi
    done
    cp=$(kv cpu_s "$plain")
    cs=$(kv cpu_s "$sampled")
    awk -v p="$cp" -v s="$cs" -v n="$samples" 'BEGIN { if (n > 0) printf "%.1f\n", (s - p) * 1e9 / n }' >>"$tmp/ns"
    awk -v p="$cp" -v s="$cs" 'BEGIN { printf "%.4f\n", s / p }' >>"$tmp/ratio"
    awk -v p="$(kv workers_cpu_s "$plain")" -v s="$(kv workers_cpu_s "$sampled")" -v n="$samples" \
      'BEGIN { if (n > 0) printf "%.1f\n", (s - p) * 1e9 / n }' >>"$tmp/wns"
    [[ $kind == sr ]] && kv mean_frames "$info" >>"$tmp/frames"
    echo "$samples" >>"$tmp/samples"
    if [[ $(kv dropped "$info") != 0 ]]; then
      echo "  $label round $r: $info" >&2
    fi
  done
  read -r ns_med ns_min ns_max _ <<<"$(stats <"$tmp/ns")"
  read -r fr_med _ <<<"$(stats <"$tmp/frames")"
  read -r sa_med _ <<<"$(stats <"$tmp/samples")"
  read -r ra_med ra_min ra_max _ <<<"$(stats <"$tmp/ratio")"
  read -r wn_med wn_min wn_max _ <<<"$(stats <"$tmp/wns")"
  results+=("$(printf "%-26s %6s %8.0f [%6.0f..%6.0f] %8.0f [%6.0f..%6.0f] %8.0f   %.3f [%.3f..%.3f]" \
    "$label" "$fr_med" "$ns_med" "$ns_min" "$ns_max" "$wn_med" "$wn_min" "$wn_max" "$sa_med" \
    "$ra_med" "$ra_min" "$ra_max")")
  echo "  ${results[-1]}" >&2
done
echo
echo "Cost per sample, median [min..max] over $rounds rounds, at $hz Hz per thread:"
printf "%-26s %6s %-25s %-25s %8s   %s\n" "" "frames" "ns/sample (process)" \
  "ns/sample (workers)" "samples" "program cpu ratio"
printf '%s\n' "${results[@]}"
