#include "sampler/events/event_resolver.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace cprof::sampler {
namespace {

// Stand-ins for perf_event_open: the kernel as root sees it, and as perf_event_paranoid
// >= 2 makes it for everyone else (kernel level refused, user level allowed).
int allow_all(const perf_event_attr&) { return 0; }
int refuse_kernel_level(const perf_event_attr& attr) { return attr.exclude_kernel ? 0 : EACCES; }
int refuse_all(const perf_event_attr&) { return EACCES; }

TEST(EventResolver, SoftwareEventsResolveByTheirPerfNames) {
  const auto events = resolve_events({"page-faults", "context-switches", "task-clock"}, allow_all);
  ASSERT_EQ(events.size(), 3u);
  for (const auto& e : events) {
    EXPECT_EQ(e.kind, ResolvedEvent::Kind::resolved) << e.name << ": " << e.detail;
    EXPECT_EQ(e.attr.type, static_cast<uint32_t>(PERF_TYPE_SOFTWARE));
  }
  EXPECT_EQ(events[0].attr.config, static_cast<uint64_t>(PERF_COUNT_SW_PAGE_FAULTS));
  EXPECT_EQ(events[1].canonical_name, "perf::PERF_COUNT_SW_CONTEXT_SWITCHES");
}

// Regression: every event was encoded user level only, so context-switches counted 0 and
// page faults taken in the kernel were missed, even where the kernel allowed more.
TEST(EventResolver, CountsUserAndKernelLevelWhereAllowed) {
  const auto events = resolve_events({"context-switches", "page-faults"}, allow_all);
  for (const auto& e : events) {
    ASSERT_EQ(e.kind, ResolvedEvent::Kind::resolved) << e.name << ": " << e.detail;
    EXPECT_EQ(e.attr.exclude_kernel, 0u) << e.name;
    EXPECT_EQ(e.attr.exclude_user, 0u) << e.name;
    EXPECT_FALSE(e.user_only_fallback) << e.name;
    EXPECT_TRUE(e.detail.empty()) << e.name << ": " << e.detail;
  }
}

TEST(EventResolver, FallsBackToUserLevelWhenKernelLevelIsRefusedAndSaysSo) {
  const auto events = resolve_events({"page-faults"}, refuse_kernel_level);
  const auto& e = events[0];
  ASSERT_EQ(e.kind, ResolvedEvent::Kind::resolved) << e.detail;
  EXPECT_EQ(e.attr.exclude_kernel, 1u);
  EXPECT_EQ(e.attr.exclude_user, 0u);
  EXPECT_TRUE(e.user_only_fallback);
  EXPECT_EQ(e.detail.rfind("user only: ", 0), 0u) << e.detail;
  EXPECT_EQ(e.canonical_name, "perf::PERF_COUNT_SW_PAGE_FAULTS:u");
  EXPECT_EQ(e.open_errno, 0);
}

// At user level an event that happens in the kernel reads 0: flagged, not counted as 0.
TEST(EventResolver, KernelOnlyEventRestrictedToUserLevelIsNotPermittedWithTheReason) {
  const auto events = resolve_events({"context-switches", "cpu-migrations"}, refuse_kernel_level);
  for (const auto& e : events) {
    EXPECT_EQ(e.kind, ResolvedEvent::Kind::not_permitted) << e.name;
    EXPECT_EQ(e.detail.rfind("user only: ", 0), 0u) << e.detail;
    EXPECT_NE(e.detail.find("only in the kernel"), std::string::npos) << e.detail;
  }
}

TEST(EventResolver, LevelWrittenInTheNameIsHonoured) {
  const auto user = resolve_events({"context-switches:u", "page-faults:u"}, allow_all);
  for (const auto& e : user) {
    ASSERT_EQ(e.kind, ResolvedEvent::Kind::resolved) << e.name << ": " << e.detail;
    EXPECT_EQ(e.attr.exclude_kernel, 1u) << e.name;
    EXPECT_EQ(e.attr.exclude_user, 0u) << e.name;
    EXPECT_FALSE(e.user_only_fallback);
  }
  EXPECT_EQ(user[0].canonical_name, "perf::PERF_COUNT_SW_CONTEXT_SWITCHES:u");

  // Asked for and allowed: user level, no fallback note even where the kernel refuses.
  const auto asked = resolve_events({"context-switches:u"}, refuse_kernel_level);
  EXPECT_EQ(asked[0].kind, ResolvedEvent::Kind::resolved);
  EXPECT_FALSE(asked[0].user_only_fallback);
  EXPECT_TRUE(asked[0].detail.empty()) << asked[0].detail;

  const auto kernel = resolve_events({"page-faults:k"}, allow_all);
  EXPECT_EQ(kernel[0].attr.exclude_kernel, 0u);
  EXPECT_EQ(kernel[0].attr.exclude_user, 1u);
  EXPECT_EQ(kernel[0].canonical_name, "perf::PERF_COUNT_SW_PAGE_FAULTS:k");

  // Kernel level asked for and refused: not quietly turned into user level.
  for (const char* name : {"page-faults:k", "page-faults:u:k", "page-faults:uk"}) {
    const auto refused = resolve_events({name}, refuse_kernel_level);
    EXPECT_EQ(refused[0].kind, ResolvedEvent::Kind::not_permitted) << name;
    EXPECT_NE(refused[0].detail.find("kernel level asked for"), std::string::npos) << name;
  }
}

TEST(EventResolver, PerfStyleLevelSuffixesAreAccepted) {
  const auto events = resolve_events({"cs:uk", "cs:ku", "page-faults:u"}, allow_all);
  for (const auto& e : events) {
    ASSERT_EQ(e.kind, ResolvedEvent::Kind::resolved) << e.name << ": " << e.detail;
    EXPECT_EQ(e.attr.exclude_user, 0u) << e.name;
  }
  EXPECT_EQ(events[0].attr.exclude_kernel, 0u);
  EXPECT_EQ(events[1].attr.exclude_kernel, 0u);
  EXPECT_EQ(events[2].attr.exclude_kernel, 1u);
  EXPECT_EQ(resolve_events({"cs:ux"}, allow_all)[0].kind, ResolvedEvent::Kind::unknown);
}

TEST(EventResolver, RefusedAtEveryLevelKeepsTheErrnoForTheReport) {
  const auto events = resolve_events({"page-faults"}, refuse_all);
  EXPECT_EQ(events[0].kind, ResolvedEvent::Kind::resolved);
  EXPECT_EQ(events[0].open_errno, EACCES);
  EXPECT_FALSE(events[0].user_only_fallback);
}

// Regression: "-e page-faults,page-faults" counted each fault twice in the report.
TEST(EventResolver, SameEventTwiceIsNamed) {
  EXPECT_EQ(duplicate_event_error(resolve_events({"page-faults", "page-faults"}, allow_all)),
            "'page-faults' is named twice; name each event once");
  const std::string aliases = duplicate_event_error(
      resolve_events({"faults", "context-switches", "page-faults"}, allow_all));
  EXPECT_NE(aliases.find("'faults' and 'page-faults' are the same event"), std::string::npos)
      << aliases;
  EXPECT_EQ(duplicate_event_error(resolve_events({"cs:u:k", "cs"}, allow_all)).empty(), false);
  // Different levels count different things.
  EXPECT_EQ(duplicate_event_error(resolve_events({"cs:u", "cs", "cs:k"}, allow_all)), "");
  EXPECT_EQ(duplicate_event_error(resolve_events({"page-faults", "context-switches"}, allow_all)),
            "");
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
