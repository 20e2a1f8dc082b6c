#pragma once
// Known call chains for the unwinder tests: chain_a -> chain_b -> chain_c -> chain_d, where
// chain_d spins until `stop` becomes true (so a signal lands in -O2 code, not in a libc
// syscall). Two copies are built from chain.inc: one without frame pointers (for libunwind)
// and one with (for the frame-pointer unwinder).
#include <atomic>
#include <cstdint>

namespace cprof::sampler::test {

struct Range {
  uint64_t start;
  uint64_t end;
};

#define CPROF_CHAIN_DECL(ns)                                    \
  namespace ns {                                                \
  int chain_a(std::atomic<bool>* stop);                         \
  int chain_b(std::atomic<bool>* stop);                         \
  int chain_c(std::atomic<bool>* stop);                         \
  int chain_d(std::atomic<bool>* stop);                         \
  int recurse(int depth, void (*leaf)(void*), void* ctx);       \
  }
CPROF_CHAIN_DECL(nofp)
CPROF_CHAIN_DECL(withfp)
#undef CPROF_CHAIN_DECL

// [start, end) of a function in the test binary, from its ELF symbol (needs the
// executable's symbols exported: ENABLE_EXPORTS). Not async-signal-safe.
Range function_range(const void* fn);

}  // namespace cprof::sampler::test
