#pragma once
// The record types of the results format (docs/results-format.md). Every writer and the
// report share these definitions; a record is encoded as varint type, varint length,
// payload, so a reader skips types it does not know (newer minor versions).
//
// Each record struct declares its type number and its fields in their order on disk
// (record_fields.h); records.cpp encodes, decodes and checks every record from those
// lists alone. A new record is a RecordType number, its struct with `type` and `fields`,
// and one line in AllRecords at the end of this file (docs/results-format.md,
// "Adding a record").

#include <cstdint>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "format/record_fields.h"

namespace cprof::format {

enum class RecordType : uint32_t {
  process = 1,      // once per file, first record: who wrote it and how it sampled
  module = 2,       // a loaded ELF image (at start, and at every dlopen)
  thread = 3,       // a thread began (or was found running when the runtime loaded)
  thread_end = 4,   // a thread ended: its totals
  event = 5,        // a counter requested with -e: opened, unavailable, or counted nothing
  sample = 6,       // one call stack with its weight and counter deltas
  metric = 7,       // process-level metrics at one moment
  message = 8,      // a diagnostic the run wants the report to show
  thread_name = 9,  // a thread's name changed after its thread record was written
  // 10, 11: framing records (chunk_sequence, file_end), the reader's own (framing.h)
  // 16..31 causal experiments (docs/causal.md):
  experiment = 16,      // one causal experiment: location, speedup, time, delay, progress
  progress_point = 17,  // a progress point was registered
  region = 18,          // per-call durations of a latency point (timed region), at exit
  region_spans = 19,    // a batch of one timed region's calls: thread, begin, end
  // 32..47 GPU activity (docs/gpu.md):
  kernel = 32,            // one GPU kernel execution: when, where, what, and who launched it
  gpu_copy = 33,          // one asynchronous memory copy between agents
  gpu_device = 34,        // a GPU or CPU agent that kernel and copy records name by id
  gpu_trace_window = 35,  // the hooks traced GPU activity only inside windows: one of them
};

struct ProcessRecord {
  int64_t pid = 0;
  int64_t ppid = 0;
  int64_t rank = -1;  // MPI/Slurm rank, -1 when not under a launcher that sets one
  std::string hostname;
  std::string executable;
  std::vector<std::string> command_line;
  uint64_t start_realtime_ns = 0;   // CLOCK_REALTIME at runtime start
  uint64_t start_monotonic_ns = 0;  // CLOCK_MONOTONIC at the same moment; all times below use it
  std::string engine;               // "perf_event" or "timer"; the GPU hooks': "hsa", "cupti"
  // "cpu": CPU-time samples only; "cpu+wall": wall-clock samples too (sample-run --clock
  // wall; SampleRecord::clock tells them apart). Empty in the GPU hooks' files.
  std::string clock;
  // The sampler's stack unwinder (sample-run --unwind): "dwarf" (the default: .eh_frame
  // rows, libunwind for the frames they do not model), "libunwind" or "fp". The GPU
  // hooks' files say "libunwind" (their launch stacks: gpu/common/launch_stack.h).
  std::string unwinder;
  double frequency_hz = 0;
  uint64_t period_ns = 0;           // sampling period in the clock's nanoseconds

