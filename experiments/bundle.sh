#!/usr/bin/env bash
# Copies a build's launchers, runtime libraries and chosen programs, with the shared
# libraries they need from this machine (libc and the dynamic loader excepted), into one
# folder that runs on another x86-64 Linux machine without the project's -dev packages:
#   experiments/bundle.sh BUILD_DIR OUT_DIR [EXTRA_FILE...]
# OUT_DIR gets bin/ and lib/ (stripped copies of BUILD_DIR's), deps/ (the libraries; put
# it in LD_LIBRARY_PATH) and, when Coz is installed, coz/ (its launcher and libcoz.so).
# EXTRA_FILE: more binaries whose libraries to collect (also copied to bin/).
set -euo pipefail
build=${1:?usage: $0 BUILD_DIR OUT_DIR [EXTRA_FILE...]}
out=${2:?usage: $0 BUILD_DIR OUT_DIR [EXTRA_FILE...]}
shift 2
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/deps"
for f in "$build"/bin/* "$@"; do
  [[ -f $f && -x $f ]] || continue
  case $(basename "$f") in *_test*|*_tests|*_bench|cprof-bench-report|cprof-bench-samples) [[ $f == "$build"/bin/* ]] && continue ;; esac
  objcopy --strip-debug "$f" "$out/bin/$(basename "$f")" 2>/dev/null || cp "$f" "$out/bin/"
done
# Keep the debug information of the programs the tools must symbolize.
for f in "$build"/bin/cexp-* "$build"/bin/matrix-pipeline; do [[ -f $f ]] && cp "$f" "$out/bin/"; done
for f in "$build"/lib/*.so; do objcopy --strip-debug "$f" "$out/lib/$(basename "$f")"; done
libs=$(for f in "$out"/bin/* "$out"/lib/*.so; do ldd "$f" 2>/dev/null; done |
  awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' || true)
# Loaded with dlopen by the sampling runtime.
libs+=" $(ls /lib/x86_64-linux-gnu/libunwind-x86_64.so.8 /lib/x86_64-linux-gnu/libunwind.so.8 2>/dev/null || true)"
if command -v coz >/dev/null; then
  mkdir -p "$out/coz/bin" "$out/coz/lib/coz-profiler"
  cp "$(command -v coz)" "$out/coz/bin/"
  cp /usr/lib/coz-profiler/libcoz.so "$out/coz/lib/coz-profiler/"
  libs+=" $(ldd /usr/lib/coz-profiler/libcoz.so | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so' | tr '\n' ' ')"
fi
for l in $libs; do cp -L "$l" "$out/deps/"; done
du -sh "$out"
