#!/usr/bin/env bash
# The cost of sampling a running process (sample-run --pid, docs/sampler.md "Attaching to
# a running process"), side by side in one run with the alternatives:
#
#   plain      the workload alone
#   attached   sample-run --pid PID -f HZ           (outside: perf_event rings with a stack
#                                                    copy per sample, unwound with libdw)
#   perf       perf record -p PID -F HZ -g --call-graph dwarf   (the same mechanism, perf's)
#   launched   sample-run -f HZ -- WORKLOAD          (inside: the preloaded runtime, what
#                                                    loading a runtime into the target costs)
#
# Each round runs the four in turn (interleaved, so drift on a shared machine hits them
# alike); the table has medians over ROUNDS rounds of the workload's wall time, its ratio
# to plain, the samples taken, the sampler's own CPU seconds, and the cost per sample:
# (wall - plain wall) * busy threads / samples, the target's loss, plus the sampler's CPU
# per sample. The workload is cprof-bench-cpu-workload (THREADS busy threads, a call chain
# of CHAIN frames without frame pointers).
#
#   experiments/attach/overhead.sh [BUILD_DIR] [OUT_DIR]
# Environment: HZ (500), ROUNDS (5), THREADS (2), ROUNDS_OF_WORK (60000: ~2 s per run).
# Take the figures on a quiet machine.
set -euo pipefail
build=$(realpath "${1:-build}")
out=$(realpath -m "${2:-experiments/attach/out}")
mkdir -p "$out"
hz=${HZ:-500}
rounds=${ROUNDS:-5}
threads=${THREADS:-2}
work=${ROUNDS_OF_WORK:-60000}
workload=("$build/bin/cprof-bench-cpu-workload" --threads "$threads" --rounds "$work")
[[ -x ${workload[0]} ]] || { echo "overhead: ${workload[0]} not built" >&2; exit 1; }
have_perf=1
command -v perf >/dev/null || { have_perf=0; echo "overhead: no perf on PATH: its column is left out" >&2; }

# Runs the workload in the background, the sampler command "$@" (with PID replaced) on it
# until it ends; prints "wall_s samples sampler_cpu_s".
attached_run() {
  local log=$out/workload.log
  "${workload[@]}" >"$log" &
  local pid=$!
  local args=("${@//PID/$pid}")
  /usr/bin/time -f '%U %S' -o "$out/time.txt" "${args[@]}" >"$out/sampler.log" 2>&1 || true
  wait "$pid"
  local wall
  wall=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' "$log")
  echo "$wall $(cat "$out/samples.txt" 2>/dev/null || echo 0) $(awk '{print $1 + $2}' "$out/time.txt")"
}

samples_in() {  # samples in a results directory, from causal-report's header
  "$build/bin/causal-report" "$1" 2>/dev/null | sed -n 's/.* \([0-9,]*\) samples,.*/\1/p' | head -1 | tr -d ,
}

declare -A walls samples cpu
for round in $(seq "$rounds"); do
  # plain
  "${workload[@]}" >"$out/workload.log"
  walls[plain]+="$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' "$out/workload.log") "
  # attached
  rm -rf "$out/attached"
  read -r w _ c < <(attached_run "$build/bin/sample-run" -q -f "$hz" -o "$out/attached" --pid PID)
  walls[attached]+="$w "; cpu[attached]+="$c "; samples[attached]+="$(samples_in "$out/attached") "
  # perf
  if ((have_perf)); then
    read -r w _ c < <(attached_run perf record -q -o "$out/perf.data" -p PID -F "$hz" -g --call-graph dwarf)
    n=$(perf report -i "$out/perf.data" --stats 2>/dev/null | sed -n 's/ *SAMPLE events: *\([0-9]*\).*/\1/p' | head -1)
    walls[perf]+="$w "; cpu[perf]+="$c "; samples[perf]+="${n:-0} "
  fi
  # launched
  rm -rf "$out/launched"
  /usr/bin/time -f '%U %S' -o "$out/time.txt" "$build/bin/sample-run" -q -f "$hz" -o "$out/launched" -- "${workload[@]}" >"$out/workload.log" 2>&1
  walls[launched]+="$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' "$out/workload.log") "
  samples[launched]+="$(samples_in "$out/launched") "
  echo "round $round done" >&2
done

median() { tr ' ' '\n' | awk NF | sort -g | awk '{v[NR] = $1} END {print (NR ? v[int((NR + 1) / 2)] : 0)}'; }
plain=$(echo "${walls[plain]}" | median)
{
  echo "# experiments/attach/overhead.sh: $(date -u +%F), $(nproc) CPUs, $hz Hz, $threads busy threads, $rounds rounds (medians)"
  printf '%-10s %9s %7s %9s %12s %16s %16s\n' mode wall_s ratio samples sampler_cpu_s target_us/sample sampler_us/sample
  printf '%-10s %9s %7s %9s %12s %16s %16s\n' plain "$plain" 1.000 - - - -
  for mode in attached perf launched; do
    [[ -n ${walls[$mode]:-} ]] || continue
    w=$(echo "${walls[$mode]}" | median)
    n=$(echo "${samples[$mode]}" | median)
    c=$(echo "${cpu[$mode]:-}" | median)
    awk -v m="$mode" -v w="$w" -v p="$plain" -v n="$n" -v c="$c" -v t="$threads" 'BEGIN {
      own = "(inside)"; per = "-"; loss = 0
      if (m != "launched") own = sprintf("%.3f", c)
      if (m != "launched" && n > 0) per = sprintf("%.1f", c / n * 1e6)
      if (n > 0) loss = (w - p) * t / n * 1e6
      printf "%-10s %9.3f %7.3f %9d %12s %16.1f %16s\n", m, w, w / p, n, own, loss, per }'
  done
} | tee "$out/overhead.txt"
