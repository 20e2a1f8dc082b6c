#include "tests/unwind/signal_capture.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <thread>

namespace cprof::sampler::test {
namespace {

std::atomic<bool> g_stop{false};
Range g_leaf;
StackBounds g_bounds;
UnwindFn g_fn = nullptr;
Capture g_capture;

void on_sigprof(int, siginfo_t*, void* ucv) {
  int saved_errno = errno;
  auto* uc = static_cast<ucontext_t*>(ucv);
  auto pc = static_cast<uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
  if (!g_stop.load(std::memory_order_relaxed) && pc >= g_leaf.start && pc < g_leaf.end) {
    g_capture.n = g_fn(uc, g_bounds, g_capture.frames, Capture::kMax);
    g_stop.store(true, std::memory_order_release);
  }
  errno = saved_errno;
}

}  // namespace

Range function_range(const void* fn) {
  Dl_info info{};
  ElfW(Sym)* sym = nullptr;
  if (dladdr1(fn, &info, reinterpret_cast<void**>(&sym), RTLD_DL_SYMENT) == 0 ||
      sym == nullptr || info.dli_saddr == nullptr) {
    return {0, 0};
  }
  auto start = reinterpret_cast<uint64_t>(info.dli_saddr);
  return {start, start + sym->st_size};
}

std::atomic<bool>* capture_stop() { return &g_stop; }

Capture capture_in(UnwindFn fn, Range leaf, const std::function<void()>& body) {
  g_stop.store(false);
  g_leaf = leaf;
  g_fn = fn;
  g_capture = Capture{};
  g_bounds = current_thread_stack_bounds();

  struct sigaction sa{}, old{};
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, &old);

  const pid_t pid = getpid();
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  std::thread sender([&] {
    while (!g_stop.load(std::memory_order_acquire)) {
      syscall(SYS_tgkill, pid, tid, SIGPROF);
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
  });
  body();
  sender.join();
  sigaction(SIGPROF, &old, nullptr);
  return g_capture;
}

bool frame_in(uint64_t frame, Range r, bool is_return_address) {
  uint64_t a = is_return_address ? frame - 1 : frame;
  return a >= r.start && a < r.end;
}

std::string describe(const Capture& c) {
  std::string out;
  for (size_t i = 0; i < c.n; ++i) {
    Dl_info info{};
    uint64_t lookup = i == 0 ? c.frames[i] : c.frames[i] - 1;
    char line[512];
    if (dladdr(reinterpret_cast<void*>(lookup), &info) && info.dli_sname) {
      std::snprintf(line, sizeof line, "  #%zu 0x%lx %s+0x%lx\n", i,
                    static_cast<unsigned long>(c.frames[i]), info.dli_sname,
                    static_cast<unsigned long>(lookup - reinterpret_cast<uint64_t>(info.dli_saddr)));
    } else {
      std::snprintf(line, sizeof line, "  #%zu 0x%lx (%s)\n", i,
                    static_cast<unsigned long>(c.frames[i]),
                    info.dli_fname ? info.dli_fname : "?");
    }
    out += line;
  }
  return out;
}

}  // namespace cprof::sampler::test
