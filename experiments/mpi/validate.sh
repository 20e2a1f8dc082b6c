#!/usr/bin/env bash
# Causal profiling across MPI ranks, validated (docs/causal.md, "MPI"): predicted against
# actual for the halo program of tests/mpi (build: ninja mpi_halo mpi_halo_coz causal-run) (rank 1 or 3, the straggler, has twice the
# cells), under a real mpirun.
#
#   (a) halo.cpp's work line on every rank   predicted by causal-run --line, in lockstep;
#                                            actual: HALO_CUT_ALL=P cuts P% of it everywhere
#   (b) the same line on the straggler only  predicted by causal-run --line --rank STRAGGLER
#                                            (location "LINE (rank N)");
#                                            actual: HALO_CUT_STRAGGLER=P
#   (c) side_work's line, off the critical   actual: HALO_CUT_SIDE=P
#       path (it overlaps the halo exchange)
# at s = 25, 50, 75% with 2 and 4 ranks, and Coz (coz run --- under mpirun, one profile
# per rank) on the same line for comparison. The program speedup is the drop in time per
# step, (T0 - Ts) / T0, the median over REPEATS pairs of runs made back to back.
#
#   experiments/mpi/validate.sh [BUILD_DIR] [OUT_DIR]
# Environment: RANKS="2 4", STEP_MS (30: CELLS is chosen so that one step takes about
# that long on the straggler, measured by a short run before each rank count; a step
# must hold many samples of the line at the 1 ms sampling period (docs/causal.md, MPI
# "Limits"), and the same CELLS gave steps of 33 ms on this VM one day and 6.4 ms on
# another), CELLS (sets the
# cells per rank instead), RUN_S (120: seconds of each causal run, from which its steps
# follow; STEPS sets them instead), TIMED_S (1.5: seconds of each timed run; TIMED_STEPS
# instead), REPEATS (7 pairs of timed runs: 6 or more give the actual drop a 95%
# interval), EXPERIMENT_MS (1000: about 30 steps, each experiment's count of visits
# within 4% of its rate; at 400 ms, 10 visits, the count alone moved an experiment by
# 10%). About 15 minutes per rank count with the defaults; run on a quiet machine with at
# least as many cores as ranks (four ranks on two cores time-share, and a paused rank
# hands its core to another: docs/causal.md says what that does).
set -euo pipefail
build=$(realpath "${1:-build}")
out=$(realpath -m "${2:-experiments/mpi/out}")
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
source_file=$(realpath "$here/../../tests/mpi/programs/halo.cpp")
halo="$build/test-programs/mpi_halo"
[[ -x $halo ]] || { echo "validate: $halo not built (ninja -C $build mpi_halo)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun() { command mpirun --oversubscribe --mca btl_vader_single_copy_mechanism none "$@"; }
# The knobs cut compute_cells' loop, its statement and its loop control: GCC puts about a
# tenth of the loop's samples (the increment and the compare) on the `for` line above the
# statement, so the location both tools speed up is the two lines (FILE:FIRST-LAST, one
# location); with the statement's line alone every prediction came out at nine tenths of
# the cut. Coz takes one line: the statement's.
work_stmt=$(grep -n 'the work line' "$source_file" | cut -d: -f1)
sed -n "$((work_stmt - 1))p" "$source_file" | grep -q 'for (' ||
  { echo "validate: the line above halo.cpp:$work_stmt is not the work loop's for" >&2; exit 1; }
work_line="halo.cpp:$((work_stmt - 1))-$work_stmt"
side_line="halo.cpp:$(grep -n 'the side line' "$source_file" | cut -d: -f1)"
step_ms=${STEP_MS:-30}
run_s=${RUN_S:-120}
timed_s=${TIMED_S:-1.5}
repeats=${REPEATS:-7}
experiment_ms=${EXPERIMENT_MS:-1000}

# sizes RANKS STRAGGLER: sets cells (CELLS, or the count that makes a straggler step last
# STEP_MS), steps and timed_steps (STEPS and TIMED_STEPS, or RUN_S and TIMED_S of steps)
# from a 20-step probe run of probe_cells per rank.
probe_cells=1500000
sizes() {
  local probe_s step_s
  cells=$probe_cells timed_steps=20  # what timed() runs
  probe_s=$(timed "$1" "$2")
  [[ -n $probe_s ]] || { echo "validate: the 20-step probe run printed no time" >&2; exit 1; }
  cells=${CELLS:-$(awk -v t="$probe_s" -v c="$probe_cells" -v ms="$step_ms" \
    'BEGIN { printf "%d", c * ms / 1000 / (t / 20) }')}
  # One step's seconds at those cells: time per cell is what the probe measured.
  step_s=$(awk -v t="$probe_s" -v c="$probe_cells" -v n="$cells" 'BEGIN { print t / 20 * n / c }')
  steps=${STEPS:-$(awk -v r="$run_s" -v s="$step_s" 'BEGIN { printf "%d", r / s }')}
  timed_steps=${TIMED_STEPS:-$(awk -v r="$timed_s" -v s="$step_s" 'BEGIN { printf "%d", r / s }')}
  echo "# $1 ranks: $cells cells per rank (a 20-step probe of $probe_cells: $probe_s s), causal runs of $steps steps, timed runs of $timed_steps"
}

# Seconds of one timed run of the job with the environment "$@".
timed() {
  local ranks=$1 straggler=$2
  shift 2
  # A subshell that exports the knob, not `env`: env would run the mpirun binary, not the
  # function above with its options (--oversubscribe: four ranks on two cores).
  (
    [[ $# -gt 0 ]] && export "$@"
    mpirun -np "$ranks" "$halo" "$timed_steps" "$cells" "$straggler" 100
  ) | sed -n 's/.* steps in \([0-9.]*\) s.*/\1/p'
}

# "T0 Ts ACTUAL% LOW% HIGH%": REPEATS pairs of an unmodified run and one with the
# environment "$@", each pair back to back (this VM's speed drifts by tens of percent over
# minutes, so a T0 measured once at the start is no baseline for runs made minutes later);
# the medians of T0 and Ts, the median of the pairs' drops (T0 - Ts) / T0 and its
# distribution-free 95% interval (order statistics: experiments/causal/predict.py actual;
# NA under 6 pairs).
actual() {
  local ranks=$1 straggler=$2 pairs
  shift 2
  pairs=$(mktemp)
  for _ in $(seq "$repeats"); do
    echo "$(timed "$ranks" "$straggler") $(timed "$ranks" "$straggler" "$@")"
  done >"$pairs"
  read -r drop low high _ <<<"$(python3 "$here/../causal/predict.py" actual "$pairs")"
  awk -v drop="$drop" -v low="$low" -v high="$high" '
    function median(a, n,   i, j, t) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function pct(x) { return x == "NA" ? "NA" : sprintf("%.1f", 100 * x) }
    { t0[NR] = $1; ts[NR] = $2 }
    END { printf "%.3f %.3f %s %s %s\n", median(t0, NR), median(ts, NR), pct(drop), pct(low), pct(high) }' "$pairs"
  rm -f "$pairs"
}

# The prediction at speedup S (fraction) for LOCATION in the report's JSON.
predicted() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["causal"]["predictions"]:
    if p["location"] == sys.argv[2]:
        for pt in p["points"]:
            if abs(pt["speedup"] - float(sys.argv[3])) < 1e-9:
                lo, hi = pt.get("ci_low"), pt.get("ci_high")
                print(f'{100 * pt["program_speedup"]:.1f}', end="")
                if lo is not None and hi is not None:
                    print(f' ({100 * lo:.1f} to {100 * hi:.1f})', end="")
                print()
                sys.exit(0)
print("-")
PY
}

# Coz's prediction for the same line, from its profile.coz lines (speedup, progress):
# time per visit at s against the baseline's.
coz_predicted() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys, collections
path, line, s = sys.argv[1], sys.argv[2], float(sys.argv[3])
acc = collections.defaultdict(lambda: [0.0, 0])  # speedup -> [duration, visits]
exp = None
for raw in open(path):
    f = dict(kv.split("=", 1) for kv in raw.strip().split("\t")[1:] if "=" in kv)
    kind = raw.split("\t", 1)[0]
    if kind == "experiment":
        exp = (f.get("selected", ""), float(f["speedup"]), float(f["duration"]))
    elif kind == "throughput-point" and exp and exp[0].endswith(line):
        acc[exp[1]][0] += exp[2]
        acc[exp[1]][1] += int(f["delta"])
base = acc.get(0.0)
at = min(acc, key=lambda k: abs(k - s)) if acc else None
if not base or base[1] == 0 or at is None or acc[at][1] == 0 or abs(at - s) > 0.05:
    print("-")
else:
    p0, ps = base[0] / base[1], acc[at][0] / acc[at][1]
    print(f"{100 * (p0 - ps) / p0:.1f}")
PY
}

# CPU time the hypervisor gave to others (/proc/stat's steal, in USER_HZ ticks): a VM's
# own measure of how quiet its machine was.
steal_ticks() { awk '/^cpu / {print $9}' /proc/stat; }
steal_at_start=$(steal_ticks)
table="$out/validation.txt"
{
  echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) CPUs; repeats $repeats, experiments of $experiment_ms ms"
  printf '%-5s %-9s %-22s %6s %8s %24s %26s %8s\n' ranks speedup case T0_s Ts_s "actual% (95% interval)" \
    "predicted% (95% interval)" coz%
} >"$table"
errors=$(mktemp)
for ranks in ${RANKS:-2 4}; do
  straggler=$((ranks - 1))
  sizes "$ranks" "$straggler" >>"$table"
  dir="$out/causal-$ranks"
  rm -rf "$dir"
  # One causal-run per rank, in lockstep; long enough for about 20 experiments per speedup.
  mpirun -np "$ranks" "$build/bin/causal-run" -q --line "$work_line" --line "$side_line" \
    --speedups 0,25,50,75 --experiment-ms "$experiment_ms" -o "$dir" -- \
    "$halo" "$steps" "$cells" "$straggler" 100 >/dev/null
  "$build/bin/causal-report" -q --format json -o "$out/causal-$ranks.json" "$dir"
  # The line sped up in the straggler only.
  rm -rf "$dir-straggler"
  mpirun -np "$ranks" "$build/bin/causal-run" -q --line "$work_line" --rank "$straggler" \
    --speedups 0,25,50,75 --experiment-ms "$experiment_ms" -o "$dir-straggler" -- \
    "$halo" "$steps" "$cells" "$straggler" 100 >/dev/null
  "$build/bin/causal-report" -q --format json -o "$out/causal-$ranks-straggler.json" \
    "$dir-straggler"
  coz_dir="$out/coz-$ranks"
  rm -rf "$coz_dir" && mkdir -p "$coz_dir"
  if command -v coz >/dev/null && [[ -x $halo-coz ]]; then
    (cd "$coz_dir" && mpirun -np "$ranks" sh -c \
      'coz run --fixed-line '"$source_file:$work_stmt"' -o profile.$OMPI_COMM_WORLD_RANK.coz --- "$@"' \
      coz "$halo-coz" "$steps" "$cells" "$straggler" 100 >/dev/null 2>&1 || true)
  fi
  for s in 25 50 75; do
    f=$(awk -v s="$s" 'BEGIN {printf "%.2f", s / 100}')
    for case in all straggler side; do
      json=$out/causal-$ranks.json location=
      case $case in
        all) var=HALO_CUT_ALL line=$work_line ;;
        straggler)
          var=HALO_CUT_STRAGGLER line=$work_line
          json=$out/causal-$ranks-straggler.json location="$work_line (rank $straggler)"
          ;;
        side) var=HALO_CUT_SIDE line=$side_line ;;
      esac
      read -r t0 ts act act_low act_high <<<"$(actual "$ranks" "$straggler" "$var=$s")"
      pred=$(predicted "$json" "${location:-$line}" "$f")
      coz=-
      [[ $case != side && -f $coz_dir/profile.0.coz ]] &&
        coz=$(coz_predicted "$coz_dir/profile.0.coz" "$work_stmt" "$f")
      act_text=$act
      [[ $act_low != NA ]] && act_text="$act ($act_low to $act_high)"
      printf '%-5s %-9s %-22s %6s %8s %24s %26s %8s\n' "$ranks" "$s%" "$case ($line)" "$t0" "$ts" \
        "$act_text" "$pred" "$coz" >>"$table"
      [[ $case != side && $pred != - ]] && echo "$act ${pred%% *} $coz" >>"$errors"
    done
  done
done
# The work line's rows (the side line's true effect is within the timed runs' spread):
# predicted - actual, in points, against the target of 5.
awk '{ e = $2 - $1; n++; s += (e < 0 ? -e : e); if (e <= 5 && e >= -5) k++
       if ($3 != "-") { c = $3 - $1; nc++; sc += (c < 0 ? -c : c) }
       l = l sprintf("%s%+.1f", n > 1 ? ", " : "", e) }
     END { if (n) printf "# work line: predicted - actual %s points; %d of %d within 5; mean |error| %.1f (Coz %s)\n",
                   l, k, n, s / n, nc ? sprintf("%.1f over %d", sc / nc, nc) : "-" }' "$errors" >>"$table"
rm -f "$errors"
echo "# steal (CPU time this VM's vCPUs waited for the host): $(( ($(steal_ticks) - steal_at_start) / $(getconf CLK_TCK) )) s over the run" >>"$table"
cat "$table"
