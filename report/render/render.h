#pragma once
// Renderers: one file per output format, each a function from a built Report to text.

#include <cstddef>
#include <string>

#include "report/report.h"

namespace cprof::report {

enum class RowKind { function, line };

struct RenderOptions {
  size_t top = 20;  // rows per table; 0 = all
  RowKind by = RowKind::function;
  size_t width = 100;  // text: the widest line
};

std::string render_text(const Report& report, const RenderOptions& options);
std::string render_json(const Report& report, const RenderOptions& options);

}  // namespace cprof::report
