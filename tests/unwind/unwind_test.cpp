// Unwinding from a real signal handler through known call chains.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <ucontext.h>

#include <random>
#include <thread>

#include "sampler/unwind/unwinder.h"
#include "tests/unwind/signal_capture.h"

namespace cprof::sampler::test {

// External linkage: function_range() finds them through the exported dynamic symbols.
volatile int g_sink;

__attribute__((noinline, noclone)) void spin_leaf(void* ctx) {
  auto* stop = static_cast<std::atomic<bool>*>(ctx);
  while (!stop->load(std::memory_order_relaxed)) g_sink = g_sink + 1;
}

__attribute__((noinline, noclone)) void run_nofp_chain() {
  nofp::chain_a(capture_stop());
  g_sink = 0;
}

namespace {

ModuleTable& modules() {
  // Built once for the whole binary, before any handler runs; init_unwinding makes it
  // the table behind unwind_with_libunwind().
  static ModuleTable* table = [] {
    auto* t = new ModuleTable();
    EXPECT_TRUE(init_unwinding(*t));
    return t;
  }();
  return *table;
}


// frames[0] in chain_d, then return addresses into chain_c, chain_b, chain_a, in order.
template <class F>
void expect_abcd_chain(const Capture& c, F d, F cc, F b, F a) {
  ASSERT_GE(c.n, 5u) << describe(c);
  EXPECT_TRUE(frame_in(c.frames[0], function_range(reinterpret_cast<void*>(d)), false))
      << describe(c);
  EXPECT_TRUE(frame_in(c.frames[1], function_range(reinterpret_cast<void*>(cc)), true))
      << describe(c);
  EXPECT_TRUE(frame_in(c.frames[2], function_range(reinterpret_cast<void*>(b)), true))
      << describe(c);
  EXPECT_TRUE(frame_in(c.frames[3], function_range(reinterpret_cast<void*>(a)), true))
      << describe(c);
}

size_t unwind_libunwind(const ucontext_t* uc, StackBounds s, uint64_t* f, size_t m) {
  return unwind_with_libunwind(uc, s, f, m);
}
size_t unwind_fp(const ucontext_t* uc, StackBounds s, uint64_t* f, size_t m) {
  return unwind_with_frame_pointers(uc, s, f, m);
}


TEST(LibunwindUnwinder, UnwindsOmitFramePointerChainFromSignalOnMainThread) {
  modules();
  Capture c = capture_in(unwind_libunwind, function_range(reinterpret_cast<void*>(&nofp::chain_d)),
                         [] { run_nofp_chain(); });
  expect_abcd_chain(c, &nofp::chain_d, &nofp::chain_c, &nofp::chain_b, &nofp::chain_a);
  EXPECT_TRUE(frame_in(c.frames[4], function_range(reinterpret_cast<void*>(&run_nofp_chain)), true))
      << describe(c);
  // Beyond the test body: gtest, main, __libc_start_call_main ... all have CFI.
  EXPECT_GE(c.n, 10u) << describe(c);
}

TEST(LibunwindUnwinder, UnwindsOnRegisteredSecondaryThread) {
  modules();
  Capture c;
  std::thread t([&] {
    // Registered: this thread unwinds with its own lock-free address space.
    ASSERT_TRUE(register_unwind_thread());
    c = capture_in(unwind_libunwind, function_range(reinterpret_cast<void*>(&nofp::chain_d)),
                   [] { run_nofp_chain(); });
    unregister_unwind_thread();
  });
  t.join();
  expect_abcd_chain(c, &nofp::chain_d, &nofp::chain_c, &nofp::chain_b, &nofp::chain_a);
}

TEST(LibunwindUnwinder, UnwindsDeepRecursionAndBoundsDepth) {
  modules();
  static std::atomic<bool>* stop = capture_stop();
  auto deep = [] { nofp::recurse(200, spin_leaf, stop); };
  Capture c = capture_in(unwind_libunwind, function_range(reinterpret_cast<void*>(&spin_leaf)), deep);
  ASSERT_EQ(c.n, Capture::kMax) << describe(c);  // 200 frames deep, capped at 128
  const Range rec = function_range(reinterpret_cast<void*>(&nofp::recurse));
  for (size_t i = 1; i < c.n; ++i) ASSERT_TRUE(frame_in(c.frames[i], rec, true)) << i << describe(c);
}

TEST(FramePointerUnwinder, UnwindsFramePointerChainFromSignal) {
  Capture c = capture_in(unwind_fp, function_range(reinterpret_cast<void*>(&withfp::chain_d)),
                         [] { withfp::chain_a(capture_stop()); });
  expect_abcd_chain(c, &withfp::chain_d, &withfp::chain_c, &withfp::chain_b, &withfp::chain_a);
}

TEST(FramePointerUnwinder, StopsAtMax) {
  static std::atomic<bool>* stop = capture_stop();
  Capture c = capture_in(
      [](const ucontext_t* uc, StackBounds s, uint64_t* f, size_t) {
        return unwind_with_frame_pointers(uc, s, f, 10);
      },
      function_range(reinterpret_cast<void*>(&spin_leaf)),
      [] { withfp::recurse(50, spin_leaf, stop); });
  EXPECT_EQ(c.n, 10u) << describe(c);
}

TEST(LibunwindUnwinder, DlopenedLibraryUnwindsAfterRefresh) {
  modules();
  void* h = dlopen(CPROF_TEST_DSO_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << dlerror();
  using Fn = int (*)(void (*)(void*), void*);
  auto outer = reinterpret_cast<Fn>(dlsym(h, "cprof_test_dso_outer"));
  auto inner = reinterpret_cast<Fn>(dlsym(h, "cprof_test_dso_inner"));
  ASSERT_TRUE(outer && inner);
  EXPECT_EQ(modules().find(reinterpret_cast<uint64_t>(inner)), nullptr);

  modules().refresh();  // what the runtime does after dlopen
  const Module* m = modules().find(reinterpret_cast<uint64_t>(inner));
  ASSERT_NE(m, nullptr);
  EXPECT_NE(m->path.find("unwind_test_dso"), std::string::npos) << m->path;
  EXPECT_NE(m->eh.table, 0u);

  static std::atomic<bool>* stop = capture_stop();
  static Fn s_outer = outer;
  Capture c = capture_in(unwind_libunwind, function_range(reinterpret_cast<void*>(&spin_leaf)),
                         [] { s_outer(spin_leaf, stop); g_sink = 0; });
  ASSERT_GE(c.n, 4u) << describe(c);
  EXPECT_TRUE(frame_in(c.frames[1], function_range(reinterpret_cast<void*>(inner)), true)) << describe(c);
  EXPECT_TRUE(frame_in(c.frames[2], function_range(reinterpret_cast<void*>(outer)), true)) << describe(c);
  // And on through the DSO into this test's lambda and gtest.
  EXPECT_GE(c.n, 8u) << describe(c);
  dlclose(h);
  modules().refresh();
}

// Unwinding a context whose registers are garbage must end early, never fault.
void garbage_contexts(size_t (*fn)(const ucontext_t*, StackBounds, uint64_t*, size_t)) {
  const StackBounds bounds = current_thread_stack_bounds();
  ASSERT_FALSE(bounds.empty());
  ucontext_t base;
  getcontext(&base);
  uint64_t frames[128];

  // rsp/rbp outside the stack or pointing at unmapped memory.
  for (uint64_t sp : {uint64_t{0}, uint64_t{0x10}, ~uint64_t{0} - 7, bounds.lo - 4096, bounds.hi,
                      bounds.hi - 8}) {
    ucontext_t uc = base;
    uc.uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(sp);
    uc.uc_mcontext.gregs[REG_RBP] = static_cast<greg_t>(sp);
    size_t n = fn(&uc, bounds, frames, 128);
    EXPECT_GE(n, 1u);
    EXPECT_LE(n, 3u) << "sp=" << std::hex << sp;
  }

  // A "stack" full of random words, some of them plausible addresses.
  std::mt19937_64 rng(42);
  alignas(16) uint64_t junk[2048];
  const uint64_t code = reinterpret_cast<uint64_t>(&nofp::chain_a);
  for (int iter = 0; iter < 2000; ++iter) {
    for (auto& w : junk) {
      switch (rng() % 4) {
        case 0: w = rng(); break;
        case 1: w = code + rng() % 65536 - 32768; break;
        case 2: w = reinterpret_cast<uint64_t>(&junk[rng() % 2048]); break;
        default: w = rng() % 4096; break;
      }
    }
    ucontext_t uc = base;
    uc.uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(reinterpret_cast<uint64_t>(&junk[rng() % 64]));
    uc.uc_mcontext.gregs[REG_RBP] = static_cast<greg_t>(junk[rng() % 2048]);
    uc.uc_mcontext.gregs[REG_RIP] = static_cast<greg_t>(iter % 2 ? code + rng() % 4096 : rng());
    size_t n = fn(&uc, bounds, frames, 128);
    ASSERT_GE(n, 1u);
    ASSERT_LE(n, 128u);
  }
}

TEST(LibunwindUnwinder, GarbageContextGivesShortStackWithoutCrashing) {
  modules();
  garbage_contexts(unwind_libunwind);
}

TEST(FramePointerUnwinder, GarbageContextGivesShortStackWithoutCrashing) {
  garbage_contexts(unwind_fp);
}

TEST(Unwind, NullContextAndZeroMax) {
  uint64_t f[4];
  EXPECT_EQ(unwind_with_libunwind(nullptr, {}, f, 4), 0u);
  EXPECT_EQ(unwind_with_frame_pointers(nullptr, {}, f, 4), 0u);
  ucontext_t uc;
  getcontext(&uc);
  EXPECT_EQ(unwind_with_libunwind(&uc, current_thread_stack_bounds(), f, 0), 0u);
  // Unknown stack bounds: only the PC.
  EXPECT_EQ(unwind_with_frame_pointers(&uc, {}, f, 4), 1u);
  EXPECT_EQ(f[0], static_cast<uint64_t>(uc.uc_mcontext.gregs[REG_RIP]));
}

TEST(Unwind, ParsesMethodNames) {
  EXPECT_EQ(parse_unwind_method("fp"), UnwindMethod::kFramePointers);
  EXPECT_EQ(parse_unwind_method("libunwind"), UnwindMethod::kLibunwind);
  EXPECT_EQ(parse_unwind_method("dwarf"), UnwindMethod::kDwarf);
  EXPECT_EQ(parse_unwind_method("lbr"), std::nullopt);
  EXPECT_EQ(to_string(UnwindMethod::kFramePointers), "fp");
}

}  // namespace
}  // namespace cprof::sampler::test
