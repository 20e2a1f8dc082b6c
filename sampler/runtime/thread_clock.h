#pragma once
// A thread of this process by its tid: its id and its CPU time, without a pthread_t
// (threads the runtime found in /proc have none). Async-signal-safe.

#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>

namespace cprof::sampler {

inline pid_t gettid_raw() { return static_cast<pid_t>(::syscall(SYS_gettid)); }

// The CPU-time clock of any thread of this process (the kernel's CPUCLOCK encoding:
// per-thread, scheduler clock).
inline clockid_t thread_cpu_clock(pid_t tid) { return static_cast<clockid_t>((~tid) << 3 | 6); }

// Its CPU time so far (ns); 0 when the thread is gone.
inline uint64_t thread_cpu_ns(pid_t tid) {
  timespec ts{};
  if (clock_gettime(thread_cpu_clock(tid), &ts) != 0) return 0;
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace cprof::sampler
