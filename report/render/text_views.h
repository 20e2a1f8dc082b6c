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
// text_waits.cpp: the --by wait table, and the line a wall-clock profile's function
// table ends with ("" when no wait stands out).
void waits_table(std::string& out, const Report& r, const RenderOptions& o);
std::string waits_summary_line(const Report& r);
// "read_message (waiters.cpp:31)": the code that made a wait's call, its name shortened
// to keep the label within `width`; "-" when there is none.
std::string wait_caller_label(const Report& r, const WaitRow& row, size_t width = SIZE_MAX);

// 1234 -> "1.23k", 12345678 -> "12.3M": counts in a narrow column.
std::string short_count(uint64_t n);
// "345 worker in app -x [12]": a thread's label; the process's command is cut to keep it
// within `width` where it can.
std::string thread_label(const ProcessProfile& p, uint32_t thread, size_t width = SIZE_MAX);

}  // namespace cprof::report
