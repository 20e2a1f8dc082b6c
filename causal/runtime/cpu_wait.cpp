#include "causal/runtime/cpu_wait.h"

#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "causal/runtime/settings.h"
#include "sampler/runtime/owned_fds.h"

namespace cprof::causal {
namespace {

// "RUN_NS WAIT_NS TIMESLICES" of one thread.
std::optional<CpuTimes> read_schedstat_file(const char* path) {
  const sampler::OwnedFd fd = sampler::open_owned(path, O_RDONLY);
  if (fd.fd < 0) return std::nullopt;
  char text[128];
  const ssize_t n = ::read(fd.fd, text, sizeof(text) - 1);
  sampler::close_owned(fd);
  if (n <= 0) return std::nullopt;
  text[n] = '\0';
  unsigned long long run = 0;
  unsigned long long wait = 0;
  if (std::sscanf(text, "%llu %llu", &run, &wait) != 2) return std::nullopt;
  return CpuTimes{run, wait};
}

std::optional<CpuTimes> read_schedstat(const char* tid) {
  char path[300];  // "/proc/self/task/" and a directory entry name
  std::snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", tid);
  return read_schedstat_file(path);
}

}  // namespace

std::optional<CpuTimes> read_own_cpu_times() {
  return read_schedstat_file("/proc/thread-self/schedstat");
}

std::optional<std::map<pid_t, CpuTimes>> read_thread_cpu_times() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return std::nullopt;
  std::map<pid_t, CpuTimes> out;
  bool any_unreadable = false;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    if (auto t = read_schedstat(e->d_name)) {
      out[static_cast<pid_t>(std::atoi(e->d_name))] = *t;
    } else {
      any_unreadable = true;  // no schedstat at all, or a thread that just ended
    }
  }
  ::closedir(dir);
  if (out.empty() && any_unreadable) return std::nullopt;
  return out;
}

uint64_t CpuWaitTally::monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void CpuWaitTally::begin() {
  const uint64_t t0 = clock_();
  {
    std::lock_guard lock(mutex_);
    if (t0 < next_reading_ns_) return;  // the last readings' cost asks for a gap
  }
  auto start = read_thread_cpu_times();  // not under the lock: a reading takes milliseconds
  const uint64_t t1 = clock_();
  std::lock_guard lock(mutex_);
  start_ = std::move(start);
  begin_cost_ns_ = t1 - t0;
  ended_.clear();
}

void CpuWaitTally::end() {
  {
    std::lock_guard lock(mutex_);
    if (!start_) return;  // not measured (no begin, or it waited for the gap)
  }
  const uint64_t t0 = clock_();
  const auto now = read_thread_cpu_times();
  const uint64_t t1 = clock_();
  std::lock_guard lock(mutex_);
  if (start_ && now) {
    for (const auto& [tid, t] : *now) {
      if (ended_.count(tid) != 0) continue;  // read as it ended, after `now` was read
      const auto before = start_->find(tid);
      add_locked(t, before != start_->end() ? before->second : CpuTimes{});
    }
  }
  const auto cost = static_cast<double>(begin_cost_ns_ + (t1 - t0));
  next_reading_ns_ = t1 + static_cast<uint64_t>(cost / kMaxReadingShare);
  start_.reset();
  ended_.clear();
}

void CpuWaitTally::thread_ended(pid_t tid, const CpuTimes& times) {
  std::lock_guard lock(mutex_);
  if (!start_) return;
  const auto before = start_->find(tid);
  add_locked(times, before != start_->end() ? before->second : CpuTimes{});
  ended_.insert(tid);
}

bool CpuWaitTally::window_open() const {
  std::lock_guard lock(mutex_);
  return start_.has_value();
}

void CpuWaitTally::forget() {
  std::lock_guard lock(mutex_);
  start_.reset();
  ended_.clear();
  next_reading_ns_ = 0;
  run_ns_ = 0;
  wait_ns_ = 0;
}

uint64_t CpuWaitTally::run_ns() const {
  std::lock_guard lock(mutex_);
  return run_ns_;
}

uint64_t CpuWaitTally::wait_ns() const {
  std::lock_guard lock(mutex_);
  return wait_ns_;
}

void CpuWaitTally::add_locked(const CpuTimes& times, const CpuTimes& base) {
  if (times.run_ns >= base.run_ns) run_ns_ += times.run_ns - base.run_ns;
  if (times.wait_ns >= base.wait_ns) wait_ns_ += times.wait_ns - base.wait_ns;
}

std::string cpu_wait_warning(uint64_t run_ns, uint64_t wait_ns, double warn_share) {
  if (run_ns + wait_ns == 0) return "";
  const double share = static_cast<double>(wait_ns) / static_cast<double>(run_ns + wait_ns);
  if (share < warn_share) return "";
  char text[512];
  std::snprintf(text, sizeof(text),
                "%s during the experiments, %.0f%% of the "
                "time they were ready to run (other jobs, or more busy threads than CPUs): the "
                "wall time grows while the virtual speedups do not, so the predictions come "
                "out smaller than on an idle machine, and vary more",
                kCpuWaitWarningStart, std::round(share * 100));
  return text;
}

}  // namespace cprof::causal
