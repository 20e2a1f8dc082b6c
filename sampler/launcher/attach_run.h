#pragma once
// sample-run's attach mode (--pid / --tid): checks the targets, samples them until the
// duration, Ctrl-C or their end, and sums up like a launched run.

#include <string>
#include <vector>

namespace cprof::launch {

struct AttachRequest {
  std::string pids;  // --pid: comma-separated
  long tid = 0;      // --tid
  double seconds = 0;
  double frequency_hz = 500;
  bool wall = false;  // --clock wall
  std::vector<std::string> events;  // -e, checked (known names)
  unsigned depth = 128;
  std::string output;  // -o
  bool append = false;
  bool quiet = false;
};

// Returns sample-run's exit status: 0 when samples were taken, 1 for a target that cannot
// be sampled (with one line on stderr saying why and what to do).
int run_attached(const char* tool, const AttachRequest& request);

}  // namespace cprof::launch
