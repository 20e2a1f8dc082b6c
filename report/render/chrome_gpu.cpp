// The chrome trace's GPU tracks: each device that ran something is a trace process
// ("GPU gfx90a on host"), each of its queues a track with the kernels as slices, and
// its copies on a track of their own. A flow arrow ("s" on the launching thread at the
// submission, bound to a zero-length "launch" slice there; "f" bound to the kernel's
// slice, "bp": "e") joins each launch to its execution, so Perfetto UI and
// chrome://tracing draw where the CPU asked for the work and when the GPU did it.
// Times are placed on the same calendar clock as the samples (chrome.cpp). When the hooks
// traced only windows of the run, a "GPU tracing" trace process has a track per such
// process with each window as a slice: what lies between them was not traced.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "report/render/gpu_render.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

// A process's monotonic nanoseconds -> microseconds since the earliest process start,
// in realtime: the placement chrome.cpp gives the samples.
class Clock {
 public:
  explicit Clock(const std::vector<ProcessProfile>& processes) {
    for (const auto& p : processes) {
      if (p.has_process_record && p.process.start_realtime_ns)
        origin_ = std::min(origin_, p.process.start_realtime_ns);
    }
  }
  double us(const ProcessProfile& p, uint64_t mono_ns) const {
    const bool placed =
        origin_ != UINT64_MAX && p.has_process_record && p.process.start_realtime_ns;
    const double t = placed ? static_cast<double>(mono_ns) -
                                  static_cast<double>(p.process.start_monotonic_ns) +
                                  static_cast<double>(p.process.start_realtime_ns - origin_)
                            : static_cast<double>(mono_ns);
    return std::max(0.0, t) / 1e3;
  }

 private:
  uint64_t origin_ = UINT64_MAX;
};

struct Item {
  uint64_t start_ns;
  uint32_t process;
  uint32_t index;  // into the process's kernels or copies
  bool copy;
};

// The trace windows: a trace process after the devices, a track per windowed process.
// At most `budget` slices, the earliest first.
void windows(JsonWriter& j, const Report& r, const Clock& clock, uint64_t budget) {
  const auto& by_process = r.gpu.tracing.by_process;
  const uint64_t pid = r.processes.size() + 1 + r.gpu.devices.size();
  uint64_t all = 0, drawn = 0;
  for (const auto& t : by_process) all += t.windows.size();
  if (all == 0) return;
  j.begin_object(true).field("ph", "M").field("pid", pid).field("name", "process_name");
  j.key("args").begin_object().field("name", "GPU tracing").end_object().end_object();
  struct Slice {
    uint64_t start_ns;
    uint32_t process;
    uint32_t index;
  };
  std::vector<Slice> slices;
  for (uint32_t pi = 0; pi < by_process.size(); ++pi) {
    const auto& t = by_process[pi];
    if (!t.windowed()) continue;
    j.begin_object(true)
        .field("ph", "M")
        .field("pid", pid)
        .field("tid", pi + 1)
        .field("name", "thread_name");
    j.key("args").begin_object().field("name", "traced windows of " + r.processes[pi].label());
    j.end_object().end_object();
    for (uint32_t i = 0; i < t.windows.size(); ++i)
      slices.push_back({t.windows[i].start_ns, pi, i});
  }
  std::stable_sort(slices.begin(), slices.end(),
                   [](const Slice& a, const Slice& b) { return a.start_ns < b.start_ns; });
  for (const auto& s : slices) {
    if (drawn == budget) break;
    const auto& p = r.processes[s.process];
    const auto& t = by_process[s.process];
    const auto& w = t.windows[s.index];
    const bool inferred = s.index >= t.windows.size() - t.inferred_windows;
    const double ts = clock.us(p, w.start_ns);
    j.begin_object(true)
        .field("ph", "X")
        .field("pid", pid)
        .field("tid", s.process + 1)
        .field("ts", ts)
        .field("dur", clock.us(p, w.end_ns) - ts)
        .field("name", inferred ? "traced (window inferred: its record was lost)" : "traced")
        .field("cat", "gpu.trace_window");
    j.key("args")
        .begin_object()
        .field("process", p.label())
        .field("duty", t.duty_max)
        .field("period_ns", t.period_max_ns)
        .field("inferred", inferred)
        .end_object()
        .end_object();
    ++drawn;
  }
  if (drawn < all) {
    j.begin_object(true)
        .field("ph", "i")
        .field("s", "p")
        .field("pid", pid)
        .field("tid", 0)
        .field("ts", clock.us(r.processes[slices[drawn - 1].process], slices[drawn - 1].start_ns))
        .field("name", fmt::format("GPU trace windows cut: the first {} of {} drawn", drawn, all))
        .end_object();
  }
}

}  // namespace

