#pragma once
// Test harness: run a body on the calling thread while a helper thread interrupts it with
// SIGPROF (tgkill), and unwind inside the handler once the interrupted PC lies in `leaf`.
// The body must spin until capture_stop() becomes true.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "sampler/unwind/unwinder.h"
#include "tests/unwind/chain.h"

namespace cprof::sampler::test {

struct Capture {
  static constexpr size_t kMax = 128;
  uint64_t frames[kMax] = {};
  size_t n = 0;
};

// What the handler runs to unwind. Default: cprof::sampler::unwind(method, ...).
using UnwindFn = size_t (*)(const ucontext_t*, StackBounds, uint64_t*, size_t);

std::atomic<bool>* capture_stop();
Capture capture_in(UnwindFn fn, Range leaf, const std::function<void()>& body);

// "frame i: name+off" lines for failure messages (dladdr; not signal-safe).
std::string describe(const Capture& c);
bool frame_in(uint64_t frame, Range r, bool is_return_address);

}  // namespace cprof::sampler::test
