// libgomp arrives by dlopen while another thread forks children that load a library of
// their own: the parent turns Syscall User Dispatch on for its THREADS waiting threads
// under the dispatch refresh lock (a signal to each, then up to ~100 ms for their
// answers). A child forked meanwhile must not inherit that lock held: its own dlopen
// takes it. A child that does not end within 5 s is killed and counted.
//   dispatch_fork PLUGIN THREADS
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace {

bool ended_within(pid_t child, int ms) {
  for (int waited = 0; waited < ms; waited += 2) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) return true;
    usleep(2000);
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const int thread_count = std::atoi(argv[2]);
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  std::vector<std::thread> waiting;
  for (int t = 0; t < thread_count; ++t) {
    waiting.emplace_back([&] {
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return stop; });
    });
  }
  std::atomic<bool> loaded{false};
  int forked = 0;
  int hung = 0;
  std::thread forker([&] {
    // Forks until a few children have been started after the plugin was loaded.
    for (int after = 0; after < 5; after += loaded.load() ? 1 : 0) {
      const pid_t child = fork();
      if (child < 0) break;
      if (child == 0) {
        if (dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL) == nullptr) _exit(3);
        std::exit(0);
      }
      ++forked;
      if (!ended_within(child, 5000)) {
        ++hung;
        kill(child, SIGKILL);
        waitpid(child, nullptr, 0);
      }
    }
  });
  usleep(20000);
  if (dlopen(argv[1], RTLD_NOW) == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    std::exit(3);
  }
  loaded.store(true);
  forker.join();
  {
    std::lock_guard lock(m);
    stop = true;
  }
  cv.notify_all();
  for (auto& t : waiting) t.join();
  std::printf("%d of %d children hung\n", hung, forked);
  return 0;
}
