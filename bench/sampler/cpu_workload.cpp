// A deterministic, multi-threaded, CPU-bound program for the sampler's overhead benchmarks
// (bench/sampler/overhead.sh, bench/sampler/sample_cost.sh). It is built like a user's
// program: -O2 -g, PIE, no frame pointers, so the sampler has to unwind with DWARF CFI.
//
// Each thread repeatedly walks down a call chain of --chain frames (three mutually
// recursive functions, none of them a tail call, so every level is a real frame) and does
// a fixed amount of arithmetic at the bottom. The work is the same on every run: the
// checksum printed at the end does not depend on timing.
//
// Prints one line on stdout:
//   cpu-workload threads=T chain=C rounds=R checksum=X wall_s=W cpu_s=C user_s=U sys_s=S
//                workers_cpu_s=K
// where wall_s and cpu_s (CLOCK_PROCESS_CPUTIME_ID: every thread, user+sys) cover the work
// from the first thread's start to the last join: the program's own view of its cost,
// without process start-up, the runtime's exit flush or the launcher. workers_cpu_s is
// the worker threads' own CPU time (signal handling included, the runtime's writer
// thread and the main thread excluded).

#include <pthread.h>
#include <sys/resource.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_chain = 14;          // frames of the call chain above the leaf
int g_rounds = 20000;      // descents per thread
int g_leaf_iters = 6000;   // arithmetic steps at the bottom of each descent

// Keeps the compiler from merging, hoisting or tail-calling across it.
inline void barrier() { asm volatile("" ::: "memory"); }

__attribute__((noinline)) uint64_t leaf_kernel(uint64_t x, int iters) {
  // xorshift + multiply: no memory traffic, no divisions, deterministic.
  for (int i = 0; i < iters; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x *= 0x9E3779B97F4A7C15ull;
  }
  return x;
}

__attribute__((noinline)) uint64_t descend_b(int level, uint64_t x);
__attribute__((noinline)) uint64_t descend_c(int level, uint64_t x);

__attribute__((noinline)) uint64_t descend_a(int level, uint64_t x) {
  volatile uint64_t local = x + 1;  // a real frame with a local, like user code
  uint64_t r = level <= 0 ? leaf_kernel(x, g_leaf_iters) : descend_b(level - 1, x ^ 0x1111);
  barrier();
  return (r >> 3 | r << 61) ^ local;
}

__attribute__((noinline)) uint64_t descend_b(int level, uint64_t x) {
  volatile uint64_t local = x + 2;
  uint64_t r = level <= 0 ? leaf_kernel(x, g_leaf_iters) : descend_c(level - 1, x ^ 0x2222);
  barrier();
  return (r >> 5 | r << 59) ^ local;
}

__attribute__((noinline)) uint64_t descend_c(int level, uint64_t x) {
  volatile uint64_t local = x + 3;
  uint64_t r = level <= 0 ? leaf_kernel(x, g_leaf_iters) : descend_a(level - 1, x ^ 0x3333);
  barrier();
  return (r >> 7 | r << 57) ^ local;
}

struct Worker {
  pthread_t thread{};
  uint64_t seed = 0;
  uint64_t result = 0;
  double cpu_s = 0;  // this worker thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
};

double now_s(clockid_t clock);

void* worker_main(void* arg) {
  auto* w = static_cast<Worker*>(arg);
  uint64_t x = w->seed;
  for (int i = 0; i < g_rounds; ++i) {
    // chain levels: worker_main -> descend_* (g_chain of them) -> leaf_kernel
    x = descend_a(g_chain - 1, x + static_cast<uint64_t>(i));
  }
  w->result = x;
  w->cpu_s = now_s(CLOCK_THREAD_CPUTIME_ID);
  return nullptr;
}

double now_s(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double tv_s(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
}

[[noreturn]] void usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--threads N] [--chain FRAMES] [--rounds N] [--leaf ITERS]\n"
               "  --threads N      worker threads (default 2)\n"
               "  --chain FRAMES   call-chain frames above the leaf (default 14)\n"
               "  --rounds N       descents per thread (default 20000)\n"
               "  --leaf ITERS     arithmetic steps per descent (default 6000)\n",
               argv0);
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2;
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> int {
      if (i + 1 >= argc) usage(argv[0]);
      return std::atoi(argv[++i]);
    };
    if (std::strcmp(argv[i], "--threads") == 0) {
      threads = value();
    } else if (std::strcmp(argv[i], "--chain") == 0) {
      g_chain = value();
    } else if (std::strcmp(argv[i], "--rounds") == 0) {
      g_rounds = value();
    } else if (std::strcmp(argv[i], "--leaf") == 0) {
      g_leaf_iters = value();
    } else {
      usage(argv[0]);
    }
  }
  if (threads < 1 || g_chain < 1 || g_rounds < 1 || g_leaf_iters < 0) usage(argv[0]);

  rusage before{};
  getrusage(RUSAGE_SELF, &before);
  const double wall0 = now_s(CLOCK_MONOTONIC);
  const double cpu0 = now_s(CLOCK_PROCESS_CPUTIME_ID);

  std::vector<Worker> workers(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    workers[static_cast<size_t>(t)].seed = 0x243F6A8885A308D3ull * static_cast<uint64_t>(t + 1);
    if (pthread_create(&workers[static_cast<size_t>(t)].thread, nullptr, worker_main,
                       &workers[static_cast<size_t>(t)]) != 0) {
      std::perror("pthread_create");
      return 2;
    }
  }
  uint64_t checksum = 0;
  double workers_cpu = 0;
  for (auto& w : workers) {
    pthread_join(w.thread, nullptr);
    checksum ^= w.result;
    workers_cpu += w.cpu_s;
  }

  const double wall1 = now_s(CLOCK_MONOTONIC);
  const double cpu1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
  rusage after{};
  getrusage(RUSAGE_SELF, &after);
  const double user = tv_s(after.ru_utime) - tv_s(before.ru_utime);
  const double sys = tv_s(after.ru_stime) - tv_s(before.ru_stime);
  std::printf(
      "cpu-workload threads=%d chain=%d rounds=%d checksum=%016llx wall_s=%.6f cpu_s=%.6f "
      "user_s=%.6f sys_s=%.6f workers_cpu_s=%.6f\n",
      threads, g_chain, g_rounds, static_cast<unsigned long long>(checksum), wall1 - wall0,
      cpu1 - cpu0, user, sys, workers_cpu);
  return 0;
}
