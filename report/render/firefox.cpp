// `--format firefox`: the Firefox Profiler's processed profile (profiler.firefox.com, "Load
// a profile from file"; docs/report.md, "Firefox Profiler"). Written at version 57 of the
// processed-profile schema, the last whose layout the profiler's changelog
// (docs-developer/CHANGELOG-formats.md) documents in full: per-thread stack, frame, func
// and resource tables, the strings shared by all threads. The profiler upgrades any older
// version it knows as it loads a file, so a file written at a documented version keeps
// loading as the format moves on, where one written at a newer version than the deployed
// profiler knows is refused.
//
// One thread per sampled thread, hottest first, each sample at its time on one clock for
// every process (realtime since the earliest start, as in the chrome trace), weighted by
// the time it stands for ("tracing-ms"). Inline frames are frames of their own, with the
// depth the profiler draws them at. CPU time no sample covers is one more thread, at the
// end, a sample per group (cpu_account_note.h).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <optional>
#include <unordered_map>
#include <vector>

#include "report/render/cpu_account_note.h"
#include "report/render/json_writer.h"
#include "report/render/render.h"
#include "report/render/string_table.h"
#include "report/render/text_util.h"

namespace cprof::report {
namespace {

constexpr int kPreprocessedProfileVersion = 57;
// The profiler's categories: the first grey one is the default; frames carry theirs.
enum Category : uint32_t { kOther = 0, kProgram = 1, kLibrary = 2 };
constexpr uint32_t kResourceLibrary = 1;  // resourceTable.type

// Breakpad's id for a GNU build id: its first 16 bytes as a GUID (the first three fields
// byte-swapped, as Breakpad reads them little-endian), upper-case, and age 0. What the
// profiler shows and symbolication servers key on.
std::string breakpad_id(const std::string& build_id) {
  if (build_id.size() < 32) return "";
  std::string g = build_id.substr(0, 32);
  const auto swap = [&](size_t at, size_t bytes) {
    for (size_t i = 0; i < bytes / 2; ++i) {
      std::swap(g[at + 2 * i], g[at + 2 * (bytes - 1 - i)]);
      std::swap(g[at + 2 * i + 1], g[at + 2 * (bytes - 1 - i) + 1]);
    }
  };
  swap(0, 4);
  swap(8, 2);
  swap(12, 2);
  std::transform(g.begin(), g.end(), g.begin(), [](unsigned char c) { return std::toupper(c); });
  return g + "0";
}

// One thread's tables, built as its samples are added.
struct ThreadTables {
  struct Frame {
    uint32_t func;
    std::optional<uint32_t> line;
    uint32_t inline_depth;
    uint32_t category;
  };
  struct Func {
    uint32_t name;
    int64_t resource;
    std::optional<uint32_t> file;
    std::optional<uint32_t> line;
  };
  std::vector<std::pair<uint32_t, std::optional<uint32_t>>> stacks;  // (frame, prefix)
  std::vector<Frame> frames;
  std::vector<Func> funcs;
  std::vector<std::pair<uint32_t, uint32_t>> resources;  // (lib, name)
  std::vector<uint32_t> sample_stack;
  std::vector<double> sample_time_ms;
  std::vector<double> sample_weight;

  std::unordered_map<uint64_t, uint32_t> stack_of;     // (prefix + 1) << 32 | frame
  std::unordered_map<uint64_t, uint32_t> frame_of;     // location << 16 | inline depth
  std::unordered_map<uint32_t, uint32_t> func_of;      // FunctionId -> row
  std::unordered_map<uint32_t, uint32_t> resource_of;  // lib -> row

  uint32_t stack(std::optional<uint32_t> prefix, uint32_t frame) {
    const uint64_t key = (prefix ? uint64_t{*prefix} + 1 : 0) << 32 | frame;
    const auto [it, added] = stack_of.try_emplace(key, static_cast<uint32_t>(stacks.size()));
    if (added) stacks.emplace_back(frame, prefix);
    return it->second;
  }
};

class FirefoxWriter {
 public:
  explicit FirefoxWriter(const Report& r) : r_(r), table_(r.symbols.table) {
    for (const auto& p : r.processes) {
      if (p.has_process_record && p.process.start_realtime_ns)
        origin_ = std::min(origin_, p.process.start_realtime_ns);
    }
    weighted_ = r.flat.all.time_ns > 0;
  }

