#pragma once
// Fake time for the causal tests: sleeping advances the clock, optionally overshooting.

#include <cstdint>
#include <vector>

#include "causal/clock.h"

namespace cprof::causal::testing {

struct FakeTime {
  uint64_t now = 0;
  uint64_t overshoot = 0;  // added to every sleep, like a real timer's slack
  std::vector<uint64_t> sleeps;

  Clock clock() {
    return Clock{[](void* c) { return static_cast<FakeTime*>(c)->now; }, this};
  }
  Sleeper sleeper() {
    return Sleeper{[](uint64_t ns, void* c) {
                     auto* self = static_cast<FakeTime*>(c);
                     const uint64_t slept = ns == 0 ? 0 : ns + self->overshoot;
                     self->sleeps.push_back(ns);
                     self->now += slept;
                     return slept;
                   },
                   this};
  }
};

}  // namespace cprof::causal::testing
