#!/usr/bin/env bash
# Two builds of causal-run side by side on SQLite's speedtest1 counted per statement (a
# program whose rate of progress changes in phases: a statement takes from a microsecond
# to 100 ms): the same fixed line and speedup as sqlite.sh, ROUNDS rounds, each running
# one causal-run of each build in turn (the order alternates), each build appending to a
# directory of its own. Per build: the experiments, the time spent in experiments of
# 160 ms or more (lengths the slow phases ask for), the sped-up experiments compared with
# neighbouring baselines and those left out at a change of phase, and the prediction.
#
#   experiments/realworld/sqlite_versus.sh BUILD OTHER_BUILD [ROUNDS]   (default 3)
#
# Needs the speedtest1 sqlite.sh builds (run it once first). Nothing else should run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/common.sh"
a=$(cd "${1:?usage: sqlite_versus.sh BUILD OTHER_BUILD [ROUNDS]}" && pwd)
b=$(cd "${2:?usage: sqlite_versus.sh BUILD OTHER_BUILD [ROUNDS]}" && pwd)
rounds=${3:-3}
speedtest1=$WORK/sqlite-base/speedtest1
if [[ ! -x $speedtest1 ]]; then
  echo "$0: $speedtest1 is not built: run experiments/realworld/sqlite.sh once first" >&2
  exit 1
fi
line=${LINE:-sqlite3.c:54270-54271}
speedup=${SPEEDUP:-38}
out=$WORK/sqlite-versus
rm -rf "$out"
mkdir -p "$out"
log "sqlite_versus.sh: $a against $b, $rounds rounds, --line $line --fixed-speedup $speedup; load $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 1; r <= rounds; r++)); do
  order=(a b)
  ((r % 2 == 0)) && order=(b a)
  for which in "${order[@]}"; do
    build=$a
    [[ $which == b ]] && build=$b
    "$build/bin/causal-run" -q --append --progress speedtest1.c:566 --experiment-ms 10 \
      --line "$line" --fixed-speedup "$speedup" -o "$out/$which" \
      -- "$speedtest1" --size 200 --memdb >/dev/null 2>>"$out/$which.stderr"
    log "round $r: $which done"
  done
done
for which in a b; do
  build=$a
  [[ $which == b ]] && build=$b
  "$build/bin/causal-report" "$out/$which" --format sqlite -o "$out/$which.db" 2>/dev/null
  "$build/bin/causal-report" "$out/$which" --format json 2>/dev/null >"$out/$which.json"
  echo "== $which: $build"
  sqlite3 -separator ' ' "$out/$which.db" "
    SELECT count(*) || ' experiments in ' || count(DISTINCT process_id) || ' runs; ' ||
           printf('%.1f', sum(duration_ns) / 1e9) || ' s of experiments, ' ||
           printf('%.1f', sum(CASE WHEN duration_ns >= 160e6 THEN duration_ns ELSE 0 END) / 1e9) ||
           ' s in ' || sum(duration_ns >= 160e6) || ' of 160 ms or more'
    FROM experiments"
  python3 - "$out/$which.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["causal"]["predictions"]:
    for pt in p["points"]:
        if pt["speedup"] == 0:
            continue
        print("%s at %d%%: %+.1f%% [%.1f, %.1f]; %d sped-up experiments, %d compared with "
              "neighbouring baselines, %d left out at a change of phase" % (
                  p["location"], round(pt["speedup"] * 100), pt["program_speedup"] * 100,
                  pt["ci_low"] * 100, pt["ci_high"] * 100, pt["experiments"],
                  pt["neighbour_units"], pt["at_rate_changes"]))
PY
done
