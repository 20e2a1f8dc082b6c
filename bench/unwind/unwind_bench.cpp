// Cost per sample of the handler's unwind (dwarf = CfiTable walk, libunwind, fp), at call
// depths 10 and 50 (plus the ~10 frames of
// Google Benchmark and main below the recursion).
//
//   *_Signal:  tgkill(SIGPROF) to this thread; the handler unwinds the interrupted context.
//              What one sample costs end to end: signal delivery + unwind + sigreturn.
//   *_Context: unwind a getcontext() taken at the bottom of the chain; the unwind alone.
#include <benchmark/benchmark.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "bench/unwind/recurse.h"
#include "sampler/unwind/unwinder.h"

namespace cprof::sampler::bench {
namespace {

constexpr size_t kMaxFrames = 128;

struct Shared {
  UnwindMethod method;
  StackBounds bounds;
  uint64_t frames[kMaxFrames];
  size_t n;
};
Shared g;

void on_sigprof(int, siginfo_t*, void* uc) {
  g.n = unwind(g.method, static_cast<ucontext_t*>(uc), g.bounds, g.frames, kMaxFrames);
}

ModuleTable& modules() {
  static ModuleTable* t = [] {
    auto* table = new ModuleTable();
    init_unwinding(*table);
    register_unwind_thread();  // this thread gets its own libunwind address space
    return table;
  }();
  return *t;
}

void signal_leaf(void* p) {
  auto& state = *static_cast<benchmark::State*>(p);
  const pid_t pid = getpid();
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  size_t frames = 0;
  for (auto _ : state) {
    syscall(SYS_tgkill, pid, tid, SIGPROF);  // delivered before tgkill returns
    frames += g.n;
  }
  state.counters["frames"] = static_cast<double>(frames) / static_cast<double>(state.iterations());
}

void context_leaf(void* p) {
  auto& state = *static_cast<benchmark::State*>(p);
  ucontext_t uc;
  getcontext(&uc);
  size_t frames = 0;
  for (auto _ : state) {
    g.n = unwind(g.method, &uc, g.bounds, g.frames, kMaxFrames);
    benchmark::DoNotOptimize(g.frames);
    frames += g.n;
  }
  state.counters["frames"] = static_cast<double>(frames) / static_cast<double>(state.iterations());
}

void run(benchmark::State& state, UnwindMethod method, void (*leaf)(void*)) {
  modules();
  g.method = method;
  g.bounds = current_thread_stack_bounds();
  struct sigaction sa{}, old{};
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, &old);
  const int depth = static_cast<int>(state.range(0));
  if (method == UnwindMethod::kFramePointers) {
    withfp::recurse(depth, leaf, &state);
  } else {
    nofp::recurse(depth, leaf, &state);
  }
  sigaction(SIGPROF, &old, nullptr);
}

void BM_Dwarf_Signal(benchmark::State& s) { run(s, UnwindMethod::kDwarf, signal_leaf); }
void BM_Dwarf_Context(benchmark::State& s) { run(s, UnwindMethod::kDwarf, context_leaf); }
void BM_Libunwind_Signal(benchmark::State& s) { run(s, UnwindMethod::kLibunwind, signal_leaf); }
void BM_Libunwind_Context(benchmark::State& s) { run(s, UnwindMethod::kLibunwind, context_leaf); }
void BM_FramePointer_Signal(benchmark::State& s) {
  run(s, UnwindMethod::kFramePointers, signal_leaf);
}
void BM_FramePointer_Context(benchmark::State& s) {
  run(s, UnwindMethod::kFramePointers, context_leaf);
}
// The floor: signal delivery with a handler that does nothing useful.
void BM_SignalOnly(benchmark::State& state) {
  modules();
  struct sigaction sa{}, old{};
  sa.sa_handler = [](int) {};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGPROF, &sa, &old);
  const pid_t pid = getpid();
  const auto tid = static_cast<pid_t>(syscall(SYS_gettid));
  for (auto _ : state) syscall(SYS_tgkill, pid, tid, SIGPROF);
  sigaction(SIGPROF, &old, nullptr);
}

BENCHMARK(BM_Dwarf_Signal)->Arg(10)->Arg(50);
BENCHMARK(BM_Dwarf_Context)->Arg(10)->Arg(50);
BENCHMARK(BM_Libunwind_Signal)->Arg(10)->Arg(50);
BENCHMARK(BM_Libunwind_Context)->Arg(10)->Arg(50);
BENCHMARK(BM_FramePointer_Signal)->Arg(10)->Arg(50);
BENCHMARK(BM_FramePointer_Context)->Arg(10)->Arg(50);
BENCHMARK(BM_SignalOnly);

}  // namespace
}  // namespace cprof::sampler::bench

BENCHMARK_MAIN();
