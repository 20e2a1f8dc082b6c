#pragma once
// The causal-report command line: parse, load, build, render, write. main() is one call.

namespace cprof::report {

// Exit codes: 0 ok, 1 usage, 2 bad input (no directory, no results files, nothing
// loadable, output not writable).
int run_causal_report(int argc, char** argv);

}  // namespace cprof::report
