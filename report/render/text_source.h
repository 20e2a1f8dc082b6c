#pragma once
// The text report's annotated source (causal-report --source FILE): the file's lines with
// their time, the sampled ones with context around them. Internal to render/.

#include <string>

#include "report/render/render.h"

namespace cprof::report {

void text_source(std::string& out, const Report& r, const RenderOptions& o);

}  // namespace cprof::report
