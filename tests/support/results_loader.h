#pragma once
// Test support: loads a results directory and names every sample's frames with the
// project's symbolizer, so end-to-end tests can assert on function names per thread.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "format/reader.h"
#include "format/records.h"

namespace cprof::testing {

struct NamedSample {
  int64_t tid = 0;
  format::SampleClock clock = format::SampleClock::cpu;
  uint64_t weight_ns = 0;
  std::vector<std::string> functions;  // innermost first; "?" where unnamed
  std::vector<uint64_t> counter_deltas;
};

struct LoadedProcess {
  std::string file;
  format::ProcessRecord process;
  std::vector<format::ModuleRecord> modules;
  std::vector<format::ThreadRecord> threads;
  std::vector<format::ThreadEndRecord> thread_ends;
  std::vector<format::ThreadNameRecord> thread_names;  // also applied to `threads`
  std::vector<format::EventRecord> events;
  std::vector<format::MetricRecord> metrics;
  std::vector<format::MessageRecord> messages;
  std::vector<NamedSample> samples;
  format::ReadSummary summary;

  // Samples whose innermost named frame is `function` (substring match).
  size_t self_samples(const std::string& function) const;
  // Samples with `function` anywhere on the stack.
  size_t total_samples(const std::string& function) const;
  // Sum of the weights of the samples with `function` anywhere on the stack; of one
  // clock's samples only when `clock` is given.
  uint64_t total_time_ns(const std::string& function,
                         std::optional<format::SampleClock> clock = std::nullopt) const;
};

// Every *.cprof file of dir, symbolized. Throws on unreadable files.
std::vector<LoadedProcess> load_results(const std::string& dir);

// Runs a shell command, returns its exit status as the shell reports it (0-255), and
// collects stdout+stderr into `output`.
int run_command(const std::string& command, std::string& output);

// A fresh, empty directory under the test temp dir.
std::string fresh_directory(const std::string& name);

}  // namespace cprof::testing
