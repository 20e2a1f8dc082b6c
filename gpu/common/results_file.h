#pragma once
// The GPU hooks' own results file, "<exe>.<host>.<pid>[.rank<N>].gpu[.k].cprof" in the
// results directory: the same format as the sampling runtime's file, with its own
// process record (engine "hsa" or "cupti") and module records, so launch stacks can be
// symbolized without the sampler's file. Merging into the runtime's file is the next step
// (docs/gpu.md).
//
// Thread safety: add() may be called from any thread (submitting threads, the GPU
// runtime's completion threads); records are buffered under a mutex and written by a
// background thread every CPROF_FLUSH_MS (default 50 ms) and at close(). Not for signal
// handlers: it allocates and locks.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/monotonic.h"
#include "format/records.h"
#include "format/writer.h"
#include "sampler/runtime/module_recorder.h"
#include "sampler/runtime/owned_fds.h"
#include "sampler/unwind/module_table.h"

namespace cprof::gpu {

using cprof::monotonic_ns;  // common/monotonic.h

// Results directory from CPROF_OUTPUT_DIR, or "results" when unset.
std::string output_dir_from_environment();

// "<dir>/<exe>.<host>.<pid>[.rank<N>].gpu": open() creates "<stem>[.<k>].cprof", never
// an existing file's name.
std::string gpu_results_stem(const std::string& dir);

class GpuResultsFile {
 public:
  // `modules` (the table launch stacks are unwound with) must outlive this object.
  explicit GpuResultsFile(sampler::ModuleTable& modules) : modules_(modules) {}
  ~GpuResultsFile() { close(); }
  GpuResultsFile(const GpuResultsFile&) = delete;
  GpuResultsFile& operator=(const GpuResultsFile&) = delete;

  // Creates the file (the directory too, when missing), writes the process and module
  // records and starts the flush thread. `engine` names the writer ("hsa", "cupti").
  // Returns "" or one line naming the file and the reason.
  std::string open(const std::string& stem, const std::string& engine);
  bool is_open() const;
  std::string path() const;

  // Buffers one record; dropped (and counted) when the file is not open.
  void add(format::Record record);
  // Writes what is buffered now (new modules first), from the calling thread.
  void flush();
  // Stops the flush thread, writes everything and closes. Safe to call twice.
  void close();

  uint64_t dropped() const;

 private:
  void flush_thread_main();
  void flush_locked();
  void write_new_modules_locked();

  sampler::ModuleTable& modules_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  format::ResultsWriter writer_{sampler::owned_descriptor_keeper()};
  std::vector<format::Record> pending_;
  sampler::ModuleRecorder module_recorder_;
  uint64_t dropped_ = 0;
  uint32_t flush_ms_ = 50;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace cprof::gpu
