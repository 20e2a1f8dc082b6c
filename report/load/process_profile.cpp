#include "report/load/process_profile.h"

#include <algorithm>

namespace cprof::report {

uint64_t ProcessProfile::duration_ns() const {
  const uint64_t start =
      has_process_record && process.start_monotonic_ns ? process.start_monotonic_ns : first_time_ns;
  if (start == ~uint64_t{0} || last_time_ns < start) return 0;
  return last_time_ns - start;
}

uint64_t ProcessProfile::dropped_samples() const {
  uint64_t n = 0;
  for (const auto& t : threads) n += t.dropped_samples;
  return n;
}

uint64_t ProcessProfile::peak_rss_bytes() const {
  uint64_t peak = 0;
  for (const auto& m : metrics) peak = std::max(peak, m.rss_bytes);
  return peak;
}

double ProcessProfile::cpu_utilization() const {
  if (metrics.size() < 2) return -1.0;
  const auto& a = metrics.front();
  const auto& b = metrics.back();
  if (b.time_ns <= a.time_ns) return -1.0;
  const double cpu = static_cast<double>((b.cpu_user_ns + b.cpu_system_ns) -
                                         (a.cpu_user_ns + a.cpu_system_ns));
  return cpu / static_cast<double>(b.time_ns - a.time_ns);
}

bool ProcessProfile::sampled_on_wall_clock() const {
  return has_process_record && process.clock.find("wall") != std::string::npos;
}

const char* ProcessProfile::clock_name() const {
  return clock == format::SampleClock::wall ? "wall" : "cpu";
}

std::string ProcessProfile::label() const {
  if (!has_process_record) return file.filename().string();
  std::string exe = process.executable.empty() ? file.filename().string() : process.executable;
  if (const auto slash = exe.rfind('/'); slash != std::string::npos) exe = exe.substr(slash + 1);
  std::string out = exe + "[" + std::to_string(process.pid) + "]";
  if (process.rank >= 0) out += " rank " + std::to_string(process.rank);
  return out;
}

}  // namespace cprof::report
