#pragma once
// Finds the results files in a directory and loads them, in parallel, into
// ProcessProfiles. A damaged file loses only its damaged chunks (a warning names the file
// and the offset); a file that cannot be read at all (empty, not a results file, newer
// version) is one warning saying why, is counted in files_failed, and is skipped.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "report/load/process_profile.h"
#include "report/load/text_input.h"

namespace cprof::report {

struct ResultsFile {
  std::filesystem::path path;
  std::string run;  // subdirectory relative to the scanned directory, "" at the top
  uint64_t bytes = 0;
  InputKind kind = InputKind::results;  // or a Coz, TSV or JSON-lines file (text_input.h)
};

// Results files in dir and in its subdirectories down to max_depth levels (a results
// directory of several runs: results/run1/..., results/run2/...), sorted by path.
// Identified by their name (*.cprof, readable or not: loading says what is wrong with
// one) or else by their header; Coz (*.coz), TSV (*.tsv) and JSON-lines (*.jsonl) inputs
// by their extension. Other files are ignored. `dir` may also be one such file. Throws
// std::runtime_error naming dir when it is neither a readable directory nor such a file.
std::vector<ResultsFile> find_results_files(const std::filesystem::path& dir, int max_depth = 2);

// Loads one file. Throws format::FormatError, "FILE: why", for a file that is empty, not a
// results file or from a newer major version, or a text input none of whose lines could be
// used (then its line warnings are dropped: the error stands for them); damage inside a
// file that loads is returned as warnings.
// keep_timeline: also keep every sample's (time, thread, stack) in ProcessProfile::timeline.
// clock: whose samples make the profile (ClockChoice; the other clock's are set aside).
ProcessProfile load_process_file(const ResultsFile& file, std::vector<std::string>& warnings,
                                 bool keep_timeline = false,
                                 ClockChoice clock = ClockChoice::automatic);

struct LoadOptions {
  bool progress = false;       // a one-line progress display on stderr
  bool keep_timeline = false;  // per-sample times for timeline formats (chrome)
  ClockChoice clock = ClockChoice::automatic;  // causal-report --clock
};

struct LoadResult {
  std::vector<ProcessProfile> processes;  // in the order of the files
  std::vector<std::string> warnings;      // "FILE: offset N: message", in file order
  size_t files_found = 0;
  size_t files_failed = 0;    // not loadable at all: one warning each, "FILE: why"
  std::string first_failure;  // the first of those warnings (in file order), "" when none
  std::string filter;  // what --pid/--thread kept (apply_thread_filter), "" for everything
};

LoadResult load_results(const std::vector<ResultsFile>& files, const LoadOptions& options = {});

}  // namespace cprof::report
