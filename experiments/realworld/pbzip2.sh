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
#   patched  the same with pbzip2-mainGtU-words.patch on bzip2: mainGtU, the suffix
#            comparison of the block sort, compares its first 12 bytes as one 8-byte and one
#            4-byte big-endian word instead of byte by byte (the loop after is unchanged);
#   dwarf4   base with -gdwarf-4, for Coz 0.2.2, whose DWARF reader knows only version 4.
# Workload: `pbzip2 -p2 -c` of the first 100 MB of a tar of /usr/share/doc, /usr/include and
# /usr/share/perl (text, as bzip2 is used for), to /dev/null, ~5-10 s of 2 cores here.
# Progress: one visit per compressed block written (pbzip2.cpp's output loop, line 1734:
# `CompressedSize += ret;`), counted by --progress (no source change).
#
# Steps: sample-run profile; causal-run automatic (RUNS runs into one directory); the
# actual speedup of the change (REPS interleaved plain runs of each build, medians); s_eff
# from the sampled profiles of both builds (self time of mainGtU's lines per run); our
# prediction at s_eff fixed on the changed lines (--line blocksort.c:358-394, one location);
# Coz's at the same speedup and line range start (Coz takes one line).
#
# Environment: RUNS (automatic-mode runs, default 3), REPS (default 5), FIXED_RUNS (runs of
# the fixed prediction, default 3), COZ (default coz; none leaves it out), WORK.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" sample-run causal-run causal-report
runs=${RUNS:-3}
fixed_runs=${FIXED_RUNS:-3}
coz_bin=${COZ:-coz}

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
build base "-O2 -g"
build patched "-O2 -g" "$here/pbzip2-mainGtU-words.patch"
build dwarf4 "-O2 -gdwarf-4"

input="$WORK/pbzip2-input"
if [[ ! -s $input ]]; then
  log "making the 100 MB input"
  tar cf - /usr/share/doc /usr/include /usr/share/perl 2>/dev/null | head -c 100000000 >"$input" || true
fi
base="$WORK/pbzip2-base/pbzip2/pbzip2"
patched="$WORK/pbzip2-patched/pbzip2/pbzip2"
progress=pbzip2.cpp:1734
# The changed lines: the 12 byte comparisons at the head of mainGtU.
changed_first=358
changed_last=394
args=(-p2 -c -f "$input")
out="$WORK/pbzip2-results"
mkdir -p "$out"

log "sample-run (base)"
rm -rf "$out/sample-base" "$out/sample-patched"
"$BIN/sample-run" -q -o "$out/sample-base" -- "$base" "${args[@]}" >/dev/null
"$BIN/causal-report" "$out/sample-base" -n 12

log "causal-run, automatic, $runs runs"
rm -rf "$out/auto"
time_auto=$(date +%s)
"$BIN/causal-run" -o "$out/auto" -n "$runs" --progress "$progress" -- "$base" "${args[@]}" >/dev/null
log "automatic mode took $(($(date +%s) - time_auto)) s"
"$BIN/causal-report" "$out/auto" -n 10 | sed -n '/^Causal profile/,$p'
