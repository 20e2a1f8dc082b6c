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
#
# Then the change and its prediction, as the other scripts (docs/realworld.md):
# sqlite-regexp-cc-bitmap.patch gives each [...] class of a compiled expression a bitmap
# of the ASCII characters it holds, so that re_match tests one bit per character and
# class where it walked the class's values and ranges (built from the patched file as
# patched/regexp.so: .load takes the entry point's name from the file's; the shell prints
# the same counts). The changed code is re_match's loop over the active states, which
# holds the class's case (the automatic run ranks its lines first). The actual speedup:
# REPS (default 5) back-to-back pairs of plain runs; s_eff: S_EFF_PAIRS (default 3) pairs
# of profiles, the loop's share of the samples in each build (s_eff_of_shares); ours:
# FIXED_RUNS (default 3) causal-runs fixed on the loop's lines (one location) at s_eff;
# no Coz column (Coz 0.2.2 cannot reach a library loaded after the start; below).
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
    echo "SELECT count(*) FROM t WHERE x REGEXP '^[0-9a-f]*${q}[0-9a-f]*-[0-9A-F]*(AB|C${q})[0-9A-F]*-[0-9]*7\$';"
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

# --- the change: predicted against actual ---------------------------------------------
patched_src=$dir/patched/ext/misc/regexp.c
mkdir -p "$(dirname "$patched_src")"
cp "$base_dir/ext/misc/regexp.c" "$patched_src"
patch -s -d "$dir/patched" -p1 <"$here/sqlite-regexp-cc-bitmap.patch"
# The same name as the base's: .load calls sqlite3_FILENAME_init.
patched_so=$dir/patched/regexp.so
nice gcc -O2 -g -fPIC -shared -I"$base_dir" -o "$patched_so" "$patched_src"
patched_shell=("$dir/sqlite3" -cmd ".load $patched_so" :memory: ".read $sql")
"${patched_shell[@]}" >"$out/patched.txt"
cmp -s "$out/plain.txt" "$out/patched.txt" || { echo "$0: the patched extension's counts differ" >&2; exit 1; }

# loop_lines FILE: the lines of re_match's loop over the active states (the automatic run's
# first lines: the loop and its switch), from its head to its closing brace, the changed
# [...] case inside it. Its callee re_add_state is called as often in both builds.
loop_lines() {
  local first last
  first=$(grep -n 'for(i=0; i<pThis->nState; i++){' "$1" | cut -d: -f1)
  last=$(($(grep -n 'for(i=0; i<pNext->nState; i++){' "$1" | cut -d: -f1) - 2))
  seq "$first" "$last"
}
mapfile -t base_lines < <(loop_lines "$base_dir/ext/misc/regexp.c")
mapfile -t patched_lines < <(loop_lines "$patched_src")
fixed_line=regexp.c:${base_lines[0]}-${base_lines[-1]}

log "actual speedup: $REPS back-to-back pairs of plain runs"
read -r t_base t_patched actual actual_lo actual_hi <<<"$(actual_speedup sqlite-ext "${shell[@]}" -- "${patched_shell[@]}")"
log "medians: base ${t_base}s, patched ${t_patched}s; actual speedup (median of the pairs) $(percent "$actual")% [$(percent "$actual_lo")%, $(percent "$actual_hi")%]"

# loop_share DIR base|patched: the loop's share of DIR's samples, and all sampled ns.
loop_share() {
  local share total lines=("${base_lines[@]}")
  [[ $2 == patched ]] && lines=("${patched_lines[@]}")
  read -r share _ total <<<"$(share_of_lines "$1" regexp.c "${lines[@]}")"
  echo "$share $total"
}
log "s_eff from ${S_EFF_PAIRS:-3} pairs of sampled runs of both builds, in turn (lines ${base_lines[0]}-${base_lines[-1]}; patched ${patched_lines[0]}-${patched_lines[-1]})"
s_eff=$(s_eff_from_pairs "$out" loop_share -- "${shell[@]}" -- "${patched_shell[@]}")
pct=$(printf %.0f "$(echo "$s_eff * 100" | bc -l)")
log "s_eff = $pct% (the median of the pairs)"

fixed_runs=${FIXED_RUNS:-3}
log "causal-run --line $fixed_line --fixed-speedup $pct, $fixed_runs runs"
rm -rf "$out/fixed"
"$BIN/causal-run" -q -o "$out/fixed" -n "$fixed_runs" --binary-scope "MAIN,$dir/regexp.so" \
  --line "$fixed_line" --fixed-speedup "$pct" --progress "$point" --experiment-ms 50 \
  -- "${shell[@]}" >/dev/null
read -r ours lo hi _ _ <<<"$(python3 "$here/../causal/predict.py" ours "$out/fixed" \
  "$(echo "$pct / 100" | bc -l)" "$BIN/causal-report")"
"$BIN/causal-report" "$out/fixed" | sed -n '/^Causal profile/,$p'

# Coz 0.2.2 reads the line tables of the libraries loaded at start only: run on this
# shell with regexp.so built for it (-gdwarf-4 -gno-variable-location-views) and
# --binary-scope %regexp.so it stops with 'Fixed line "regexp.c:274" was not found' (tried
# in session 36), so there is no Coz column here.
coz_pred=NA

echo
echo "program        change               actual% [95% interval]  s_eff%  ours% [95% interval]      coz%"
printf "sqlite3+regexp class bitmap          %7s [%s, %s]  %6s  %5s [%s, %s]  %8s\n" \
  "$(percent "$actual")" "$(percent "$actual_lo")" "$(percent "$actual_hi")" "$pct" "$(percent "$ours")" "$(percent "$lo")" "$(percent "$hi")" "$(percent "$coz_pred")"
log "done"
