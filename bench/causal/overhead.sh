#!/usr/bin/env bash
# Overhead of causal-run with every experiment at 0% speedup (no delays: sampling,
# interposition, the controller and the results), against the plain program and against
# Coz doing the same, interleaved in one run:
#
#   bench/causal/overhead.sh BUILD_DIR [ROUNDS]      (ROUNDS defaults to 5)
#
# Programs: experiments/causal's (PROGRAMS, default "serial forkjoin-std pipeline lock
# sleep"; see experiments/causal/workload.h), each at S = 0. Configurations, each run once
# per program and round, their order rotated from round to round:
#   plain   cexp-P
#   causal  causal-run --line P.cpp:HOT --fixed-speedup 0 -o DIR -- cexp-P
#   coz     coz run --fixed-line P.cpp:HOT --fixed-speedup 0 --- cexp-P-coz
#           (the same code: only the debug information differs)
#   trap    (TRAP=1) causal's run with CPROF_CAUSAL_DISPATCH_TRAP=always: Syscall User
#           Dispatch traps libgomp's system calls (openmp) between experiments too (the
#           default traps them during experiments only, 0% ones included; docs/causal.md)
#   notrap  (TRAP=1) causal's run with CPROF_CAUSAL_DISPATCH=off: no trap at all
# Each run is timed from outside (cprof-bench-time: wall, user+sys of the command and all
# it waited for: launcher, program, the runtime's flush, Coz's Python launcher) and from
# inside (first item to last: wall; CLOCK_PROCESS_CPUTIME_ID at the end: every thread of
# the process, the profiler's own threads included). Ratios are per round against that
# round's plain run; the table shows their median and [min..max] over the rounds.
# Target: causal-run <= 1.05 and below Coz.
#
# Environment: PROGRAMS (openmp too), TRAP, ITEMS (progress visits per run; default each program's own),
# DURATION_MS (CPROF_CAUSAL_DURATION_MS, default: the runtime's 100), SHORT_MS (adds the
# config "short": causal's run with --experiment-ms SHORT_MS, in the same rounds, so that
# two experiment lengths compare side by side), OTHER_BIN (adds the config "other":
# causal's run with that directory's causal-run, e.g. an older build's bin/, on this
# build's programs), COZ (default coz; COZ=none leaves it out), KEEP=1 keeps the temp dir.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../sampler/common.sh"
find_build_tools "${1:-}" causal-run cprof-bench-time
rounds=${2:-5}
programs=(${PROGRAMS:-serial forkjoin-std pipeline lock sleep})
[[ -n ${DURATION_MS:-} ]] && export CPROF_CAUSAL_DURATION_MS=$DURATION_MS
coz_bin=${COZ:-coz}
configs=(plain causal)
[[ ${TRAP:-0} == 1 ]] && configs+=(trap notrap)
[[ -n ${SHORT_MS:-} ]] && configs+=(short)
[[ -n ${OTHER_BIN:-} ]] && configs+=(other)
if [[ $coz_bin != none ]] && command -v "$coz_bin" >/dev/null; then
  configs+=(coz)
else
  echo "overhead.sh: coz not found (COZ=$coz_bin); the coz row is left out" >&2
fi
tmp=$(mktemp -d /tmp/cprof-causal-overhead.XXXXXX)
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi
data=$tmp/data  # program config round cmd_wall cmd_cpu prog_wall prog_cpu checksum

