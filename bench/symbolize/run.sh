#!/usr/bin/env bash
# Symbolizer benchmark, one command: generates a large inlined C++ program (cached),
# builds it with -O2 -g, and compares causal-symbolize with llvm-symbolizer and addr2line
# on the same random code addresses.
#
#   ninja -C build causal-symbolize && bench/symbolize/run.sh build [COUNT]
#
# Environment: UNITS (translation units, default 14), JOBS (parallel compiles, default 2),
# CXX (default g++), SEED (default 1).
set -euo pipefail
build=${1:?usage: run.sh BUILD_DIR [COUNT]}
count=${2:-100000}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)
tool=$build/bin/causal-symbolize
work=$build/bench-symbolize
[[ -x $tool ]] || { echo "run.sh: $tool missing; build it: ninja -C $build causal-symbolize" >&2; exit 1; }

mkdir -p "$work/src" "$work/obj"
python3 "$here/gen.py" "$work/src" --units "${UNITS:-14}"
cxx=${CXX:-g++}
export cxx work
# Only sources newer than their object are compiled again.
ls "$work/src" | grep '\.cpp$' | xargs -P "${JOBS:-2}" -I{} sh -c \
  'o=$work/obj/{}.o; s=$work/src/{}; [ "$o" -nt "$s" ] || $cxx -O2 -g -c "$s" -o "$o"'
if [[ ! -x $work/app ]] || [[ -n $(find "$work/obj" -newer "$work/app" -name '*.o') ]]; then
  $cxx -O2 -g "$work"/obj/*.o -o "$work/app"
fi
python3 "$here/compare.py" --binary "$work/app" --tool "$tool" --count "$count" \
  --seed "${SEED:-1}" --work "$work"
