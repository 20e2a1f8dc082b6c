#include "gpu/cuda/launch_tracker.h"

#include <vector>

#include "gpu/common/results_file.h"
#include "gpu/common/tool_settings.h"

namespace cprof::gpu::cuda {
namespace {

struct Nesting {
  uint32_t outer_id = 0;  // correlation id of the outermost watched call in progress
  int depth = 0;
  uint32_t epoch = 0;     // LaunchTracker::epoch_ when the nesting was last seen
};
thread_local Nesting t_nesting;

}  // namespace

void LaunchTracker::enter(ApiKind kind, uint32_t correlation_id) {
  Nesting& n = t_nesting;
  if (const uint32_t epoch = epoch_.load(std::memory_order_relaxed); n.epoch != epoch) {
    n = Nesting{.epoch = epoch};
  }
  if (n.depth++ > 0) {
    join_.alias(correlation_id, n.outer_id);
    return;
  }
  n.outer_id = correlation_id;
  auto launch = std::make_shared<Launch>();
  launch->time_ns = monotonic_ns();
  launch->tid = current_tid();
  if (stacks_.enabled()) {
    thread_local std::vector<uint64_t> frames;
    frames.resize(stacks_.max_depth());
    launch->frames.assign(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(
                                                               stacks_.capture(frames.data())));
  }
  join_.add(correlation_id, std::move(launch), kind == ApiKind::many);
}

void LaunchTracker::exit(uint32_t correlation_id, bool failed) {
  Nesting& n = t_nesting;
  // The exit of a call entered before the current window opened: its entry is forgotten.
  if (n.epoch != epoch_.load(std::memory_order_relaxed)) return;
  if (n.depth > 0) --n.depth;
  // A failed outer call forgets its aliases too; a failed nested call leaves it to the
  // outer one (which usually fails with it, or retried and succeeded).
  if (failed && n.depth == 0) join_.forget(correlation_id);
}

}  // namespace cprof::gpu::cuda