  static constexpr RecordType type = RecordType::process;
  static constexpr auto fields = std::tuple{
      field("pid", &ProcessRecord::pid, wire::svarint),
      field("ppid", &ProcessRecord::ppid, wire::svarint),
      field("rank", &ProcessRecord::rank, wire::svarint),
      field("hostname", &ProcessRecord::hostname, wire::str),
      field("executable", &ProcessRecord::executable, wire::str),
      field("command_line", &ProcessRecord::command_line, wire::list(wire::str)),
      field("start_realtime_ns", &ProcessRecord::start_realtime_ns, wire::varint),
      field("start_monotonic_ns", &ProcessRecord::start_monotonic_ns, wire::varint),
      field("engine", &ProcessRecord::engine, wire::str),
      field("clock", &ProcessRecord::clock, wire::str),
      field("unwinder", &ProcessRecord::unwinder, wire::str),
      field("frequency_hz", &ProcessRecord::frequency_hz, wire::f64),
      field("period_ns", &ProcessRecord::period_ns, wire::varint),
  };
};

// The engines of the GPU hooks' own files (docs/gpu.md): such a process record describes
// the hooks, not a sampler.
inline bool is_gpu_engine(const std::string& engine) {
  return engine == "hsa" || engine == "cupti";
}

struct ModuleRecord {
  uint32_t id = 0;
  std::string path;
  std::string build_id;  // lowercase hex, empty when the image has none
  uint64_t load_bias = 0;
  uint64_t start = 0;    // lowest executable address (runtime)
  uint64_t end = 0;      // one past the highest executable address
  uint64_t time_ns = 0;  // when it was seen loaded

  static constexpr RecordType type = RecordType::module;
  static constexpr auto fields = std::tuple{
      field("id", &ModuleRecord::id, wire::varint),
      field("path", &ModuleRecord::path, wire::str),
      field("build_id", &ModuleRecord::build_id, wire::str),
      field("load_bias", &ModuleRecord::load_bias, wire::varint),
      field("start", &ModuleRecord::start, wire::varint),
      field("end", &ModuleRecord::end, wire::varint),
      field("time_ns", &ModuleRecord::time_ns, wire::varint),
  };
};

struct ThreadRecord {
  int64_t tid = 0;
  std::string name;
  uint64_t time_ns = 0;
  bool existed_before_start = false;  // found in /proc, not caught at pthread_create

  static constexpr RecordType type = RecordType::thread;
  static constexpr auto fields = std::tuple{
      field("tid", &ThreadRecord::tid, wire::svarint),
      field("name", &ThreadRecord::name, wire::str),
      field("time_ns", &ThreadRecord::time_ns, wire::varint),
      field("existed_before_start", &ThreadRecord::existed_before_start, wire::flag),
  };
};

struct ThreadEndRecord {
  int64_t tid = 0;
  uint64_t time_ns = 0;
  uint64_t cpu_time_ns = 0;
  uint64_t samples = 0;
  uint64_t dropped_samples = 0;  // could not be stored (buffer full), counted not waited for

  static constexpr RecordType type = RecordType::thread_end;
  static constexpr auto fields = std::tuple{
      field("tid", &ThreadEndRecord::tid, wire::svarint),
      field("time_ns", &ThreadEndRecord::time_ns, wire::varint),
      field("cpu_time_ns", &ThreadEndRecord::cpu_time_ns, wire::varint),
      field("samples", &ThreadEndRecord::samples, wire::varint),
      field("dropped_samples", &ThreadEndRecord::dropped_samples, wire::varint),
  };
};

// A thread renamed itself (pthread_setname_np, prctl) after its thread record was
// written: a JVM names its threads once they run. The last one for a tid wins.
struct ThreadNameRecord {
  int64_t tid = 0;
  uint64_t time_ns = 0;  // when the new name was seen
  std::string name;

  static constexpr RecordType type = RecordType::thread_name;
  static constexpr auto fields = std::tuple{
      field("tid", &ThreadNameRecord::tid, wire::svarint),
      field("time_ns", &ThreadNameRecord::time_ns, wire::varint),
      field("name", &ThreadNameRecord::name, wire::str),
  };
};

enum class EventStatus : uint8_t { ok = 0, unavailable = 1, counted_zero = 2 };

struct EventRecord {
  uint32_t index = 0;  // position in SampleRecord::counter_deltas
  std::string name;    // as the user wrote it
  std::string canonical_name;  // as libpfm4 resolved it
  EventStatus status = EventStatus::ok;
  std::string detail;  // the reason when unavailable

