#include "causal/launcher/live_status.h"

#include <fmt/format.h>

#include <cstdlib>
#include <utility>

#include "causal/launcher/focus.h"

namespace cprof::causal {

LiveStatus::LiveStatus(std::string dir, std::set<std::string> before, std::string prefix, FILE* out)
    : dir_(std::move(dir)), before_(std::move(before)), prefix_(std::move(prefix)), out_(out) {
  if (const char* ms = std::getenv("CPROF_CAUSAL_STATUS_MS")) {
    fixed_period_ = std::chrono::milliseconds(std::strtoul(ms, nullptr, 10));
  }
  thread_ = std::thread([this] { loop(); });
}

LiveStatus::~LiveStatus() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::chrono::milliseconds LiveStatus::next_wait(unsigned looks) const {
  using std::chrono::seconds;
  if (fixed_period_.count() > 0) return fixed_period_;
  switch (looks) {
    case 0:
      return seconds(10);
    case 1:
      return seconds(20);  // at 30 s
    case 2:
      return seconds(30);  // at 60 s
    default:
      return seconds(60);
  }
}

void LiveStatus::loop() {
  const auto start = std::chrono::steady_clock::now();
  auto at = start;
  for (unsigned looks = 0;; ++looks) {
    at += next_wait(looks);
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_until(lock, at, [this] { return stop_; })) return;
    }
    const std::string so_far = evidence_so_far(dir_, before_);
    if (so_far.empty()) continue;
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    fmt::print(out_, "{} after {:.0f} s: {}\n", prefix_, elapsed.count(), so_far);
    std::fflush(out_);
  }
}

}  // namespace cprof::causal