  std::string write() {
    // The threads' tables first: they find which modules (libs) and strings are used.
    std::vector<ThreadTables> threads;
    for (const auto& row : r_.breakdown.threads) threads.push_back(sampled_thread(row));
    const auto unsampled = weighted_ ? unsampled_rows(r_) : std::vector<UnsampledRow>{};
    std::string out;
    JsonWriter j(out);
    j.begin_object();
    meta(j);
    libs(j);
    j.key("threads").begin_array();
    size_t k = 0;
    for (const auto& row : r_.breakdown.threads) thread(j, row, threads[k++]);
    if (!unsampled.empty()) unsampled_thread(j, unsampled);
    j.end_array();
    // The strings last: every table above has added its own.
    j.key("shared").begin_object().key("stringArray").begin_array();
    for (const auto& s : strings_.strings()) j.value(s);
    j.end_array().end_object();
    j.key("pages").begin_array(true).end_array();
    j.end_object();
    return out;
  }

 private:
  // Milliseconds since the earliest process start (realtime) for a process's monotonic
  // nanoseconds; since its own first record when it has no start to place it by.
  double ms(const ProcessProfile& p, uint64_t mono_ns) const {
    const bool placed =
        origin_ != UINT64_MAX && p.has_process_record && p.process.start_realtime_ns != 0;
    const double since =
        placed ? static_cast<double>(mono_ns) - static_cast<double>(p.process.start_monotonic_ns) +
                     static_cast<double>(p.process.start_realtime_ns - origin_)
               : static_cast<double>(mono_ns) -
                     static_cast<double>(p.first_time_ns == ~uint64_t{0} ? 0 : p.first_time_ns);
    return std::max(0.0, since) / 1e6;
  }

  // When process p's first record was written, in ms(); 0 without any.
  double start_ms(const ProcessProfile& p) const {
    return ms(p, p.first_time_ns == ~uint64_t{0} ? 0 : p.first_time_ns);
  }

  uint32_t lib(uint32_t module) {
    const auto [it, added] =
        lib_of_.try_emplace(module, static_cast<uint32_t>(lib_modules_.size()));
    if (added) lib_modules_.push_back(module);
    return it->second;
  }

  uint32_t func(ThreadTables& t, FunctionId f, uint32_t module) {
    const auto [it, added] = t.func_of.try_emplace(f, static_cast<uint32_t>(t.funcs.size()));
    if (!added) return it->second;
    const FunctionInfo& info = table_.functions[f];
    int64_t resource = -1;
    if (module != SymbolTable::kNoModule) {
      const uint32_t l = lib(module);
      const auto [r, new_resource] =
          t.resource_of.try_emplace(l, static_cast<uint32_t>(t.resources.size()));
      if (new_resource)
        t.resources.emplace_back(
            l, strings_.index(std::filesystem::path(info.module).filename().string()));
      resource = r->second;
    }
    t.funcs.push_back(
        {.name = strings_.index(info.name),
         .resource = resource,
         .file = info.file.empty() ? std::nullopt : std::optional(strings_.index(info.file)),
         .line = info.line ? std::optional(info.line) : std::nullopt});
    return it->second;
  }

