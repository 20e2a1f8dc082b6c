#!/usr/bin/env bash
# causal-run on a real program: memcached (Debian's source, its own build system) under a
# bounded memaslap load on loopback, with sample-run, causal-run (automatic, then at one
# change's effective speedup) and Coz, against what a real change to the code gives.
#
#   experiments/realworld/memcached.sh BUILD_DIR        (e.g. build; run as root)
#
# What it does (every server on 127.0.0.1 and a free port, `-t 2` worker threads, no UDP;
# every load bounded in count or time and by `timeout`; a trap stops what it started):
#  1. `get_source memcached` (1.6.18 in bookworm), built with ./configure + make and
#     CFLAGS="-O2 -g" in $WORK/memcached-base; the patched copy (fresh_copy + patch -p1)
#     in $WORK/memcached-patched; a Coz copy (below) in $WORK/memcached-coz.
#  2. Load: memaslap (`memcaslap`, libmemcached-tools; memtier-benchmark is not in
#     bookworm): 2 threads, 32 connections, 90% get / 10% set, either OPS requests (plain
#     and sampled runs) or LOAD_S seconds (causal and Coz runs: the server is stopped
#     while the load still runs, so that no experiment runs on an idle server).
#  3. Progress point: `--progress proto_text.c:208`, `out_string(c, "STORED")` in
#     complete_nread_ascii, where a set's response is finished (no source change). It
#     counts sets only: memaslap keeps its 9:1 get/set mix, so sets served are a fixed
#     tenth of requests served. A line that every response passes (resp_finish,
#     memcached.c:1208) would count them all, but on this VM hardware breakpoints count
#     nothing and causal-run falls back to uprobes at ~19 us per visit: at ~45,000
#     responses/s that is most of a core (memaslap's throughput halves, and the uprobe's
#     time lands on resp_finish, which the automatic run then ranks first); sets cost a
#     tenth of that (~5,000 visits/s, ~10% of a core). PROGRESS=FILE:LINE overrides.
#  4. sample-run of the base build under OPS requests: top functions and lines.
#  5. causal-run, automatic (by line), under LOAD_S s of load: the ranked report. After
#     each causal run, from its sqlite export: per speedup, the delays the experiments
#     inserted against s * P * selected samples (what a virtual speedup should insert),
#     and the progress rate per wall and per effective second.
#  6. The change, memcached-item-remove-lock.patch: the Coz paper's (SOSP'15, +9.4% on
#     memcached 1.4): item_remove drops its reference without the item lock (and without
#     hashing the key for it), the refcount made atomic. Its changed code is item_remove
#     with its inlined item_lock/item_unlock: Coz's thread.c:122 lock site, ranked by the
#     automatic run when it draws it. Then
#     (a) actual: REPS interleaved plain runs of each build serving OPS requests
#         (actual_speedup: elapsed time; speedup = the median of the pairs'
#         1 - patched/base, with its 95% interval);
#     (b) s_eff = 1 - C_patched / C_base, C = sampled time per request of the samples
#         whose stack holds item_remove or do_item_remove (any frame, as causal-run
#         selects a --function location's samples: callees included; the patched
#         item_remove tail-calls do_item_remove, so its frame is gone from those stacks,
#         and its atomic decrement is do_item_remove's), memcached-share.py; both builds
#         sampled at 1000 Hz under the same OPS requests. Not in it: the atomic
#         refcount_incr of the other sites (item_get's), which the change also touches;
#     (c) ours: causal-run --function '^item_remove$' --fixed-speedup 100*s_eff
#         --progress PROGRESS on the base build (LOAD_S s), read with predict.py;
#     (d) Coz: Coz 0.2.2 has no breakpoint progress points (`coz run --progress` says
#         "NOT SUPPORTED"), so its copy adds one COZ_PROGRESS on the same line
#         (memcached-coz-progress.patch: proto_text.c:208 stays line 208, <coz.h> comes
#         through proto_text.h), built with -gdwarf-4 -gno-variable-location-views (Coz
#         reads DWARF 4 only, and skips a unit's line table, thread.c's among them, on
#         GCC's location views: "Fixed line thread.c:122 was not found") and without
#         memcached's -Werror (coz.h's static helper is unused in the other files).
#         Coz has line locations only: --fixed-line thread.c:122, item_lock's lock call,
#         which item_remove inlines but so do item_get and the other lock takers, so Coz's
#         location is wider than the change. A `--fixed-speedup 0` run is its baseline.
#  7. A table: program, change, actual %, s_eff, ours % [95% interval], Coz %.
#
# Environment (and common.sh's WORK, COZ, REPS): OPS (requests per plain/sampled run,
# default 1000000, ~10-15 s here), LOAD_S (seconds of load per causal/Coz run, default
# 30), PROGRESS (default proto_text.c:208). Results under $WORK/memcached-results.
# Needs root (apt-get, uprobes, memcached -u root). Takes ~10 min on the 2-core VM
# (three builds ~2 min, six tool runs ~3 min, 2*REPS plain runs ~3 min). Never runs two
# workloads at once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
find_build_tools "${1:-}" sample-run causal-run causal-report
root=$(cd "$here/../.." && pwd)
OPS=${OPS:-1000000}
LOAD_S=${LOAD_S:-30}
PROGRESS=${PROGRESS:-proto_text.c:208}
find_coz
change=item-remove-lock
patch_change=$here/memcached-$change.patch
patch_coz=$here/memcached-coz-progress.patch
ours_loc='^item_remove$'                      # causal-run's location of the change
coz_line=thread.c:122                         # Coz's (lines only)
share_functions=(item_remove do_item_remove)

