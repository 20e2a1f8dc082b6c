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

namespace {

// `s` cut to at most `n` bytes with "..." at the end, not inside a UTF-8 character.
std::string shortened(std::string s, size_t n) {
  if (s.size() <= n) return s;
  size_t keep = n > 3 ? n - 3 : 0;
  while (keep > 0 && (static_cast<unsigned char>(s[keep]) & 0xC0) == 0x80) --keep;
  while (keep > 0 && s[keep - 1] == ' ') --keep;
  return s.substr(0, keep) + "...";
}

}  // namespace

std::string ProcessProfile::label(size_t width) const {
  if (!has_process_record) return file.filename().string();
  std::string exe = process.executable.empty() ? file.filename().string() : process.executable;
  if (const auto slash = exe.rfind('/'); slash != std::string::npos) exe = exe.substr(slash + 1);
  std::string suffix = "[" + std::to_string(process.pid) + "]";
  if (process.rank >= 0) suffix += " rank " + std::to_string(process.rank);
  if (process.command_line.size() < 2) return exe + suffix;
  // The executable's name (argv[0] may be a path, or another name), then the arguments
  // on one line.
  std::string command = exe;
  for (size_t i = 1; i < process.command_line.size(); ++i) {
    command += ' ';
    for (const char c : process.command_line[i]) {
      command += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
    }
  }
  size_t room = kLabelCommandChars;
  if (width != SIZE_MAX)
    room = std::min(room, width > suffix.size() + 1 ? width - suffix.size() - 1 : 0);
  // Too little room to show a few characters of the arguments ("java -X..." tells less
  // than "java[5723]"): the short form.
  if (room < exe.size() + kLabelMinArgumentChars + 4) return exe + suffix;
  return shortened(std::move(command), room) + " " + suffix;
}

}  // namespace cprof::report
