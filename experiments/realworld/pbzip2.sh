#!/usr/bin/env bash
# pbzip2 (Debian's pbzip2 1.1.13 with bzip2 1.0.8's libbz2, both from their source
# packages) compressing 100 MB of text with 2 threads: causal-run's automatic ranking, a
# real change to the code it ranks high, and its prediction against what the change gives.
#
#   experiments/realworld/pbzip2.sh BUILD_DIR
#
# Builds (in $WORK, experiments/realworld/work by default, git-ignored), each with -O2 -g:
#   base     libbz2.a with bzip2's own Makefile, pbzip2 with its own Makefile, linked
#            statically against that libbz2.a (Debian links the shared system libbz2, which
#            has no debug info and is not the program's own code for automatic selection);
#   patched  the same with CHANGE's patch on bzip2 (patched-CHANGE):
#            mtf (default)  pbzip2-mtf-memchr.patch: the move-to-front step of
#                     generateMTFValues (compress.c:193-205, the lines the automatic run
#                     ranks first and second with -b1) finds the symbol with memchr and
#                     shifts the entries before it with memmove instead of a byte loop;
#                     the output is byte for byte the same;
#            mainGtU  pbzip2-mainGtU-words.patch: mainGtU, the suffix comparison of the
#                     block sort, compares its first 12 bytes as one 8-byte and one
#                     4-byte big-endian word instead of byte by byte;
#   dwarf4   base with -gdwarf-4 -gno-variable-location-views, for Coz 0.2.2, whose DWARF
#            reader knows only version 4 and no location views.
# Workload: `pbzip2 -p2 -b1 -c` of the first 100 MB of a tar of /usr/share/doc, /usr/include and
# /usr/share/perl (text, as bzip2 is used for), to /dev/null, ~5-10 s of 2 cores here.
# Progress: one visit per compressed block written (pbzip2.cpp's output loop, line 1734:
# `CompressedSize += ret;`), counted by --progress (no source change).
#
# Steps: sample-run profile; causal-run automatic (RUNS runs into one directory); the
# actual speedup of the change (REPS back-to-back pairs of plain runs, the pairs' median);
# s_eff from S_EFF_PAIRS pairs of sampled runs of both builds (the changed lines' share of
# the samples, plus for mtf the share generateMTFValues spends in memchr and memmove,
# against the rest of the program: s_eff_from_pairs in common.sh, the pairs' median); our
# prediction at s_eff fixed on the changed lines (--line FILE:FIRST-LAST, one location);
# Coz's at the same speedup on the block's hottest line (Coz takes one line), end to end
# (Coz 0.2.2 has no progress point without a source change): COZ_RUNS runs at s_eff and as
# many at 0, prediction from the median run times.
#
# Environment: CHANGE (mtf or mainGtU, above), BLOCK (pbzip2's -b, the block size in
# 100 kB, default 1: nine times as many blocks as bzip2's own -b9, so the progress point
# is visited ~9 times as often and each 100 ms experiment sees ~13 visits, not ~1.5),
# RUNS (automatic-mode runs, default 6),
# REPS (pairs of plain runs, default 5), FIXED_RUNS (runs of the fixed prediction,
# default 3), S_EFF_PAIRS (pairs of profiled runs for s_eff, default 3), COZ_RUNS
# (default 3), COZ (default coz; none leaves it out), WORK. About
# 10 minutes on 2 idle cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" sample-run causal-run causal-report
runs=${RUNS:-6}
fixed_runs=${FIXED_RUNS:-3}
find_coz

bzip2_src=$(get_source bzip2)
pbzip2_src=$(get_source pbzip2)

# build VARIANT CFLAGS [PATCH]: $WORK/pbzip2-VARIANT/pbzip2
build() {
  local variant=$1 flags=$2 patch=${3:-} dir="$WORK/pbzip2-$1"
  if [[ -x $dir/pbzip2/pbzip2 && ${REBUILD:-0} != 1 ]]; then return; fi
  log "building pbzip2 ($variant)"
  mkdir -p "$dir"
  fresh_copy "$bzip2_src" "$dir/bzip2" "$patch"
  fresh_copy "$pbzip2_src" "$dir/pbzip2"
  make -s -C "$dir/bzip2" libbz2.a CFLAGS="$flags -D_FILE_OFFSET_BITS=64" >/dev/null
  make -s -C "$dir/pbzip2" pbzip2 CXXFLAGS="$flags -I$dir/bzip2" \
    LDFLAGS="-L$dir/bzip2" LDLIBS="$dir/bzip2/libbz2.a -lpthread" >/dev/null
}
# The change: its patch, the changed lines in each build, and the one location causal-run
# is fixed on (the base build's lines).
change=${CHANGE:-mtf}
case $change in
  mtf)
    patch_file=$here/pbzip2-mtf-memchr.patch change_file=compress.c
    base_lines=$(seq 193 205) patched_lines=$(seq 195 198) fixed_line=compress.c:193-205
    callees=(memchr memmove) change_name="MTF memchr/memmove" ;;
  mainGtU)
    patch_file=$here/pbzip2-mainGtU-words.patch change_file=blocksort.c
    base_lines=$(seq 358 407) patched_lines=$(seq 359 375) fixed_line=blocksort.c:358-407
    callees=() change_name="mainGtU word compare" ;;
  *) echo "$0: CHANGE=$change: expected mtf or mainGtU" >&2; exit 1 ;;
