#include "report/load/gpu_load.h"

#include <algorithm>
#include <tuple>

namespace cprof::report {

uint32_t GpuActivityBuilder::device_index(uint32_t record_id) {
  auto [it, inserted] = device_of_id_.try_emplace(record_id, static_cast<uint32_t>(a_.devices.size()));
  if (inserted) {
    // Named later by its gpu_device record, if the file has one.
    a_.devices.push_back({.record_id = record_id, .name = "device " + std::to_string(record_id)});
  }
  return it->second;
}

uint32_t GpuActivityBuilder::name_index(std::string&& name) {
  auto [it, inserted] = name_of_.try_emplace(name, static_cast<uint32_t>(a_.kernel_names.size()));
  if (inserted) a_.kernel_names.push_back(std::move(name));
  return it->second;
}

uint32_t GpuActivityBuilder::stack_id(const std::vector<uint64_t>& frames) {
  return frames.empty() ? kNoLaunchStack : a_.launch_stacks.intern(frames);
}

void GpuActivityBuilder::add(format::KernelRecord&& r) {
  GpuKernel k{.submit_ns = r.time_ns,
              .start_ns = r.start_ns,
              .end_ns = r.end_ns,
              .queue_id = r.queue_id,
              .dispatch_id = r.dispatch_id,
              .correlation_id = r.correlation_id,
              .tid = r.tid,
              .device = device_index(r.device_id),
              .name = name_index(std::move(r.name)),
              .stack = stack_id(r.frames)};
  std::copy(std::begin(r.grid), std::end(r.grid), k.grid);
  std::copy(std::begin(r.workgroup), std::end(r.workgroup), k.workgroup);
  a_.kernels.push_back(k);
}

void GpuActivityBuilder::add(format::CopyRecord&& r) {
  a_.copies.push_back({.submit_ns = r.time_ns,
                       .start_ns = r.start_ns,
                       .end_ns = r.end_ns,
                       .bytes = r.bytes,
                       .correlation_id = r.correlation_id,
                       .tid = r.tid,
                       .direction = r.direction,
                       .src_device = device_index(r.src_device_id),
                       .dst_device = device_index(r.dst_device_id),
                       .stack = stack_id(r.frames)});
}

void GpuActivityBuilder::add(format::GpuDeviceRecord&& r) {
  auto& d = a_.devices[device_index(r.id)];
  d.name = r.name.empty() ? "device " + std::to_string(r.id) : std::move(r.name);
  d.kind = r.kind;
  d.described = true;
}

bool is_gpu_companion(const ProcessProfile& p) {
  return p.has_process_record && format::is_gpu_engine(p.process.engine) && p.samples == 0;
}

void append_gpu_activity(GpuActivity& into, GpuActivity&& from) {
  for (auto& e : from.engines) {
    if (std::find(into.engines.begin(), into.engines.end(), e) == into.engines.end())
      into.engines.push_back(std::move(e));
  }
  for (auto& f : from.files) into.files.push_back(std::move(f));
  // A second file's device 0 is not the first's: devices are appended, never matched.
  const auto device_base = static_cast<uint32_t>(into.devices.size());
  for (auto& d : from.devices) into.devices.push_back(std::move(d));
  std::vector<uint32_t> name_of(from.kernel_names.size());
  for (size_t i = 0; i < from.kernel_names.size(); ++i) {
    const auto it = std::find(into.kernel_names.begin(), into.kernel_names.end(), from.kernel_names[i]);
    name_of[i] = static_cast<uint32_t>(it - into.kernel_names.begin());
    if (it == into.kernel_names.end()) into.kernel_names.push_back(std::move(from.kernel_names[i]));
  }
  std::vector<uint32_t> stack_of(from.launch_stacks.size());
  for (uint32_t s = 0; s < from.launch_stacks.size(); ++s)
    stack_of[s] = into.launch_stacks.intern(from.launch_stacks.frames(s));
  const auto stack = [&](uint32_t s) { return s == kNoLaunchStack ? s : stack_of[s]; };
  for (auto k : from.kernels) {
    k.device += device_base;
    k.name = name_of[k.name];
    k.stack = stack(k.stack);
    into.kernels.push_back(k);
  }
  for (auto c : from.copies) {
    c.src_device += device_base;
    c.dst_device += device_base;
    c.stack = stack(c.stack);
    into.copies.push_back(c);
  }
  into.trace_windows.insert(into.trace_windows.end(), from.trace_windows.begin(),
                            from.trace_windows.end());
}

namespace {

// The modules of the companion that the process lacks (the GPU runtime may have been
// dlopened after the sampler's last module record); the same mapping is kept once.
void merge_modules(std::vector<format::ModuleRecord>& into, std::vector<format::ModuleRecord>&& from) {
  const auto key = [](const format::ModuleRecord& m) {
    return std::tie(m.path, m.start, m.end, m.load_bias);
  };
  for (auto& m : from) {
    const bool known = std::any_of(into.begin(), into.end(),
                                   [&](const format::ModuleRecord& x) { return key(x) == key(m); });
    if (!known) into.push_back(std::move(m));
  }
  std::stable_sort(into.begin(), into.end(),
                   [](const auto& a, const auto& b) { return a.start < b.start; });
}

// The sampler's process a companion belongs to, or -1.
ptrdiff_t owner_of(const std::vector<ProcessProfile>& processes, const ProcessProfile& c) {
  ptrdiff_t best = -1, any = -1;
  for (size_t i = 0; i < processes.size(); ++i) {
    const auto& p = processes[i];
    if (!p.has_process_record || is_gpu_companion(p) || p.run != c.run ||
        p.process.pid != c.process.pid || p.process.hostname != c.process.hostname)
      continue;
    if (any < 0) any = static_cast<ptrdiff_t>(i);
    if (p.process.start_monotonic_ns <= c.process.start_monotonic_ns &&
        (best < 0 || p.process.start_monotonic_ns >
                         processes[static_cast<size_t>(best)].process.start_monotonic_ns))
      best = static_cast<ptrdiff_t>(i);
  }
  return best >= 0 ? best : any;
}

}  // namespace

void merge_gpu_companions(std::vector<ProcessProfile>& processes) {
  std::vector<bool> merged(processes.size(), false);
  for (size_t i = 0; i < processes.size(); ++i) {
    auto& c = processes[i];
    if ((!c.gpu.empty() || c.gpu.windowed()) && c.gpu.engines.empty() && c.has_process_record &&
        format::is_gpu_engine(c.process.engine))
      c.gpu.engines.push_back(c.process.engine);
    if (!is_gpu_companion(c)) continue;
    c.gpu.files.push_back(c.file);
    const ptrdiff_t owner = owner_of(processes, c);
    if (owner < 0) continue;
    auto& p = processes[static_cast<size_t>(owner)];
    append_gpu_activity(p.gpu, std::move(c.gpu));
    merge_modules(p.modules, std::move(c.modules));
    p.first_time_ns = std::min(p.first_time_ns, c.first_time_ns);
    p.last_time_ns = std::max(p.last_time_ns, c.last_time_ns);
    p.file_bytes += c.file_bytes;
    p.unknown_records += c.unknown_records;
    p.skipped_bytes += c.skipped_bytes;
    for (auto& m : c.messages) p.messages.push_back(std::move(m));
    merged[i] = true;
  }
  size_t out = 0;
  for (size_t i = 0; i < processes.size(); ++i) {
    if (merged[i]) continue;
    if (out != i) processes[out] = std::move(processes[i]);
    ++out;
  }
  processes.resize(out);
}

}  // namespace cprof::report
