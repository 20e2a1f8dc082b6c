#include "sampler/unwind/libunwind_api.h"

#include <dlfcn.h>

namespace cprof::sampler {
namespace {

LibunwindApi g_api{};
bool g_loaded = false;

template <typename Fn>
bool resolve(void* handle, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  return out != nullptr;
}

}  // namespace

bool load_libunwind() noexcept {
  if (g_loaded) return true;
  void* handle = dlopen("libunwind-x86_64.so.8", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return false;
  LibunwindApi api{};
  const bool ok = resolve(handle, "_Ux86_64_create_addr_space", api.create_addr_space) &&
                  resolve(handle, "_Ux86_64_destroy_addr_space", api.destroy_addr_space) &&
                  resolve(handle, "_Ux86_64_get_accessors", api.get_accessors) &&
                  resolve(handle, "_Ux86_64_flush_cache", api.flush_cache) &&
                  resolve(handle, "_Ux86_64_set_caching_policy", api.set_caching_policy) &&
                  resolve(handle, "_Ux86_64_init_remote", api.init_remote) &&
                  resolve(handle, "_Ux86_64_step", api.step) &&
                  resolve(handle, "_Ux86_64_get_reg", api.get_reg) &&
                  resolve(handle, "_Ux86_64_dwarf_search_unwind_table",
                          api.dwarf_search_unwind_table);
  if (!ok) return false;  // the handle stays open: harmless, and dlclose is not needed
  g_api = api;
  g_loaded = true;
  return true;
}

const LibunwindApi& libunwind_api() noexcept { return g_api; }

}  // namespace cprof::sampler
