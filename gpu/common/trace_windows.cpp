#include "gpu/common/trace_windows.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>

#include "common/monotonic.h"
#include "gpu/common/tool_thread.h"
#include "sampler/runtime/config.h"

namespace cprof::gpu {
namespace {

constexpr uint64_t kMaxPeriodMs = 60000;

template <typename T>
bool parse_whole(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

std::string_view getenv_view(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string_view(v) : std::string_view();
}

// splitmix64: a well-mixed sequence from any seed, enough to place windows.
uint64_t next_random(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::optional<TraceDuty> parse_trace_duty(std::string_view duty_percent,
                                          std::string_view period_ms, std::string& error) {
  TraceDuty d;
  if (!duty_percent.empty()) {
    double percent = 0;
    if (!parse_whole(duty_percent, percent) || !(percent > 0 && percent <= 100)) {
      error = std::string(sampler::env::kGpuDuty) + "=" + std::string(duty_percent) +
              ": expected a percentage above 0 and at most 100";
      return std::nullopt;
    }
    d.duty = percent / 100;
  }
  if (!period_ms.empty()) {
    uint64_t ms = 0;
    if (!parse_whole(period_ms, ms) || ms == 0 || ms > kMaxPeriodMs) {
      error = std::string(sampler::env::kGpuPeriodMs) + "=" + std::string(period_ms) +
              ": expected whole milliseconds from 1 to " + std::to_string(kMaxPeriodMs);
      return std::nullopt;
    }
    d.period_ns = ms * 1'000'000;
  }
  return d;
}

std::optional<TraceDuty> trace_duty_from_environment(std::string& error) {
  return parse_trace_duty(getenv_view(sampler::env::kGpuDuty),
                          getenv_view(sampler::env::kGpuPeriodMs), error);
}

WindowPlan::WindowPlan(uint64_t origin, const TraceDuty& d)
    : origin_ns(origin),
      period_ns(d.period_ns),
      length_ns(std::clamp<uint64_t>(std::llround(d.duty * static_cast<double>(d.period_ns)), 1,
                                     d.period_ns)) {}

uint64_t WindowPlan::begin_ns(uint64_t period, double offset) const {
  const auto slack = static_cast<double>(period_ns - length_ns);
  const uint64_t into = period == 0 ? 0 : static_cast<uint64_t>(offset * slack);
  return origin_ns + period * period_ns + std::min<uint64_t>(into, period_ns - length_ns);
}

uint64_t WindowPlan::period_of(uint64_t t) const {
  return t <= origin_ns ? 0 : (t - origin_ns) / period_ns;
}

TraceWindows::TraceWindows(TraceDuty duty, Switch turn, Closed closed, uint64_t seed)
    : duty_(duty), turn_(std::move(turn)), closed_(std::move(closed)), rng_(seed) {}

TraceWindows::~TraceWindows() { stop(); }

void TraceWindows::start() {
  plan_.emplace(monotonic_ns(), duty_);  // window 0 opens at the plan's origin
  thread_ = std::thread([this] { run(); });
}

void TraceWindows::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

double TraceWindows::next_offset() {
  return static_cast<double>(next_random(rng_) >> 11) * 0x1.0p-53;  // [0, 1)
}

bool TraceWindows::wait_until(std::unique_lock<std::mutex>& lock, uint64_t t) {
  // steady_clock is CLOCK_MONOTONIC in libstdc++ and libc++ on Linux: the records' clock.
  const std::chrono::steady_clock::time_point when{std::chrono::nanoseconds(t)};
  return wake_.wait_until(lock, when, [this] { return stopping_; });
}

void TraceWindows::report(uint64_t start, uint64_t end) {
  closed_(format::GpuTraceWindowRecord{.start_ns = start, .end_ns = std::max(start, end),
                                       .duty = duty_.duty, .period_ns = duty_.period_ns});
}

// A window runs from just before tracing is switched on to just after it is switched
// off: every launch the hooks may have traced lies inside it (give or take a launch that
// read the switch, was preempted and then read the clock).
void TraceWindows::run() {
  begin_tool_thread("cprof-gpu-win");
  const WindowPlan& plan = *plan_;
  std::unique_lock lock(mutex_);
  uint64_t period = 0;
  double offset = 0;
  bool on = true;  // tracing starts on: window 0 opened at the origin
  uint64_t opened = plan.origin_ns;
  for (;;) {
    // The open window closes at its planned end.
    if (wait_until(lock, plan.end_ns(period, offset))) break;
    turn_(false);
    on = false;
    report(opened, monotonic_ns());
    // The next window: in the next period, or later when this thread fell behind (a
    // window is never opened in a period whose window already ended).
    const uint64_t now = monotonic_ns();
    period = std::max(period + 1, plan.period_of(now));
    offset = next_offset();
    if (plan.end_ns(period, offset) <= now) ++period;
    if (wait_until(lock, plan.begin_ns(period, offset))) break;
    opened = monotonic_ns();
    turn_(true);
    on = true;
  }
  if (on) report(opened, monotonic_ns());
}

std::unique_ptr<TraceWindows> start_trace_windows(const TraceDuty& duty, TraceWindows::Switch turn,
                                                  GpuResultsFile& file) {
  auto windows = std::make_unique<TraceWindows>(
      duty, std::move(turn), [&file](const format::GpuTraceWindowRecord& w) { file.add(w); },
      static_cast<uint64_t>(getpid()) ^ monotonic_ns());
  windows->start();
  return windows;
}

}  // namespace cprof::gpu
