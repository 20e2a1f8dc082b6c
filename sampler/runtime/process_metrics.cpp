#include "sampler/runtime/process_metrics.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cprof::sampler {
namespace {

// The text of a kept /proc file, read again from the start (seq_file regenerates it);
// its descriptor is opened on first use. 0 bytes when it cannot be read.
size_t read_kept(OwnedFd& kept, const char* path, char* buf, size_t size, bool transient) {
  if (transient) {
    const OwnedFd once = own_fd(::open(path, O_RDONLY | O_CLOEXEC));
    if (once.fd < 0) return 0;
    const ssize_t n = ::pread(once.fd, buf, size - 1, 0);
    close_owned(once);
    buf[n > 0 ? n : 0] = '\0';
    return n > 0 ? static_cast<size_t>(n) : 0;
  }
  if (!owns(kept)) kept = adopt_fd(::open(path, O_RDONLY | O_CLOEXEC));
  if (kept.fd < 0) return 0;
  const ssize_t n = ::pread(kept.fd, buf, size - 1, 0);
  buf[n > 0 ? n : 0] = '\0';
  return n > 0 ? static_cast<size_t>(n) : 0;
}

uint64_t to_ns(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1000000000ull + static_cast<uint64_t>(tv.tv_usec) * 1000ull;
}

}  // namespace

ProcessMetricsReader::~ProcessMetricsReader() {
  close_owned(statm_);
  close_owned(stat_);
}

void ProcessMetricsReader::reopen_after_fork() {
  close_owned(statm_);
  close_owned(stat_);
  statm_ = {};
  stat_ = {};
}

uint64_t ProcessMetricsReader::rss_bytes() {
  char buf[256];
  if (read_kept(statm_, "/proc/self/statm", buf, sizeof buf, transient_) == 0) return 0;
  unsigned long size = 0;
  unsigned long resident = 0;
  if (std::sscanf(buf, "%lu %lu", &size, &resident) != 2) return 0;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

uint64_t stat_thread_count(const char* stat_text) {
  // Fields after the command name, which may itself hold spaces and parentheses.
  const char* p = std::strrchr(stat_text, ')');
  if (p == nullptr) return 0;
  long threads = 0;
  // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  // cutime cstime priority nice num_threads
  if (std::sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %ld",
                  &threads) != 1) {
    return 0;
  }
  return static_cast<uint64_t>(threads);
}

uint64_t ProcessMetricsReader::thread_count() {
  char buf[1024];
  if (read_kept(stat_, "/proc/self/stat", buf, sizeof buf, transient_) == 0) return 0;
  return stat_thread_count(buf);
}

// The current frequency of the CPU this thread runs on, where cpufreq exposes it; VMs
// often do not, and then /proc/cpuinfo's nominal "cpu MHz" is the best there is.
uint64_t ProcessMetricsReader::cpu_frequency_khz() {
  if (!no_cpufreq_) {
    const int cpu = sched_getcpu();
    char path[96];
    std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
                  cpu < 0 ? 0 : cpu);
    const OwnedFile f = fopen_owned(path);
    if (f.file != nullptr) {
      unsigned long khz = 0;
      const int n = std::fscanf(f.file, "%lu", &khz);
      fclose_owned(f);
      if (n == 1) return khz;
    } else if (errno == ENOENT) {
      no_cpufreq_ = true;
    }
  }
  if (nominal_khz_ != 0) return nominal_khz_;
  const OwnedFile f = fopen_owned("/proc/cpuinfo");
  if (f.file == nullptr) return 0;
  char line[256];
  double mhz = 0;
  while (std::fgets(line, sizeof line, f.file) != nullptr) {
    if (std::sscanf(line, "cpu MHz : %lf", &mhz) == 1) break;
  }
  fclose_owned(f);
  nominal_khz_ = static_cast<uint64_t>(mhz * 1000);
  return nominal_khz_;
}

format::MetricRecord ProcessMetricsReader::read(uint64_t now_ns) {
  format::MetricRecord m;
  m.time_ns = now_ns;
  rusage ru{};
  if (::getrusage(RUSAGE_SELF, &ru) == 0) {
    m.cpu_user_ns = to_ns(ru.ru_utime);
    m.cpu_system_ns = to_ns(ru.ru_stime);
    m.minor_faults = static_cast<uint64_t>(ru.ru_minflt);
    m.major_faults = static_cast<uint64_t>(ru.ru_majflt);
    m.voluntary_switches = static_cast<uint64_t>(ru.ru_nvcsw);
    m.involuntary_switches = static_cast<uint64_t>(ru.ru_nivcsw);
  }
  m.rss_bytes = rss_bytes();
  m.threads = thread_count();
  m.cpu_frequency_khz = cpu_frequency_khz();
  return m;
}

}  // namespace cprof::sampler