run_one() {  # run_one PROGRAM CONFIG ROUND
  local p=$1 config=$2 round=$3 prog=$BIN/cexp-$1 src loc items=()
  src=$here/../../experiments/causal/${p//-/_}.cpp
  loc=$(basename "$src"):$(grep -n '// HOT' "$src" | head -1 | cut -d: -f1)
  [[ -n ${ITEMS:-} ]] && items=(0 "$ITEMS")
  rm -rf "$tmp/res" "$tmp/time" "$tmp/out" "$tmp/profile.coz"
  case $config in
    plain) "$BIN/cprof-bench-time" "$tmp/time" -- "$prog" "${items[@]}" >"$tmp/out" ;;
    causal | short | other)
      local run=$BIN/causal-run extra=()
      [[ $config == short ]] && extra=(--experiment-ms "$SHORT_MS")
      [[ $config == other ]] && run=$OTHER_BIN/causal-run
      "$BIN/cprof-bench-time" "$tmp/time" -- "$run" --line "$loc" --fixed-speedup 0 "${extra[@]}" \
        -o "$tmp/res" -- "$prog" "${items[@]}" >"$tmp/out" 2>"$tmp/err" ;;
    trap) CPROF_CAUSAL_DISPATCH_TRAP=always "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/causal-run" \
      --line "$loc" --fixed-speedup 0 -o "$tmp/res" -- "$prog" "${items[@]}" >"$tmp/out" 2>"$tmp/err" ;;
    notrap) CPROF_CAUSAL_DISPATCH=off "$BIN/cprof-bench-time" "$tmp/time" -- "$BIN/causal-run" \
      --line "$loc" --fixed-speedup 0 -o "$tmp/res" -- "$prog" "${items[@]}" >"$tmp/out" 2>"$tmp/err" ;;
    coz) (cd "$tmp" && "$BIN/cprof-bench-time" "$tmp/time" -- "$coz_bin" run --fixed-line "$loc" \
      --fixed-speedup 0 -o "$tmp/profile.coz" --- "$prog-coz" "${items[@]}" >"$tmp/out" 2>"$tmp/err") ;;
  esac
  local t o
  t=$(cat "$tmp/time")
  o=$(grep elapsed_s= "$tmp/out")
  echo "$p $config $round $(kv wall_s "$t") $(kv cpu_s "$t") $(kv elapsed_s "$o") $(kv cpu_s "$o")" \
    "$(kv checksum "$o")" >>"$data"
}

echo "overhead.sh: $rounds rounds of ${configs[*]} on ${programs[*]}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  n=${#configs[@]}
  for p in "${programs[@]}"; do
    for ((i = 0; i < n; i++)); do
      run_one "$p" "${configs[$(((i + r - 1) % n))]}" "$r"
    done
  done
  echo "  round $r/$rounds done" >&2
done

# ratio COLUMN PROGRAM CONFIG: "median [min..max]" of CONFIG / plain per round (PROGRAM
# "all": every program's rounds together).
ratio() {
  awk -v c="$1" -v p="$2" -v cfg="$3" '
    ($1 == p || p == "all") && $2 == "plain" { base[$1, $3] = $c }
    ($1 == p || p == "all") && $2 == cfg { val[$1, $3] = $c }
    END { for (k in val) if ((k in base) && base[k] > 0) print val[k] / base[k] }' "$data" |
    stats | awk '{ if ($6 == 0) print "NA"; else printf "%.3f [%.3f..%.3f]\n", $1, $2, $3 }'
}

echo
printf "%-17s %-7s | %-22s %-22s | %-22s %-22s\n" program config "command CPU" "program CPU" \
  "command wall" "program wall"
for p in "${programs[@]}" all; do
  for cfg in "${configs[@]:1}"; do
    printf "%-17s %-7s | %-22s %-22s | %-22s %-22s\n" "$p" "$cfg" "$(ratio 5 "$p" "$cfg")" \
      "$(ratio 7 "$p" "$cfg")" "$(ratio 4 "$p" "$cfg")" "$(ratio 6 "$p" "$cfg")"
  done
done
bad=$(awk '{ k = $1; if (!(k in c)) c[k] = $8; else if (c[k] != $8) print k }' "$data" | sort -u | tr '\n' ' ')
[[ -n $bad ]] && echo "checksums differ between configurations: $bad"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "target: causal <= 1.05 (CPU) and below coz"
if [[ ${KEEP:-0} == 1 ]]; then echo "kept: $tmp"; fi
