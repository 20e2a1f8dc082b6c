#!/usr/bin/env bash
# x264 (Debian's x264 0.164, its own configure and Makefile) encoding a 640x360 video with
# 2 frame threads: causal-run's automatic ranking, a real change to the code it ranks
# first, and its prediction against what the change gives.
#
#   experiments/realworld/x264.sh BUILD_DIR
#
# Builds (in $WORK, experiments/realworld/work by default, git-ignored), each configured
# with --disable-asm (x264's portable C code, as on a CPU it has no assembly for: with its
# assembly the hot code would be hand-written SIMD, which no source change of ours
# would speed up) and --extra-cflags "-O2 -g" (after x264's own -O3, so -O2 wins):
#   base     as Debian ships the source;
#   patched  with x264-sad16-sse2.patch: x264_pixel_sad_16x16, the 16x16 sum of absolute
#            differences that motion search calls most (pixel.c:71, the line the automatic
#            run ranks first), takes a row of 16 pixels at once with SSE2's psadbw instead
#            of a pixel at a time (x264 builds its C with -fno-tree-vectorize); the
#            encoded stream is byte for byte the same;
#   dwarf4   base with -gdwarf-4 -gno-variable-location-views, for Coz 0.2.2.
# Workload: `x264 --threads 2` (preset medium) of FRAMES (200) synthetic frames
# (x264-input.py: a textured scene panning 2 px right and 1 px down per frame), to
# /dev/null, ~8 s of 2 cores here.
# Progress: one visit per macroblock row filtered (encoder.c:2416, the first line of
# fdec_filter_row, which every row of every frame passes: ~23 per frame, ~600 a second),
# counted by --progress (no source change).
#
# Steps as pbzip2.sh: sample-run profile; causal-run automatic (RUNS runs); the actual
# speedup (REPS back-to-back pairs of plain runs, the pairs' median and its 95% interval);
# s_eff from S_EFF_PAIRS (3) pairs of sampled runs of both builds (the SAD's lines' share
# of the samples against the rest: s_eff_of_shares in common.sh, the pairs' median); our
# prediction at s_eff fixed on pixel.c:71; Coz's at the same speedup on the same line, end
# to end (COZ_RUNS runs at s_eff and as many at 0, prediction from the median times).
#
# Environment: FRAMES (default 200), RUNS (automatic-mode runs, default 6), REPS (pairs
# of plain runs, default 10), FIXED_RUNS (default 4), COZ_RUNS (default 3), COZ (default
# coz; none leaves it out), WORK. About 12 minutes on 2 idle cores.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${REPS:=10}"  # before common.sh, whose default is 5
source "$here/common.sh"
find_build_tools "${1:-}" sample-run causal-run causal-report
runs=${RUNS:-6}
fixed_runs=${FIXED_RUNS:-4}
frames=${FRAMES:-200}
find_coz

x264_src=$(get_source x264)

# build VARIANT CFLAGS [PATCH]: $WORK/x264-VARIANT/x264
build() {
  local variant=$1 flags=$2 patch=${3:-} dir="$WORK/x264-$1"
  if [[ -x $dir/x264 && ${REBUILD:-0} != 1 ]]; then return; fi
  log "building x264 ($variant)"
  fresh_copy "$x264_src" "$dir" "$patch"
  (cd "$dir" && ./configure --disable-asm --disable-opencl --disable-lavf --disable-swscale \
    --disable-ffms --disable-gpac --disable-lsmash --bit-depth=8 --extra-cflags="$flags" >/dev/null &&
    make -s -j2 x264 >/dev/null 2>&1)
}
build base "-O2 -g"
build patched "-O2 -g" "$here/x264-sad16-sse2.patch"
build dwarf4 "-O2 -gdwarf-4 -gno-variable-location-views"

text="$WORK/pbzip2-input"  # the texture's bytes: any text will do
if [[ ! -s $text ]]; then
  tar cf - /usr/share/doc /usr/include /usr/share/perl 2>/dev/null | head -c 100000000 >"$text" || true
