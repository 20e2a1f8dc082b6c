#!/usr/bin/env bash
# Fidelity of the sampler's attribution: per-function self-time fractions from sample-run,
# from perf, and the truth the program measures itself.
#
#   experiments/sampler/fidelity.sh BUILD_DIR [HZ]        (HZ defaults to 500)
#
# cprof-fidelity-workload (2 threads, five functions with a known split; see its source)
# runs twice: under `sample-run -f HZ` and under `perf record -F HZ -g`. Each run prints
# the truth of that run (per-function self CPU time from CLOCK_THREAD_CPUTIME_ID around
# every call, over the process's CPU time). Sampled fractions are self time (innermost
# frame): for sample-run from cprof-self-fractions (results reader + symbolize/), for perf
# from `perf report --stdio --no-children --sort sym`. Prints the fractions in percent and
# the largest absolute differences in points. Target: sample-run within 2 points of the
# truth and of perf.
#
# Environment: SCALE (work multiplier, default 2: ~11 s of CPU, ~5500 samples at 500 Hz),
# SR_ARGS (extra sample-run options, e.g. "--backend timer"), PERF (default perf),
# KEEP=1 keeps the temp dir.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../bench/sampler/common.sh"
find_build_tools "${1:-}" cprof-fidelity-workload cprof-self-fractions sample-run
hz=${2:-500}
scale=${SCALE:-2}
perf_bin=${PERF:-perf}
tmp=$(mktemp -d /tmp/cprof-fidelity.XXXXXX)
if [[ ${KEEP:-0} != 1 ]]; then trap 'rm -rf "$tmp"' EXIT; fi
prog=$BIN/cprof-fidelity-workload
functions=(fid_alpha fid_beta fid_gamma fid_epsilon fid_zeta)

echo "fidelity.sh: $prog --scale $scale, sample-run -f $hz ${SR_ARGS:-}, perf record -F $hz -g"
# shellcheck disable=SC2086
"$BIN/sample-run" -q -f "$hz" ${SR_ARGS:-} -o "$tmp/sr" -- "$prog" --scale "$scale" >"$tmp/truth.sr"
"$BIN/cprof-self-fractions" "$tmp/sr" >"$tmp/sampled.sr"
have_perf=1
if "$perf_bin" record -q -F "$hz" -g -o "$tmp/perf.data" -- "$prog" --scale "$scale" \
  >"$tmp/truth.perf" 2>"$tmp/perf.err"; then
  "$perf_bin" report -i "$tmp/perf.data" --stdio --no-children --sort sym -g none \
    --percent-limit 0 2>/dev/null >"$tmp/perf.report"
  perf_samples=$("$perf_bin" script -i "$tmp/perf.data" -F tid -G 2>/dev/null | wc -l)
else
  echo "fidelity.sh: perf record failed: $(head -1 "$tmp/perf.err"); perf column left empty" >&2
  have_perf=0
  : >"$tmp/truth.perf"
  : >"$tmp/perf.report"
  perf_samples=0
fi

truth_of() {  # truth_of FILE FUNCTION -> percent
  awk -v f="$2" '$1 == "truth" && $2 == "function=" f { sub("fraction=", "", $4); printf "%.2f", $4 * 100 }' "$1"
}
ours_of() {
  awk -v f="$1" '$1 == "self" && $2 == "function=" f { sub("fraction=", "", $4); v = $4 * 100 }
    END { printf "%.2f", v + 0 }' "$tmp/sampled.sr"
}
perf_of() {
  awk -v f="$1" '$2 == "[.]" && $3 == f { sub("%", "", $1); v = $1 } END { printf "%.2f", v + 0 }' "$tmp/perf.report"
}

rest() {  # rest GETTER [FILE]: 100 - the sum of the functions' percents
  local g
  for g in "${functions[@]}"; do "$1" ${2:+"$2"} "$g"; echo; done |
    awk '{ s += $1 } END { printf "%.2f", 100 - s }'
}

sr_samples=$(awk '$1 == "samples" { sub("total=", "", $2); print $2 }' "$tmp/sampled.sr")
echo "samples: sample-run $sr_samples, perf $perf_samples"
echo
printf "%-12s | %10s %10s %7s | %10s %10s %7s | %9s\n" function "truth(sr)" sample-run diff \
  "truth(perf)" perf diff "sr - perf"
max_sr=0 max_perf=0 max_cross=0
for f in "${functions[@]}" other; do
  if [[ $f == other ]]; then
    # Everything else: loop overhead, clock reads, start-up, the kernel, the runtime.
    t1=$(rest truth_of "$tmp/truth.sr")
    o=$(rest ours_of)
    t2=$(rest truth_of "$tmp/truth.perf")
    p=$(rest perf_of)
  else
    t1=$(truth_of "$tmp/truth.sr" "$f")
    o=$(ours_of "$f")
    t2=$(truth_of "$tmp/truth.perf" "$f")
    p=$(perf_of "$f")
  fi
  ((have_perf)) || { t2=0; p=0; }
  read -r d1 d2 d3 <<<"$(awk -v t1="$t1" -v o="$o" -v t2="$t2" -v p="$p" 'BEGIN { printf "%.2f %.2f %.2f", o - t1, p - t2, o - p }')"
  printf "%-12s | %9s%% %9s%% %+7.2f | %10s%% %9s%% %+7.2f | %+9.2f\n" "$f" "$t1" "$o" "$d1" "$t2" "$p" "$d2" "$d3"
  max_sr=$(awk -v m="$max_sr" -v d="$d1" 'BEGIN { d = d < 0 ? -d : d; print (d > m) ? d : m }')
  max_perf=$(awk -v m="$max_perf" -v d="$d2" 'BEGIN { d = d < 0 ? -d : d; print (d > m) ? d : m }')
  max_cross=$(awk -v m="$max_cross" -v d="$d3" 'BEGIN { d = d < 0 ? -d : d; print (d > m) ? d : m }')
done
echo
echo "max |sample-run - truth| = $max_sr points"
((have_perf)) && echo "max |perf - truth|       = $max_perf points"
((have_perf)) && echo "max |sample-run - perf|  = $max_cross points"
verdict=$(awk -v a="$max_sr" -v b="$max_cross" -v hp="$have_perf" 'BEGIN { print (a <= 2 && (!hp || b <= 2)) ? "within target" : "OVER target" }')
echo "target: sample-run within 2 points of the truth and of perf: $verdict"
if [[ ${KEEP:-0} == 1 ]]; then echo "kept: $tmp"; fi
