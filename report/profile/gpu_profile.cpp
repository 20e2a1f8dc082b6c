#include "report/profile/gpu_profile.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "report/load/stack_table.h"

namespace cprof::report {
namespace {

// Basename prefixes of the libraries between a program's launch call and the hooks.
constexpr std::string_view kRuntimePrefixes[] = {
    "libhsa-runtime", "libamdhip", "libhip", "librocprofiler", "libroctracer", "libamd_comgr",
    "libcuda.", "libcudart", "libcupti", "libnvidia-", "libcublas", "libcudnn"};

bool by_time(const GpuMeasure& a, const GpuMeasure& b) {
  return std::tie(a.time_ns, a.calls) > std::tie(b.time_ns, b.calls);
}

// Expands launch stacks into sites, tree paths and the functions and lines on them.
class LaunchAttribution {
 public:
  LaunchAttribution(const SymbolTable& table, GpuProfile& out) : t_(table), out_(out) {
    out_.launch_tree.emplace_back();
  }

  // Launch site of every stack of a process; fills out_.stack_site.
  void add_process(const ProcessProfile& p, const std::vector<uint32_t>& locations,
                   const std::vector<GpuMeasure>& per_stack, const GpuMeasure& no_stack) {
    const auto& st = p.gpu.launch_stacks;
    auto& sites = out_.stack_site.emplace_back(st.size());
    std::vector<FunctionId> path;
    std::vector<LineId> lines;
    for (uint32_t s = 0; s < st.size(); ++s) {
      const uint64_t base = st.offset(s);
      const size_t depth = st.frames(s).size();
      size_t site = 0;
      while (site < depth && is_runtime(locations[base + site])) ++site;
      if (site == depth) site = 0;  // nothing but runtime frames: the innermost is all we have
      const auto chain = t_.frames_of(locations[base + site]);
      sites[s] = {.function = chain[0].function, .line = chain[0].line};
      if (per_stack[s].calls == 0) continue;
      path.clear();
      lines.clear();
      for (size_t i = depth; i-- > site;) {
        const auto c = t_.frames_of(locations[base + i]);
        for (size_t k = c.size(); k-- > 0;) {
          path.push_back(c[k].function);
          lines.push_back(c[k].line);
        }
      }
      add(sites[s], path, lines, per_stack[s]);
    }
    if (no_stack.calls) add(GpuSite{}, {}, {}, no_stack);
  }

  void finish() {
    auto rows = [](std::unordered_map<uint32_t, GpuLaunchRow>& m) {
      std::vector<GpuLaunchRow> v;
      v.reserve(m.size());
      for (auto& [id, row] : m) v.push_back(row);
      std::sort(v.begin(), v.end(), [](const GpuLaunchRow& a, const GpuLaunchRow& b) {
        if (by_time(a.self, b.self)) return true;
        if (by_time(b.self, a.self)) return false;
        if (by_time(a.total, b.total)) return true;
        if (by_time(b.total, a.total)) return false;
        return a.id < b.id;
      });
      return v;
    };
    out_.launch_functions = rows(functions_);
    out_.launch_lines = rows(lines_);
    auto& nodes = out_.launch_tree;
    for (size_t i = nodes.size(); i-- > 1;) {
      auto& n = nodes[i];
      n.total.calls += n.self.calls;
      n.total.time_ns += n.self.time_ns;
      nodes[n.parent].total.calls += n.total.calls;
      nodes[n.parent].total.time_ns += n.total.time_ns;
    }
    nodes[0].total.calls += nodes[0].self.calls;
    nodes[0].total.time_ns += nodes[0].self.time_ns;
    for (auto& n : nodes) {
      std::sort(n.children.begin(), n.children.end(), [&](uint32_t a, uint32_t b) {
        const auto& x = nodes[a];
        const auto& y = nodes[b];
        return std::tie(y.total.time_ns, y.total.calls, x.function) <
               std::tie(x.total.time_ns, x.total.calls, y.function);
      });
    }
  }

 private:
  bool is_runtime(uint32_t location) {
    if (runtime_.size() < t_.locations()) runtime_.resize(t_.locations(), -1);
    auto& r = runtime_[location];
    if (r < 0) {
      const uint32_t m = t_.location_module[location];
      r = static_cast<signed char>(m != SymbolTable::kNoModule && is_gpu_runtime_module(t_.modules[m].path));
    }
    return r > 0;
  }

  static void add_measure(GpuMeasure& to, const GpuMeasure& m) {
    to.calls += m.calls;
    to.time_ns += m.time_ns;
  }

