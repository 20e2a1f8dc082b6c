#!/usr/bin/env bash
# Quick start, step 1: install every dependency (Debian packages), build, and profile the
# bundled example program. The tools end up in build/bin.
set -euo pipefail
cd "$(dirname "$0")"

scripts/install-deps.sh
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build

echo
echo "== sample-run -f 500 -- matrix-pipeline (two threads; multiply : hash : sort = 3 : 2 : 1)"
rm -rf results/example
build/bin/sample-run -f 500 -o results/example -- build/bin/matrix-pipeline
echo
echo "== causal-report results/example"
build/bin/causal-report results/example
echo
echo "Tools are in $(pwd)/build/bin: export PATH=\"$(pwd)/build/bin:\$PATH\""
