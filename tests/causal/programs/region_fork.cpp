// Two threads time a short region in a loop (CAUSAL_BEGIN/END, whose durations go to
// try-locked stripes) while the main thread forks children that exit at once: a child
// forked while a stripe was being updated must still end (its exit path summarizes the
// regions). A child that does not end within 5 s is killed and counted.
//   region_fork [CHILDREN]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "causal/progress.h"

namespace {

std::atomic<bool> g_stop{false};
std::atomic<unsigned long> g_sink{0};

__attribute__((noinline)) void work(int n) {
  unsigned long x = static_cast<unsigned long>(n);
  for (int i = 0; i < n; ++i) x = x * 6364136223846793005ul + 1;
  g_sink.store(x, std::memory_order_relaxed);
}

bool ended_within(pid_t child, int ms) {
  for (int waited = 0; waited < ms; waited += 5) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) return true;
    usleep(5000);
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([] {
      while (!g_stop.load()) {
        CAUSAL_BEGIN("request");
        work(20);
        CAUSAL_END("request");
      }
    });
  }
  int hung = 0;
  for (int i = 0; i < n; ++i) {
    usleep(3000);
    const pid_t child = fork();
    if (child < 0) break;
    if (child == 0) {
      work(100000);
      std::exit(0);
    }
    if (!ended_within(child, 5000)) {
      ++hung;
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
    }
  }
  g_stop.store(true);
  for (auto& t : threads) t.join();
  std::printf("%d of %d children hung\n", hung, n);
  return 0;
}