need_packages build-essential pkg-config libevent-dev libmemcached-tools iproute2 bc python3
src=$(get_source memcached)
res=$WORK/memcached-results
rm -rf "$res"
mkdir -p "$res"

# --- servers and load -------------------------------------------------------------
TPS=""
bg_pid=""    # the tool (or memcached) started in the background, while one runs
load_pid=""  # memaslap, while it runs in the background
port=""
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
mc_args() { echo "-U 0 -l 127.0.0.1 -p $1 -t 2 -m 256 -c 1024 -u root"; }
listener_pid() { ss -Hltnp "sport = :$1" 2>/dev/null | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2; }
stop_server() {  # stops the server on $port, then waits (bounded) for $bg_pid
  local lp i
  [[ -z $bg_pid ]] && return 0
  lp=$(listener_pid "$port" || true)
  [[ -n $lp ]] && kill -TERM "$lp" 2>/dev/null || true
  for ((i = 0; i < 600; i++)); do
    kill -0 "$bg_pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$bg_pid" 2>/dev/null; then
    log "pid $bg_pid still runs 60 s after SIGTERM to the server: killing it"
    lp=$(listener_pid "$port" || true)
    [[ -n $lp ]] && kill -KILL "$lp" 2>/dev/null || true
    kill -KILL "$bg_pid" 2>/dev/null || true
  fi
  wait "$bg_pid" 2>/dev/null || true
  bg_pid=""
}
stop_load() {  # ends a background memaslap (bounded)
  local i
  [[ -z $load_pid ]] && return 0
  for ((i = 0; i < 50; i++)); do
    kill -0 "$load_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -TERM "$load_pid" 2>/dev/null || true
  wait "$load_pid" 2>/dev/null || true
  load_pid=""
}
cleanup() { stop_server; stop_load; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# serve NAME LOAD -- CMD...: starts CMD (a server on $port, set by the caller) in the
# background and waits until it listens (60 s at most). LOAD "count N": memaslap serves
# N requests, then the server is stopped; sets TPS (memaslap's). LOAD "time S": memaslap
# runs in the background, and after S seconds the server is stopped under load (memaslap
# is then ended), so that no experiment runs on an idle server (memcached takes up to
# 1 s to exit after SIGTERM: with the load stopped first, those were experiments without
# progress; TPS stays empty). Returns 1 (after cleaning up) if the server does not start.
# Logs: $res/NAME.{tool,load}.log; the time to listen goes to $res/startup.txt.
serve() {
  local name=$1 kind=$2 amount=$3 t0 i
  shift 3
  [[ $1 == -- ]] && shift
  trap cleanup EXIT  # also in a subshell (actual_speedup's runs)
  TPS=""
  t0=$(date +%s.%N)
  "$@" >"$res/$name.tool.log" 2>&1 &
  bg_pid=$!
  for ((i = 0; i < 600; i++)); do
    [[ -n $(listener_pid "$port") ]] && break
    if ! kill -0 "$bg_pid" 2>/dev/null; then
      echo "$0: $name: the server exited before it listened:" >&2
      grep -v '^$' "$res/$name.tool.log" | tail -3 >&2
      wait "$bg_pid" 2>/dev/null || true
      bg_pid=""
      return 1
    fi
    sleep 0.1
  done
  if [[ -z $(listener_pid "$port") ]]; then
    echo "$0: $name: no server on port $port after 60 s" >&2
    stop_server
    return 1
  fi
  echo "$name: listening after $(echo "$(date +%s.%N) - $t0" | bc -l | xargs printf '%.2f') s" >>"$res/startup.txt"
  if [[ $kind == count ]]; then
    timeout $((LOAD_S * 4 + 120)) memcaslap -s "127.0.0.1:$port" -T 2 -c 32 -x "$amount" >"$res/$name.load.log" 2>&1 ||
      { echo "$0: $name: memaslap failed or timed out:" >&2; tail -3 "$res/$name.load.log" >&2; }
    stop_server
    TPS=$(grep -o 'TPS: [0-9]*' "$res/$name.load.log" | tail -1 | cut -d' ' -f2 || true)
  else
    timeout $((amount + 90)) memcaslap -s "127.0.0.1:$port" -T 2 -c 32 -t "$((amount + 60))s" \
      >"$res/$name.load.log" 2>&1 &
    load_pid=$!
    sleep "$amount"
    kill -0 "$load_pid" 2>/dev/null || { echo "$0: $name: memaslap ended early:" >&2; tail -3 "$res/$name.load.log" >&2; }
    stop_server
    stop_load
  fi
}

# plain BUILD_DIR: one plain run serving OPS requests (for actual_speedup's timing).
plain() {
  port=$(free_port)
  serve "plain-$(basename "$1")" count "$OPS" -- "$1/memcached" $(mc_args "$port")
}

# --- builds --------------------------------------------------------------------------
# build DIR PATCH CFLAGS [MAKE_CFLAGS]: a fresh copy of the source with PATCH (or none),
# ./configure CFLAGS=... && make memcached; MAKE_CFLAGS replaces configure's CFLAGS in make
# (the Coz copy: no -Werror). Reuses DIR when its stamp (patch, flags) matches.
build() {
  local dir=$1 patch=$2 cflags=$3 make_cflags=${4:-} stamp
  stamp="${patch:+$(md5sum <"$patch" | cut -c1-12)} $cflags | $make_cflags"
  if [[ -x $dir/memcached && -f $dir/.cprof-stamp && $(cat "$dir/.cprof-stamp") == "$stamp" ]]; then
    log "reusing $dir"
    return
  fi
  log "building $(basename "$dir") (CFLAGS=\"$cflags\"${patch:+, $(basename "$patch")})"
  fresh_copy "$src" "$dir" "$patch"
  (
    cd "$dir"
    ./configure CFLAGS="$cflags" >build.log 2>&1
    if [[ -n $make_cflags ]]; then
      make -j2 memcached CFLAGS="$make_cflags" >>build.log 2>&1
    else
      make -j2 memcached >>build.log 2>&1
    fi
  ) || { echo "$0: building $dir failed:" >&2; tail -20 "$dir/build.log" >&2; exit 1; }
  echo "$stamp" >"$dir/.cprof-stamp"
}
base=$WORK/memcached-base
patched=$WORK/memcached-patched
cozb=$WORK/memcached-coz
build "$base" "" "-O2 -g"
build "$patched" "$patch_change" "-O2 -g"
if ((have_coz)); then
  build "$cozb" "$patch_coz" "-O2 -gdwarf-4 -gno-variable-location-views" \
    "-O2 -gdwarf-4 -gno-variable-location-views -pthread -Wall"
fi

echo "memcached.sh: $(basename "$src"), memaslap 2 threads x 32 connections; OPS=$OPS, LOAD_S=$LOAD_S," \
  "REPS=$REPS, progress $PROGRESS; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "progress line $PROGRESS: $(sed -n "${PROGRESS##*:}p" "$base/${PROGRESS%%:*}" | sed 's/^ *//')"

# progress_summary DIR: the progress point's visits over the experiments, per second.
progress_summary() {
  "$BIN/causal-report" "$1" --format coz -q 2>/dev/null | awk -F'\t' '
    $1 == "experiment" { for (i = 2; i <= NF; i++) if ($i ~ /^duration=/) d += substr($i, 10) }
    $1 == "throughput-point" { for (i = 2; i <= NF; i++) if ($i ~ /^delta=/) v += substr($i, 7) }
    END { printf "%d visits in %.1f s of experiments (%.0f/s)\n", v, d / 1e9, (d > 0) ? v / (d / 1e9) : 0 }'
}

# delay_check DIR: per speedup, the experiments' delays against s * P * selected samples
# (what the virtual speedup should insert), and the progress rate per wall and per
# effective (wall - delay) second; experiments without a visit. From the sqlite export.
delay_check() {
  rm -f "$1.db"
  "$BIN/causal-report" "$1" --format sqlite -o "$1.db" -q 2>/dev/null || { echo "(no sqlite export)"; return 0; }
  python3 - "$1.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = """SELECT e.speedup, COUNT(*), SUM(e.selected_samples), SUM(e.delay_ns),
       SUM(e.speedup * e.period_ns * e.selected_samples), SUM(e.duration_ns), SUM(e.effective_ns),
       SUM(p.visits), SUM(p.visits = 0)
       FROM experiments e JOIN progress p ON p.experiment_id = e.id GROUP BY e.speedup ORDER BY e.speedup"""
for s, n, sel, delay, expect, dur, eff, visits, idle in c.execute(q):
    if s == 0 and not delay:
        print("  speedup 0%%: %d experiments, %d without a visit; %.0f visits/s" % (n, idle, visits / (dur / 1e9)))
    else:
        print("  speedup %.0f%%: %d experiments (%d selected samples), %d without a visit: delays %.1f ms"
              " (s*P*selected: %.1f ms); %.0f visits/s per wall s, %.0f per effective s"
              % (100 * s, n, sel, idle, delay / 1e6, expect / 1e6, visits / (dur / 1e9), visits / (eff / 1e9)))
PY
}

# --- 4. sampled profile ------------------------------------------------------------
echo
echo "== sample-run -f 1000 of the base build, $OPS requests"
port=$(free_port)
serve sample-base count "$OPS" -- "$BIN/sample-run" -f 1000 -o "$res/sample-base" -- "$base/memcached" $(mc_args "$port")
echo "memaslap: $TPS requests/s under sample-run"
"$BIN/causal-report" "$res/sample-base" -n 15 -q
"$BIN/causal-report" "$res/sample-base" --by line -n 15 -q | sed -n '/^Lines/,$p'

# --- 5. automatic causal run -----------------------------------------------------------
echo
echo "== causal-run (automatic, by line) --progress $PROGRESS, $LOAD_S s of load"
port=$(free_port)
serve causal-auto time "$LOAD_S" -- "$BIN/causal-run" --progress "$PROGRESS" -o "$res/causal-auto" \
  -- "$base/memcached" $(mc_args "$port")
cat "$res/causal-auto.tool.log"
echo "progress point: $(progress_summary "$res/causal-auto")"
delay_check "$res/causal-auto"
"$BIN/causal-report" "$res/causal-auto" -q

# --- 6. the change -------------------------------------------------------------------
echo
echo "== change $change ($(basename "$patch_change"))"
port=$(free_port)
serve sample-patched count "$OPS" -- "$BIN/sample-run" -f 1000 -o "$res/sample-patched" \
  -- "$patched/memcached" $(mc_args "$port")
echo "memaslap: $TPS requests/s, patched build under sample-run"
tree_share() {  # DIR: "SHARE TIME_NS" of the change's code
  "$BIN/causal-report" "$1" --view tree --format json -q | python3 "$here/memcached-share.py" "${share_functions[@]}"
}
read -r share_b time_b <<<"$(tree_share "$res/sample-base")"
read -r share_p time_p <<<"$(tree_share "$res/sample-patched")"
s_eff=$(awk -v b="$time_b" -v p="$time_p" 'BEGIN { s = b > 0 ? 1 - p / b : 0; if (s < 0) s = 0; printf "%.2f", s }')
pc=$(awk -v s="$s_eff" 'BEGIN { printf "%d", s * 100 + 0.5 }')
echo "s_eff: samples with ${share_functions[*]} on the stack: base $((time_b / 1000000)) ms" \
  "($(awk -v s="$share_b" 'BEGIN { printf "%.2f", 100 * s }')% of samples, $(awk -v t="$time_b" -v n="$OPS" 'BEGIN { printf "%.0f", t / n }') ns/request)," \
  "patched $((time_p / 1000000)) ms ($(awk -v s="$share_p" 'BEGIN { printf "%.2f", 100 * s }')% of samples, $(awk -v t="$time_p" -v n="$OPS" 'BEGIN { printf "%.0f", t / n }') ns/request): s_eff = $s_eff"

ours="NA" lo="NA" hi="NA" oexps="0" obexps="0"
if ((pc > 0)); then
  echo
  echo "== causal-run --function '$ours_loc' --fixed-speedup $pc --progress $PROGRESS, $LOAD_S s of load"
  port=$(free_port)
  serve causal-fixed time "$LOAD_S" -- "$BIN/causal-run" --function "$ours_loc" --fixed-speedup "$pc" \
    --progress "$PROGRESS" -o "$res/causal-fixed" -- "$base/memcached" $(mc_args "$port")
  cat "$res/causal-fixed.tool.log"
  echo "progress point: $(progress_summary "$res/causal-fixed")"
  delay_check "$res/causal-fixed"
  "$BIN/causal-report" "$res/causal-fixed" -q | sed -n '/^Causal profile/,$p'
  read -r ours lo hi oexps obexps <<<"$(python3 "$root/experiments/causal/predict.py" ours "$res/causal-fixed" \
    "$(awk -v p="$pc" 'BEGIN { print p / 100 }')" "$BIN/causal-report" 2>/dev/null || echo NA NA NA 0 0)"
fi

coz="NA" cexps=0 cbexps=0
if ((have_coz && pc > 0)); then
  for s in "$pc" 0; do
    echo
    echo "== coz run --fixed-line $coz_line --fixed-speedup $s (COZ_PROGRESS at proto_text.c:208), $LOAD_S s of load"
    port=$(free_port)
    serve "coz-$s" time "$LOAD_S" -- "$coz_bin" run --fixed-line "$coz_line" --fixed-speedup "$s" \
      -o "$res/coz-$s.coz" --- "$cozb/memcached" $(mc_args "$port") || echo "coz run failed (above)"
    echo "$(grep -c '^experiment' "$res/coz-$s.coz" 2>/dev/null || echo 0) experiments;" \
      "progress visits $(awk -F'\t' '$1 == "throughput-point" { for (i = 2; i <= NF; i++) if ($i ~ /^delta=/) v += substr($i, 7) } END { print v + 0 }' "$res/coz-$s.coz" 2>/dev/null)"
    grep -v '^$' "$res/coz-$s.tool.log" | tail -3 || true
  done
  read -r coz _ _ cexps cbexps <<<"$(python3 "$root/experiments/causal/predict.py" coz "$res/coz-0.coz" "$res/coz-$pc.coz" \
    "$(awk -v p="$pc" 'BEGIN { print p / 100 }')" 2>/dev/null || echo NA NA NA 0 0)"
fi

echo
echo "== actual: $REPS interleaved plain runs per build, $OPS requests each (elapsed s)"
read -r t_base t_patched actual actual_lo actual_hi <<<"$(actual_speedup memcached plain "$base" -- plain "$patched")"
echo "base:    $(tr '\n' ' ' <"$WORK/memcached-base.times")-> median $t_base s"
echo "patched: $(tr '\n' ' ' <"$WORK/memcached-patched.times")-> median $t_patched s"
# actual is the pairs' median already; their spread, from the pairs actual_speedup kept.
read -r _ pair_min pair_max _ <<<"$(awk '{ print 1 - $2 / $1 }' "$WORK/memcached.pairs" | stats)"
pc1() { [[ $1 == NA ]] && echo NA || awk -v v="$1" 'BEGIN { printf "%+.1f%%", 100 * v }'; }
echo "per pair (1 - patched/base of each back-to-back pair): median $(pc1 "$actual")" \
  "[$(pc1 "$actual_lo"), $(pc1 "$actual_hi")], min $(pc1 "$pair_min"), max $(pc1 "$pair_max")"
echo "startup (time to listen): $(awk '{ print $(NF - 1) }' "$res/startup.txt" | sort -g | sed -n '1p;$p' | tr '\n' ' ')(min max, s)"

pct() { [[ $1 == NA ]] && echo NA || awk -v v="$1" 'BEGIN { printf "%+.1f", 100 * v }'; }
echo
echo "program    change            actual %  s_eff  ours predicted % [95% interval] (exps+base)  Coz predicted % (exps+base)"
printf "%-10s %-17s %8s  %5s  %6s [%s, %s] (%s+%s)  %6s (%s+%s)\n" memcached "$change" "$(pct "$actual")" "$s_eff" \
  "$(pct "$ours")" "$(pct "$lo")" "$(pct "$hi")" "$oexps" "$obexps" "$(pct "$coz")" "$cexps" "$cbexps"
echo "(ours: --function '$ours_loc' at ${pc}%; Coz: --fixed-line $coz_line at ${pc}%; progress: sets served," \
  "$PROGRESS; Coz paper: +9.4% on memcached 1.4. Load at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
