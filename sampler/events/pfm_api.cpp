#include "sampler/events/pfm_api.h"

#include <dlfcn.h>

#include <mutex>

namespace cprof::sampler {
namespace {

template <typename Fn>
bool resolve(void* handle, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  return out != nullptr;
}

}  // namespace

const PfmApi* pfm_api(std::string& error) {
  static PfmApi api{};
  static std::string why;
  static std::once_flag once;
  std::call_once(once, [] {
    void* handle = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* e = dlerror();
      why = std::string("libpfm4 could not be loaded: ") + (e != nullptr ? e : "libpfm.so.4");
      return;
    }
    PfmApi loaded{};
    if (!resolve(handle, "pfm_initialize", loaded.initialize) ||
        !resolve(handle, "pfm_strerror", loaded.strerror) ||
        !resolve(handle, "pfm_get_pmu_info", loaded.get_pmu_info) ||
        !resolve(handle, "pfm_get_event_next", loaded.get_event_next) ||
        !resolve(handle, "pfm_get_event_info", loaded.get_event_info) ||
        !resolve(handle, "pfm_get_os_event_encoding", loaded.get_os_event_encoding)) {
      why = "libpfm4 lacks a function this profiler needs (libpfm.so.4 too old?)";
      return;  // the handle stays open: harmless
    }
    if (const pfm_err_t rc = loaded.initialize(); rc != PFM_SUCCESS) {
      why = std::string("libpfm4 initialization failed: ") + loaded.strerror(rc);
      return;
    }
    api = loaded;
  });
  if (api.initialize == nullptr) {
    error = why;
    return nullptr;
  }
  return &api;
}

}  // namespace cprof::sampler
