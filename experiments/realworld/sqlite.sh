#!/usr/bin/env bash
# SQLite's speedtest1 (Debian's sqlite3 3.40.1 source package, single-threaded, database in
# memory): sample-run's profile, causal-run's automatic ranking, a real change to the code
# it ranks high, and causal-run's and Coz's predictions against what the change gives.
#
#   experiments/realworld/sqlite.sh BUILD_DIR        (e.g. build; needs root for apt)
#
# Builds (in $WORK, experiments/realworld/work by default, git-ignored):
#   base     $WORK/sqlite-base: the package's ./configure (--disable-tcl --disable-shared,
#            CFLAGS=-O2 -g), then its own `make speedtest1`, which generates the
#            amalgamation sqlite3.c (tclsh) and links test/speedtest1.c with it;
#   patched  $WORK/sqlite-pcache-hash-mask: a copy of base with
#            sqlite-pcache-hash-mask.patch on sqlite3.c, compiled with the flags the
#            Makefile uses for speedtest1 (read from it: $(TCC) $(ST_OPT) ... $(TLIBS));
#   dwarf4   $WORK/sqlite-base/speedtest1-dwarf4: base's sources with -gdwarf-4
#            -gno-variable-location-views, the only DWARF Coz 0.2.2 reads (with location
#            views its libelfin skips every line table: "Fixed line ... was not found").
# Workload: `speedtest1 --size $SIZE --memdb` (SIZE=200: ~5.5 s on an idle 2-core VM here;
# its ~30 tests insert, select, update, index, vacuum 100k-row tables in an in-memory db).
#
# The change: the sampled profile's hottest sqlite line is pcache1FetchNoMutex's hash chain
# walk (sqlite3.c:54271, ~6% of the run; with 54270, the bucket computation, ~7-8%), and
# an exploratory automatic run put that line second. 54270 computes the bucket as
# `iKey % pCache->nHash`, a 32-bit divl on every page fetch, although nHash is always a
# power of two (0, then 256 doubled by pcache1ResizeHash); the patch takes
# `iKey & (nHash-1)` there and at the 7 other places pcache1 hashes a key (the same slots,
# so the same behaviour). The Coz paper's SQLite change (direct calls instead of the
# allocator's function pointers, sqlite3GlobalConfig.m.xMalloc etc., +25.6% on a
# multi-threaded benchmark) was not taken: the script prints the self time of every
# function those pointers reach plus the wrappers around them, which is the most direct
# calls could save, and on this single-threaded benchmark it is well under 1% (the time is
# in glibc's malloc itself, first-touch page faults of a growing heap, not in the calls).
#
# Progress: PROGRESS=statement (the default) counts a visit per SQL statement
# (--progress speedtest1.c:566, the first line of speedtest1_run after its early return),
# ~147k visits a run at --size 200: counted in the program's code (docs/causal.md,
# "Counting --progress visits"), at about 27 ns a visit (a uprobe: 5-25 us, 0.9-3 s a run).
# The tests differ in cost per statement by 10,000 times, so the experiments are short
# (--experiment-ms 10) and the report compares each sped-up experiment with the baselines
# just before and after it (docs/causal.md, "Programs whose rate of progress changes").
# PROGRESS=end-to-end gives the earlier method: one experiment per run, whole-run time,
# which is also what the actual speedup measures, at the price of runs (a baseline and a
# sped-up run per pair, 3 pairs at least).
# Steps: (1) build; (2) sample-run profile of base, top functions and lines, and the
# allocator-indirection upper bound; (3) causal-run automatic (no --line), AUTO_RUNS runs
# (end to end: at a fixed 50%, so that all runs count toward one point per location), the
# ranked report; (4) actual speedup: REPS back-to-back pairs of plain runs, the pairs' median
# (actual_speedup); (5) s_eff: the self time of lines 54270-54271 in SAMPLE_RUNS sampled
# runs of each build (lines_share.py), as shares of each profile, scaled by the measured
# run-time ratio: s_eff = 1 - (share_patched / share_base) * (1 - actual) (the profiles'
# own CPU totals move with the load of this shared VM; shares do not); (6) causal-run
# --end-to-end -n FIXED_RUNS --line sqlite3.c:54271 --fixed-speedup 100*s_eff on base
# (54271 holds ~90% of the two lines' samples and the divl's stall; per statement: the
# block 54270-54271); (7) Coz 0.2.2: coz run
# --end-to-end --fixed-line sqlite3.c:54271 at 100*s_eff and at 0, COZ_RUNS each, in pairs
# (which goes first alternates), on dwarf4 (predict.py coz: Coz's viewer's arithmetic);
# (8) the table. Besides each tool's own estimate (sums over all runs), the table gives the
# median over pairs of side-by-side runs of 1 - sped/base: on a machine shared with other
# jobs a run can take 3x another, and the sums weigh those runs most.
#
# Environment: PROGRESS (statement or end-to-end, default statement), SIZE (default 200),
# AUTO_RUNS (default 8 per statement, 20 end to end), AUTO_MODE (line or function,
# default line), REPS (plain runs per build, default 5, common.sh), SAMPLE_RUNS (default 2),
# FIXED_RUNS (default 8 per statement, 12 end to end), COZ_RUNS (default 2: under Coz speedtest1 runs ~10x slower,
# Coz's pthread_mutex wrappers being hit on every malloc and free; COZ=none leaves Coz
# out), REBUILD=1 (rebuild even when the binaries exist), WORK.
#
# Takes ~20 min on the 2-core VM (builds ~4 min, ~60 runs of ~6 s, Coz 1-2.5 min a run),
# measured with 4-10 other runnable jobs from other sessions; other jobs also widen every
# interval: the script logs the load average at each step.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" sample-run causal-run causal-report
size=${SIZE:-200}
progress=${PROGRESS:-statement}
case $progress in
  statement) auto_runs=${AUTO_RUNS:-8} ;;
  end-to-end) auto_runs=${AUTO_RUNS:-20} ;;
  *) echo "$0: PROGRESS must be statement or end-to-end" >&2; exit 1 ;;
