// A program with a known split of CPU time between functions and threads, for
// experiments/sampler/fidelity.sh. It measures the truth itself: every call of a measured
// function is bracketed by clock_gettime(CLOCK_THREAD_CPUTIME_ID), and at the end it
// prints, for each function, its self CPU time (time in its own body, callees excluded)
// as a fraction of the whole process's CPU time (CLOCK_PROCESS_CPUTIME_ID at the end of
// main: every thread, start-up included).
//
//   cprof-fidelity-workload [--scale S]      (S multiplies the amount of work; default 1)
//
// Thread 0 runs fid_alpha and fid_beta; thread 1 runs fid_gamma, fid_beta and fid_epsilon,
// which spends part of its time in its callee fid_zeta. Each call lasts about a
// millisecond, so the clock reads (a few hundred ns) are well under 0.1% of the time.
// Output, on stdout, one line per function and a total:
//   truth function=NAME self_s=SECONDS fraction=F
//   truth total_cpu_s=SECONDS measured_fraction=F
// Built -O2 -g without frame pointers, like a user's program. The functions are extern
// "C" so that every tool prints the same plain names.

#include <pthread.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

inline uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

enum Fn { kAlpha, kBeta, kGamma, kEpsilon, kZeta, kCount };
const char* const kNames[kCount] = {"fid_alpha", "fid_beta", "fid_gamma", "fid_epsilon",
                                    "fid_zeta"};

// Per-thread self time of each function, summed after the threads end.
struct ThreadTruth {
  uint64_t self_ns[kCount] = {};
};

double g_scale = 1.0;

}  // namespace

// Each function has its own body (different constants, different operations) so the
// compiler's identical-code folding cannot merge them.
extern "C" __attribute__((noinline)) uint64_t fid_alpha(uint64_t x, int n) {
  for (int i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

extern "C" __attribute__((noinline)) uint64_t fid_beta(uint64_t x, int n) {
  for (int i = 0; i < n; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

extern "C" __attribute__((noinline)) uint64_t fid_gamma(uint64_t x, int n) {
  for (int i = 0; i < n; ++i) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  }
  return x;
}

extern "C" __attribute__((noinline)) uint64_t fid_zeta(uint64_t x, int n) {
  for (int i = 0; i < n; ++i) x = (x >> 11 | x << 53) + (x ^ 0x5851F42D4C957F2Dull);
  return x;
}

// Half of its work in its own body, the other half in fid_zeta; its self time is its
// total time minus the time of the fid_zeta call, measured inside.
extern "C" __attribute__((noinline)) uint64_t fid_epsilon(uint64_t x, int n, uint64_t* zeta_ns) {
  for (int i = 0; i < n; ++i) x = (x * 0x2545F4914F6CDD1Dull) ^ (x >> 17);
  const uint64_t t0 = thread_cpu_ns();
  x = fid_zeta(x, n);
  *zeta_ns += thread_cpu_ns() - t0;
  for (int i = 0; i < n / 4; ++i) x = (x * 0x2545F4914F6CDD1Dull) ^ (x >> 19);
  return x;
}

namespace {

// One measured call: self time of fn (callee time it reports is subtracted).
template <class F>
inline uint64_t timed(ThreadTruth& t, Fn fn, F&& call) {
  const uint64_t t0 = thread_cpu_ns();
  const uint64_t r = call();
  t.self_ns[fn] += thread_cpu_ns() - t0;
  return r;
}

struct Worker {
  pthread_t thread{};
  int index = 0;
  int rounds = 0;
  uint64_t result = 0;
  ThreadTruth truth;
};

// Work sizes (iterations per call) chosen so that each call lasts roughly 0.3-1.5 ms.
constexpr int kAlphaIters = 1200000;
constexpr int kBetaIters = 500000;
constexpr int kGammaIters = 600000;
constexpr int kEpsIters = 400000;

void* thread0(void* arg) {
  auto* w = static_cast<Worker*>(arg);
  uint64_t x = 0x1234567;
  for (int r = 0; r < w->rounds; ++r) {
    x = timed(w->truth, kAlpha, [&] { return fid_alpha(x, kAlphaIters); });
    x = timed(w->truth, kBeta, [&] { return fid_beta(x, kBetaIters); });
  }
  w->result = x;
  return nullptr;
}

void* thread1(void* arg) {
  auto* w = static_cast<Worker*>(arg);
  uint64_t x = 0x89abcdef;
  for (int r = 0; r < w->rounds; ++r) {
    x = timed(w->truth, kGamma, [&] { return fid_gamma(x, kGammaIters); });
    x = timed(w->truth, kBeta, [&] { return fid_beta(x, kBetaIters / 2); });
    uint64_t zeta_ns = 0;
    x = timed(w->truth, kEpsilon, [&] { return fid_epsilon(x, kEpsIters, &zeta_ns); });
    w->truth.self_ns[kEpsilon] -= zeta_ns;
    w->truth.self_ns[kZeta] += zeta_ns;
  }
  w->result = x;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
      g_scale = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--scale S]\n", argv[0]);
      return 1;
    }
  }
  Worker w[2];
  const int rounds = static_cast<int>(1000 * g_scale);
  void* (*fns[2])(void*) = {thread0, thread1};
  for (int t = 0; t < 2; ++t) {
    w[t].index = t;
    w[t].rounds = rounds;
    if (pthread_create(&w[t].thread, nullptr, fns[t], &w[t]) != 0) return 2;
  }
  uint64_t checksum = 0;
  for (auto& wk : w) {
    pthread_join(wk.thread, nullptr);
    checksum ^= wk.result;
  }
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  const double total = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  double measured = 0;
  for (int f = 0; f < kCount; ++f) {
    const double s = static_cast<double>(w[0].truth.self_ns[f] + w[1].truth.self_ns[f]) * 1e-9;
    measured += s;
    std::printf("truth function=%s self_s=%.6f fraction=%.6f\n", kNames[f], s, s / total);
  }
  std::printf("truth total_cpu_s=%.6f measured_fraction=%.6f checksum=%016llx\n", total,
              measured / total, static_cast<unsigned long long>(checksum));
  return 0;
}
