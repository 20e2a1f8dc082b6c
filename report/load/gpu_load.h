#pragma once
// GPU records (kernel, gpu_copy, gpu_device, gpu_trace_window: docs/results-format.md)
// into a process's GpuActivity as a file is read, and the pairing of the GPU hooks' own files with the
// sampler's: until the hooks write into the runtime's file (docs/gpu.md), a process that
// ran `sample-run --gpu` leaves `<exe>.<host>.<pid>.cprof` and
// `<exe>.<host>.<pid>.gpu.cprof`, and the report shows them as the one process they were.

#include <string>
#include <unordered_map>
#include <vector>

#include "format/records.h"
#include "report/load/gpu_activity.h"
#include "report/load/process_profile.h"

namespace cprof::report {

// Folds the GPU records of one file into a GpuActivity. Records need not come in order: a
// kernel may name a device before (or without) its gpu_device record.
class GpuActivityBuilder {
 public:
  explicit GpuActivityBuilder(GpuActivity& activity) : a_(activity) {}

  void add(format::KernelRecord&& r);
  void add(format::CopyRecord&& r);
  void add(format::GpuDeviceRecord&& r);
  void add(const format::GpuTraceWindowRecord& r) { a_.trace_windows.push_back(r); }

 private:
  uint32_t device_index(uint32_t record_id);
  uint32_t name_index(std::string&& name);
  uint32_t stack_id(const std::vector<uint64_t>& frames);

  GpuActivity& a_;
  std::unordered_map<uint32_t, uint32_t> device_of_id_;
  std::unordered_map<std::string, uint32_t> name_of_;
};

// A file the GPU hooks wrote beside the sampler's: a GPU engine and no samples.
bool is_gpu_companion(const ProcessProfile& p);

// Appends the activity of another file of the same process (devices, names and stacks
// renumbered; trace windows appended as they are).
void append_gpu_activity(GpuActivity& into, GpuActivity&& from);

// Folds every GPU companion into the sampler's process of the same run, host and pid --
// of those, the latest to start no later than the companion (an exec keeps the pid and
// starts a new file) -- and removes it from `processes`, keeping the others' order. Its
// modules join the process's (launch stacks are symbolized with them). A companion with
// no such process stays a process of its own.
void merge_gpu_companions(std::vector<ProcessProfile>& processes);

}  // namespace cprof::report