esac
build base "-O2 -g"
build "patched-$change" "-O2 -g" "$patch_file"
build dwarf4 "-O2 -gdwarf-4 -gno-variable-location-views"

input="$WORK/pbzip2-input"
if [[ ! -s $input ]]; then
  log "making the 100 MB input"
  tar cf - /usr/share/doc /usr/include /usr/share/perl 2>/dev/null | head -c 100000000 >"$input" || true
fi
base="$WORK/pbzip2-base/pbzip2/pbzip2"
patched="$WORK/pbzip2-patched-$change/pbzip2/pbzip2"
progress=pbzip2.cpp:1734
args=(-p2 "-b${BLOCK:-1}" -c -f "$input")
out="$WORK/pbzip2-results"
mkdir -p "$out"

profile_and_rank "$out" "$runs" "$progress" -- "$base" "${args[@]}"

log "actual speedup: $REPS back-to-back pairs of plain runs"
read -r t_base t_patched actual actual_lo actual_hi <<<"$(actual_speedup pbzip2 "$base" "${args[@]}" -- "$patched" "${args[@]}")"
log "medians: base ${t_base}s, patched ${t_patched}s; actual speedup (median of the pairs) $(percent "$actual")% [$(percent "$actual_lo")%, $(percent "$actual_hi")%]"

# changed_share DIR base|patched: the changed lines' share of DIR's samples (in the
# patched build with generateMTFValues' time in memchr and memmove, the changed code's
# library calls), and all sampled ns.
changed_share() {
  local share total extra=0 lines=$base_lines
  [[ $2 == patched ]] && lines=$patched_lines
  # shellcheck disable=SC2086
  read -r share _ total <<<"$(share_of_lines "$1" "$change_file" $lines)"
  if [[ $2 == patched ]] && ((${#callees[@]})); then
    read -r extra _ <<<"$("$BIN/causal-report" "$1" --view tree --format json -n 0 |
      python3 "$here/callees_share.py" generateMTFValues "${callees[@]}")"
  fi
  awk -v a="$share" -v b="$extra" -v t="$total" 'BEGIN { printf "%.6f %s\n", a + b, t }'
}
log "s_eff from ${S_EFF_PAIRS:-3} pairs of sampled runs of both builds, in turn"
s_eff=$(s_eff_from_pairs "$out" changed_share -- "$base" "${args[@]}" -- "$patched" "${args[@]}")
pct=$(printf %.0f "$(echo "$s_eff * 100" | bc -l)")
log "s_eff = $pct% (the median of the pairs)"

log "causal-run --line $fixed_line --fixed-speedup $pct, $fixed_runs runs"
rm -rf "$out/fixed"
"$BIN/causal-run" -q -o "$out/fixed" -n "$fixed_runs" --line "$fixed_line" \
  --fixed-speedup "$pct" --progress "$progress" -- "$base" "${args[@]}" >/dev/null
read -r ours lo hi exps bexps <<<"$(python3 "$here/../causal/predict.py" ours "$out/fixed" \
  "$(echo "$pct / 100" | bc -l)" "$BIN/causal-report")"
"$BIN/causal-report" "$out/fixed" | sed -n '/^Causal profile/,$p'

coz_pred=NA
if ((have_coz)); then
  # The block's line with the most samples in the base profile: Coz speeds up one line.
  # shellcheck disable=SC2086
  coz_line=$("$BIN/causal-report" "$out/sample-base" --format json -n 0 | python3 -c '
import json, sys
want = sys.argv[1]
lines = {int(x) for x in sys.argv[2:]}
rows = [r for r in json.load(sys.stdin)["profile"]["lines"]
        if r["file"].endswith(want) and r["line"] in lines]
print(max(rows, key=lambda r: r["self"]["time_ns"])["line"] if rows else min(lines))' "$change_file" $base_lines)
  log "coz run --end-to-end --fixed-line $change_file:$coz_line, ${COZ_RUNS:-3} runs at $pct% and at 0"
  coz_pred=$(coz_end_to_end pbzip2 "$change_file:$coz_line" "$pct" "${COZ_RUNS:-3}" "$out" -- "$WORK/pbzip2-dwarf4/pbzip2/pbzip2" "${args[@]}")
fi

echo
echo "program  change                     actual% [95% interval]  s_eff%  ours% [95% interval]      coz%"
printf "pbzip2   %-24s  %7s [%s, %s]  %6s  %5s [%s, %s]  %8s\n" "$change_name" "$(percent "$actual")" "$(percent "$actual_lo")" "$(percent "$actual_hi")" "$pct" \
  "$(percent "$ours")" "$(percent "$lo")" "$(percent "$hi")" "$(percent "$coz_pred")"
