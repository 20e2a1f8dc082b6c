#pragma once
// Process-level metrics (RSS, CPU time, faults, context switches, threads, CPU frequency),
// read by the writer thread at a low rate. Not for signal handlers.
//
// The /proc/self files are kept open (owned and out of the program's way, owned_fds.h)
// and read again from offset 0, so no descriptor is opened among the program's numbers
// every reading; without cpufreq (VMs) the nominal "cpu MHz" of /proc/cpuinfo, which does
// not change, is read once.

#include "format/records.h"
#include "sampler/runtime/owned_fds.h"

namespace cprof::sampler {

// num_threads from the text of /proc/self/stat (the command name may hold spaces and
// parentheses); 0 when it does not parse.
uint64_t stat_thread_count(const char* stat_text);

class ProcessMetricsReader {
 public:
  ProcessMetricsReader() = default;
  ~ProcessMetricsReader();
  ProcessMetricsReader(const ProcessMetricsReader&) = delete;
  ProcessMetricsReader& operator=(const ProcessMetricsReader&) = delete;

  format::MetricRecord read(uint64_t now_ns);
  // Transient: the /proc files are opened for each reading and closed at once (the
  // program's descriptor limit leaves no room for ones kept, runtime.cpp).
  void set_transient(bool transient) { transient_ = transient; }
  // In a forked child: the kept files are the parent's /proc entries; open them again.
  void reopen_after_fork();

 private:
  uint64_t rss_bytes();
  uint64_t thread_count();
  uint64_t cpu_frequency_khz();

  OwnedFd statm_;
  OwnedFd stat_;
  bool transient_ = false;
  bool no_cpufreq_ = false;  // scaling_cur_freq missing: the nominal value below stands
  uint64_t nominal_khz_ = 0;
};

}  // namespace cprof::sampler
