#!/usr/bin/env bash
# zstd (Debian's libzstd 1.5.4 source package, its own Makefile, -O2 -g) compressing with
# two worker threads, run the way a new user would: what causal-run says at each step.
# Not one of the issue's predicted-against-actual programs; the steps that went wrong here
# are fixed, each with a test (docs/realworld.md, "zstd: a new user's first runs").
#
#   experiments/realworld/zstd.sh BUILD_DIR
#
# Input: 60 MB of a tar of /usr/include and /usr/share/doc. Steps, each printed:
#   1. causal-run with no progress point (it says what to add);
#   2. --end-to-end -n 2 in automatic mode (it says how many runs a curve needs);
#   3. -n 3 --progress on the line that ends a 128 kB block (zstd_compress.c, `op += cSize`,
#      ~150 visits a second): the focus after each run;
#   4. --line zstd_lazy.c:65, the line the function table names ZSTD_insertDUBT1 by;
#   5. --end-to-end -n 4 with the input on standard input (each run reads all of it).
# Environment: LEVEL (default 15), WORK. About 2 minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" causal-run causal-report
level=${LEVEL:-15}

src=$(get_source libzstd)
zstd="$WORK/zstd-build/programs/zstd"
if [[ ! -x $zstd || ${REBUILD:-0} == 1 ]]; then
  log "building zstd"
  fresh_copy "$src" "$WORK/zstd-build"
  make -s -j2 -C "$WORK/zstd-build/programs" zstd MOREFLAGS="-O2 -g" >/dev/null 2>&1
fi
input="$WORK/zstd-input.tar"
if [[ ! -s $input ]]; then  # head ends tar with SIGPIPE: not a failure here
  (tar cf - /usr/include /usr/share/doc 2>/dev/null || true) | head -c 60000000 >"$input" || true
fi
out="$WORK/zstd-results"
mkdir -p "$out"
block_line=$(grep -n "op += cSize;" "$WORK/zstd-build/lib/compress/zstd_compress.c" |
  awk -F: '$1 > 4300 { print $1; exit }')
cmd=("$zstd" -T2 "-$level" -f -q "$input" -o "$out/out.zst")

step() { log "$1"; shift; "$BIN/causal-run" "$@" 2>&1 | grep -v "^causal-run: run [0-9]" || true; }
step "1. no progress point" -o "$out/1" -- "${cmd[@]}"
step "2. end to end, automatic, 2 runs" --end-to-end -n 2 -o "$out/2" -- "${cmd[@]}"
step "3. automatic, 3 runs, --progress zstd_compress.c:$block_line" -n 3 \
  --progress "zstd_compress.c:$block_line" -o "$out/3" -- "${cmd[@]}"
"$BIN/causal-report" -q "$out/3" | sed -n '/^Causal profile/,$p' | head -12 || true
step "4. --line zstd_lazy.c:65 (ZSTD_insertDUBT1 in the function table)" --line zstd_lazy.c:65 \
  --fixed-speedup 50 --progress "zstd_compress.c:$block_line" -o "$out/4" -- "${cmd[@]}"
log "5. end to end, 4 runs, the input on standard input"
"$BIN/causal-run" --end-to-end -n 4 --fixed-speedup 50 --line zstd_lazy.c:65 -o "$out/5" -- \
  "$zstd" -T2 "-$level" -c <"$input" 2>&1 >/dev/null | grep -v "^causal-run: run [0-9]" || true
rm -f "$out/5.db"
"$BIN/causal-report" -q -f sqlite -o "$out/5.db" "$out/5"
echo "run lengths (ms): $(sqlite3 "$out/5.db" "select group_concat(duration_ns / 1000000, ' ') from (select duration_ns from experiments order by time_ns)")"