  static constexpr RecordType type = RecordType::event;
  static constexpr auto fields = std::tuple{
      field("index", &EventRecord::index, wire::varint),
      field("name", &EventRecord::name, wire::str),
      field("canonical_name", &EventRecord::canonical_name, wire::str),
      field("status", &EventRecord::status, wire::u8_enum(EventStatus::counted_zero)),
      field("detail", &EventRecord::detail, wire::str),
  };
};

enum class SampleClock : uint8_t { cpu = 0, wall = 1 };

struct SampleRecord {
  int64_t tid = 0;
  uint64_t time_ns = 0;
  uint64_t weight_ns = 0;  // the time this sample stands for
  SampleClock clock = SampleClock::cpu;
  bool truncated = false;  // the stack was deeper than the depth bound
  std::vector<uint64_t> frames;  // [0] interrupted PC, [1..] return addresses
  std::vector<uint64_t> counter_deltas;  // per EventRecord::index, since the thread's last sample

  // format/sample_view.cpp reads the same payload without decoding the frames.
  static constexpr RecordType type = RecordType::sample;
  static constexpr auto fields = std::tuple{
      field("tid", &SampleRecord::tid, wire::svarint),
      field("time_ns", &SampleRecord::time_ns, wire::varint),
      field("weight_ns", &SampleRecord::weight_ns, wire::varint),
      field("flags", &SampleRecord::clock,
            wire::u8_enum_and_flag(SampleClock::wall, &SampleRecord::truncated)),
      field("frames", &SampleRecord::frames, wire::list(wire::delta)),
      field("counter_deltas", &SampleRecord::counter_deltas, wire::list(wire::varint)),
  };
};

struct MetricRecord {
  uint64_t time_ns = 0;
  uint64_t rss_bytes = 0;
  uint64_t cpu_user_ns = 0;  // cumulative, whole process
  uint64_t cpu_system_ns = 0;
  uint64_t minor_faults = 0;
  uint64_t major_faults = 0;
  uint64_t voluntary_switches = 0;
  uint64_t involuntary_switches = 0;
  uint64_t threads = 0;
  uint64_t cpu_frequency_khz = 0;  // 0 when not readable

  static constexpr RecordType type = RecordType::metric;
  static constexpr auto fields = std::tuple{
      field("time_ns", &MetricRecord::time_ns, wire::varint),
      field("rss_bytes", &MetricRecord::rss_bytes, wire::varint),
      field("cpu_user_ns", &MetricRecord::cpu_user_ns, wire::varint),
      field("cpu_system_ns", &MetricRecord::cpu_system_ns, wire::varint),
      field("minor_faults", &MetricRecord::minor_faults, wire::varint),
      field("major_faults", &MetricRecord::major_faults, wire::varint),
      field("voluntary_switches", &MetricRecord::voluntary_switches, wire::varint),
      field("involuntary_switches", &MetricRecord::involuntary_switches, wire::varint),
      field("threads", &MetricRecord::threads, wire::varint),
      field("cpu_frequency_khz", &MetricRecord::cpu_frequency_khz, wire::varint),
  };
};

enum class MessageLevel : uint8_t { info = 0, warning = 1, error = 2 };

struct MessageRecord {
  uint64_t time_ns = 0;
  MessageLevel level = MessageLevel::info;
  std::string text;

  static constexpr RecordType type = RecordType::message;
  static constexpr auto fields = std::tuple{
      field("time_ns", &MessageRecord::time_ns, wire::varint),
      field("level", &MessageRecord::level, wire::u8_enum(MessageLevel::error)),
      field("text", &MessageRecord::text, wire::str),
  };
};

// One progress point's change during an experiment.
struct ProgressDelta {
  std::string name;
  uint64_t visits = 0;        // throughput visits
  uint64_t begin = 0;         // latency arrivals
  uint64_t end = 0;           // latency departures
  double mean_in_flight = 0;  // latency: mean of begin - end (totals) observed during it

