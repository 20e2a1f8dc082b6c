#include "sampler/events/event_resolver.h"

#include <gtest/gtest.h>

namespace cprof::sampler {
namespace {

TEST(EventResolver, SoftwareEventsResolveByTheirPerfNames) {
  const auto events = resolve_events({"page-faults", "context-switches", "task-clock"});
  ASSERT_EQ(events.size(), 3u);
  for (const auto& e : events) {
    EXPECT_EQ(e.kind, ResolvedEvent::Kind::resolved) << e.name << ": " << e.detail;
    EXPECT_EQ(e.attr.type, static_cast<uint32_t>(PERF_TYPE_SOFTWARE));
  }
  EXPECT_EQ(events[0].attr.config, static_cast<uint64_t>(PERF_COUNT_SW_PAGE_FAULTS));
  EXPECT_EQ(events[1].canonical_name, "perf::PERF_COUNT_SW_CONTEXT_SWITCHES");
}

TEST(EventResolver, UnknownNameIsUnknown) {
  const auto events = resolve_events({"definitely-not-an-event"});
  EXPECT_EQ(events[0].kind, ResolvedEvent::Kind::unknown);
  EXPECT_NE(events[0].detail.find("unknown event"), std::string::npos);
}

TEST(EventResolver, EventOfAnAbsentPmuIsNotUnknown) {
  // INST_RETIRED:ANY_P is an Intel core event: resolved on Intel hardware, and known but
  // absent elsewhere (a VM has no PMU) — never "unknown".
  const auto events = resolve_events({"INST_RETIRED:ANY_P"});
  EXPECT_NE(events[0].kind, ResolvedEvent::Kind::unknown) << events[0].detail;
  if (events[0].kind == ResolvedEvent::Kind::absent_pmu) {
    EXPECT_NE(events[0].detail.find("PMU"), std::string::npos);
  }
}

TEST(EventResolver, SplitsCommaLists) {
  EXPECT_EQ(split_event_list("a,b,,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_event_list("").empty());
}

}  // namespace
}  // namespace cprof::sampler