fi
input="$WORK/x264-input-$frames.yuv"
if [[ ! -s $input ]]; then
  log "making the $frames-frame input"
  python3 "$here/x264-input.py" "$text" "$frames" "$input"
fi
base="$WORK/x264-base/x264"
patched="$WORK/x264-patched/x264"
progress=encoder.c:2416
args=(--quiet --no-progress --threads 2 --input-res 640x360 -o /dev/null "$input")
out="$WORK/x264-results"
mkdir -p "$out"
# The changed lines: the SAD's instantiation line in the base build (the macro's code is
# all on it), the new function's lines in the patched one.
base_lines=71
patched_lines=$(seq 76 85)

# The encoded streams must be the same: the change may make the code faster, not other.
if [[ $("$base" "${args[@]:0:6}" -o - "$input" 2>/dev/null | md5sum) != \
  $("$patched" "${args[@]:0:6}" -o - "$input" 2>/dev/null | md5sum) ]]; then
  echo "$0: the patched x264 encodes differently" >&2
  exit 1
fi

profile_and_rank "$out" "$runs" "$progress" -- "$base" "${args[@]}"

log "actual speedup: $REPS back-to-back pairs of plain runs"
read -r t_base t_patched actual actual_lo actual_hi <<<"$(actual_speedup x264 "$base" "${args[@]}" -- "$patched" "${args[@]}")"
log "medians: base ${t_base}s, patched ${t_patched}s; actual speedup (median of the pairs) $(percent "$actual")% [$(percent "$actual_lo")%, $(percent "$actual_hi")%]"

# sad_share DIR base|patched: the SAD's lines' share of DIR's samples, and all sampled ns.
sad_share() {
  local share total lines=$base_lines
  [[ $2 == patched ]] && lines=$patched_lines
  # shellcheck disable=SC2086
  read -r share _ total <<<"$(share_of_lines "$1" common/pixel.c $lines)"
  echo "$share $total"
}
log "s_eff from ${S_EFF_PAIRS:-3} pairs of sampled runs of both builds, in turn"
s_eff=$(s_eff_from_pairs "$out" sad_share -- "$base" "${args[@]}" -- "$patched" "${args[@]}")
pct=$(printf %.0f "$(echo "$s_eff * 100" | bc -l)")
log "s_eff = $pct% (the median of the pairs)"

log "causal-run --line pixel.c:71 --fixed-speedup $pct, $fixed_runs runs"
rm -rf "$out/fixed"
"$BIN/causal-run" -q -o "$out/fixed" -n "$fixed_runs" --line pixel.c:71 \
  --fixed-speedup "$pct" --progress "$progress" -- "$base" "${args[@]}" >/dev/null 2>&1
read -r ours lo hi _ _ <<<"$(python3 "$here/../causal/predict.py" ours "$out/fixed" \
  "$(echo "$pct / 100" | bc -l)" "$BIN/causal-report")"
"$BIN/causal-report" "$out/fixed" | sed -n '/^Causal profile/,$p'

coz_pred=NA
if ((have_coz)); then
  log "coz run --end-to-end --fixed-line pixel.c:71, ${COZ_RUNS:-3} runs at $pct% and at 0"
  coz_pred=$(coz_end_to_end x264 pixel.c:71 "$pct" "${COZ_RUNS:-3}" "$out" -- "$WORK/x264-dwarf4/x264" "${args[@]}")
fi

echo
echo "program  change                     actual% [95% interval]  s_eff%  ours% [95% interval]      coz%"
printf "x264     SAD 16x16 with psadbw     %7s [%s, %s]  %6s  %5s [%s, %s]  %8s\n" "$(percent "$actual")" \
  "$(percent "$actual_lo")" "$(percent "$actual_hi")" "$pct" "$(percent "$ours")" "$(percent "$lo")" "$(percent "$hi")" "$(percent "$coz_pred")"
