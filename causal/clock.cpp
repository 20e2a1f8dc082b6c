#include "causal/clock.h"

#include <time.h>

#include <cerrno>

#include "common/monotonic.h"

namespace cprof::causal {
namespace {

uint64_t monotonic_now(void* /*context*/) { return monotonic_ns(); }

uint64_t nanosleep_for(uint64_t ns, void* /*context*/) {
  if (ns == 0) return 0;
  const int saved_errno = errno;
  const uint64_t start = monotonic_now(nullptr);
  timespec req{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
  timespec rem{};
  // A signal (the sampler's own) interrupts the sleep: sleep the rest.
  while (nanosleep(&req, &rem) != 0 && errno == EINTR) req = rem;
  errno = saved_errno;
  return monotonic_now(nullptr) - start;
}

}  // namespace

Clock monotonic_clock() { return Clock{monotonic_now, nullptr}; }
Sleeper nanosleep_sleeper() { return Sleeper{nanosleep_for, nullptr}; }

}  // namespace cprof::causal
