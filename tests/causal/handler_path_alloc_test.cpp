// Everything the signal handler and the interposers call from causal/ never allocates
// (their signal-safety contracts): counted with a replaced global operator new.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "causal/delays.h"
#include "causal/experiment.h"
#include "causal/location.h"
#include "causal/progress_registry.h"
#include "fake_time.h"

namespace {
thread_local bool g_counting = false;
thread_local int g_allocations = 0;
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
// GCC cannot tell these replacements pair with the operator new above.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop

namespace cprof::causal {
namespace {

TEST(HandlerPath, NeverAllocates) {
  testing::FakeTime time;
  DelayAccounting delays(time.sleeper());
  ProgressRegistry progress;
  ProgressPoint* point = progress.find_or_add("p", ProgressKind::latency, ProgressSource::api);
  LocationTable table;
  table.add("a.cpp:1", {{0x1000, 0x1100}});
  table.finish();
  RecentLocations recent;
  ExperimentController controller(ExperimentConfig{}, table, {0}, &recent, delays, progress,
                                  time.clock());
  ThreadDelay a, b;
  delays.thread_started(a);
  delays.thread_started(b);
  controller.begin(*controller.plan_next());
  time.sleeps.reserve(64);  // the fake sleeper's own log must not count

  const uint64_t frames[] = {0x5000, 0x1050, 0x7000};
  g_counting = true;  // the counter itself works
  void* probe = ::operator new(16);  // a direct call, which the compiler may not elide
  asm volatile("" : : "r"(probe) : "memory");
  ::operator delete(probe);
  g_counting = false;
  ASSERT_EQ(g_allocations, 1);
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < 10; ++i) {
    if (const Location* sel = controller.selected(); sel && stack_hits(*sel, frames)) {
      delays.on_sample_in_selected(a);
    }
    if (const Location* l = table.first_in_stack(frames)) recent.note(l->id);
    delays.pay(a);
    const uint64_t g = delays.before_block(b);
    delays.before_wake_other(a);
    delays.after_woken_by_other(b, g);
    delays.after_self_wake(b);
    point->visit();
    point->begin();
    point->record_duration(100);
    point->end();
    (void)table.find(0x1010);
    (void)delays.owed(b);
    (void)progress.at(0)->counts();
  }
  g_counting = false;
  EXPECT_EQ(g_allocations, 0);
  EXPECT_GT(delays.selected_samples(), 0u);
  controller.finish();
}

}  // namespace
}  // namespace cprof::causal
