#pragma once
// Executable file mappings the loader does not know: a program that maps part of its own
// binary (or a library) a second time and runs code there. V8 (node) does this with its
// embedded builtins: /usr/bin/node's text appears again elsewhere (r-xp, at a file offset
// inside the binary), and samples there were "[unknown]" while perf names them
// (Builtins_StringCompare, ...). dl_iterate_phdr lists each loaded object once, at its
// load address, so such a mapping is found in /proc/self/maps instead and recorded as a
// module of its own: the same file, with the load bias that maps its addresses back to the
// file's ELF addresses. For the report's symbols only; the unwinder does not use them.
//
// Normal context (the writer thread): reads files, allocates.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/records.h"
#include "sampler/unwind/module_table.h"

namespace cprof::sampler {

// One line of /proc/PID/maps that maps a file executable.
struct ExecutableMapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;  // file offset of `start`
  std::string path;
};

// The executable, file-backed mappings of a /proc/PID/maps text.
std::vector<ExecutableMapping> executable_mappings(std::string_view maps);

// The load bias that maps `m`'s addresses to ELF addresses of its file: from the PT_LOAD
// segment holding its file offset (address - bias = p_vaddr + (offset - p_offset)). False
// when the file is not an ELF file or no segment holds the offset.
bool remapped_load_bias(const ExecutableMapping& m, uint64_t& bias);

// The mappings of `maps` whose code lies outside every module of `snapshot`, as module
// records (id and time left 0 for the caller), with the build id of the snapshot's module
// of the same file when there is one.
std::vector<format::ModuleRecord> remapped_code_modules(const ModuleSnapshot& snapshot,
                                                        std::string_view maps);

}  // namespace cprof::sampler
