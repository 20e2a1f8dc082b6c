#pragma once
// The text report's views besides the flat table (text_views.cpp): the call tree, the
// per thread / process / rank tables and the counters table. Internal to render/.

#include <cstdint>
#include <string>

#include "report/render/render.h"

namespace cprof::report {

void text_call_tree(std::string& out, const Report& r, const RenderOptions& o);
void text_breakdown(std::string& out, const Report& r, const RenderOptions& o);
void text_counters(std::string& out, const Report& r, const RenderOptions& o);

// 1234 -> "1.23k", 12345678 -> "12.3M": counts in a narrow column.
std::string short_count(uint64_t n);
// "345 worker in app -x [12]": a thread's label; the process's command is cut to keep it
// within `width` where it can.
std::string thread_label(const ProcessProfile& p, uint32_t thread, size_t width = SIZE_MAX);

}  // namespace cprof::report