  // The stack row of process stack `id`, outermost frame first, inline frames expanded.
  uint32_t stack(ThreadTables& t, const ProcessProfile& p, const std::vector<uint32_t>& locations,
                 uint32_t id) {
    const uint64_t base = p.stacks.offset(id);
    std::optional<uint32_t> prefix;
    for (size_t i = p.stacks.frames(id).size(); i-- > 0;) {
      const uint32_t location = locations[base + i];
      const auto chain = table_.frames_of(location);  // innermost first
      const uint32_t module = location < table_.location_module.size()
                                  ? table_.location_module[location]
                                  : SymbolTable::kNoModule;
      for (size_t k = chain.size(); k-- > 0;) {
        const auto depth = static_cast<uint32_t>(chain.size() - 1 - k);
        const uint64_t key = uint64_t{location} << 16 | std::min<uint32_t>(depth, 0xffff);
        const auto [it, added] =
            t.frame_of.try_emplace(key, static_cast<uint32_t>(t.frames.size()));
        if (added) {
          const uint32_t line = table_.lines[chain[k].line].line;
          const auto& path = table_.functions[chain[k].function].module;
          t.frames.push_back({.func = func(t, chain[k].function, module),
                              .line = line ? std::optional(line) : std::nullopt,
                              .inline_depth = depth,
                              .category = path.empty()                   ? kOther
                                          : path == p.process.executable ? kProgram
                                                                         : kLibrary});
        }
        prefix = t.stack(prefix, it->second);
      }
    }
    if (!prefix) prefix = t.stack(std::nullopt, root_frame(t));  // a sample without frames
    return *prefix;
  }

  // A frame for samples without one: "[no stack]".
  uint32_t root_frame(ThreadTables& t) {
    constexpr uint64_t kKey = ~uint64_t{0};
    const auto [it, added] = t.frame_of.try_emplace(kKey, static_cast<uint32_t>(t.frames.size()));
    if (added) {
      t.funcs.push_back({.name = strings_.index("[no stack]"), .resource = -1});
      t.frames.push_back({.func = static_cast<uint32_t>(t.funcs.size() - 1),
                          .inline_depth = 0,
                          .category = kOther});
    }
    return it->second;
  }

  ThreadTables sampled_thread(const BreakdownRow& row) {
    ThreadTables t;
    const auto& p = r_.processes[row.process];
    const auto& locations = r_.symbols.frame_locations[row.process];
    std::vector<int64_t> row_of(p.stacks.size(), -1);  // process stack -> stack row
    const auto stack_row = [&](uint32_t id) {
      if (row_of[id] < 0) row_of[id] = stack(t, p, locations, id);
      return static_cast<uint32_t>(row_of[id]);
    };
    if (!p.timeline.empty()) {  // every sample at its time
      std::vector<const TimelineSample*> samples;
      for (const auto& s : p.timeline) {
        if (s.thread == row.thread) samples.push_back(&s);
      }
      std::stable_sort(samples.begin(), samples.end(),
                       [](const auto* a, const auto* b) { return a->time_ns < b->time_ns; });
      for (const auto* s : samples) {
        t.sample_stack.push_back(stack_row(s->stack));
        t.sample_time_ms.push_back(ms(p, s->time_ns));
        t.sample_weight.push_back(weighted_ ? s->weight_ns / 1e6 : 1.0);
      }
    } else {  // no times (a Coz profile, a text input): one sample per stack, at the start
      const double start = start_ms(p);
      for (const auto& c : p.counts) {
        if (c.thread != row.thread) continue;
        t.sample_stack.push_back(stack_row(c.stack));
        t.sample_time_ms.push_back(start);
        t.sample_weight.push_back(weighted_ ? static_cast<double>(c.weight_ns) / 1e6
                                            : static_cast<double>(c.samples));
      }
    }
    return t;
  }

  void meta(JsonWriter& j) {
    uint64_t period_ns = 0;
    for (const auto& p : r_.processes) {
      if (p.has_process_record && p.process.period_ns) period_ns = p.process.period_ns;
    }
    j.key("meta").begin_object();
    j.field("version", 24)  // the Gecko format's; the profiler reads the processed version
        .field("preprocessedProfileVersion", kPreprocessedProfileVersion)
        .field("interval", period_ns ? static_cast<double>(period_ns) / 1e6 : 1.0)
        .field("startTime", origin_ == UINT64_MAX ? 0.0 : static_cast<double>(origin_) / 1e6)
        .field("processType", 0)
        .field("product", fmt::format("causal-report: {}, {}{}",
                                      plural(r_.processes.size(), "process", "processes"),
                                      plural(r_.threads(), "thread"),
                                      r_.clock_summary().empty() ? "" : ", " + r_.clock_summary()))
        .field("importedFrom", "causal-report")
        .field("stackwalk", 1)
        .field("debug", false)
        .field("symbolicated", true);
    j.key("categories").begin_array();
    const std::array<std::pair<const char*, const char*>, 3> categories = {
        {{"Other", "grey"}, {"Program", "yellow"}, {"Libraries", "lightblue"}}};
    for (const auto& [name, colour] : categories) {
      j.begin_object(true).field("name", name).field("color", colour);
      j.key("subcategories").begin_array(true).value("Other").end_array().end_object();
    }
    j.end_array();
    j.key("markerSchema").begin_array(true).end_array();
    j.end_object();
  }

