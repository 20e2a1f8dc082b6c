#include "gpu/hsa/kernel_names.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <utility>

namespace cprof::gpu::hsa {

namespace {

struct Collect {
  const CoreApiTable* core;
  std::vector<std::pair<uint64_t, std::string>> kernels;
};

hsa_status_t collect_symbol(hsa_executable_t, hsa_executable_symbol_t symbol, void* data) {
  auto* c = static_cast<Collect*>(data);
  hsa_symbol_kind_t kind{};
  if (c->core->hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_TYPE,
                                                 &kind) != HSA_STATUS_SUCCESS ||
      kind != HSA_SYMBOL_KIND_KERNEL) {
    return HSA_STATUS_SUCCESS;
  }
  uint64_t object = 0;
  uint32_t length = 0;
  if (c->core->hsa_executable_symbol_get_info_fn(
          symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &object) != HSA_STATUS_SUCCESS ||
      c->core->hsa_executable_symbol_get_info_fn(
          symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &length) != HSA_STATUS_SUCCESS) {
    return HSA_STATUS_SUCCESS;
  }
  std::string name(length, '\0');  // the runtime writes the name without a terminator
  if (c->core->hsa_executable_symbol_get_info_fn(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME,
                                                 name.data()) != HSA_STATUS_SUCCESS) {
    return HSA_STATUS_SUCCESS;
  }
  c->kernels.emplace_back(object, demangle_kernel_name(name));
  return HSA_STATUS_SUCCESS;
}

}  // namespace

void KernelNames::add_executable(const CoreApiTable& core, hsa_executable_t exe) {
  if (core.hsa_executable_iterate_symbols_fn == nullptr ||
      core.hsa_executable_symbol_get_info_fn == nullptr) {
    return;
  }
  Collect c{&core, {}};
  core.hsa_executable_iterate_symbols_fn(exe, collect_symbol, &c);
  std::unique_lock lock(mutex_);
  auto& objects = objects_[exe.handle];
  for (auto& [object, name] : c.kernels) {
    names_[object] = std::move(name);
    objects.push_back(object);
  }
}

void KernelNames::remove_executable(hsa_executable_t exe) {
  std::unique_lock lock(mutex_);
  const auto it = objects_.find(exe.handle);
  if (it == objects_.end()) return;
  for (uint64_t object : it->second) names_.erase(object);
  objects_.erase(it);
}

std::string KernelNames::find(uint64_t kernel_object) const {
  std::shared_lock lock(mutex_);
  const auto it = names_.find(kernel_object);
  return it == names_.end() ? std::string() : it->second;
}

}  // namespace cprof::gpu::hsa
