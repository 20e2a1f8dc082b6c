#include "gpu/common/causal_wait.h"

#include <dlfcn.h>

#include <atomic>

namespace cprof::gpu {
namespace {

std::atomic<const cprof_device_wait_api*> g_api{nullptr};

const cprof_device_wait_api* api() { return g_api.load(std::memory_order_acquire); }

}  // namespace

bool find_causal_runtime() {
  if (api() != nullptr) return true;
  auto fn = reinterpret_cast<cprof_device_wait_api_fn>(
      dlsym(RTLD_DEFAULT, CPROF_DEVICE_WAIT_API_SYMBOL));
  const cprof_device_wait_api* found = fn != nullptr ? fn() : nullptr;
  // A later version keeps version 1's fields first.
  if (found == nullptr || found->version < 1 || found->begin == nullptr || found->end == nullptr) {
    return false;
  }
  g_api.store(found, std::memory_order_release);
  return true;
}

bool causal_runtime_present() { return api() != nullptr; }

CausalDeviceWait::CausalDeviceWait() : api_(api()) {
  if (api_ != nullptr) api_->begin();
}

CausalDeviceWait::~CausalDeviceWait() {
  if (api_ != nullptr) api_->end();
}

void causal_device_wait_begin() {
  if (const cprof_device_wait_api* a = api()) a->begin();
}

void causal_device_wait_end() {
  if (const cprof_device_wait_api* a = api()) a->end();
}

}  // namespace cprof::gpu