  static constexpr auto fields = std::tuple{
      field("name", &ProgressDelta::name, wire::str),
      field("visits", &ProgressDelta::visits, wire::varint),
      field("begin", &ProgressDelta::begin, wire::varint),
      field("end", &ProgressDelta::end, wire::varint),
      field("mean_in_flight", &ProgressDelta::mean_in_flight, wire::f64),
  };
};

enum class ExperimentMode : uint8_t { progress = 0, end_to_end = 1 };

struct ExperimentRecord {
  uint64_t time_ns = 0;       // when it began
  std::string location;       // "file:line" or a function name
  uint64_t location_id = 0;   // the runtime's id for it (stable within one process)
  double speedup = 0;         // virtual speedup, a fraction: 0.25 is 25%
  uint64_t duration_ns = 0;   // wall time
  uint64_t delay_ns = 0;      // global delay inserted during it
  uint64_t period_ns = 0;     // sampling period (CPU time)
  uint64_t selected_samples = 0;  // samples whose stack held the location
  ExperimentMode mode = ExperimentMode::progress;
  std::vector<ProgressDelta> progress;

  static constexpr RecordType type = RecordType::experiment;
  static constexpr auto fields = std::tuple{
      field("time_ns", &ExperimentRecord::time_ns, wire::varint),
      field("location", &ExperimentRecord::location, wire::str),
      field("location_id", &ExperimentRecord::location_id, wire::varint),
      field("speedup", &ExperimentRecord::speedup, wire::f64),
      field("duration_ns", &ExperimentRecord::duration_ns, wire::varint),
      field("delay_ns", &ExperimentRecord::delay_ns, wire::varint),
      field("period_ns", &ExperimentRecord::period_ns, wire::varint),
      field("selected_samples", &ExperimentRecord::selected_samples, wire::varint),
      field("mode", &ExperimentRecord::mode, wire::u8_enum(ExperimentMode::end_to_end)),
      field("progress", &ExperimentRecord::progress, wire::list(wire::nested)),
  };
};

enum class ProgressPointKind : uint8_t { throughput = 0, latency = 1 };
enum class ProgressPointSource : uint8_t { api = 0, coz = 1, breakpoint = 2 };

struct ProgressPointRecord {
  uint32_t id = 0;
  std::string name;
  ProgressPointKind kind = ProgressPointKind::throughput;
  ProgressPointSource source = ProgressPointSource::api;
  std::string file;  // empty when unknown
  uint32_t line = 0;  // 0 when unknown
  uint64_t time_ns = 0;

  static constexpr RecordType type = RecordType::progress_point;
  static constexpr auto fields = std::tuple{
      field("id", &ProgressPointRecord::id, wire::varint),
      field("name", &ProgressPointRecord::name, wire::str),
      field("kind", &ProgressPointRecord::kind, wire::u8_enum(ProgressPointKind::latency)),
      field("source", &ProgressPointRecord::source, wire::u8_enum(ProgressPointSource::breakpoint)),
      field("file", &ProgressPointRecord::file, wire::str),
      field("line", &ProgressPointRecord::line, wire::varint),
      field("time_ns", &ProgressPointRecord::time_ns, wire::varint),
  };
};

struct RegionRecord {
  std::string name;  // the latency point's name
  uint64_t time_ns = 0;
  uint64_t count = 0;
  double mean_ns = 0;
  double stddev_ns = 0;  // sample standard deviation (n - 1)
  uint64_t min_ns = 0;
  uint64_t max_ns = 0;
  uint64_t dropped = 0;  // durations not recorded (every stripe busy)

  static constexpr RecordType type = RecordType::region;
  static constexpr auto fields = std::tuple{
      field("name", &RegionRecord::name, wire::str),
      field("time_ns", &RegionRecord::time_ns, wire::varint),
      field("count", &RegionRecord::count, wire::varint),
      field("mean_ns", &RegionRecord::mean_ns, wire::f64),
      field("stddev_ns", &RegionRecord::stddev_ns, wire::f64),
      field("min_ns", &RegionRecord::min_ns, wire::varint),
      field("max_ns", &RegionRecord::max_ns, wire::varint),
      field("dropped", &RegionRecord::dropped, wire::varint),
  };
};

// One call of a timed region, on the thread that began and ended it.
struct RegionSpan {
  int64_t tid = 0;
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;  // >= begin_ns

