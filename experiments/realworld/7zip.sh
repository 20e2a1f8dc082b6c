#!/usr/bin/env bash
# 7-Zip (Debian's 7zip source package, 7-Zip 26.01; its own makefile, -O2 -g) compressing
# with LZMA and its multi-threaded match finder (-mmt2: a hash thread and a binary-tree
# thread feed the encoder through 7-Zip's own events and semaphores), run the way a new
# user would: what sample-run and causal-run say at each step. Not one of the issue's
# predicted-against-actual programs; the steps that went wrong here are fixed, each with
# a test (docs/realworld.md, "7-Zip: a new user's first runs").
#
#   experiments/realworld/7zip.sh BUILD_DIR
#
# Input: the first 20 MB of zstd.sh's tar of /usr/include and /usr/share/doc (made here
# when missing). Steps, each printed:
#   1. sample-run: where the time goes (the binary-tree match finder's thread, ~90%);
#   2. causal-run with no progress point (it says what to add);
#   3. -n 3 --progress on the line after each 128 kB the encoder codes (LzmaEnc.c,
#      LzmaEnc_Encode2's progress call, ~40 visits a second): the focus and the ranking;
#   4. -n 2 --function GetMatchesSpecN_2 (the match finder): a curve with the minimum
#      evidence from two runs (its first sped-up experiments go to 25, 50 and 75%);
#   5. --end-to-end -n 6 in automatic mode: the pairs stay on the location the first drew;
#   6. the archive made under causal-run extracts to the input, byte for byte.
# Environment: WORK, REBUILD=1. About 3 minutes (the build 75 s).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" sample-run causal-run causal-report

need_packages build-essential
src=$(get_source 7zip)
build_dir=$WORK/7zip-build
z7=$build_dir/CPP/7zip/Bundles/Alone2/b/g/7zz
if [[ ! -x $z7 || ${REBUILD:-0} == 1 ]]; then
  log "building 7zz (debian/rules' make line, -O2 -g)"
  fresh_copy "$src" "$build_dir"
  nice make -s -j2 -C "$build_dir/CPP/7zip/Bundles/Alone2" -f ../../cmpl_gcc.mak DISABLE_RAR=1 \
    DEB_7Z_CFLAGS="-O2 -g" DEB_7Z_CXXFLAGS="-O2 -g" >/dev/null 2>&1 ||
    { echo "$0: building 7zz failed" >&2; exit 1; }
fi
tar_input=$WORK/zstd-input.tar
if [[ ! -s $tar_input ]]; then  # head ends tar with SIGPIPE: not a failure here
  (tar cf - /usr/include /usr/share/doc 2>/dev/null || true) | head -c 60000000 >"$tar_input" || true
fi
input=$WORK/7zip-input.tar
[[ -s $input ]] || head -c 20000000 "$tar_input" >"$input"
out=$WORK/7zip-results
rm -rf "$out"
mkdir -p "$out"
progress_line=$(grep -n "res = ICompressProgress_Progress(progress, p->nowPos64" \
  "$build_dir/C/LzmaEnc.c" | head -1 | cut -d: -f1)
archive=$out/out.7z
cmd=("$z7" a -bd -m0=lzma -mx5 -mmt2 "$archive" "$input")
log "plain run: $( { /usr/bin/time -f '%e s wall, %U s user' "${cmd[@]}" >/dev/null; } 2>&1)"

log "1. sample-run"
rm -f "$archive"
"$BIN/sample-run" -q -o "$out/1" -- "${cmd[@]}" >/dev/null
"$BIN/causal-report" -q "$out/1" -n 6 | sed -n '/^Functions by/,$p'

step() {
  log "$1"
  shift
  rm -f "$archive"
  "$BIN/causal-run" "$@" 2>&1 >/dev/null | grep -v "^causal-run: run [0-9]" || true
}
ranking() { "$BIN/causal-report" -q "$1" | sed -n '/^Causal profile/,$p' | cut -c1-240 | head -"$2" || true; }
step "2. no progress point" -o "$out/2" -- "${cmd[@]}"
step "3. automatic, 3 runs, --progress LzmaEnc.c:$progress_line" -n 3 \
  --progress "LzmaEnc.c:$progress_line" -o "$out/3" -- "${cmd[@]}"
ranking "$out/3" 14
step "4. --function GetMatchesSpecN_2, 2 runs" -n 2 --function GetMatchesSpecN_2 \
  --progress "LzmaEnc.c:$progress_line" -o "$out/4" -- "${cmd[@]}"
ranking "$out/4" 6
step "5. end to end, automatic, 6 runs" --end-to-end -n 6 -o "$out/5" -- "${cmd[@]}"
ranking "$out/5" 8

log "6. the last archive causal-run made, extracted"
rm -rf "$out/x"
"$z7" x -bd -o"$out/x" "$archive" >/dev/null
if cmp -s "$out/x/$(basename "$input")" "$input"; then
  echo "extracted: the same bytes as the input"
else
  echo "extracted: DIFFERENT from the input" >&2
  exit 1
fi