  void add(const GpuSite& site, const std::vector<FunctionId>& path,
           const std::vector<LineId>& lines, const GpuMeasure& m) {
    const uint32_t f = site.none() ? GpuLaunchRow::kNoSite : site.function;
    const uint32_t l = site.none() ? GpuLaunchRow::kNoSite : site.line;
    add_measure(row(functions_, f).self, m);
    add_measure(row(lines_, l).self, m);
    // Total: once per kernel however often recursion or inlining repeats it.
    seen_.clear();
    for (const FunctionId x : path) {
      if (seen_.insert(x).second) add_measure(row(functions_, x).total, m);
    }
    seen_.clear();
    for (const LineId x : lines) {
      if (seen_.insert(x).second) add_measure(row(lines_, x).total, m);
    }
    if (site.none()) {
      add_measure(row(functions_, f).total, m);
      add_measure(row(lines_, l).total, m);
    }
    uint32_t node = 0;
    const auto step = [&](FunctionId fn) {
      bool inserted = false;
      const auto next = static_cast<uint32_t>(out_.launch_tree.size());
      const uint32_t child =
          child_of_.find_or_insert((static_cast<uint64_t>(node) << 32) | fn, next, inserted);
      if (inserted) {
        out_.launch_tree.push_back(
            {.parent = node, .function = fn, .depth = out_.launch_tree[node].depth + 1});
        out_.launch_tree[node].children.push_back(child);
      }
      node = child;
    };
    if (site.none()) {
      step(GpuSite::kNone);
    } else {
      for (const FunctionId x : path) step(x);
    }
    add_measure(out_.launch_tree[node].self, m);
  }

  static GpuLaunchRow& row(std::unordered_map<uint32_t, GpuLaunchRow>& m, uint32_t id) {
    auto [it, inserted] = m.try_emplace(id);
    if (inserted) it->second.id = id;
    return it->second;
  }

