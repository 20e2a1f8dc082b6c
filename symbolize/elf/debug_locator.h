#pragma once
// Finds the file that holds a module's DWARF. Lookup order (docs/symbolize.md):
//   1. the module file itself, when it has .debug_info/.debug_line;
//   2. ROOT/.build-id/xx/yyyy.debug for each ROOT in Options::debug_dirs;
//   3. .gnu_debuglink: DIR/NAME, DIR/.debug/NAME, ROOT/DIR/NAME (CRC32 checked);
//   4. debuginfod, by build-id, when DEBUGINFOD_URLS names servers (debuginfod_fetch.h).
// When the run's build-id differs from the file's (rebuilt since), only step 2 with the
// run's build-id can give the right DWARF.

#include <memory>
#include <string>
#include <vector>

#include "symbolize/elf/elf_file.h"
#include "symbolize/types.h"

namespace cprof::symbolize {

struct DebugFile {
  std::unique_ptr<ElfFile> file;  // nullptr: no DWARF anywhere
  std::string how;                // "module itself", "build-id", "debuglink"
};

// `main` may be nullptr when the module file is gone or rebuilt; `build_id` is the id to
// look for (the run's, else the file's). Notes about rejected candidates go to `notes`.
DebugFile locate_debug_file(const ElfFile* main, const std::string& module_path,
                            const std::string& build_id, const Options& options,
                            std::vector<std::string>& notes);

}  // namespace cprof::symbolize
