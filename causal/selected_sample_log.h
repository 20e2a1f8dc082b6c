#pragma once
// The selected samples of the last moments, with their times, so that a thread that
// blocked or woke within a sample's period owes only the part of it it ran through
// (docs/causal.md, "Delays stand for a period").
//
// A selected sample inserts s·P of delay at one instant, standing for the last period P
// of its thread's execution. A thread that blocked partway through that period ran for
// the part before its block: in the sped-up program it would have been held back for
// that part, and for the rest it was waiting anyway. Crediting the whole sample to a
// thread that blocked within its period (or charging the whole of it to one that woke
// within it) moves delay by up to s·P per block, which matters when rounds are shorter
// than the period (forkjoin at 1 kHz: 56% predicted where 50% is the ceiling).
//
// Each entry is one sample that raised the global count: the wall-clock span its period
// covers, the range of the global count it raised (from, to] (the global count is the
// maximum of the local counts, so a sample raises it by at most s·P), and the thread that
// took it. A period of CPU time spans more wall time when its thread blocked within it:
// the span is the last P of the thread's running time, its last block a hole in it
// (earlier blocks are not known). A fixed
// ring, lock-free for any number of writers: a writer claims a slot by a counter and
// publishes it with a sequence number (a seqlock per slot); a reader skips a slot being
// written. An entry overwritten before a reader got to it reads as absent, and absent
// entries are credited or charged whole, as without the log.
//
// Signal-safety: record() and share_of() are async-signal-safe and lock-free (atomics
// only, no allocation, no system calls).

#include <atomic>
#include <cstdint>

namespace cprof::causal {

class SelectedSampleLog {
 public:
  static constexpr uint32_t kEntries = 256;

  // A sample of `owner` standing for the time [start_ns, end_ns] less the hole
  // [hole_lo_ns, hole_hi_ns] (inside it, or empty) raised the global count from `from` to
  // `to`.
  struct Span {
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
    uint64_t hole_lo_ns = 0;
    uint64_t hole_hi_ns = 0;
  };
  void record(const Span& span, uint64_t from, uint64_t to, uintptr_t owner);

  // The delay, within the global count's range (g_from, g_to], of the other threads'
  // samples (not `self`'s) whose spans overlap the time [t_lo, t_hi]: each entry's part
  // of that range, times the share of its span inside [t_lo, t_hi]. Rounded down.
  uint64_t share_of(uint64_t g_from, uint64_t g_to, uint64_t t_lo, uint64_t t_hi,
                    uintptr_t self) const;

 private:
  struct Entry {
    std::atomic<uint64_t> sequence{0};  // odd while written; 2 * (claim + 1) once written
    std::atomic<uint64_t> start_ns{0};
    std::atomic<uint64_t> end_ns{0};
    std::atomic<uint64_t> hole_lo_ns{0};
    std::atomic<uint64_t> hole_hi_ns{0};
    std::atomic<uint64_t> from{0};
    std::atomic<uint64_t> to{0};
    std::atomic<uintptr_t> owner{0};
  };
  std::atomic<uint64_t> claims_{0};
  // The highest `to` recorded, raised before an entry is published: a range of the global
  // count above it holds no entry, and share_of() answers without reading the ring (a
  // thread that pays often after a wake-up, or one whose samples are never split).
  std::atomic<uint64_t> highest_to_{0};
  Entry entries_[kEntries];
};

}  // namespace cprof::causal
