#pragma once
// Everything the runtime keeps for one sampled thread. Allocated outside signal context
// when the thread is registered; the signal handler only reads it and pushes into `ring`.
// Freed by the writer thread once the thread has exited and its ring is drained.

#include <signal.h>
#include <sys/types.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "sampler/events/counter_group.h"
#include "sampler/runtime/sample_ring.h"
#include "sampler/unwind/stack_bounds.h"

namespace cprof::sampler {

// A thread's registers as a sleeping call that holds the sampling signal began (--clock
// wall, sleep_interpose.cpp): what its stack is unwound from if the process ends while
// the call still sleeps, since that call's sample would have come only as it returned.
struct HeldCallRegisters {
  uint64_t pc = 0;
  uint64_t sp = 0;
  uint64_t fp = 0;
  uint64_t rbx = 0;
  uint64_t r12 = 0;
  uint64_t r13 = 0;
  uint64_t r14 = 0;
  uint64_t r15 = 0;
};

// A sampling source's own state for one thread: the engine that arms the thread keeps a
// struct of its own here (engine_state<T>, sampler/engines/engine.h), which nothing else
// reads; all zero means "not armed". Plain memory, so the handler may read it.
struct EngineSlot {
  alignas(8) unsigned char bytes[32];
};

struct ThreadState {
  pid_t tid = 0;
  StackBounds stack;
  uint64_t start_ns = 0;
  bool existed_before_start = false;

  // Set by the handler while it runs: a nested signal is dropped instead of re-entering.
  volatile sig_atomic_t in_handler = 0;
  std::atomic<bool> active{false};  // the handler records samples only while set
  std::atomic<bool> exited{false};  // the thread is gone; the writer drains and frees
  std::atomic<bool> announced{false};  // the writer has written its ThreadRecord

  SampleRing ring;
  uint8_t* ring_storage = nullptr;  // owned; ThreadRegistry frees it
  std::atomic<uint64_t> samples{0};
  std::atomic<uint64_t> dropped{0};

  // One slot per sampling source (EngineSettings::slot): the CPU-time source (perf event
  // or CPU timer) and the wall timer.
  static constexpr unsigned kEngineSlots = 2;
  EngineSlot engine_slots[kEngineSlots] = {};

  CounterGroup counters;

  // In a sleeping call with the sampling signal held: when it began (0: not in one), and
  // where (stored before the time, with release; read at exit after it, with acquire).
  std::atomic<uint64_t> held_since_ns{0};
  HeldCallRegisters held_registers;

  // The name last written for it (ThreadRecord, then ThreadNameRecord; the writer's): a
  // different one gets a ThreadNameRecord.
  char announced_name[16] = {};

  // Filled when the thread exits (on the thread itself, not in a handler).
  char name[16] = {};
  uint64_t end_ns = 0;
  uint64_t cpu_time_ns = 0;

  // Owned by the runtime's hooks (hooks.h), e.g. the causal runtime's per-thread delays.
  void* extension = nullptr;
};

}  // namespace cprof::sampler
