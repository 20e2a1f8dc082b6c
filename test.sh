#!/usr/bin/env bash
# Quick start, step 2: build and run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")"

scripts/install-deps.sh
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build
ctest --test-dir build --output-on-failure -j "$(nproc)" --timeout 300
