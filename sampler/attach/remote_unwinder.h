#pragma once
// Unwinds the samples of another process (sample-run --pid) after the fact, from the
// registers and the copy of the stack each sample carries, with elfutils libdwfl: the
// process's modules come from /proc/PID/maps, their CFI (.eh_frame, .debug_frame) from
// the files, read through /proc/PID/map_files so a binary deleted or replaced since the
// process started, or one in another mount namespace, is still the one that runs. This
// is perf's `--call-graph dwarf` with libdw; the in-process unwinders (cfi_unwinder.h)
// read live memory and cannot be used on a copy. Not thread-safe; one per process.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/records.h"
#include "sampler/attach/thread_events.h"

namespace cprof::sampler {

class RemoteUnwinder {
 public:
  explicit RemoteUnwinder(pid_t pid);
  ~RemoteUnwinder();
  RemoteUnwinder(const RemoteUnwinder&) = delete;
  RemoteUnwinder& operator=(const RemoteUnwinder&) = delete;

  // Reads the process's maps again (at start, after it mapped code or exec'd). Returns ""
  // or why the maps could not be read.
  std::string refresh();
  // Whether `pc` lies in a module of the last refresh().
  bool knows(uint64_t pc) const;

  // Unwinds `s` into `frames` (frames[0] the sampled PC, then return addresses), at most
  // `max`. Returns the count; sets `truncated` when the stack was deeper.
  size_t unwind(const ThreadSample& s, uint64_t* frames, size_t max, bool& truncated);

  // The modules of the last refresh(), as module records (ids from 0 in map order; the
  // caller renumbers). Each has its path as the process names it, its build-id, bias and
  // executable range.
  std::vector<format::ModuleRecord> modules() const;
  // /proc/PID/map_files/... of the first mapping of `path`: the file the process runs,
  // whatever is at `path` now. "" if the last refresh() saw no such module.
  std::string running_file(const std::string& path) const;

  struct State;  // libdwfl's callbacks reach it

 private:
  std::unique_ptr<State> state_;
};

}  // namespace cprof::sampler
