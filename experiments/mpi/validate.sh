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
# Environment: RANKS="2 4", STEPS (steps of each causal run, default 4000), TIMED_STEPS (of
# each timed run, default 200), CELLS (1500000: steps of ~35 ms on the straggler at 11 ns a
# cell, so a step holds many samples of the line), REPEATS (3 pairs of timed runs),
# EXPERIMENT_MS (1000: about 25 steps, each experiment's count of visits within 4% of its
# rate; at 400 ms, 10 visits, the count alone moved an experiment by 10%). About 15
# minutes per rank count with the defaults; run on a quiet
# machine with at least as many cores as ranks (four ranks on two cores time-share, and a
# paused rank hands its core to another: docs/causal.md says what that does).
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
work_line="halo.cpp:$(grep -n 'the work line' "$source_file" | cut -d: -f1)"
side_line="halo.cpp:$(grep -n 'the side line' "$source_file" | cut -d: -f1)"
steps=${STEPS:-4000}
timed_steps=${TIMED_STEPS:-200}
cells=${CELLS:-1500000}
repeats=${REPEATS:-3}
experiment_ms=${EXPERIMENT_MS:-1000}

# Seconds of one timed run of the job with the environment "$@".
timed() {
  local ranks=$1 straggler=$2
  shift 2
  env "$@" mpirun -np "$ranks" "$halo" "$timed_steps" "$cells" "$straggler" 100 |
    sed -n 's/.* steps in \([0-9.]*\) s.*/\1/p'
}

# "T0 Ts ACTUAL%": REPEATS pairs of an unmodified run and one with the environment "$@",
# each pair back to back (this VM's speed drifts by tens of percent over minutes, so a T0
# measured once at the start is no baseline for runs made minutes later); the medians of
# T0 and Ts, and the median of the pairs' drops (T0 - Ts) / T0.
actual() {
  local ranks=$1 straggler=$2
  shift 2
  for _ in $(seq "$repeats"); do
    echo "$(timed "$ranks" "$straggler") $(timed "$ranks" "$straggler" "$@")"
  done | awk '
    function median(a, n,   i, j, t) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    { t0[NR] = $1; ts[NR] = $2; d[NR] = 100 * ($1 - $2) / $1 }
    END { printf "%.3f %.3f %.1f\n", median(t0, NR), median(ts, NR), median(d, NR) }'
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
  echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) CPUs; causal steps $steps, timed steps $timed_steps, cells $cells, repeats $repeats"
  printf '%-5s %-9s %-22s %6s %8s %8s %26s %8s\n' ranks speedup case T0_s Ts_s actual% "predicted% (95% interval)" coz%
} >"$table"
for ranks in ${RANKS:-2 4}; do
  straggler=$((ranks - 1))
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
      'coz run --fixed-line '"$source_file:${work_line#halo.cpp:}"' -o profile.$OMPI_COMM_WORLD_RANK.coz --- "$@"' \
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
      read -r t0 ts act <<<"$(actual "$ranks" "$straggler" "$var=$s")"
      pred=$(predicted "$json" "${location:-$line}" "$f")
      coz=-
      [[ $case != side && -f $coz_dir/profile.0.coz ]] &&
        coz=$(coz_predicted "$coz_dir/profile.0.coz" "${line#halo.cpp:}" "$f")
      printf '%-5s %-9s %-22s %6s %8s %8s %26s %8s\n' "$ranks" "$s%" "$case ($line)" "$t0" "$ts" \
        "$act" "$pred" "$coz" >>"$table"
    done
  done
done
echo "# steal (CPU time this VM's vCPUs waited for the host): $(( ($(steal_ticks) - steal_at_start) / $(getconf CLK_TCK) )) s over the run" >>"$table"
cat "$table"
