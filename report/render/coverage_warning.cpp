#include "report/render/coverage_warning.h"

#include <fmt/format.h>

#include <cmath>

#include "report/render/text_util.h"

namespace cprof::report {
namespace {

constexpr size_t kNamedThreads = 3;

// Rounded down, so a thread flagged under 50% never reads "50%".
std::string percent(double f) { return fmt::format("{:.0f}%", std::floor(100 * f)); }

}  // namespace

std::string coverage_warning(const ProcessProfile& p, const SamplingCoverage& c) {
  if (!c.flagged()) return {};
  std::string s =
      fmt::format("warning: {}: samples miss {} of the {} of CPU time of {}", p.label(),
                  human_duration(c.unsampled_cpu_ns), human_duration(c.flagged_cpu_ns()),
                  plural(c.flagged_threads(), "thread"));
  for (size_t i = 0; i < c.threads.size() && i < kNamedThreads; ++i) {
    const auto& u = c.threads[i];
    const auto& t = p.threads[u.thread];
    s += fmt::format("; {}{}: {} of {} sampled", t.tid, t.name.empty() ? "" : " " + t.name,
                     percent(u.coverage()), human_duration(u.cpu_time_ns));
  }
  if (c.threads.size() > kNamedThreads) {
    const size_t more = c.threads.size() - kNamedThreads;
    s += fmt::format("; and {} more thread{}", more, more == 1 ? "" : "s");
  }
  if (const auto& g = c.short_threads; g.threads > 0) {
    s += fmt::format("; {} of under {} each: {} of {} sampled", plural(g.threads, "thread"),
                     human_duration(c.min_thread_cpu_ns), percent(g.coverage()),
                     human_duration(g.cpu_time_ns));
  }
  return s + "; was the sampling signal blocked in them?";
}

}  // namespace cprof::report