  // Spans arrive in about end order, so a begin may go back a little: begins as signed
  // differences, ends as durations. A few bytes a call.
  static constexpr auto fields = std::tuple{
      field("tid", &RegionSpan::tid, wire::svarint),
      field("begin", &RegionSpan::begin_ns, wire::delta),
      field("duration_ns", &RegionSpan::end_ns, wire::since(&RegionSpan::begin_ns)),
  };
};

// A batch of one timed region's calls, written as they happen (a region record is only
// the summary at exit): what the chrome trace draws as slices on the threads' tracks.
// The runtime keeps the first calls up to a cap; the region record counts them all.
struct RegionSpansRecord {
  uint32_t point_id = 0;  // ProgressPointRecord::id
  std::string name;       // the latency point's name
  std::vector<RegionSpan> spans;

  static constexpr RecordType type = RecordType::region_spans;
  static constexpr auto fields = std::tuple{
      field("point_id", &RegionSpansRecord::point_id, wire::varint),
      field("name", &RegionSpansRecord::name, wire::str),
      field("spans", &RegionSpansRecord::spans, wire::list(wire::nested)),
  };
};

// One kernel dispatch, timed on the device and converted to host CLOCK_MONOTONIC.
struct KernelRecord {
  uint64_t time_ns = 0;   // host time when the dispatch was submitted
  uint64_t start_ns = 0;  // execution start (device timestamp, host clock)
  uint64_t end_ns = 0;    // execution end (device timestamp, host clock)
  uint32_t device_id = 0;  // GpuDeviceRecord::id
  uint64_t queue_id = 0;
  std::string name;        // demangled kernel name; empty when unknown
  uint64_t dispatch_id = 0;  // the queue's packet index
  uint32_t grid[3] = {0, 0, 0};       // grid size in work-items
  uint32_t workgroup[3] = {0, 0, 0};  // work-group size in work-items
  int64_t tid = 0;         // the thread that submitted it
  std::vector<uint64_t> frames;  // its call stack at submission; all return addresses
  uint64_t correlation_id = 0;   // unique per process, shared with the launch's other records

  static constexpr RecordType type = RecordType::kernel;
  static constexpr auto fields = std::tuple{
      field("time_ns", &KernelRecord::time_ns, wire::varint),
      field("start_ns", &KernelRecord::start_ns, wire::varint),
      field("end_ns", &KernelRecord::end_ns, wire::varint),
      field("device_id", &KernelRecord::device_id, wire::varint),
      field("queue_id", &KernelRecord::queue_id, wire::varint),
      field("name", &KernelRecord::name, wire::str),
      field("dispatch_id", &KernelRecord::dispatch_id, wire::varint),
      field("grid", &KernelRecord::grid, wire::array(wire::varint)),
      field("workgroup", &KernelRecord::workgroup, wire::array(wire::varint)),
      field("tid", &KernelRecord::tid, wire::svarint),
      field("frames", &KernelRecord::frames, wire::list(wire::delta)),
      field("correlation_id", &KernelRecord::correlation_id, wire::varint),
  };
};

enum class CopyDirection : uint8_t {
  unknown = 0,
  host_to_device = 1,
  device_to_host = 2,
  device_to_device = 3,
  host_to_host = 4,
};

// One asynchronous copy between agents.
struct CopyRecord {
  uint64_t time_ns = 0;   // host time when it was submitted
  uint64_t start_ns = 0;  // copy start (device timestamp, host clock); 0 when not timed
  uint64_t end_ns = 0;    // copy end
  uint64_t bytes = 0;
  CopyDirection direction = CopyDirection::unknown;
  uint32_t src_device_id = 0;  // GpuDeviceRecord::id
  uint32_t dst_device_id = 0;
  int64_t tid = 0;
  std::vector<uint64_t> frames;  // all return addresses
  uint64_t correlation_id = 0;

