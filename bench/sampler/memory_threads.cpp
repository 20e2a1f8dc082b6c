// Resident memory of a program with N threads, for bench/sampler/memory.sh:
//   cprof-bench-memory-threads N [WORK_MS]
// Starts N threads; each does about WORK_MS milliseconds of CPU work (default 4, enough
// for a few samples at 500 Hz) and then waits on a barrier. When all N are waiting, the
// main thread reads VmRSS and VmHWM from /proc/self/status, prints them, and releases the
// threads. Prints one line on stdout:
//   memory-threads threads=N rss_kb=R hwm_kb=H

#include <pthread.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

pthread_barrier_t g_ready;    // N workers + main: all workers have done their work
pthread_barrier_t g_release;  // N workers + main: main has measured
double g_work_ms = 4;
volatile uint64_t g_sink = 0;

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

__attribute__((noinline)) uint64_t spin(uint64_t x) {
  for (int i = 0; i < 10000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
  }
  return x;
}

void* worker(void* arg) {
  uint64_t x = reinterpret_cast<uintptr_t>(arg) + 1;
  const double start = thread_cpu_ms();
  while (thread_cpu_ms() - start < g_work_ms) x = spin(x);
  g_sink = g_sink + x;
  pthread_barrier_wait(&g_ready);
  pthread_barrier_wait(&g_release);
  return nullptr;
}

long status_kb(const char* key) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long value = -1;
  const size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, key, n) == 0 && line[n] == ':') {
      value = std::strtol(line + n + 1, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s THREADS [WORK_MS]\n", argv[0]);
    return 1;
  }
  const int n = std::atoi(argv[1]);
  if (argc == 3) g_work_ms = std::atof(argv[2]);
  if (n < 1) return 1;
  pthread_barrier_init(&g_ready, nullptr, static_cast<unsigned>(n) + 1);
  pthread_barrier_init(&g_release, nullptr, static_cast<unsigned>(n) + 1);
  std::vector<pthread_t> threads(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (pthread_create(&threads[static_cast<size_t>(i)], nullptr, worker,
                       reinterpret_cast<void*>(static_cast<uintptr_t>(i))) != 0) {
      std::perror("pthread_create");
      return 2;
    }
  }
  pthread_barrier_wait(&g_ready);
  const long rss = status_kb("VmRSS");
  const long hwm = status_kb("VmHWM");
  pthread_barrier_wait(&g_release);
  for (auto& t : threads) pthread_join(t, nullptr);
  std::printf("memory-threads threads=%d rss_kb=%ld hwm_kb=%ld\n", n, rss, hwm);
  return 0;
}
