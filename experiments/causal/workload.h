// Shared pieces of the causal accuracy programs (experiments/causal/*.cpp).
//
// Every program takes   PROG [S [ITEMS]]
//   S      the fraction of the hot line's work that is removed (0 <= S < 1): the hot line
//          runs (1 - S) times its work, so "the line is S faster" is physically true;
//   ITEMS  how many progress visits to run (a default per program, ~1.5 s of CPU: ~1-2 s on an idle 2-core VM).
// CEXP_SCALE (environment) multiplies the default ITEMS (longer runs, more experiments).
// CEXP_UNIT (environment) sets the iterations of one work unit (default 500000, ~0.36 ms of CPU
// on the development VM). Each program marks its hot line with the comment "// HOT"; the
// scripts find the line number with grep. Work is a macro so that all of its instructions
// carry the line of the call site: both profilers then see one source line, with no
// callee lines between.
//
// Progress points go through Coz's coz.h (COZ_PROGRESS_NAMED): the same binary runs
// under coz (libcoz.so) and under causal-run (the runtime exports _coz_get_counter).
// At the end each program prints one line:
//   elapsed_s=W items=N period_us=W/N*1e6 cpu_s=C checksum=X
// elapsed from the first item to the last (no start-up), cpu = CLOCK_PROCESS_CPUTIME_ID.
#pragma once

#include <time.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#if __has_include(<coz.h>)
#include <coz.h>
#else
// coz.h is not installed: the same ABI, looked up once per call site (as coz.h does).
#include <dlfcn.h>
struct cexp_coz_counter {
  size_t count;
  size_t backoff;
};
#define COZ_PROGRESS_NAMED(name)                                                             \
  do {                                                                                       \
    static cexp_coz_counter* cexp_c_ = [] {                                                  \
      auto fn = reinterpret_cast<cexp_coz_counter* (*)(int, const char*)>(                   \
          dlsym(RTLD_DEFAULT, "_coz_get_counter"));                                          \
      return fn != nullptr ? fn(1, name) : nullptr;                                          \
    }();                                                                                     \
    if (cexp_c_ != nullptr) __atomic_add_fetch(&cexp_c_->count, 1, __ATOMIC_RELAXED);       \
  } while (0)
#endif

// CEXP_SPIN(acc, n): n iterations of integer work, all on the line where it is written.
#define CEXP_SPIN(acc, n)                                      \
  for (uint64_t cexp_i_ = 0, cexp_n_ = (n); cexp_i_ < cexp_n_; ++cexp_i_) { \
    (acc) += cexp_i_ * cexp_i_;                                \
    asm volatile("" : "+r"(acc));                              \
  }

namespace cxp {

struct Args {
  double s = 0;      // fraction of the hot line's work removed
  long items = 0;    // progress visits to run
  uint64_t unit = 500000;
  uint64_t hot(double units) const { return static_cast<uint64_t>(std::llround(unit * units * (1 - s))); }
  uint64_t cold(double units) const { return static_cast<uint64_t>(std::llround(unit * units)); }
};

inline Args parse(int argc, char** argv, long default_items) {
  Args a;
  if (argc > 1) a.s = std::atof(argv[1]);
  double scale = 1;
  if (const char* sc = std::getenv("CEXP_SCALE")) scale = std::atof(sc);
  a.items = argc > 2 ? std::atol(argv[2]) : std::lround(static_cast<double>(default_items) * scale);
  if (const char* u = std::getenv("CEXP_UNIT")) a.unit = std::strtoull(u, nullptr, 10);
  if (a.s < 0 || a.s >= 1 || a.items <= 0 || a.unit == 0) {
    std::fprintf(stderr, "usage: %s [S in [0,1) [ITEMS]]  (env CEXP_UNIT=iterations per unit)\n", argv[0]);
    std::exit(2);
  }
  return a;
}

inline double now_s(clockid_t clock = CLOCK_MONOTONIC) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

inline void report(double t0, long items, uint64_t checksum) {
  const double elapsed = now_s() - t0;
  std::printf("elapsed_s=%.6f items=%ld period_us=%.3f cpu_s=%.6f checksum=%llu\n", elapsed, items,
              elapsed / static_cast<double>(items) * 1e6, now_s(CLOCK_PROCESS_CPUTIME_ID),
              static_cast<unsigned long long>(checksum & 0xffff));
}

}  // namespace cxp