esac
auto_mode=${AUTO_MODE:-line}
sample_runs=${SAMPLE_RUNS:-2}
if [[ $progress == statement ]]; then fixed_runs=${FIXED_RUNS:-8}; else fixed_runs=${FIXED_RUNS:-12}; fi
# How each causal-run counts progress: a visit per statement, or the whole run.
statement_point=speedtest1.c:566
if [[ $progress == statement ]]; then
  counting=(--progress "$statement_point" --experiment-ms 10)
else
  counting=(--end-to-end)
fi
coz_runs=${COZ_RUNS:-2}
find_coz
change=pcache-hash-mask
patch_file=$here/sqlite-$change.patch
loc_file=sqlite3.c
changed_lines=(54270 54271)  # the bucket computation and the chain walk
loc_line=54271               # the location both tools speed up
load() { cut -d' ' -f1-3 /proc/loadavg; }
# paired BASE_DURATIONS SPED_DURATIONS: 1 - sped / base per pair of runs made side by side
# (comma-separated net durations, in run order); prints "MEDIAN PAIRS VALUE,VALUE,...". The
# tools' own estimates divide sums over all runs, so the runs that another job slowed
# down most weigh most; a pair's two runs share their moment's load.
paired() {
  python3 -c '
import statistics, sys
b = [float(x) for x in sys.argv[1].split(",") if x]
s = [float(x) for x in sys.argv[2].split(",") if x]
v = [1 - y / x for x, y in zip(b, s)]
print("%.4f %d %s" % (statistics.median(v), len(v), ",".join("%.3f" % x for x in v)) if v else "NA 0 -")
' "$1" "$2"
}
# e2e_durations DIR SPEEDUP: the net durations (wall - delay, ns) of DIR's end-to-end runs
# at SPEEDUP (a fraction), in run order (process id), comma-separated.
e2e_durations() {
  "$BIN/causal-report" "$1" --format coz 2>/dev/null | awk -v s="$2" -F'\t' '
    $1 == "experiment" {
      sp = ""; d = ""
      for (i = 2; i <= NF; i++) {
        if ($i ~ /^speedup=/) sp = substr($i, 9)
        if ($i ~ /^duration=/) d = substr($i, 10)
      }
      if (sp + 0 > s - 1e-6 && sp + 0 < s + 1e-6) printf "%s%s", (n++ ? "," : ""), d
    }'
}
t_start=$(date +%s)
log "sqlite.sh: PROGRESS=$progress SIZE=$size AUTO_RUNS=$auto_runs FIXED_RUNS=$fixed_runs REPS=$REPS COZ_RUNS=$coz_runs; $(nproc) CPUs; load $(load)"

