#pragma once
// A sampling engine: how one thread is armed to receive the sampling signal, and how a
// received signal is recognised and weighed. Adding an engine is adding a file: what it
// keeps per thread is a struct of its own in the thread's slot (engine_state).
//
// Signal-safety contract: arm()/disarm() run outside signal context (thread registration
// and exit, from any thread of the process). weigh() runs in the signal handler and must
// be async-signal-safe: syscalls only, no allocation, no locks.

#include <signal.h>

#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>

#include "sampler/runtime/thread_state.h"

namespace cprof::sampler {

struct RuntimeConfig;

struct EngineSettings {
  int signal = 0;          // the real-time signal every engine delivers
  uint64_t period_ns = 0;  // sampling period on the engine's clock
  unsigned slot = 0;       // the ThreadState::engine_slots entry the engine keeps its state in
};

// The settings of the engines that sample as `config` says: its signal (as the runtime
// chose it; 0 before it did, which is enough to probe) and its period, computed here
// only. `slot`: 0 for the CPU-time source, 1 for the wall timer.
EngineSettings engine_settings(const RuntimeConfig& config, unsigned slot = 0);

// An engine's state for one thread, in its slot: T is the engine's own trivially copyable
// struct, whose all-zero value (a slot never armed, or cleared) means "not armed".
// Async-signal-safe.
template <typename T>
T& engine_state(ThreadState& ts, unsigned slot) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(EngineSlot::bytes) &&
                alignof(T) <= alignof(EngineSlot));
  return *std::launder(reinterpret_cast<T*>(ts.engine_slots[slot].bytes));
}

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  // Can this engine work in this process? "" if yes, else the reason in one line.
  virtual std::string probe() = 0;
  // Starts sampling thread `ts` (which need not be the calling thread). "" on success.
  virtual std::string arm(ThreadState& ts) = 0;
  virtual void disarm(ThreadState& ts) = 0;
  // In a forked child, for each state the parent had: the state is the parent's thread's.
  // Releases what the child holds of it (a copy of a descriptor) without touching what is
  // the parent's, and leaves the slot not armed.
  virtual void forget_after_fork(ThreadState& ts) = 0;
  // In the handler: is this signal ours, and how much time (ns) does the sample stand for?
  virtual bool weigh(ThreadState& ts, const siginfo_t* info, uint64_t& weight_ns) = 0;
};

std::unique_ptr<Engine> make_perf_event_engine(const EngineSettings& settings);
std::unique_ptr<Engine> make_cpu_timer_engine(const EngineSettings& settings);
std::unique_ptr<Engine> make_wall_timer_engine(const EngineSettings& settings);

// Value carried in sigev_value by the timer engines, to tell their signals apart.
inline constexpr int kCpuTimerTag = 0x43505531;   // "CPU1"
inline constexpr int kWallTimerTag = 0x57414c31;  // "WAL1"

// Whether a signal that no engine weighed as a sample may still be an engine's (a perf
// event's or a timer's of a thread disarmed since it was queued): never the program's.
inline bool may_be_engine_signal(const siginfo_t* info) {
  if (info == nullptr) return false;
  if (info->si_code == POLL_IN) return true;  // perf_event's F_SETSIG delivery
  return info->si_code == SI_TIMER &&
         (info->si_value.sival_int == kCpuTimerTag || info->si_value.sival_int == kWallTimerTag);
}

}  // namespace cprof::sampler
