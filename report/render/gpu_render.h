#pragma once
// The GPU sections of each format (docs/report.md, "GPU"), one file per format
// (text_gpu.cpp, json_gpu.cpp, html_gpu.cpp, chrome_gpu.cpp, sqlite_gpu.cpp), called by
// the format's own renderer. Each writes nothing (json: null) when the report has no GPU
// records. Internal to render/.

#include <cstdint>
#include <string>
#include <vector>

#include "report/render/json_writer.h"
#include "report/render/render.h"

namespace cprof::report {

class Db;

// Kernels, launch sites (by function, or by line with --by line; the launch tree with
// --view tree), devices with their idle gaps, copies.
void text_gpu(std::string& out, const Report& r, const RenderOptions& o);
// Writes "gpu": {...} (or null) into the open top-level object.
void json_gpu(JsonWriter& j, const Report& r, const RenderOptions& o);
// <section id="gpu"> with its tables; nothing without GPU records.
void html_gpu(std::string& out, const Report& r, const RenderOptions& o);
// Kernel and copy slices on per-device, per-queue tracks, and flow arrows from each
// launching thread at the submission to the execution. Appends to the open traceEvents
// array; draws at most about max_events events (the earliest kernels first).
void chrome_gpu(JsonWriter& j, const Report& r, uint64_t max_events);
// Creates and fills the tables gpu_devices, gpu_idle_gaps, gpu_trace_windows, kernels and
// copies (and adds the launch stacks to stacks / stack_frames) inside the caller's
// transaction; errors stick in db (Db::error).
void write_sqlite_gpu(Db& db, const Report& r);

// Shared by the GPU renderers: "square(float*, int)" or "[unknown kernel]".
std::string gpu_kernel_label(const std::string& name);
// A launch site's function name, or "[no launch stack]".
std::string gpu_site_function(const Report& r, const GpuSite& site);
// "file.cpp:12" of a launch site, "" when unknown.
std::string gpu_site_location(const Report& r, const GpuSite& site);
// "gfx90a on host (run1)".
std::string gpu_device_label(const GpuDeviceRow& d);
// What the trace windows mean for the numbers, as sentences (text wraps them, html joins
// them); empty when every process was traced throughout.
std::vector<std::string> gpu_tracing_note(const GpuTracing& t);
// Bytes in the unit that reads best: "512 B", "1.5 kB", "12.3 MB", "4.00 GB".
std::string human_bytes(uint64_t bytes);

}  // namespace cprof::report
