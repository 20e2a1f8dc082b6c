#pragma once
// Folds the records of one input file into its ProcessProfile as they are read
// (load_process_file drives it): threads by tid, samples counted per (thread, stack) on
// the clock the profile is made of and the other clock's set aside, GPU records handed
// to GpuActivityBuilder; finish() puts what was read in order.

#include <cstdint>
#include <span>
#include <unordered_map>

#include "format/records.h"
#include "format/sample_view.h"
#include "report/load/encoded_stacks.h"
#include "report/load/gpu_load.h"
#include "report/load/process_profile.h"
#include "report/load/stack_table.h"

namespace cprof::report {

// Folds records into a ProcessProfile as they are read.
class ProcessBuilder {
 public:
  ProcessBuilder(ProcessProfile& p, bool keep_timeline, ClockChoice clock)
      : p_(p), keep_timeline_(keep_timeline), choice_(clock) {}

  // Text inputs have no clock per sample (every row reads as a CPU-clock sample): all of
  // their samples make the profile, whatever the choice.
  void take_every_sample() { every_sample_ = true; }

  void operator()(format::Record&& record);

  // Samples of a results file arrive as views, their frames still encoded (see
  // encoded_stacks.h: only stacks not seen before are decoded).
  void sample(const format::SampleView& v);

  uint64_t implausible_weights() const { return implausible_weights_; }

  void finish();

 private:
  void saw_time(uint64_t t);
  uint32_t thread_index(int64_t tid);

  void add(format::ProcessRecord&& r);
  void add(format::ModuleRecord&& r);
  void add(format::ThreadRecord&& r);
  void add(format::ThreadNameRecord&& r);
  void add(format::ThreadEndRecord&& r);
  void add(format::EventRecord&& r);
  void add(format::MetricRecord&& r);
  void add(format::MessageRecord&& r);

  void add(format::ExperimentRecord&& r);
  void add(format::ProgressPointRecord&& r);
  void add(format::RegionRecord&& r);
  void add(format::RegionSpansRecord&& r);

  void add(format::KernelRecord&& r);
  void add(format::CopyRecord&& r);
  void add(format::GpuDeviceRecord&& r);
  void add(format::GpuTraceWindowRecord&& r);

  // Record types this part does not use yet are read and ignored, so a newer writer
  // never breaks the sampled profile.
  template <typename Other>
  void add(Other&& /*unused*/) {}

  void add(format::SampleRecord&& r);

  // Both sample paths; `intern` gives the stack's id and is called only with frames.
  template <typename Intern>
  void add_sample(int64_t tid, uint64_t time_ns, uint64_t weight_ns, bool truncated,
                  format::SampleClock clock, bool has_frames, Intern&& intern,
                  std::span<const uint64_t> counter_deltas);

  static void add_count(IndexMap& index_of, std::vector<StackCount>& counts, uint32_t thread,
                        uint32_t stack, uint64_t weight_ns,
                        std::span<const uint64_t> counter_deltas);

  // The process record comes first in a results file, so by the first sample it has said
  // how the process was sampled. A clock asked for that the process was not sampled on
  // falls back to the one it was (its profile is never empty for want of the other).
  void decide_clock();

  ProcessProfile& p_;
  bool keep_timeline_ = false;
  std::unordered_map<int64_t, uint32_t> thread_of_tid_;
  int64_t last_tid_ = 0;
  uint32_t last_thread_ = ~uint32_t{0};
  ClockChoice choice_ = ClockChoice::automatic;
  bool clock_decided_ = false;
  uint64_t implausible_weights_ = 0;
  bool every_sample_ = false;
  IndexMap counts_;
  IndexMap other_counts_;  // other_clock_counts by (thread, stack)
  EncodedStacks encoded_{p_.stacks};  // the samples' stacks by their bytes in the file
  GpuActivityBuilder gpu_{p_.gpu};
};

}  // namespace cprof::report
