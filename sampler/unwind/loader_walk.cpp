#include "sampler/unwind/loader_walk.h"

#include <cstddef>
#include <mutex>

namespace cprof::sampler {
namespace {

std::mutex g_walks;  // constant-initialized: usable before any constructor has run
__attribute__((tls_model("initial-exec"))) thread_local int t_depth = 0;

}  // namespace

int walk_loaded_objects(LoadedObjectVisitor visit, void* data) {
  if (t_depth > 0) return dl_iterate_phdr(visit, data);
  std::lock_guard lock(g_walks);
  ++t_depth;
  const int result = dl_iterate_phdr(visit, data);
  --t_depth;
  return result;
}

LoaderCounts loader_counts() noexcept {
  LoaderCounts out;
  walk_loaded_objects(
      [](dl_phdr_info* info, size_t size, void* data) -> int {
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
          *static_cast<LoaderCounts*>(data) = {info->dlpi_adds, info->dlpi_subs};
        }
        return 1;  // the same in every entry: the first is enough
      },
      &out);
  return out;
}

void hold_loader_walks() noexcept { g_walks.lock(); }

// In the parent, and in the child, where the forking thread, the holder, is the one left.
void release_loader_walks() noexcept { g_walks.unlock(); }

}  // namespace cprof::sampler
