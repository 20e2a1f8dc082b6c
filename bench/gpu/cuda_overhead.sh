#!/usr/bin/env bash
# Slowdown of a launch-heavy CUDA program under sample-run --gpu (the CUDA tool), all
# configurations interleaved, on a machine with an NVIDIA GPU:
#
#   bench/gpu/cuda_overhead.sh BUILD_DIR [ROUNDS]       (ROUNDS defaults to 7, at least 5)
#
# Configurations, each run once per round, their order rotated from round to round:
#   plain          the program alone
#   sr             sample-run (CPU sampling only, no --gpu): the sampler's share
#   sr-gpu         sample-run --gpu: CPU sampling + the CUDA tool with launch stacks
#                  (driver API callbacks, the default)
#   sr-gpu-both    the same with CPROF_CUDA_API=both (runtime and driver callbacks)
#   sr-gpu-nostk   sample-run --gpu with CPROF_GPU_STACKS=0: the tool without stacks
#   sr-gpu-act     CPROF_CUDA_API=none: CUPTI's activity records only, no callbacks
#   sr-gpu-d25     sample-run --gpu-duty 25: everything above, in trace windows covering
#                  25% of the run (docs/gpu.md, "Trace windows")
#   sr-gpu-d10     the same at 10%
#   sr-gpu-d5      the same at 5%
# Each run is timed from outside (cprof-bench-time: wall of the whole command, CUDA's and
# the tools' start and exit included) and inside (the program's launch loop, wall_ms).
# Ratios are per round against that round's plain run; the table shows the median and
# [min..max] over the rounds. Target: sr-gpu command wall at most 1.05 (for launch-bound
# programs out of CUPTI's reach: see docs/benchmarks.md); the windowed rows are the way
# under it that keeps stacks and timings for a share of the launches.
#
# Environment: BENCH_ARGS (default "100000 10 0": 100k launches, a stream synchronize
# after every 10, kernels that return at once; a third number makes each kernel spin that
# many ns), KEEP=1 keeps the temp dir.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../sampler/common.sh"
find_build_tools "${1:-}" cprof-bench-cuda-launches cprof-bench-time sample-run
rounds=${2:-7}
((rounds >= 5)) || { echo "$0: at least 5 rounds" >&2; exit 1; }
bench_args=${BENCH_ARGS:-100000 10 0}
program=$BIN/cprof-bench-cuda-launches

tmp=$(mktemp -d /tmp/cprof-cuda-overhead.XXXXXX)
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi
data=$tmp/data  # config round cmd_wall_s loop_ms kernels_recorded
configs=(plain sr sr-gpu sr-gpu-both sr-gpu-nostk sr-gpu-act sr-gpu-d25 sr-gpu-d10 sr-gpu-d5)

run_one() {  # run_one CONFIG ROUND
  local config=$1 round=$2 res=$tmp/res
  rm -rf "$res" "$tmp/time" "$tmp/out"
  # shellcheck disable=SC2086
  case $config in
    plain) "$BIN/cprof-bench-time" "$tmp/time" -- "$program" $bench_args >"$tmp/out" ;;
    sr) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q -o "$res" -- \
      "$program" $bench_args >"$tmp/out" ;;
    sr-gpu) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q --gpu -o "$res" -- \
      "$program" $bench_args >"$tmp/out" ;;
    sr-gpu-both) CPROF_CUDA_API=both "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" \
      -q --gpu -o "$res" -- "$program" $bench_args >"$tmp/out" ;;
    sr-gpu-nostk) CPROF_GPU_STACKS=0 "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" \
      -q --gpu -o "$res" -- "$program" $bench_args >"$tmp/out" ;;
    sr-gpu-act) CPROF_CUDA_API=none "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" \
      -q --gpu -o "$res" -- "$program" $bench_args >"$tmp/out" ;;
    sr-gpu-d25) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q --gpu-duty 25 \
      -o "$res" -- "$program" $bench_args >"$tmp/out" ;;
    sr-gpu-d10) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q --gpu-duty 10 \
      -o "$res" -- "$program" $bench_args >"$tmp/out" ;;
    sr-gpu-d5) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q --gpu-duty 5 \
      -o "$res" -- "$program" $bench_args >"$tmp/out" ;;
  esac
  local kernels=NA
  if [[ -d $res ]] && compgen -G "$res/*.gpu*.cprof" >/dev/null; then
    kernels=$(ls -l "$res"/*.gpu*.cprof | awk '{ s += $5 } END { print s }')  # bytes
  fi
  echo "$config $round $(kv wall_s "$(cat "$tmp/time")") $(kv wall_ms "$(cat "$tmp/out")") $kernels" \
    >>"$data"
}

echo "cuda_overhead.sh: $rounds rounds of ${configs[*]}"
echo "cuda_overhead.sh: program: $program $bench_args"
for ((r = 1; r <= rounds; r++)); do
  n=${#configs[@]}
  for ((i = 0; i < n; i++)); do
    run_one "${configs[$(((i + r - 1) % n))]}" "$r"
  done
  echo "  round $r/$rounds done" >&2
done


echo
echo "Ratios to plain, median [min..max] over $rounds rounds (per round: config / plain)"
printf "%-13s | %-22s | %-22s | %s\n" "" "command wall" "launch loop wall" "gpu file bytes"
for c in "${configs[@]}"; do
  read -r bytes _ <<<"$(abs_stats "$c" 5)"
  printf "%-13s | %-22s | %-22s | %s\n" "$c" "$(fmt_ratio "$(ratio_stats "$c" 3)")" \
    "$(fmt_ratio "$(ratio_stats "$c" 4)")" "${bytes%.*}"
done
read -r pw _ <<<"$(abs_stats plain 3)"
read -r pl _ <<<"$(abs_stats plain 4)"
echo "plain, median: command wall ${pw} s, launch loop ${pl} ms"
read -r g _ <<<"$(ratio_stats sr-gpu 3)"
verdict=$(awk -v g="$g" 'BEGIN { print (g <= 1.05) ? "within" : "OVER" }')
echo "target: sample-run --gpu at most 1.05 (command wall): $g -> $verdict target"
if [[ ${KEEP:-0} == 1 ]]; then echo "raw data: $data"; fi
