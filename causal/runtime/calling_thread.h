#pragma once
// The calling thread as the runtime's interposed functions see it (blocking calls,
// libgomp's entry points, the GPU tools' wait API): the runtime and the thread's causal
// state, or nothing for a thread the runtime does not know (its own, or one from before
// it started), which then passes straight through. Async-signal-safe (two atomic loads).

#include <cerrno>

#include "causal/runtime/causal_runtime.h"

namespace cprof::causal {

struct CallingThread {
  CausalRuntime* rt = CausalRuntime::instance();
  CausalThread* t = rt != nullptr ? CausalRuntime::current_thread() : nullptr;
  explicit operator bool() const { return t != nullptr; }

  // Applies `rule(delays, thread_delay)` for a known thread, keeping errno (a pause may
  // set it; the interposed call's caller must see the call's own).
  template <typename Rule>
  void apply(Rule rule) const {
    if (t == nullptr) return;
    const int saved = errno;
    rule(rt->delays(), t->delay);
    errno = saved;
  }
};

// About to wake another thread (unlock, signal, post, futex wake, forking a team): the
// calling thread pays what it owes first (DelayAccounting::before_wake_other).
inline void wake_other() {
  CallingThread().apply([](DelayAccounting& d, ThreadDelay& t) { d.before_wake_other(t); });
}

}  // namespace cprof::causal
