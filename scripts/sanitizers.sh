#!/usr/bin/env bash
# Builds the project with sanitizers in separate build folders and runs the test suite:
#   scripts/sanitizers.sh [address|thread ...]     (default: address, then thread)
# ASan+UBSan covers everything, the preloaded runtime included: the launchers preload the
# sanitizer runtime ahead of it into the uninstrumented test programs. TSan covers the threaded
# parts that run in our own processes (format, runtime parts, causal, GPU); a TSan
# runtime cannot be injected into a foreign process, so end-to-end tests are skipped there.
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=("$@")
((${#kinds[@]})) || kinds=(address thread)

for kind in "${kinds[@]}"; do
  case "$kind" in
    address)
      dir=build-asan
      cmake -G Ninja -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCPROF_SANITIZE=address;undefined" -DCPROF_BUILD_BENCH=OFF
      cmake --build "$dir"
      # The launchers put libasan in front of the instrumented runtime in the programs
      # they start. Leaks at exit are the runtime's deliberately never-freed state
      # (handlers may still read it), so leak checking is off. handle_segv, handle_sigbus,
      # handle_sigfpe=0: the crash tests need the program's faults to kill it as they would
      # without ASan, and the programs to see those signals at their default action.
      ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" --timeout 600
      ;;
    thread)
      dir=build-tsan
      cmake -G Ninja -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCPROF_SANITIZE=thread -DCPROF_BUILD_BENCH=OFF
      cmake --build "$dir"
      # Debian's libtbb is not instrumented: the happens-before edges of its scheduler are
      # invisible to TSan, so every result handed back from a tbb::parallel_for shows as
      # a race. Tests labelled tbb (the report, the symbolizer's batches) need a TSan
      # build of TBB and are left out; the runtime's own threads (handler, rings, writer,
      # registry, causal delays, GPU tool) use no TBB and are covered.
      TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
        ctest --test-dir "$dir" --output-on-failure -j "$(nproc)" --timeout 600 -LE "e2e|tbb"
      ;;
    *) echo "sanitizers.sh: unknown kind '$kind' (address or thread)" >&2; exit 1 ;;
  esac
done
