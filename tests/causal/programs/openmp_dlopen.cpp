// libgomp loaded by dlopen, after the causal runtime started, and used from a thread that
// existed before: Syscall User Dispatch must reach that thread by its request signal.
//   openmp_dlopen PLUGIN ROUNDS
#include <dlfcn.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "causal/progress.h"

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const long rounds = std::atol(argv[2]);
  std::mutex m;
  std::condition_variable cv;
  uint64_t (*fn)(long) = nullptr;
  uint64_t total = 0;
  std::thread worker([&] {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return fn != nullptr; });
    lock.unlock();
    for (long r = 0; r < rounds; r += 10) {
      total += fn(10);
      CAUSAL_PROGRESS;
    }
  });
  void* plugin = dlopen(argv[1], RTLD_NOW);
  if (plugin == nullptr) {
    std::fprintf(stderr, "%s\n", dlerror());
    std::exit(3);
  }
  {
    std::lock_guard lock(m);
    fn = reinterpret_cast<uint64_t (*)(long)>(dlsym(plugin, "plugin_rounds"));
  }
  cv.notify_one();
  worker.join();
  std::printf("rounds=%ld total=%llu\n", rounds, static_cast<unsigned long long>(total));
  return 0;
}
