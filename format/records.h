#pragma once
// The record types of the results format (docs/results-format.md). Every writer and the
// report share these definitions; a record is encoded as varint type, varint length,
// payload, so a reader skips types it does not know (newer minor versions).

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

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
  std::string clock;                // "cpu" or "wall"
  std::string unwinder;             // "libunwind" or "fp"
  double frequency_hz = 0;
  uint64_t period_ns = 0;           // sampling period in the clock's nanoseconds
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
};

struct ThreadRecord {
  int64_t tid = 0;
  std::string name;
  uint64_t time_ns = 0;
  bool existed_before_start = false;  // found in /proc, not caught at pthread_create
};

struct ThreadEndRecord {
  int64_t tid = 0;
  uint64_t time_ns = 0;
  uint64_t cpu_time_ns = 0;
  uint64_t samples = 0;
  uint64_t dropped_samples = 0;  // could not be stored (buffer full), counted not waited for
};

// A thread renamed itself (pthread_setname_np, prctl) after its thread record was
// written: a JVM names its threads once they run. The last one for a tid wins.
struct ThreadNameRecord {
  int64_t tid = 0;
  uint64_t time_ns = 0;  // when the new name was seen
  std::string name;
};

enum class EventStatus : uint8_t { ok = 0, unavailable = 1, counted_zero = 2 };

struct EventRecord {
  uint32_t index = 0;  // position in SampleRecord::counter_deltas
  std::string name;    // as the user wrote it
  std::string canonical_name;  // as libpfm4 resolved it
  EventStatus status = EventStatus::ok;
  std::string detail;  // the reason when unavailable
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
};

enum class MessageLevel : uint8_t { info = 0, warning = 1, error = 2 };

struct MessageRecord {
  uint64_t time_ns = 0;
  MessageLevel level = MessageLevel::info;
  std::string text;
};

// One progress point's change during an experiment.
struct ProgressDelta {
  std::string name;
  uint64_t visits = 0;        // throughput visits
  uint64_t begin = 0;         // latency arrivals
  uint64_t end = 0;           // latency departures
  double mean_in_flight = 0;  // latency: mean of begin - end (totals) observed during it
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
};

// One call of a timed region, on the thread that began and ended it.
struct RegionSpan {
  int64_t tid = 0;
  uint64_t begin_ns = 0;
  uint64_t end_ns = 0;  // >= begin_ns
};

// A batch of one timed region's calls, written as they happen (a region record is only
// the summary at exit): what the chrome trace draws as slices on the threads' tracks.
// The runtime keeps the first calls up to a cap; the region record counts them all.
struct RegionSpansRecord {
  uint32_t point_id = 0;  // ProgressPointRecord::id
  std::string name;       // the latency point's name
  std::vector<RegionSpan> spans;
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
};

enum class GpuDeviceKind : uint8_t { cpu = 0, gpu = 1, other = 2 };

// An agent (GPU, or CPU as the end of a copy) named by id in kernel and copy records.
struct GpuDeviceRecord {
  uint32_t id = 0;
  std::string name;
  GpuDeviceKind kind = GpuDeviceKind::gpu;
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
};

using Record = std::variant<ProcessRecord, ModuleRecord, ThreadRecord, ThreadEndRecord,
                            EventRecord, SampleRecord, MetricRecord, MessageRecord,
                            ExperimentRecord, ProgressPointRecord, RegionRecord, KernelRecord,
                            CopyRecord, GpuDeviceRecord, RegionSpansRecord,
                            GpuTraceWindowRecord, ThreadNameRecord>;

// Appends one framed record (type, length, payload) to out.
void encode_record(const Record& record, std::vector<uint8_t>& out);

}  // namespace cprof::format
