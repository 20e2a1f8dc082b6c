// Cost per sample of the handler's unwind (dwarf = CfiTable walk, libunwind, fp), at call
// depths 10 and 50 (plus the ~10 frames of
// Google Benchmark and main below the recursion).
//
//   *_Signal:  tgkill(SIGPROF) to this thread; the handler unwinds the interrupted context.
//              What one sample costs end to end: signal delivery + unwind + sigreturn.
//   *_Context: unwind a getcontext() taken at the bottom of the chain; the unwind alone.
//   BM_Libunwind_ColdContext: the same with libunwind's rule cache flushed before every
//              unwind (each step parses its FDE again), as for a PC never unwound before.
//   BM_BuildCfiTable/i: build_cfi_table() for the i-th largest .eh_frame of this process's
//              modules; s_per_byte is the price per byte the on-demand policy uses
//              (cfi_policy.h), and Dwarf vs Libunwind _Context the rent per hand-off.
//              CPROF_BENCH_DLOPEN=lib1.so:lib2.so loads more (larger) libraries first.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/unwind/recurse.h"
#include "sampler/unwind/cfi_table.h"
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
    if (const char* libs = getenv("CPROF_BENCH_DLOPEN")) {
      std::string all = libs;
      for (size_t at = 0; at <= all.size();) {
        const size_t end = std::min(all.find(':', at), all.size());
        const std::string path = all.substr(at, end - at);
        if (!path.empty() && dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) == nullptr) {
          fprintf(stderr, "unwind_bench: %s\n", dlerror());
        }
        at = end + 1;
      }
    }
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

void context_leaf_cold(void* p) {
  auto& state = *static_cast<benchmark::State*>(p);
  ucontext_t uc;
  getcontext(&uc);
  size_t frames = 0;
  for (auto _ : state) {
    default_unwinder()->flush_cache();  // a generation bump: the unwind clears the cache
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
void BM_Libunwind_ColdContext(benchmark::State& s) {
  run(s, UnwindMethod::kLibunwind, context_leaf_cold);
}
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

// The price of a module's table: parse its .eh_frame into rows (what the writer thread
// does when the policy says so). Modules by .eh_frame size, largest first.
void BM_BuildCfiTable(benchmark::State& state) {
  std::vector<const Module*> mods;
  for (const Module& m : modules().modules()) {
    if (eh_frame_size(m) > 0) mods.push_back(&m);
  }
  std::sort(mods.begin(), mods.end(),
            [](const Module* a, const Module* b) { return eh_frame_size(*a) > eh_frame_size(*b); });
  const auto i = static_cast<size_t>(state.range(0));
  if (i >= mods.size()) {
    state.SkipWithError("no such module");
    return;
  }
  const Module& m = *mods[i];
  const uint64_t bytes = eh_frame_size(m);
  size_t rows = 0;
  for (auto _ : state) {
    auto table = build_cfi_table(m);
    benchmark::DoNotOptimize(table);
    rows = table ? table->rows().size() : 0;
  }
  state.SetLabel(m.path.substr(m.path.rfind('/') + 1));
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["fdes"] = static_cast<double>(m.eh.fde_count);
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["s_per_byte"] = benchmark::Counter(
      static_cast<double>(bytes),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

BENCHMARK(BM_Dwarf_Signal)->Arg(10)->Arg(50);
BENCHMARK(BM_Dwarf_Context)->Arg(10)->Arg(50);
BENCHMARK(BM_Libunwind_Signal)->Arg(10)->Arg(50);
BENCHMARK(BM_Libunwind_Context)->Arg(10)->Arg(50);
BENCHMARK(BM_Libunwind_ColdContext)->Arg(10)->Arg(50);
BENCHMARK(BM_FramePointer_Signal)->Arg(10)->Arg(50);
BENCHMARK(BM_FramePointer_Context)->Arg(10)->Arg(50);
BENCHMARK(BM_SignalOnly);
BENCHMARK(BM_BuildCfiTable)->DenseRange(0, 5)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cprof::sampler::bench

BENCHMARK_MAIN();
