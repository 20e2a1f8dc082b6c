#include "symbolize/dwarf/source_path.h"

#include <dwarf.h>

#include <filesystem>

namespace cprof::symbolize {

const char* compilation_directory(Dwarf_Die* unit_die) {
  Dwarf_Attribute attr;
  if (unit_die == nullptr || dwarf_attr(unit_die, DW_AT_comp_dir, &attr) == nullptr) {
    return nullptr;
  }
  return dwarf_formstring(&attr);
}

std::string source_path(const char* name, const char* comp_dir) {
  if (name == nullptr) return "";
  if (name[0] == '\0' || name[0] == '/' || name[0] == '<' || comp_dir == nullptr ||
      comp_dir[0] != '/') {
    return name;  // absolute, "<built-in>", or nothing absolute to join it to
  }
  return (std::filesystem::path(comp_dir) / name).lexically_normal().string();
}

}  // namespace cprof::symbolize
