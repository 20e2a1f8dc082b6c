// Exits while many threads still run: the runtime's exit path disarms every thread (and,
// with counters, adds their totals) while its writer may be draining. 60 threads that
// wake every 100 µs, and exit() after 30-50 ms (varied by pid, so repeated runs land in
// different phases of the writer's 20 ms tick).
//   exit_with_threads [THREADS]
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {
std::atomic<unsigned long> g_sink{0};
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 60;
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([] {
      unsigned long x = 1;
      for (;;) {
        x = x * 3 + 1;
        g_sink.store(x, std::memory_order_relaxed);
        usleep(100);
      }
    });
  }
  usleep(30000 + static_cast<useconds_t>(getpid() % 20) * 1000);
  std::exit(0);  // with the threads still running
}
