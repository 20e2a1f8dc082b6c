#include "causal/sample_step.h"

namespace cprof::causal {

SampleOutcome causal_sample(const SampleStep& step, ThreadDelay& thread,
                            std::span<const uint64_t> stack) {
  if (DelayAccounting::in_device_wait(thread)) return SampleOutcome::in_device_wait;
  if (DelayAccounting::in_runtime_wait(thread) && !stack.empty() &&
      step.runtime_code.contains(stack[0])) {
    return SampleOutcome::in_runtime_wait;
  }
  if (step.auto_table != nullptr && step.recent != nullptr) {
    if (const Location* l = step.auto_table->first_in_stack(stack)) step.recent->note(l->id);
  }
  if (step.selected != nullptr && stack_hits(*step.selected, stack)) {
    step.delays.on_sample_in_selected(thread);
  }
  step.delays.pay(thread);
  return SampleOutcome::counted;
}

}  // namespace cprof::causal
