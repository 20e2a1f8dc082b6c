#!/usr/bin/env bash
# Overhead of sample-run on a multi-threaded CPU-bound program, with perf record as a
# reference, all interleaved in one run:
#
#   bench/sampler/overhead.sh BUILD_DIR [ROUNDS]       (ROUNDS defaults to 7)
#
# Configurations, each run once per round, their order rotated from round to round so
# that a burst of noise on the (shared, noisy) machine does not always hit the same one:
#   plain          the program alone
#   sr-500         sample-run -f 500   (default backend: perf_event task-clock)
#   sr-1000        sample-run -f 1000
#   sr-500-timer   sample-run -f 500 --backend timer (POSIX CPU-time timers)
#   perf-500       perf record -F 500 -g (frame-pointer call graphs, the default)
#   sr-500-other   sample-run -f 500 from OTHER_BIN (another build's bin/, e.g. an older
#                  commit's), only when OTHER_BIN is set
# Each run is timed twice: the whole command from outside (wait4: wall, user+sys of the
# command and all it waited for: launcher, program, runtime flush; perf's own work), and
# the program's work from inside (first thread start to last join: wall, and
# CLOCK_PROCESS_CPUTIME_ID), and the worker threads' own CPU time (the sampled threads:
# signal handling included; the runtime's writer thread excluded). Ratios are per round against that round's plain run; the
# table shows their median and [min..max] over the rounds.
#
# Environment: WORKLOAD_ARGS (default "--threads 2 --rounds 100000": ~2 s of wall and
# ~4 s of CPU on an idle 2-core VM), PERF (default perf), OTHER_BIN, KEEP=1 keeps the temp
# dir.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" cprof-bench-cpu-workload cprof-bench-time cprof-bench-samples sample-run
rounds=${2:-7}
workload_args=${WORKLOAD_ARGS:---threads 2 --rounds 100000}
perf_bin=${PERF:-perf}
have_perf=1
if ! "$perf_bin" --version >/dev/null 2>&1; then
  echo "overhead.sh: $perf_bin not found; the perf-500 row is left out" >&2
  have_perf=0
fi

tmp=$(mktemp -d /tmp/cprof-overhead.XXXXXX)
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi
data=$tmp/data  # config round cmd_wall cmd_cpu prog_wall prog_cpu samples checksum workers_cpu

configs=(plain sr-500 sr-1000 sr-500-timer)
((have_perf)) && configs+=(perf-500)
if [[ -n ${OTHER_BIN:-} ]]; then
  if [[ ! -x $OTHER_BIN/sample-run ]]; then
    echo "overhead.sh: $OTHER_BIN/sample-run is missing" >&2
    exit 1
  fi
  configs+=(sr-500-other)
fi
workload=$BIN/cprof-bench-cpu-workload

run_one() {  # run_one CONFIG ROUND
  local config=$1 round=$2 res=$tmp/res samples=NA
  rm -rf "$res" "$tmp/perf.data" "$tmp/time" "$tmp/out"
  # shellcheck disable=SC2086
  case $config in
    plain) "$BIN/cprof-bench-time" "$tmp/time" -- "$workload" $workload_args >"$tmp/out" ;;
    sr-500) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q -f 500 -o "$res" -- \
      "$workload" $workload_args >"$tmp/out" ;;
    sr-1000) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q -f 1000 -o "$res" -- \
      "$workload" $workload_args >"$tmp/out" ;;
    sr-500-timer) "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/sample-run" -q -f 500 \
      --backend timer -o "$res" -- "$workload" $workload_args >"$tmp/out" ;;
    sr-500-other) "$BIN/cprof-bench-time" "$tmp/time" -- "$OTHER_BIN/sample-run" -q -f 500 \
      -o "$res" -- "$workload" $workload_args >"$tmp/out" ;;
    perf-500) "$BIN/cprof-bench-time" "$tmp/time" -- "$perf_bin" record -q -F 500 -g \
      -o "$tmp/perf.data" -- "$workload" $workload_args >"$tmp/out" 2>"$tmp/perf.err" ;;
  esac
  if [[ -d $res ]]; then
    samples=$(kv samples "$("$BIN/cprof-bench-samples" "$res")")
  elif [[ -f $tmp/perf.data ]]; then
    samples=$("$perf_bin" script -i "$tmp/perf.data" -F tid -G 2>/dev/null | wc -l)
  fi
  local t o
  t=$(cat "$tmp/time")
  o=$(cat "$tmp/out")
  echo "$config $round $(kv wall_s "$t") $(kv cpu_s "$t") $(kv wall_s "$o") $(kv cpu_s "$o")" \
    "$samples $(kv checksum "$o") $(kv workers_cpu_s "$o")" >>"$data"
}

echo "overhead.sh: $rounds rounds of ${configs[*]}"
echo "overhead.sh: program: $workload $workload_args"
for ((r = 1; r <= rounds; r++)); do
  n=${#configs[@]}
  for ((i = 0; i < n; i++)); do
    run_one "${configs[$(((i + r - 1) % n))]}" "$r"
  done
  echo "  round $r/$rounds done" >&2
done

if [[ $(awk '{print $8}' "$data" | sort -u | wc -l) != 1 ]]; then
  echo "overhead.sh: WARNING: the program's checksum differs between runs" >&2
fi


echo
echo "Ratios to plain, median [min..max] over $rounds rounds (per round: config / plain)"
printf "%-13s %8s | %-22s %-22s | %-22s %-22s %-22s\n" "" "samples" "command wall" "command cpu" \
  "program wall" "program cpu" "worker threads cpu"
for c in "${configs[@]}"; do
  read -r smed _ <<<"$(abs_stats "$c" 7)"
  [[ $c == plain ]] && smed="-"
  printf "%-13s %8s | %-22s %-22s | %-22s %-22s %-22s\n" "$c" "${smed%.*}" \
    "$(fmt_ratio "$(ratio_stats "$c" 3)")" "$(fmt_ratio "$(ratio_stats "$c" 4)")" \
    "$(fmt_ratio "$(ratio_stats "$c" 5)")" "$(fmt_ratio "$(ratio_stats "$c" 6)")" \
    "$(fmt_ratio "$(ratio_stats "$c" 9)")"
done
read -r pw _ <<<"$(abs_stats plain 3)"
read -r pc _ <<<"$(abs_stats plain 4)"
echo "plain, median: command wall ${pw} s, command cpu ${pc} s"
read -r w500 _ <<<"$(ratio_stats sr-500 3)"
read -r c500 _ <<<"$(ratio_stats sr-500 4)"
verdict=$(awk -v w="$w500" -v c="$c500" 'BEGIN { print (w <= 1.01 && c <= 1.01) ? "within" : "OVER" }')
echo "target: sample-run -f 500 at most 1.01: command wall $w500, command cpu $c500 -> $verdict target"
if [[ ${KEEP:-0} == 1 ]]; then echo "raw data: $data"; fi