  // The modules the threads' resources name, in the order of their indices.
  void libs(JsonWriter& j) {
    j.key("libs").begin_array();
    for (const uint32_t m : lib_modules_) {
      const auto& key = table_.modules[m];
      const std::string name = std::filesystem::path(key.path).filename().string();
      j.begin_object(true)
          .field("arch", "x86_64")
          .field("name", name)
          .field("path", key.path)
          .field("debugName", name)
          .field("debugPath", key.path)
          .field("breakpadId", breakpad_id(key.build_id));
      j.key("codeId");
      if (key.build_id.empty()) {
        j.null();
      } else {
        j.value(key.build_id);
      }
      j.end_object();
    }
    j.end_array();
  }

  void thread(JsonWriter& j, const BreakdownRow& row, const ThreadTables& t) {
    const auto& p = r_.processes[row.process];
    const auto& info = p.threads[row.thread];
    const double start = start_ms(p);
    j.begin_object()
        .field("name", info.name.empty() ? fmt::format("thread {}", info.tid) : info.name)
        .field("processName", p.label())
        .field("processType", "default")
        .field("pid", std::to_string(p.process.pid))
        .field("tid", info.tid)
        .field("isMainThread", info.tid == p.process.pid)
        .field("processStartupTime", start)
        .field("registerTime", info.start_ns ? ms(p, info.start_ns) : start);
    j.key("processShutdownTime").null().key("unregisterTime");
    if (info.ended && info.end_ns) {
      j.value(ms(p, info.end_ns));
    } else {
      j.null();
    }
    j.key("pausedRanges").begin_array(true).end_array();
    tables(j, t);
    j.end_object();
  }

  // A thread of the CPU time no sample covers: a function per group, a sample each.
  void unsampled_thread(JsonWriter& j, const std::vector<UnsampledRow>& rows) {
    ThreadTables t;
    for (const auto& row : rows) {
      t.funcs.push_back({.name = strings_.index(row.label), .resource = -1});
      t.frames.push_back({.func = static_cast<uint32_t>(t.funcs.size() - 1),
                          .inline_depth = 0,
                          .category = kOther});
      t.sample_stack.push_back(t.stack(std::nullopt, static_cast<uint32_t>(t.frames.size() - 1)));
      t.sample_time_ms.push_back(0);
      t.sample_weight.push_back(static_cast<double>(row.ns) / 1e6);
    }
    j.begin_object()
        .field("name", "[unsampled CPU time]")
        .field("processName", "[unsampled CPU time: processes and threads without a sample]")
        .field("processType", "default")
        .field("pid", "0")
        .field("tid", 0)
        .field("isMainThread", true)
        .field("processStartupTime", 0.0)
        .field("registerTime", 0.0);
    j.key("processShutdownTime").null().key("unregisterTime").null();
    j.key("pausedRanges").begin_array(true).end_array();
    tables(j, t);
    j.end_object();
  }

  template <typename T, typename F>
  static void column(JsonWriter& j, const char* name, const std::vector<T>& rows, F get) {
    j.key(name).begin_array(true);
    for (const auto& row : rows) get(j, row);
    j.end_array();
  }
  template <typename T>
  static void optional_value(JsonWriter& j, const std::optional<T>& v) {
    if (v) {
      j.value(*v);
    } else {
      j.null();
    }
  }