  static constexpr RecordType type = RecordType::gpu_copy;
  static constexpr auto fields = std::tuple{
      field("time_ns", &CopyRecord::time_ns, wire::varint),
      field("start_ns", &CopyRecord::start_ns, wire::varint),
      field("end_ns", &CopyRecord::end_ns, wire::varint),
      field("bytes", &CopyRecord::bytes, wire::varint),
      field("direction", &CopyRecord::direction, wire::u8_enum(CopyDirection::host_to_host)),
      field("src_device_id", &CopyRecord::src_device_id, wire::varint),
      field("dst_device_id", &CopyRecord::dst_device_id, wire::varint),
      field("tid", &CopyRecord::tid, wire::svarint),
      field("frames", &CopyRecord::frames, wire::list(wire::delta)),
      field("correlation_id", &CopyRecord::correlation_id, wire::varint),
  };
};

enum class GpuDeviceKind : uint8_t { cpu = 0, gpu = 1, other = 2 };

// An agent (GPU, or CPU as the end of a copy) named by id in kernel and copy records.
struct GpuDeviceRecord {
  uint32_t id = 0;
  std::string name;
  GpuDeviceKind kind = GpuDeviceKind::gpu;

  static constexpr RecordType type = RecordType::gpu_device;
  static constexpr auto fields = std::tuple{
      field("id", &GpuDeviceRecord::id, wire::varint),
      field("name", &GpuDeviceRecord::name, wire::str),
      field("kind", &GpuDeviceRecord::kind, wire::u8_enum(GpuDeviceKind::other)),
  };
};

// One interval in which the GPU hooks traced launches, kernels and copies, when they
// trace a share of the run (sample-run --gpu-duty): a file with none of these traced
// everything. Written when the window closes; launches outside every window have no
// records, so counts and totals are of the windows and busy time is measured inside them.
struct GpuTraceWindowRecord {
  uint64_t start_ns = 0;   // host CLOCK_MONOTONIC: tracing on
  uint64_t end_ns = 0;     // tracing off (>= start_ns)
  double duty = 0;         // the share of each period traced (0.25 = 25%)
  uint64_t period_ns = 0;  // the period the windows are placed in

  static constexpr RecordType type = RecordType::gpu_trace_window;
  static constexpr auto fields = std::tuple{
      field("start_ns", &GpuTraceWindowRecord::start_ns, wire::varint),
      field("end_ns", &GpuTraceWindowRecord::end_ns, wire::varint),
      field("duty", &GpuTraceWindowRecord::duty, wire::f64),
      field("period_ns", &GpuTraceWindowRecord::period_ns, wire::varint),
  };
  // Checked after reading: a record that breaks it is malformed.
  bool valid() const { return end_ns >= start_ns && duty > 0 && duty <= 1; }
};

// Every record type; records.cpp's encoder, decoder and type table and
// is_known_record_type (record_codec.h) are made from this list. A new type goes at the
// end: Record's alternatives keep their indexes.
// clang-format off
using AllRecords = TypeList<
    ProcessRecord,
    ModuleRecord,
    ThreadRecord,
    ThreadEndRecord,
    EventRecord,
    SampleRecord,
    MetricRecord,
    MessageRecord,
    ExperimentRecord,
    ProgressPointRecord,
    RegionRecord,
    KernelRecord,
    CopyRecord,
    GpuDeviceRecord,
    RegionSpansRecord,
    GpuTraceWindowRecord,
    ThreadNameRecord>;
// clang-format on

using Record = AllRecords::apply<std::variant>;

// Appends one framed record (type, length, payload) to out.
void encode_record(const Record& record, std::vector<uint8_t>& out);

}  // namespace cprof::format
