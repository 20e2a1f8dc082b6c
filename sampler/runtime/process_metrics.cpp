#include "sampler/runtime/process_metrics.h"

#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "sampler/runtime/owned_fds.h"

namespace cprof::sampler {
namespace {

uint64_t read_rss_bytes() {
  const OwnedFile f = fopen_owned("/proc/self/statm");
  if (f.file == nullptr) return 0;
  unsigned long size = 0;
  unsigned long resident = 0;
  const int n = std::fscanf(f.file, "%lu %lu", &size, &resident);
  fclose_owned(f);
  return n == 2 ? resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)) : 0;
}

uint64_t read_thread_count() {
  const OwnedFile f = fopen_owned("/proc/self/stat");
  if (f.file == nullptr) return 0;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f.file);
  fclose_owned(f);
  buf[n] = '\0';
  // Fields after the command name, which may itself hold spaces and parentheses.
  const char* p = std::strrchr(buf, ')');
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

// The current frequency of the CPU this thread runs on, where cpufreq exposes it; VMs
// often do not, and then /proc/cpuinfo's nominal "cpu MHz" is the best there is.
uint64_t read_cpu_frequency_khz() {
  const int cpu = sched_getcpu();
  char path[96];
  std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq",
                cpu < 0 ? 0 : cpu);
  if (const OwnedFile f = fopen_owned(path); f.file != nullptr) {
    unsigned long khz = 0;
    const int n = std::fscanf(f.file, "%lu", &khz);
    fclose_owned(f);
    if (n == 1) return khz;
  }
  const OwnedFile f = fopen_owned("/proc/cpuinfo");
  if (f.file == nullptr) return 0;
  char line[256];
  double mhz = 0;
  while (std::fgets(line, sizeof line, f.file) != nullptr) {
    if (std::sscanf(line, "cpu MHz : %lf", &mhz) == 1) break;
  }
  fclose_owned(f);
  return static_cast<uint64_t>(mhz * 1000);
}

uint64_t to_ns(const timeval& tv) {
  return static_cast<uint64_t>(tv.tv_sec) * 1000000000ull + static_cast<uint64_t>(tv.tv_usec) * 1000ull;
}

}  // namespace

format::MetricRecord read_process_metrics(uint64_t now_ns) {
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
  m.rss_bytes = read_rss_bytes();
  m.threads = read_thread_count();
  m.cpu_frequency_khz = read_cpu_frequency_khz();
  return m;
}

}  // namespace cprof::sampler
