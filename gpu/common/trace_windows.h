#pragma once
// Duty-cycled GPU tracing (docs/gpu.md, "Trace windows"). Tracing every launch costs a
// launch-bound program more than a profiler may (CUPTI's kernel records alone add ~2 µs to
// a 6 µs launch); tracing a share of the run costs that share. Time is cut into periods
// (100 ms by default); in each, the hooks trace one window of duty × period, placed at a
// random offset so that it does not lock onto the program's own rhythm, and then stop
// until the next. Window 0 opens at start, so the program's first launches (module
// loads, warm-up) are seen. Each closed window becomes a gpu_trace_window record: the
// report measures busy time inside the windows and says what share of the run they cover.
//
// The hooks supply the switch (CUDA: CUPTI callbacks and activity kinds on and off; HSA: a
// flag its interceptors read). A thread of its own switches at the planned times.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "format/records.h"
#include "gpu/common/results_file.h"

namespace cprof::gpu {

struct TraceDuty {
  static constexpr uint64_t kDefaultPeriodNs = 100'000'000;
  double duty = 1;  // the share of each period traced; 1 = all of it (no windows)
  uint64_t period_ns = kDefaultPeriodNs;
  bool windowed() const { return duty < 1; }
};

// CPROF_GPU_DUTY (a percentage in (0, 100]; unset or empty: 100) and CPROF_GPU_PERIOD_MS
// (1 to 60000; unset or empty: 100). nullopt with one line in `error` for a bad value.
std::optional<TraceDuty> parse_trace_duty(std::string_view duty_percent,
                                          std::string_view period_ms, std::string& error);
std::optional<TraceDuty> trace_duty_from_environment(std::string& error);

// Where the windows lie: period k is [origin + k × period, origin + (k + 1) × period) and
// its window begins `offset` × (period - length) into it (offset in [0, 1); window 0 at
// the period's start).
struct WindowPlan {
  uint64_t origin_ns = 0;
  uint64_t period_ns = 0;
  uint64_t length_ns = 0;

  WindowPlan(uint64_t origin, const TraceDuty& d);
  uint64_t begin_ns(uint64_t period, double offset) const;
  uint64_t end_ns(uint64_t period, double offset) const { return begin_ns(period, offset) + length_ns; }
  // The period holding time t (0 before the origin).
  uint64_t period_of(uint64_t t) const;
};

class TraceWindows {
 public:
  using Switch = std::function<void(bool on)>;
  using Closed = std::function<void(const format::GpuTraceWindowRecord&)>;

  // `turn` and `closed` are called from the windows' thread only: `turn` to switch,
  // `closed` with every window when it closes (the one open at stop() included).
  TraceWindows(TraceDuty duty, Switch turn, Closed closed, uint64_t seed);
  ~TraceWindows();
  TraceWindows(const TraceWindows&) = delete;
  TraceWindows& operator=(const TraceWindows&) = delete;

  // Tracing is on when this is called (the hooks start traced): window 0 opens now and
  // the thread starts. Once.
  void start();
  // Ends the thread. A window open now is closed at this moment (reported, tracing left
  // on: the hooks are stopping anyway). Safe to call twice.
  void stop();

 private:
  void run();
  double next_offset();
  // Waits until t or stop; true when stopped.
  bool wait_until(std::unique_lock<std::mutex>& lock, uint64_t t);
  void report(uint64_t start, uint64_t end);

  TraceDuty duty_;
  Switch turn_;
  Closed closed_;
  uint64_t rng_;
  std::optional<WindowPlan> plan_;

  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

// The hooks' windows: started now (tracing is on), each closed window added to `file`,
// placed with a seed of this process's own. `turn` as for TraceWindows.
std::unique_ptr<TraceWindows> start_trace_windows(const TraceDuty& duty, TraceWindows::Switch turn,
                                                  GpuResultsFile& file);

}  // namespace cprof::gpu