# --- 1. build -------------------------------------------------------------------------
need_packages build-essential tcl zlib1g-dev
src=$(get_source sqlite3)
base_dir=$WORK/sqlite-base
patched_dir=$WORK/sqlite-$change
base=$base_dir/speedtest1
patched=$patched_dir/speedtest1
dwarf4=$base_dir/speedtest1-dwarf4

# speedtest1_flags DIR: the compiler command and flags the package's Makefile links
# speedtest1 with, then " -- ", then its libraries.
speedtest1_flags() {
  printf 'print-speedtest1-flags:\n\t@echo $(TCC) $(ST_OPT) -- $(TLIBS)\n' |
    make -s -C "$1" -f Makefile -f - print-speedtest1-flags
}
# compile_speedtest1 DIR OUT [EXTRA_FLAGS...]: speedtest1.c + DIR's sqlite3.c -> OUT
compile_speedtest1() {
  local dir=$1 out=$2
  shift 2
  local flags
  flags=$(speedtest1_flags "$dir")
  # shellcheck disable=SC2086  # the Makefile's flags are words
  (cd "$dir" && nice ${flags%% -- *} "$@" -o "$out" test/speedtest1.c sqlite3.c ${flags##* -- })
}
if [[ ! -x $base || ${REBUILD:-0} == 1 ]]; then
  log "building base ($src -> $base_dir: configure, make speedtest1)"
  t0=$(date +%s)
  fresh_copy "$src" "$base_dir"
  (cd "$base_dir" && ./configure -q --disable-tcl --disable-shared CFLAGS="-O2 -g" >/dev/null &&
    nice make -s -j2 speedtest1 >/dev/null 2>&1) || { echo "$0: building base failed" >&2; exit 1; }
  log "base built in $(($(date +%s) - t0)) s"
  rm -f "$patched" "$dwarf4"
fi
if [[ ! -x $patched || ${REBUILD:-0} == 1 ]]; then
  log "building patched ($(basename "$patch_file"))"
  t0=$(date +%s)
  fresh_copy "$base_dir" "$patched_dir" "$patch_file"
  rm -f "$patched_dir/speedtest1-dwarf4"
  compile_speedtest1 "$patched_dir" speedtest1
  log "patched built in $(($(date +%s) - t0)) s"
fi
if ((have_coz)) && [[ ! -x $dwarf4 || ${REBUILD:-0} == 1 ]]; then
  log "building dwarf4 (for Coz)"
  t0=$(date +%s)
  compile_speedtest1 "$base_dir" speedtest1-dwarf4 -gdwarf-4 -gno-variable-location-views
  log "dwarf4 built in $(($(date +%s) - t0)) s"
fi
args=(--size "$size" --memdb)
out=$WORK/sqlite-results
rm -rf "$out"
mkdir -p "$out"
log "plain run of base: $( { /usr/bin/time -f '%e s wall, %U s user' "$base" "${args[@]}" >/dev/null; } 2>&1)"

# --- 2. profile -----------------------------------------------------------------------
log "sample-run (base)"
"$BIN/sample-run" -q -o "$out/profile" -- "$base" "${args[@]}" >/dev/null
echo "== sample-run -- speedtest1 ${args[*]}: functions"
"$BIN/causal-report" "$out/profile" -n 15
echo
echo "== lines"
"$BIN/causal-report" "$out/profile" --by line -n 15 | sed -n '/^Lines by/,$p'
# What direct calls to the allocator could save at most: the self time of everything the
# function pointers reach (mem1.c's sqlite3Mem*) and of the wrappers that call through them.
alloc_funcs=(sqlite3MemMalloc sqlite3MemFree sqlite3MemSize sqlite3MemRealloc sqlite3MemRoundup
  sqlite3Malloc mallocWithAlarm sqlite3_malloc sqlite3_malloc64 sqlite3_free sqlite3MallocSize
  sqlite3DbMallocSize sqlite3Realloc sqlite3_realloc sqlite3_realloc64 sqlite3_msize)
read -r alloc_share _ <<<"$(share_of_lines "$out/profile" --function "${alloc_funcs[@]}")"
read -r malloc_share _ <<<"$(share_of_lines "$out/profile" --function malloc _int_malloc __libc_free _int_free \
  __libc_realloc _int_realloc malloc_consolidate sysmalloc __malloc_usable_size unlink_chunk.constprop.0)"
echo
printf '== the allocator behind function pointers (Coz paper): self time of sqlite3Mem* and their\n'
printf '   wrappers %.2f%% of the run (the most direct calls could save); glibc malloc/free %.2f%%\n' \
  "$(echo "100 * $alloc_share" | bc -l)" "$(echo "100 * $malloc_share" | bc -l)"

# --- 3. automatic ---------------------------------------------------------------------
auto_speedup=()
[[ $progress == end-to-end ]] && auto_speedup=(--fixed-speedup 50)
log "causal-run automatic ($auto_mode), ${counting[*]} ${auto_speedup[*]}, $auto_runs runs; load $(load)"
t0=$(date +%s)
"$BIN/causal-run" "${counting[@]}" -n "$auto_runs" --mode "$auto_mode" "${auto_speedup[@]}" -o "$out/auto" \
  -- "$base" "${args[@]}" >"$out/auto.stdout" 2>"$out/auto.stderr" || true
grep -v 'virtual speedup$' "$out/auto.stderr" | sed 's/^/  /' || true
log "automatic mode took $(($(date +%s) - t0)) s"
echo
echo "== causal-run ${counting[*]} -n $auto_runs --mode $auto_mode ${auto_speedup[*]} (automatic)"
"$BIN/causal-report" "$out/auto" -n 15 | sed -n '/^Causal profile/,$p'

# --- 4. actual speedup ----------------------------------------------------------------
log "actual speedup: $REPS interleaved plain runs of each build; load $(load)"
read -r t_base t_patched actual actual_lo actual_hi <<<"$(actual_speedup "sqlite-$change" "$base" "${args[@]}" -- "$patched" "${args[@]}")"
log "medians: base $t_base s, patched $t_patched s; actual speedup (median of the pairs) $actual [$actual_lo, $actual_hi]"

# --- 5. s_eff -------------------------------------------------------------------------
log "s_eff: $sample_runs sampled runs of each build; load $(load)"
sb=0 sp=0
for ((i = 1; i <= sample_runs; i++)); do
  "$BIN/sample-run" -q -f 2000 -o "$out/sample-base-$i" -- "$base" "${args[@]}" >/dev/null
  "$BIN/sample-run" -q -f 2000 -o "$out/sample-patched-$i" -- "$patched" "${args[@]}" >/dev/null
  read -r b tb _ <<<"$(share_of_lines "$out/sample-base-$i" "$loc_file" "${changed_lines[@]}")"
  read -r p tp _ <<<"$(share_of_lines "$out/sample-patched-$i" "$loc_file" "${changed_lines[@]}")"
  echo "  run $i: lines ${changed_lines[*]}: base $b of the run ($((tb / 1000000)) ms), patched $p ($((tp / 1000000)) ms)"
  sb=$(echo "$sb + $b" | bc -l)
  sp=$(echo "$sp + $p" | bc -l)
done
s_eff=$(echo "1 - ($sp / $sb) * (1 - $actual)" | bc -l)
pc=$(awk -v s="$s_eff" 'BEGIN { p = int(s * 100 + 0.5); print (p < 1 ? 1 : p) }')
s_used=$(awk -v p="$pc" 'BEGIN { printf "%.2f", p / 100 }')
printf '  s_eff = 1 - (patched %.4f / base %.4f) * (1 - actual %.4f) = %.3f: predictions at %d%%\n' \
  "$sp" "$sb" "$actual" "$s_eff" "$pc"

# --- 6. our prediction ----------------------------------------------------------------
fixed_line=$loc_file:$loc_line
[[ $progress == statement ]] && fixed_line=$loc_file:${changed_lines[0]}-${changed_lines[-1]}
log "causal-run --line $fixed_line --fixed-speedup $pc, ${counting[*]}, $fixed_runs runs; load $(load)"
t0=$(date +%s)
"$BIN/causal-run" "${counting[@]}" -n "$fixed_runs" --line "$fixed_line" --fixed-speedup "$pc" \
  -o "$out/fixed" -- "$base" "${args[@]}" >"$out/fixed.stdout" 2>"$out/fixed.stderr" || true
grep -v 'virtual speedup$' "$out/fixed.stderr" | sed 's/^/  /' || true
log "fixed-line run took $(($(date +%s) - t0)) s"
"$BIN/causal-report" "$out/fixed" | sed -n '/^Causal profile/,$p'
read -r ours lo hi exps bexps <<<"$(python3 "$here/../causal/predict.py" ours "$out/fixed" "$s_used" "$BIN/causal-report" 2>"$out/predict.err" ||
  echo NA NA NA 0 0)"
ours_paired=NA
if [[ $progress == end-to-end ]]; then
  read -r ours_paired ours_pairs ours_values <<<"$(paired "$(e2e_durations "$out/fixed" 0)" "$(e2e_durations "$out/fixed" "$s_used")")"
  echo "  per pair of runs (baseline, then sped up): 1 - sped/base = $ours_values; median $ours_paired"
fi

# --- 7. Coz ---------------------------------------------------------------------------
coz=NA cexps=0 cbexps=0 coz_paired=NA
if ((have_coz)); then
  log "coz run --end-to-end --fixed-line $loc_file:$loc_line at $pc% and 0%, $coz_runs each; load $(load)"
  : >"$out/coz-$pc.coz"
  : >"$out/coz-0.coz"
  for ((i = 1; i <= coz_runs; i++)); do
    order=("$pc" 0)
    ((i % 2)) || order=(0 "$pc")  # alternate which goes first, against a drifting load
    for s in "${order[@]}"; do
      t0=$(date +%s.%N)
      (cd "$out" && "$coz_bin" run --end-to-end --fixed-line "$loc_file:$loc_line" --fixed-speedup "$s" \
        -o "$out/coz-run.coz" --- "$dwarf4" "${args[@]}" >"$out/coz.stdout" 2>"$out/coz.stderr") ||
        echo "  coz failed: $(tail -1 "$out/coz.stderr")" >&2
      cat "$out/coz-run.coz" >>"$out/coz-$s.coz" 2>/dev/null || true
      rm -f "$out/coz-run.coz"
      echo "  coz run at $s%: $(echo "$(date +%s.%N) - $t0" | bc -l | xargs printf '%.1f') s," \
        "speedtest1's own TOTAL $(awk '/TOTAL/ { print $NF }' "$out/coz.stdout")"
    done
  done
  read -r coz _ _ cexps cbexps <<<"$(python3 "$here/../causal/predict.py" coz "$out/coz-0.coz" "$out/coz-$pc.coz" "$s_used")"
  coz_d() { awk -F'\t' '$1 == "experiment" { for (i = 2; i <= NF; i++) if ($i ~ /^duration=/) printf "%s%s", (n++ ? "," : ""), substr($i, 10) }' "$1"; }
  read -r coz_paired _ coz_values <<<"$(paired "$(coz_d "$out/coz-0.coz")" "$(coz_d "$out/coz-$pc.coz")")"
  echo "  Coz per pair of runs: 1 - sped/base = $coz_values; median $coz_paired"
fi

# --- 8. table -------------------------------------------------------------------------
pct() { awk -v v="$1" 'BEGIN { if (v == "NA" || v == "") print "NA"; else printf "%.1f", 100 * v }'; }
echo
echo "== predicted vs actual (load at the end: $(load); $(($(date +%s) - t_start)) s in all)"
printf '%-10s %-16s %-30s %-6s %-34s %-16s %s\n' program change "actual % [95%] (medians)" s_eff \
  "ours predicted % [95%] (exps)" "ours paired %" "Coz predicted % (runs) paired"
printf '%-10s %-16s %-30s %-6s %-34s %-16s %s\n' speedtest1 "$change" \
  "$(pct "$actual") [$(pct "$actual_lo"), $(pct "$actual_hi")] ($(printf '%.2f/%.2f' "$t_base" "$t_patched") s)" \
  "$(printf '%.3f' "$s_eff")" \
  "$(pct "$ours") [$(pct "$lo"), $(pct "$hi")] ($exps+$bexps)" "$(pct "$ours_paired")" \
  "$(pct "$coz") ($cexps+$cbexps) $(pct "$coz_paired")"
echo "(actual: the median over $REPS back-to-back pairs of plain runs of 1 - patched/base, its 95%"
echo " interval from order statistics; predictions at $pc%: ours on $fixed_line, ${counting[*]},"
echo " causal-report's; ours paired (end to end): median over pairs of side-by-side runs of"
echo " 1 - sped/base (net durations); Coz on $loc_file:$loc_line end to end, its viewer's arithmetic"
echo " over separate runs at $pc% and 0%)"
