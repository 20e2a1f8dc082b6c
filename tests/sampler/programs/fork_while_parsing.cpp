// Forks while the runtime's writer thread parses unwind tables. With CPROF_CFI_TABLES=
// first-want (the test sets it) the writer parses a module's .eh_frame (libc's takes
// milliseconds) at its first ticks after a walk entered the module, under the module
// table's lock: a child forked then must not
// inherit that lock held by a writer thread it does not have, or its exit (which waits
// for its own writer) hangs. Each round is a fresh image (the program execs itself), so
// every round has tables to parse: a worker thread sorts with qsort (walks through libc)
// while the main thread forks a child every millisecond for 100 ms, each living 30 ms
// (past its writer's first tick) and then exiting. A child that does not end in time is
// reported and killed, and the program fails.
//   fork_while_parsing [ROUNDS]
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> g_stop{false};

uint64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

extern "C" int compare_ints(const void* a, const void* b) {
  const int x = *static_cast<const int*>(a);
  const int y = *static_cast<const int*>(b);
  return (x > y) - (x < y);
}

void sort_in_libc() {
  std::vector<int> v(20000);
  unsigned seed = 1;
  while (!g_stop.load(std::memory_order_relaxed)) {
    for (auto& x : v) x = static_cast<int>(seed = seed * 1103515245u + 12345u);
    std::qsort(v.data(), v.size(), sizeof(int), compare_ints);
  }
}

// waitpid with a deadline: the child's status, or -1 if it is still running after it.
int wait_for(pid_t pid, int seconds) {
  const uint64_t deadline = now_ms() + static_cast<uint64_t>(seconds) * 1000;
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 || now_ms() > deadline) return -1;
    usleep(500);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 6;
  std::thread worker(sort_in_libc);
  // One child a millisecond for 100 ms; each lives 30 ms, past its writer's first tick.
  const uint64_t end = now_ms() + 100;
  std::vector<pid_t> children;
  while (now_ms() < end) {
    const pid_t child = fork();
    if (child < 0) break;
    if (child == 0) {
      usleep(30000);
      std::exit(0);  // the runtime's exit path: stop, join its writer
    }
    children.push_back(child);
    usleep(1000);
  }
  int failed = 0;
  const uint64_t deadline = now_ms() + 10000;  // for them all
  for (size_t i = 0; i < children.size(); ++i) {
    const uint64_t now = now_ms();
    const int status = wait_for(children[i], now < deadline ? static_cast<int>((deadline - now) / 1000) : 0);
    if (status == -1) {
      std::printf("child %zu of %zu in round %d hung at exit\n", i + 1, children.size(), rounds);
      kill(children[i], SIGKILL);
      waitpid(children[i], nullptr, 0);
      failed = 1;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::printf("child %zu in round %d ended with status %d\n", i + 1, rounds, status);
      failed = 1;
    }
  }
  g_stop.store(true);
  worker.join();
  std::fflush(stdout);
  if (failed != 0) return 1;
  if (rounds > 1) {
    const std::string next = std::to_string(rounds - 1);
    execl("/proc/self/exe", argv[0], next.c_str(), static_cast<char*>(nullptr));
    std::perror("exec");
    return 2;
  }
  std::printf("every round's children ended\n");
  return 0;
}
