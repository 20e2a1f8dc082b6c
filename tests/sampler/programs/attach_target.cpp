// A program for sample-run --pid tests (tests/sampler/attach_e2e_test.cpp), which
// attaches to it while it runs.
//
//   attach_target GO_FILE [--fork | --plugin LIBRARY]
//     Starts early_work and short_lived, prints "ready", and waits for GO_FILE (the test
//     creates it once sample-run is attached). Then short_lived ends, late_work starts
//     (a thread created while attached), and with --fork a child runs child_work. Each
//     (With --plugin, LIBRARY is dlopen'ed then and its plugin_work runs.) Each
//     worker does a fixed amount of work; the program prints "done" with a checksum and
//     exits with status 7, the same whether it was sampled or not.
//   attach_target --faults SECONDS
//     One thread that faults in fresh pages in touch_pages for SECONDS (for counters).
//   attach_target --split SECONDS
//     Two threads that each spend three parts of their time in heavy_part for one in
//     light_part, for SECONDS: the split a launched and an attached run must agree on.

#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace {

std::atomic<bool> g_stop{false};

__attribute__((noinline)) uint64_t spin(uint64_t iterations, uint64_t seed) {
  uint64_t x = seed;
  for (uint64_t i = 0; i < iterations; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

// The workers use spin's result after the call, so it is a call, not a tail jump, and the
// worker stays on the stack under it.
inline uint64_t kept(uint64_t x) {
  asm volatile("" : "+r"(x));
  return x + 1;
}

__attribute__((noinline)) uint64_t early_work() {
  uint64_t sum = 0;
  while (!g_stop.load(std::memory_order_relaxed)) sum += spin(200'000, 1) & 1;
  return sum;
}

__attribute__((noinline)) uint64_t short_lived(const char* go_file) {
  uint64_t sum = 0;
  while (access(go_file, F_OK) != 0) sum += spin(200'000, 2) & 1;
  return kept(spin(20'000'000, sum));
}

__attribute__((noinline)) uint64_t late_work() { return kept(spin(150'000'000, 3)); }

__attribute__((noinline)) uint64_t child_work() { return kept(spin(100'000'000, 4)); }

__attribute__((noinline)) uint64_t heavy_part() { return kept(spin(3'000'000, 5)); }
__attribute__((noinline)) uint64_t light_part() { return kept(spin(1'000'000, 6)); }

__attribute__((noinline)) void touch_pages() {
  const size_t size = 4u << 20;
  auto* p = static_cast<char*>(
      mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  for (size_t i = 0; i < size; i += 4096) p[i] = 1;
  munmap(p, size);
}

int faults(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  std::thread t([end] {
    while (std::chrono::steady_clock::now() < end) touch_pages();
  });
  t.join();
  return 0;
}

int split(double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  auto worker = [end] {
    uint64_t sum = 0;
    while (std::chrono::steady_clock::now() < end) sum += heavy_part() + light_part();
    return sum;
  };
  std::thread a(worker);
  std::thread b(worker);
  a.join();
  b.join();
  std::printf("split done\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--split") == 0) return split(std::atof(argv[2]));
  if (argc == 3 && std::strcmp(argv[1], "--faults") == 0) return faults(std::atof(argv[2]));
  if (argc < 2) {
    std::fprintf(stderr, "usage: attach_target GO_FILE [--fork] | --split SECONDS\n");
    return 2;
  }
  const char* go_file = argv[1];
  const bool fork_child = argc > 2 && std::strcmp(argv[2], "--fork") == 0;
  const char* plugin = argc > 3 && std::strcmp(argv[2], "--plugin") == 0 ? argv[3] : nullptr;
  std::thread early([] { early_work(); });
  uint64_t short_result = 0;
  std::thread brief([&] { short_result = short_lived(go_file); });
  std::printf("ready\n");
  std::fflush(stdout);
  for (int i = 0; i < 60'000 && access(go_file, F_OK) != 0; ++i) usleep(1000);
  brief.join();
  uint64_t late_result = 0;
  std::thread late([&] { late_result = late_work(); });
  pid_t child = -1;
  if (fork_child) {
    child = fork();
    if (child == 0) _exit(static_cast<int>(child_work() & 1));
  }
  if (plugin != nullptr) {
    void* handle = dlopen(plugin, RTLD_NOW);
    auto* work = handle ? reinterpret_cast<void (*)()>(dlsym(handle, "plugin_work")) : nullptr;
    if (work == nullptr) {
      std::fprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    work();
  }
  late.join();
  g_stop = true;
  early.join();
  int child_status = 0;
  if (child > 0) waitpid(child, &child_status, 0);
  std::printf("done: late %llx short %llx child %s\n", static_cast<unsigned long long>(late_result),
              static_cast<unsigned long long>(short_result),
              child > 0 ? (WIFEXITED(child_status) ? "exited" : "killed") : "none");
  return 7;
}