  const SymbolTable& t_;
  GpuProfile& out_;
  std::vector<int8_t> runtime_;  // per location: -1 not asked yet, 0 no, 1 yes
  std::unordered_map<uint32_t, GpuLaunchRow> functions_, lines_;
  std::set<uint32_t> seen_;
  IndexMap child_of_;  // (parent << 32 | function) -> node
};

// Busy over the whole span, or when a process that ran kernels on the device was traced
// in windows, inside the time all such processes were traced.
BusySummary device_busy(std::vector<TimeInterval> intervals, const std::vector<size_t>& processes,
                        const GpuTracing& tracing) {
  bool windowed = false;
  std::vector<TimeInterval> windows;
  for (const size_t p : processes) {
    const auto& w = tracing.by_process[p].windows;
    if (w.empty()) continue;
    windows = windowed ? intersect_intervals(windows, w) : w;
    windowed = true;
  }
  if (!windowed) return summarize_busy(std::move(intervals));
  // No common window (several processes' windows never met): nothing observed.
  return summarize_busy_in_windows(std::move(intervals), std::move(windows));
}

}  // namespace

double GpuCopyRow::gb_per_s() const {
  return time_ns == 0 ? 0.0 : static_cast<double>(timed_bytes) / static_cast<double>(time_ns);
}

double GpuProfile::fraction(const GpuMeasure& m) const {
  return kernel_ns == 0 ? 0.0 : static_cast<double>(m.time_ns) / static_cast<double>(kernel_ns);
}

bool is_gpu_runtime_module(std::string_view path) {
  const auto slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return std::any_of(std::begin(kRuntimePrefixes), std::end(kRuntimePrefixes),
                     [&](std::string_view p) { return base.starts_with(p); });
}

const char* copy_direction_name(format::CopyDirection d) {
  switch (d) {
    case format::CopyDirection::host_to_device:
      return "host to device";
    case format::CopyDirection::device_to_host:
      return "device to host";
    case format::CopyDirection::device_to_device:
      return "device to device";
    case format::CopyDirection::host_to_host:
      return "host to host";
    case format::CopyDirection::unknown:
      break;
  }
  return "unknown";
}

const char* device_kind_name(format::GpuDeviceKind k) {
  switch (k) {
    case format::GpuDeviceKind::cpu:
      return "cpu";
    case format::GpuDeviceKind::gpu:
      return "gpu";
    case format::GpuDeviceKind::other:
      break;
  }
  return "other";
}

GpuProfile build_gpu_profile(const std::vector<ProcessProfile>& processes,
                             const SymbolizedProfiles& symbols) {
  GpuProfile out;
  out.tracing = build_gpu_tracing(processes);
  LaunchAttribution launches(symbols.table, out);
  std::unordered_map<std::string, uint32_t> kernel_row;
  std::map<std::tuple<std::string, std::string, uint32_t, std::string>, uint32_t> device_key;
  std::vector<std::vector<TimeInterval>> intervals;
  // Per device row, the processes that ran kernels on it (their windows measure it).
  std::vector<std::vector<size_t>> kernel_processes;
  std::set<std::tuple<uint32_t, size_t, uint64_t>> queues;  // (device row, process, queue)
  // (kernel row, site function, site line) -> calls and time
  std::map<std::tuple<uint32_t, FunctionId, LineId>, GpuMeasure> kernel_sites;
  std::vector<GpuCopyRow> copies(5);

  for (size_t pi = 0; pi < processes.size(); ++pi) {
    const auto& p = processes[pi];
    const auto& g = p.gpu;
    for (const auto& e : g.engines) {
      if (std::find(out.engines.begin(), out.engines.end(), e) == out.engines.end())
        out.engines.push_back(e);
    }
    // Devices are made rows when something ran on them.
    auto& device_row = out.device_row.emplace_back(g.devices.size(), ~0u);
    const auto device = [&](uint32_t d) -> GpuDeviceRow& {
      if (device_row[d] == ~0u) {
        const auto& dev = g.devices[d];
        auto [it, inserted] = device_key.try_emplace(
            {p.run, p.process.hostname, dev.record_id, dev.name},
            static_cast<uint32_t>(out.devices.size()));
        if (inserted) {
          out.devices.push_back({.name = dev.name,
                                 .kind = dev.kind,
                                 .hostname = p.process.hostname,
                                 .run = p.run,
                                 .record_id = dev.record_id});
          intervals.emplace_back();
          kernel_processes.emplace_back();
        }
        device_row[d] = it->second;
      }
      return out.devices[device_row[d]];
    };
    std::vector<uint32_t> name_row(g.kernel_names.size());
    for (size_t n = 0; n < g.kernel_names.size(); ++n) {
      auto [it, inserted] =
          kernel_row.try_emplace(g.kernel_names[n], static_cast<uint32_t>(out.kernel_rows.size()));
      if (inserted) out.kernel_rows.push_back({.name = g.kernel_names[n]});
      name_row[n] = it->second;
    }
    std::vector<GpuMeasure> per_stack(g.launch_stacks.size());
    GpuMeasure no_stack;
    for (const auto& k : g.kernels) {
      const uint64_t ns = k.duration_ns();
      auto& row = out.kernel_rows[name_row[k.name]];
      ++row.calls;
      auto& dev = device(k.device);
      ++dev.kernels;
      auto& ran = kernel_processes[device_row[k.device]];
      if (ran.empty() || ran.back() != pi) ran.push_back(pi);
      queues.insert({device_row[k.device], pi, k.queue_id});
      ++out.kernels;
      auto& m = k.stack == kNoLaunchStack ? no_stack : per_stack[k.stack];
      ++m.calls;
      if (k.timed()) {
        row.duration_ns.add(static_cast<double>(ns));
        row.total_ns += ns;
        ++dev.timed_kernels;
        dev.kernel_ns += ns;
        intervals[device_row[k.device]].push_back({k.start_ns, k.end_ns});
        ++out.timed_kernels;
        out.kernel_ns += ns;
        m.time_ns += ns;
      } else {
        ++row.untimed;
      }
    }
    launches.add_process(p, symbols.launch_frame_locations[pi], per_stack, no_stack);
    const auto& sites = out.stack_site.back();
    for (const auto& k : g.kernels) {
      const GpuSite s = k.stack == kNoLaunchStack ? GpuSite{} : sites[k.stack];
      auto& m = kernel_sites[{name_row[k.name], s.function, s.line}];
      ++m.calls;
      m.time_ns += k.duration_ns();
    }
    for (const auto& c : g.copies) {
      const auto d = static_cast<size_t>(c.direction);
      auto& row = copies[d < copies.size() ? d : 0];
      ++row.count;
      row.bytes += c.bytes;
      ++out.copies;
      out.copy_bytes += c.bytes;
      ++device(c.src_device).copies;
      if (c.dst_device != c.src_device) ++device(c.dst_device).copies;
      if (c.timed()) {
        ++row.timed;
        row.timed_bytes += c.bytes;
        row.time_ns += c.duration_ns();
        row.duration_ns.add(static_cast<double>(c.duration_ns()));
      }
    }
  }
  launches.finish();
  if (out.launch_tree.size() == 1 && out.kernels == 0) out.launch_tree.clear();

  for (const auto& [key, m] : kernel_sites) {
    const auto& [row, function, line] = key;
    out.kernel_rows[row].sites.push_back({.site = {.function = function, .line = line}, .measure = m});
  }
  for (auto& row : out.kernel_rows) {
    std::stable_sort(row.sites.begin(), row.sites.end(),
                     [](const auto& a, const auto& b) { return by_time(a.measure, b.measure); });
  }
  // Names of kernels that never ran (a record's name interned, then the record dropped)
  // cannot occur: every name came from a kernel. Sort by total time.
  std::sort(out.kernel_rows.begin(), out.kernel_rows.end(), [](const auto& a, const auto& b) {
    return std::tie(b.total_ns, b.calls, a.name) < std::tie(a.total_ns, a.calls, b.name);
  });
  for (const auto& [d, p, q] : queues) ++out.devices[d].queues;
  for (size_t d = 0; d < out.devices.size(); ++d)
    out.devices[d].busy = device_busy(std::move(intervals[d]), kernel_processes[d], out.tracing);
  for (size_t d = 0; d < copies.size(); ++d) {
    copies[d].direction = static_cast<format::CopyDirection>(d);
    if (copies[d].count) out.copy_rows.push_back(copies[d]);
  }
  return out;
}

}  // namespace cprof::report
