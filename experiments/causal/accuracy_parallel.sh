#!/usr/bin/env bash
# accuracy.sh on a machine with many idle cores: each program runs in its own process
# group pinned to its own pair of cores (taskset), so the programs do not disturb each
# other and each sees a quiet 2-core machine, and the whole experiment takes as long as
# its slowest program.
#   experiments/causal/accuracy_parallel.sh BUILD_DIR [PROGRAM...]
# Environment: as accuracy.sh (SPEEDUPS, PAIRS, CEXP_SCALE, COZ, ...); CORES_PER_PROGRAM
# (default 2). Needs 2 x programs cores; prints each program's log and then one table.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: $0 BUILD_DIR [PROGRAM...]}
shift
programs=("$@")
if ((${#programs[@]} == 0)); then
  programs=(serial forkjoin-pthread forkjoin-std pipeline lock sleep openmp openmp-passive)
  [[ -x $build/bin/cexp-openmp-llvm ]] && programs+=(openmp-llvm)
fi
per=${CORES_PER_PROGRAM:-2}
cores=$(nproc)
if ((${#programs[@]} * per > cores)); then
  echo "accuracy_parallel.sh: ${#programs[@]} programs x $per cores need $((${#programs[@]} * per)) cores; this machine has $cores" >&2
  exit 1
fi
out=$(mktemp -d /tmp/cprof-accuracy-parallel.XXXXXX)
echo "accuracy_parallel.sh: ${programs[*]} on $cores cores, $per each; load: $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
pids=()
for p in "${programs[@]}"; do
  first=$((i * per)); last=$((first + per - 1))
  ROWS_OUT=$out/rows-$p taskset -c "$first-$last" "$here/accuracy.sh" "$build" "$p" >"$out/log-$p" 2>&1 &
  pids+=($!)
  i=$((i + 1))
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for p in "${programs[@]}"; do echo "== $p"; grep -v '^ *|' "$out/log-$p" | grep -E "failed|warning|error" || true; done
echo
"$here/table.sh" "$out"/rows-*
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg); logs: $out"
exit $status
