#!/usr/bin/env bash
# Quick start, step 1: install every dependency (Debian packages), build, and profile the
# bundled example program. The tools end up in build/bin.
set -euo pipefail
cd "$(dirname "$0")"

scripts/install-deps.sh
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build

echo
echo "== sample-run -f 500 -- matrix-pipeline (two threads; multiply : hash : sort = 55 : 30 : 15)"
rm -rf results/example
build/bin/sample-run -f 500 -o results/example -- build/bin/matrix-pipeline
echo
echo "== causal-report results/example"
build/bin/causal-report results/example
echo
# The main job: a causal prediction, then the real change it predicts, side by side.
# examples/matrix_pipeline.cpp says what the right answer is: hash_bytes is about 30% of
# each round, so making it 50% faster makes the rounds about 15% shorter.
progress_line=$(grep -n 'sum += sort_numbers' examples/matrix_pipeline.cpp | cut -d: -f1)
echo "== causal-run --function hash_bytes --fixed-speedup 50 --progress matrix_pipeline.cpp:$progress_line"
echo "   (what would making hash_bytes 50% faster do to the rate of rounds?)"
rm -rf results/example-causal
build/bin/causal-run -q --function hash_bytes --fixed-speedup 50 \
  --progress "examples/matrix_pipeline.cpp:$progress_line" -o results/example-causal \
  -- build/bin/matrix-pipeline 1600 >/dev/null
build/bin/causal-report results/example-causal | sed -n '/^Causal profile/,$p'
echo
echo "== the real change: matrix-pipeline with half of hash_bytes' work cut, against unchanged"
# Interleaved runs, medians: the machine's speed drifts between runs.
plain=() cut=()
for _ in 1 2 3; do
  t0=$EPOCHREALTIME; build/bin/matrix-pipeline 800 >/dev/null; t1=$EPOCHREALTIME
  build/bin/matrix-pipeline 800 0.5 >/dev/null; t2=$EPOCHREALTIME
  plain+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
  cut+=("$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
awk -v p="$(median "${plain[@]}")" -v c="$(median "${cut[@]}")" 'BEGIN {
  printf "   unchanged %.2f s, hash_bytes cut by half %.2f s (medians of 3): %.0f%% faster\n",
         p, c, 100 * (p - c) / p }'
echo "   (the prediction above holds when this lies inside its interval; on a busy machine"
echo "    both vary more: docs/causal.md)"
echo
echo "Tools are in $(pwd)/build/bin: export PATH=\"$(pwd)/build/bin:\$PATH\""
