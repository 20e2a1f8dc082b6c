#pragma once
// Command-line parsing shared by every tool: CLI11, with errors reduced to the one line
// the project promises ("TOOL: what is wrong (see --help)") and exit code 1.

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>

namespace cprof::cli {

// Parses; on --help prints it and returns 0 through `exit_code`; on an error prints one
// line and sets exit code 1. Returns true when the tool should go on.
inline bool parse(CLI::App& app, int argc, char** argv, int& exit_code) {
  try {
    app.parse(argc, argv);
    return true;
  } catch (const CLI::CallForHelp& e) {
    exit_code = app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    exit_code = app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "{}: {} (see --help)\n", app.get_name(), e.what());
    exit_code = 1;
  }
  return false;
}

}  // namespace cprof::cli
