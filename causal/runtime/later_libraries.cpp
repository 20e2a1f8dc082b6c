// Libraries the program loads after it started (dlopen): causal-run resolved their
// locations and --progress places in the library files (--binary-scope PATH), and the
// runtime attaches them to the code where the loader puts it. Called by the sampling
// runtime after each dlopen and dlclose that changed what is loaded, on the thread that
// called it, before the call returns to the program: a place is patched before the
// program can run the library's code (docs/causal.md, "Libraries loaded later").
#include <map>
#include <set>
#include <string>

#include "causal/runtime/breakpoints.h"
#include "causal/runtime/causal_runtime.h"

namespace cprof::causal {

void CausalRuntime::attach_later_libraries() {
  std::lock_guard lock(later_mutex_);
  if (later_locations_.empty() && later_points_.empty()) return;
  const std::map<std::string, uint64_t> biases = library_load_biases();
  bool changed = false;
  std::map<std::string, std::pair<size_t, size_t>> attached;  // module: locations, places
  for (auto& later : later_locations_) {
    const auto library = biases.find(later.module);
    const bool was_loaded = table_.is_loaded(later.id);
    if (library == biases.end() || later.moved) {
      if (was_loaded) {
        table_.detach(later.id);
        changed = true;
      }
      continue;
    }
    if (was_loaded) continue;
    if (!table_.attach(later.id, library->second)) {
      later.moved = true;
      queue_message(format::MessageLevel::warning,
                    "no more experiments on " + table_.at(later.id).name + ": " + later.module +
                        " was loaded again at another address");
      continue;
    }
    later.ever_loaded = true;
    changed = true;
    ++attached[later.module].first;
  }
  if (changed) table_.publish();
  for (auto& later : later_points_) {
    const auto library = biases.find(later.module);
    if (library == biases.end()) {
      later.patched_bias.reset();  // unloaded: a load maps its code afresh
      continue;
    }
    if (later.patched_bias == library->second || later.failed || breakpoints_ == nullptr) {
      continue;
    }
    if (std::string why =
            breakpoints_->add_loaded(later.point, later.address + library->second, later.plan);
        !why.empty()) {
      later.failed = true;
      queue_message(format::MessageLevel::warning,
                    "progress point " + later.point->name() + " not counted: " + why +
                        " (in a library loaded later, points are counted in its code only)");
      continue;
    }
    later.patched_bias = library->second;
    later.ever_patched = true;
    ++attached[later.module].second;
  }
  for (const auto& [module, counts] : attached) {
    const auto [locations, places] = counts;
    std::string what;
    if (locations > 0) {
      what = std::to_string(locations) + (locations == 1 ? " location" : " locations");
    }
    if (places > 0) {
      what += (what.empty() ? "" : " and ") + std::to_string(places) +
              (places == 1 ? " progress place" : " progress places");
    }
    queue_message(format::MessageLevel::info,
                  module + " was loaded after the start: " + what + " in it from now on");
  }
}

void CausalRuntime::queue_never_loaded() {
  std::lock_guard lock(later_mutex_);
  std::set<std::string> never;
  for (const auto& later : later_locations_) {
    if (!later.ever_loaded) never.insert(later.module);
  }
  for (const auto& later : later_points_) {
    if (!later.ever_patched && !later.failed) never.insert(later.module);
  }
  for (const auto& module : never) {
    queue_message(format::MessageLevel::warning,
                  "no experiments on code in " + module +
                      " and no progress counted there: the program never loaded it");
  }
}

}  // namespace cprof::causal
