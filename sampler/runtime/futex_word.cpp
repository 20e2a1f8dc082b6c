#include "sampler/runtime/futex_word.h"

#include <linux/futex.h>
#include <sys/syscall.h>

#include <ctime>

#include "sampler/runtime/real.h"

namespace cprof::sampler {
namespace {

long futex(const std::atomic<uint32_t>* word, int op, uint32_t value, const timespec* timeout) {
  return real::syscall()(SYS_futex, word, op, value, timeout, nullptr, 0);
}

}  // namespace

void FutexWord::bump_and_wake() noexcept {
  word_.fetch_add(1, std::memory_order_acq_rel);
  wake_all();
}

void FutexWord::wake_all() noexcept {
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  futex(&word_, FUTEX_WAKE_PRIVATE, UINT32_MAX >> 1, nullptr);
}

void FutexWord::wait_while(uint32_t seen, uint64_t timeout_ns) const noexcept {
  const timespec timeout{static_cast<time_t>(timeout_ns / 1000000000u),
                         static_cast<long>(timeout_ns % 1000000000u)};
  futex(&word_, FUTEX_WAIT_PRIVATE, seen, &timeout);
}

}  // namespace cprof::sampler
