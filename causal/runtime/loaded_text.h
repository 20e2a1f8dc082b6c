#pragma once
// Where loaded objects' code lies: their executable PT_LOAD segments, as dl_iterate_phdr
// reports them. Used to find a library's text (libgomp's for Syscall User Dispatch, libc's)
// and the text holding an address (an OpenMP runtime's, from one of its functions). Not
// async-signal-safe (dl_iterate_phdr takes the loader's lock).

#include <link.h>

#include <cstdint>
#include <string>

#include "sampler/unwind/loader_walk.h"

namespace cprof::causal {

struct LoadedText {
  uintptr_t start = 0;  // 0: not found
  uintptr_t end = 0;
  std::string name;     // the object's name as the loader gave it ("" for the executable)
};

// The first executable segment, in load order, for which `accept(name, start, end)` is
// true; an empty LoadedText when none is.
template <typename Accept>
LoadedText find_loaded_text(Accept accept) {
  struct Query {
    Accept* accept;
    LoadedText found;
  } q{&accept, {}};
  sampler::walk_loaded_objects(
      [](dl_phdr_info* info, size_t, void* p) {
        auto* query = static_cast<Query*>(p);
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
          const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
          const uintptr_t end = start + ph.p_memsz;
          if ((*query->accept)(info->dlpi_name, start, end)) {
            query->found = {start, end, info->dlpi_name != nullptr ? info->dlpi_name : ""};
            return 1;
          }
        }
        return 0;
      },
      &q);
  return q.found;
}

// The executable segment holding `address`.
inline LoadedText loaded_text_containing(const void* address) {
  const auto a = reinterpret_cast<uintptr_t>(address);
  return find_loaded_text([a](const char*, uintptr_t start, uintptr_t end) {
    return a >= start && a < end;
  });
}

}  // namespace cprof::causal
