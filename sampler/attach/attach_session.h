#pragma once
// sample-run --pid / --tid: samples processes that already run, from outside, until a
// duration runs out, the caller says stop (Ctrl-C), or they end; then detaches, leaving
// them as they were. Writes the same results files as a launched run ("<exe>.<host>.
// <pid>.cprof", one per process and image), so every report view reads them unchanged.
// docs/sampler.md, "Attaching to a running process".

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sampler/events/event_resolver.h"

namespace cprof::sampler {

struct AttachOptions {
  std::vector<pid_t> pids;  // whole processes (every thread, and threads created meanwhile)
  pid_t tid = 0;            // or one thread (0: none)
  double seconds = 0;       // 0: until stopped or the processes end
  double frequency_hz = 500;
  bool wall = false;  // also wall-clock samples: off-CPU time at the stack where it was spent
  std::vector<ResolvedEvent> events;  // -e: counted per thread, their deltas with each sample
  unsigned depth = 128;
  std::string results_dir;
  std::function<void()> on_attached;  // once every target is sampled (may be empty)
};

struct AttachOutcome {
  std::string error;               // one line: nothing could be attached (no file written)
  std::vector<std::string> notes;  // what went partly wrong (a thread that could not be attached)
  size_t processes = 0;            // followed, forked children included
  bool ended = false;              // every process ended while attached
  uint64_t samples = 0;
  uint64_t lost = 0;  // samples the rings had no room for
};

// Checks that `pid` (or thread) can be sampled from here: it exists, it is an x86-64
// process, and this user may attach. "" or one line naming what is wrong and what to do.
std::string check_attach_target(pid_t pid, bool is_thread);

// Attaches, samples and detaches. `stop` set (by a signal handler) ends it early.
AttachOutcome attach_and_sample(const AttachOptions& options, const std::atomic<bool>& stop);

}  // namespace cprof::sampler
