#!/usr/bin/env bash
# SQLite's shell with an extension it loads at run time (`.load`, which is dlopen): the
# extension's code is where the work is, and neither `ldd` nor the executable knows it.
# causal-run takes the extension by its path (--binary-scope MAIN,PATH), counts a
# --progress line inside it and experiments on its lines once the shell has loaded it
# (docs/causal.md, "Libraries loaded later").
#
#   experiments/realworld/sqlite_extension.sh BUILD_DIR     (e.g. build; root for apt)
#
# Builds, in $WORK/sqlite-ext (git-ignored), from Debian's sqlite3 source package (the
# amalgamation sqlite3.c and shell.c that sqlite.sh's base build generates; made here if
# that build is not there): the shell (`shell.c sqlite3.c`, -O2 -g) and ext/misc/regexp.c
# as regexp.so (-O2 -g -fPIC -shared), SQLite's REGEXP function.
# Workload: ROWS (default 300000) rows of generated text (no randomness: every run prints
# the same counts), then QUERIES (default 16) scans that match each row against a regular
# expression; the progress point is the line of re_sql_func that reads the row's text
# (once per row matched). AUTO_RUNS (default 3): runs of the automatic mode into one
# directory. It prints the profile, the automatic ranking and whether the shell printed
# under causal-run what it prints plain.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
[[ $# -ge 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
BIN=$(cd "$1" && pwd)/bin
rows=${ROWS:-300000}
queries=${QUERIES:-16}
auto_runs=${AUTO_RUNS:-3}

need_packages build-essential tcl zlib1g-dev
src=$(get_source sqlite3)
base_dir=$WORK/sqlite-base
if [[ ! -f $base_dir/sqlite3.c || ! -f $base_dir/shell.c ]]; then
  log "generating sqlite3.c and shell.c ($src -> $base_dir)"
  fresh_copy "$src" "$base_dir"
  (cd "$base_dir" && ./configure -q --disable-tcl --disable-shared CFLAGS="-O2 -g" >/dev/null &&
    nice make -s sqlite3.c shell.c >/dev/null 2>&1) || { echo "$0: generating the sources failed" >&2; exit 1; }
fi
dir=$WORK/sqlite-ext
mkdir -p "$dir"
if [[ ! -x $dir/sqlite3 || ! -f $dir/regexp.so || ${REBUILD:-0} == 1 ]]; then
  log "building the shell and regexp.so"
  nice gcc -O2 -g -I"$base_dir" -o "$dir/sqlite3" "$base_dir/shell.c" "$base_dir/sqlite3.c" \
    -ldl -lpthread -lm
  nice gcc -O2 -g -fPIC -shared -I"$base_dir" -o "$dir/regexp.so" "$base_dir/ext/misc/regexp.c"
fi
point_line=$(grep -n 'zStr = (const unsigned char\*)sqlite3_value_text(argv\[1\]);' \
  "$base_dir/ext/misc/regexp.c" | head -1 | cut -d: -f1)
[[ -n $point_line ]] || { echo "$0: re_sql_func's row line not found in regexp.c" >&2; exit 1; }
point=regexp.c:$point_line

sql=$dir/workload.sql
{
  echo "CREATE TABLE t(x TEXT);"
  echo "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $rows)"
  echo "  INSERT INTO t SELECT printf('%08x-%X%X%X-%d', (i * 2654435761) % 4294967296,"
  echo "    (i * 40503) % 1048573, (i * 69069) % 16777213, (i * 1103515245 + 12345) % 2147483648,"
  echo "    i) FROM c;"
  for ((q = 0; q < queries; q++)); do
    echo "SELECT count(*) FROM t WHERE x REGEXP '^[0-9a-f]*$q[0-9a-f]*-[0-9A-F]*(AB|C$q)[0-9A-F]*-[0-9]*7\$';"
  done
} >"$sql"
shell=("$dir/sqlite3" -cmd ".load $dir/regexp.so" :memory: ".read $sql")
out=$WORK/sqlite-ext-results
rm -rf "$out"
mkdir -p "$out"

log "plain run: $( { /usr/bin/time -f '%e s wall' "${shell[@]}" >"$out/plain.txt"; } 2>&1)"
echo "== sample-run: functions (the extension's code is in regexp.so)"
"$BIN/sample-run" -q -o "$out/profile" -- "${shell[@]}" >/dev/null
"$BIN/causal-report" "$out/profile" -n 8 | sed -n '/^Functions by/,/^$/p'

echo "== causal-run, automatic by line in the shell and the extension, $auto_runs runs"
"$BIN/causal-run" -q -o "$out/auto" -n "$auto_runs" --binary-scope "MAIN,$dir/regexp.so" \
  --progress "$point" --experiment-ms 50 -- "${shell[@]}" >"$out/auto.txt"
# The rows are made without randomness: every run prints the same counts.
for ((r = 0; r < auto_runs; r++)); do cat "$out/plain.txt"; done >"$out/plain-$auto_runs.txt"
cmp -s "$out/plain-$auto_runs.txt" "$out/auto.txt" && echo "(each run printed what the plain run did)" ||
  echo "warning: the shell's output under causal-run differs from the plain run's"
"$BIN/causal-report" "$out/auto" --by line -n 5 | sed -n '/^message/,/^$/p;/^Causal profile/,$p' | head -40

log "done"