void chrome_gpu(JsonWriter& j, const Report& r, uint64_t max_events) {
  if (r.gpu.empty()) return;
  const Clock clock(r.processes);
  // A quarter of the trace's event budget, four events per kernel or copy (slice, launch
  // slice, two flow ends): the samples keep the rest.
  const uint64_t budget = std::max<uint64_t>(1, max_events / 16);
  std::vector<Item> items;
  for (uint32_t pi = 0; pi < r.processes.size(); ++pi) {
    const auto& g = r.processes[pi].gpu;
    for (uint32_t i = 0; i < g.kernels.size(); ++i) {
      if (g.kernels[i].timed()) items.push_back({g.kernels[i].start_ns, pi, i, false});
    }
    for (uint32_t i = 0; i < g.copies.size(); ++i) {
      if (g.copies[i].timed()) items.push_back({g.copies[i].start_ns, pi, i, true});
    }
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const Item& a, const Item& b) { return a.start_ns < b.start_ns; });
  const size_t all_items = items.size();
  if (items.size() > budget) items.resize(budget);
  windows(j, r, clock, budget);

  // Device rows are trace processes after the CPU ones; each (process, queue) a track.
  const uint64_t device_pid0 = r.processes.size() + 1;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t>, int64_t> queue_tid;  // (row, process, queue)
  std::vector<int64_t> next_tid(r.gpu.devices.size(), 1);
  std::vector<bool> named(r.gpu.devices.size(), false);
  constexpr int64_t kCopyTid = 0;
  const auto track = [&](uint32_t row, uint32_t pi, uint64_t queue, bool copy) {
    const uint64_t pid = device_pid0 + row;
    if (!named[row]) {
      named[row] = true;
      j.begin_object(true).field("ph", "M").field("pid", pid).field("name", "process_name");
      j.key("args").begin_object().field("name", "GPU " + gpu_device_label(r.gpu.devices[row]));
      j.end_object().end_object();
    }
    int64_t tid = kCopyTid;
    std::string name = "copies";
    if (!copy) {
      auto [it, inserted] = queue_tid.try_emplace({row, pi, queue}, next_tid[row]);
      tid = it->second;
      if (!inserted) return std::pair{pid, tid};
      ++next_tid[row];
      name = fmt::format("queue {} of {}", queue, r.processes[pi].label());
    } else if (!queue_tid.try_emplace({row, ~0u, 0}, kCopyTid).second) {
      return std::pair{pid, tid};
    }
    j.begin_object(true)
        .field("ph", "M")
        .field("pid", pid)
        .field("tid", tid)
        .field("name", "thread_name");
    j.key("args").begin_object().field("name", name).end_object().end_object();
    return std::pair{pid, tid};
  };

  uint64_t flow_id = 0;
  for (const auto& it : items) {
    const auto& p = r.processes[it.process];
    const auto& rows = r.gpu.device_row[it.process];
    const uint64_t cpu_pid = it.process + 1;
    uint32_t device = 0;
    uint64_t submit = 0, start = 0, end = 0;
    int64_t tid = 0;
    std::string name;
    if (it.copy) {
      const auto& c = p.gpu.copies[it.index];
      // The copy is drawn on its GPU end (the destination when both are GPUs).
      const bool dst_gpu = p.gpu.devices[c.dst_device].kind == format::GpuDeviceKind::gpu;
      device = dst_gpu || p.gpu.devices[c.src_device].kind != format::GpuDeviceKind::gpu
                   ? c.dst_device
                   : c.src_device;
      submit = c.submit_ns, start = c.start_ns, end = c.end_ns, tid = c.tid;
      name = fmt::format("copy {} {}", copy_direction_name(c.direction), human_bytes(c.bytes));
    } else {
      const auto& k = p.gpu.kernels[it.index];
      device = k.device;
      submit = k.submit_ns, start = k.start_ns, end = k.end_ns, tid = k.tid;
      name = gpu_kernel_label(p.gpu.kernel_names[k.name]);
    }
    if (device >= rows.size() || rows[device] == ~0u) continue;
    const auto [pid, track_tid] =
        track(rows[device], it.process, it.copy ? 0 : p.gpu.kernels[it.index].queue_id, it.copy);
    const double ts = clock.us(p, start);
    j.begin_object(true)
        .field("ph", "X")
        .field("pid", pid)
        .field("tid", track_tid)
        .field("ts", ts)
        .field("dur", clock.us(p, end) - ts)
        .field("name", name)
        .field("cat", it.copy ? "gpu.copy" : "gpu.kernel");
    j.key("args").begin_object().field("process", p.label());
    if (!it.copy) {
      const auto& k = p.gpu.kernels[it.index];
      j.field("queue", k.queue_id)
          .field("dispatch_id", k.dispatch_id)
          .field("correlation_id", k.correlation_id)
          .field("grid", fmt::format("{}x{}x{}", k.grid[0], k.grid[1], k.grid[2]))
          .field("workgroup", fmt::format("{}x{}x{}", k.workgroup[0], k.workgroup[1], k.workgroup[2]));
    }
    j.end_object().end_object();
    if (submit == 0) continue;  // no submission time: nothing to draw an arrow from
    ++flow_id;
    const double launch_ts = clock.us(p, submit);
    j.begin_object(true)
        .field("ph", "X")
        .field("pid", cpu_pid)
        .field("tid", tid)
        .field("ts", launch_ts)
        .field("dur", 0)
        .field("name", "launch " + name)
        .field("cat", "gpu.launch")
        .end_object();
    j.begin_object(true)
        .field("ph", "s")
        .field("id", flow_id)
        .field("pid", cpu_pid)
        .field("tid", tid)
        .field("ts", launch_ts)
        .field("name", "launch")
        .field("cat", "gpu.flow")
        .end_object();
    j.begin_object(true)
        .field("ph", "f")
        .field("bp", "e")
        .field("id", flow_id)
        .field("pid", pid)
        .field("tid", track_tid)
        .field("ts", ts)
        .field("name", "launch")
        .field("cat", "gpu.flow")
        .end_object();
  }
  if (items.size() < all_items) {
    j.begin_object(true)
        .field("ph", "i")
        .field("s", "g")
        .field("pid", device_pid0)
        .field("tid", 0)
        .field("ts", items.empty() ? 0.0 : clock.us(r.processes[items.back().process], items.back().start_ns))
        .field("name", fmt::format("GPU trace cut: the first {} of {} kernels and copies drawn",
                                   items.size(), all_items))
        .end_object();
  }
}

}  // namespace cprof::report
