#!/usr/bin/env bash
# Runs one fuzz target for SECONDS over a copy of its seed corpus (the repository's stays
# as it is), one process, inputs up to 64 KiB. Exits non-zero on a finding (a crash, a
# sanitizer report, a hang past 10 s, memory past 2 GiB), leaving the input that caused
# it in ARTIFACTS (default: a temporary folder, named on stderr).
#
# usage: run_fuzzer.sh FUZZER SEED_DIR SECONDS [ARTIFACTS]
set -euo pipefail
fuzzer=$1 seeds=$2 seconds=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/cprof-fuzz.XXXXXX")
artifacts=${4:-$work/artifacts}
mkdir -p "$work/corpus" "$artifacts"
cp "$seeds"/* "$work/corpus/"
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$artifacts/" "$work/corpus" 2>"$work/log" || status=$?
grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done )" "$work/log" || true
if ((status != 0)); then
  tail -n 60 "$work/log" >&2
  echo "run_fuzzer: $(basename "$fuzzer") found a failure; inputs kept in $artifacts" >&2
  exit "$status"
fi
rm -rf "$work"
