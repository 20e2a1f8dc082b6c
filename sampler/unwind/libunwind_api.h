#pragma once
// libunwind-x86_64 loaded privately. Linking it would put libunwind.so.8 (its dependency)
// into the program's global symbol scope, where its _Unwind_* functions come before
// libgcc_s's: in a C program that later loads C++ code, every exception would then be
// thrown by libunwind instead of libgcc — the profiler changing the program. Loaded with
// RTLD_LOCAL, neither library's symbols are visible to the program.
//
// Signal-safety contract: load_libunwind() is NOT async-signal-safe (dlopen); call it at
// start. libunwind_api() is a plain read, safe anywhere after a successful load.

#include <libunwind.h>

namespace cprof::sampler {

struct LibunwindApi {
  unw_addr_space_t (*create_addr_space)(unw_accessors_t*, int);
  void (*destroy_addr_space)(unw_addr_space_t);
  unw_accessors_t* (*get_accessors)(unw_addr_space_t);
  void (*flush_cache)(unw_addr_space_t, unw_word_t, unw_word_t);
  int (*set_caching_policy)(unw_addr_space_t, unw_caching_policy_t);
  int (*init_remote)(unw_cursor_t*, unw_addr_space_t, void*);
  int (*step)(unw_cursor_t*);
  int (*get_reg)(unw_cursor_t*, int, unw_word_t*);
  int (*dwarf_search_unwind_table)(unw_addr_space_t, unw_word_t, unw_dyn_info_t*,
                                   unw_proc_info_t*, int, void*);
};

// Loads the library once. Returns false (and leaves the API unusable) if it or one of
// its functions is missing.
bool load_libunwind() noexcept;
const LibunwindApi& libunwind_api() noexcept;

}  // namespace cprof::sampler