  void tables(JsonWriter& j, const ThreadTables& t) {
    const uint64_t n = t.sample_stack.size();
    j.key("samples").begin_object();
    j.key("stack").begin_array(true);
    for (const uint32_t s : t.sample_stack) j.value(s);
    j.end_array().key("time").begin_array(true);
    for (const double v : t.sample_time_ms) j.value(v);
    j.end_array().key("weight").begin_array(true);
    for (const double v : t.sample_weight) j.value(v);
    j.end_array().field("weightType", weighted_ ? "tracing-ms" : "samples").field("length", n);
    j.end_object();

    j.key("markers").begin_object(true);
    for (const char* c : {"data", "name", "startTime", "endTime", "phase", "category"})
      j.key(c).begin_array(true).end_array();
    j.field("length", 0).end_object();

    j.key("stackTable").begin_object();
    column(j, "frame", t.stacks, [](JsonWriter& w, const auto& s) { w.value(s.first); });
    column(j, "prefix", t.stacks,
           [](JsonWriter& w, const auto& s) { optional_value(w, s.second); });
    j.field("length", static_cast<uint64_t>(t.stacks.size())).end_object();

    j.key("frameTable").begin_object();
    column(j, "address", t.frames, [](JsonWriter& w, const auto&) { w.value(-1); });
    column(j, "inlineDepth", t.frames,
           [](JsonWriter& w, const auto& f) { w.value(f.inline_depth); });
    column(j, "category", t.frames, [](JsonWriter& w, const auto& f) { w.value(f.category); });
    column(j, "subcategory", t.frames, [](JsonWriter& w, const auto&) { w.value(0); });
    column(j, "func", t.frames, [](JsonWriter& w, const auto& f) { w.value(f.func); });
    column(j, "nativeSymbol", t.frames, [](JsonWriter& w, const auto&) { w.null(); });
    column(j, "innerWindowID", t.frames, [](JsonWriter& w, const auto&) { w.value(0); });
    column(j, "line", t.frames, [](JsonWriter& w, const auto& f) { optional_value(w, f.line); });
    column(j, "column", t.frames, [](JsonWriter& w, const auto&) { w.null(); });
    j.field("length", static_cast<uint64_t>(t.frames.size())).end_object();

    j.key("funcTable").begin_object();
    column(j, "name", t.funcs, [](JsonWriter& w, const auto& f) { w.value(f.name); });
    column(j, "isJS", t.funcs, [](JsonWriter& w, const auto&) { w.value(false); });
    column(j, "relevantForJS", t.funcs, [](JsonWriter& w, const auto&) { w.value(false); });
    column(j, "resource", t.funcs, [](JsonWriter& w, const auto& f) { w.value(f.resource); });
    column(j, "fileName", t.funcs, [](JsonWriter& w, const auto& f) { optional_value(w, f.file); });
    column(j, "lineNumber", t.funcs,
           [](JsonWriter& w, const auto& f) { optional_value(w, f.line); });
    column(j, "columnNumber", t.funcs, [](JsonWriter& w, const auto&) { w.null(); });
    j.field("length", static_cast<uint64_t>(t.funcs.size())).end_object();

    j.key("resourceTable").begin_object();
    column(j, "lib", t.resources, [](JsonWriter& w, const auto& r) { w.value(r.first); });
    column(j, "name", t.resources, [](JsonWriter& w, const auto& r) { w.value(r.second); });
    column(j, "host", t.resources, [](JsonWriter& w, const auto&) { w.null(); });
    column(j, "type", t.resources, [](JsonWriter& w, const auto&) { w.value(kResourceLibrary); });
    j.field("length", static_cast<uint64_t>(t.resources.size())).end_object();

    j.key("nativeSymbols").begin_object(true);
    for (const char* c : {"libIndex", "address", "name", "functionSize"})
      j.key(c).begin_array(true).end_array();
    j.field("length", 0).end_object();
  }

  const Report& r_;
  const SymbolTable& table_;
  uint64_t origin_ = UINT64_MAX;
  bool weighted_ = false;
  StringTable strings_;
  std::unordered_map<uint32_t, uint32_t> lib_of_;  // module -> libs index
  std::vector<uint32_t> lib_modules_;
};

}  // namespace

std::string render_firefox(const Report& r) { return FirefoxWriter(r).write(); }

}  // namespace cprof::report
