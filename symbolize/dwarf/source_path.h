#pragma once
// A source file's name as DWARF gives it, made the path a user would open: a name that
// is relative (an out-of-tree build, `gcc -g ../src/spin.c`, gives "../src/spin.c") is
// joined to its unit's compilation directory (DW_AT_comp_dir) and normalized, as
// addr2line and gdb show it. Names that are absolute, or have no compilation directory
// to join, stay as they are.

#include <elfutils/libdw.h>

#include <string>

namespace cprof::symbolize {

// The unit's DW_AT_comp_dir, or nullptr.
const char* compilation_directory(Dwarf_Die* unit_die);

std::string source_path(const char* name, const char* comp_dir);

}  // namespace cprof::symbolize
