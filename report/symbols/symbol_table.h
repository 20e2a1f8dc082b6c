#pragma once
// Symbolization of loaded profiles: the distinct addresses of every process's stack table
// are found, mapped to (module, ELF address), resolved once per module -- modules in
// parallel, the same binary in eight processes once -- and interned into functions and
// source lines. The result maps every frame of every stack table to a location, and every
// location to its inline chain of (function, line) frames.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "report/load/process_profile.h"
#include "report/symbols/symbol_source.h"

namespace cprof::report {

using FunctionId = uint32_t;
using LineId = uint32_t;

struct FunctionInfo {
  std::string name;    // demangled, or "module+0xoffset", or "[unknown]"
  std::string module;  // path of the module it is in; empty for [unknown]
  // Where it is defined (DW_AT_decl_file/line); without that, the file of its first-seen
  // line and the lowest line seen in it (about where it starts). Empty, 0 when unknown.
  std::string file;
  uint32_t line = 0;
  // False for a row named after its address ("sub_START (module)", "module+0xoffset"):
  // the module's symbols did not name it.
  bool named = true;
};

struct LineInfo {
  std::string file;  // empty when unknown: then the row stands for one address
  uint32_t line = 0;
  FunctionId function = 0;  // the function it was first seen in
};

struct SymbolFrame {
  FunctionId function = 0;
  LineId line = 0;
};

struct SymbolTable {
  std::vector<FunctionInfo> functions;
  std::vector<LineInfo> lines;
  std::vector<ModuleKey> modules;
  // Location l's inline chain, innermost first: frames[offsets[l] .. offsets[l+1]).
  std::vector<uint32_t> location_offsets{0};
  std::vector<SymbolFrame> location_frames;
  // Location l's module (index into modules; kNoModule for [unknown]) and ELF address
  // (of the call instruction's byte for return addresses): what pprof's locations need.
  static constexpr uint32_t kNoModule = ~uint32_t{0};
  std::vector<uint32_t> location_module{kNoModule};
  std::vector<uint64_t> location_address{0};
  std::string source;  // the SymbolSource's name

  size_t locations() const { return location_offsets.size() - 1; }
  std::span<const SymbolFrame> frames_of(uint32_t location) const {
    return {location_frames.data() + location_offsets[location],
            location_frames.data() + location_offsets[location + 1]};
  }
  // Display text for a line row: "file:line" or the function for an unnamed address.
  std::string line_label(LineId id) const;
};

struct SymbolizedProfiles {
  SymbolTable table;
  // Per process, parallel to its StackTable::all_frames(): the location of each frame.
  std::vector<std::vector<uint32_t>> frame_locations;
  // The same for the GPU launch stacks (ProcessProfile::gpu.launch_stacks).
  std::vector<std::vector<uint32_t>> launch_frame_locations;
  std::vector<std::string> warnings;
};

SymbolizedProfiles symbolize_profiles(const std::vector<ProcessProfile>& processes,
                                      SymbolSource& source);

}  // namespace cprof::report
