#include "causal/sample_step.h"

namespace cprof::causal {

namespace {

// The innermost frame outside system code is in the runtime: the thread spins in it (or
// in a system call or library function the runtime called to wait).
bool spinning(const SampleStep& step, std::span<const uint64_t> stack) {
  for (const uint64_t pc : stack) {
    if (step.runtime_code.contains(pc)) return true;
    bool system = false;
    for (const CodeRange& r : step.system_code) system = system || r.contains(pc);
    if (!system) return false;
  }
  return false;
}

}  // namespace

SampleOutcome causal_sample(const SampleStep& step, ThreadDelay& thread,
                            std::span<const uint64_t> stack) {
  if (DelayAccounting::in_device_wait(thread)) return SampleOutcome::in_device_wait;
  // Inside MPI the library polls for other ranks: none of it is the program's work.
  if (DelayAccounting::in_peer_wait(thread)) return SampleOutcome::in_runtime_wait;
  if (DelayAccounting::in_runtime_wait(thread) && spinning(step, stack)) {
    return SampleOutcome::in_runtime_wait;
  }
  if (step.auto_table != nullptr && step.recent != nullptr) {
    if (const Location* l = step.auto_table->first_in_stack(stack)) {
      step.recent->note(l->id);
      if (step.tally != nullptr) step.tally->add(l->id);
    }
  }
  step.delays.on_sample(thread);
  if (step.selected != nullptr && stack_hits(*step.selected, stack)) {
    step.delays.on_sample_in_selected(thread);
  }
  step.delays.pay(thread);
  return SampleOutcome::counted;
}

}  // namespace cprof::causal
