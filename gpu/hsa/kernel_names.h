#pragma once
// Kernel object -> demangled kernel name, filled from the symbols of every executable the
// program freezes (hsa_executable_freeze) and forgotten when it is destroyed.
// Thread-safe: lookups (completion threads) and updates (the program's threads) may race.

#include <cstdint>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/common/demangle.h"
#include "gpu/hsa/hsa_api.h"

namespace cprof::gpu::hsa {

using gpu::demangle_kernel_name;  // gpu/common/demangle.h

class KernelNames {
 public:
  // Reads the kernel symbols of `exe` through the runtime's own functions (`core` is the
  // original, unreplaced table).
  void add_executable(const CoreApiTable& core, hsa_executable_t exe);
  void remove_executable(hsa_executable_t exe);
  // "" when unknown.
  std::string find(uint64_t kernel_object) const;

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<uint64_t, std::string> names_;  // kernel object -> name
  std::unordered_map<uint64_t, std::vector<uint64_t>> objects_;  // executable -> objects
};

}  // namespace cprof::gpu::hsa
