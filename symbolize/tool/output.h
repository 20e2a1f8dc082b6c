#pragma once
// How causal-symbolize writes one answer: GNU addr2line's layout or llvm-symbolizer's.

#include <cstdint>
#include <string>

#include "symbolize/types.h"

namespace cprof::symbolize::tool {

enum class Style { gnu, llvm };

struct OutputOptions {
  Style style = Style::gnu;
  bool functions = false;  // -f
  bool addresses = false;  // -a
  bool pretty = false;     // -p
  bool basenames = false;  // -s
};

// Appends the answer for one address to `out`.
void format_symbol(uint64_t addr, const Symbol& sym, const OutputOptions& o, std::string& out);

}  // namespace cprof::symbolize::tool
