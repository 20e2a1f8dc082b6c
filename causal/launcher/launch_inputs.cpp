// What causal-run is given to run that needs more than resolving an ELF executable's
// selection: a script (#!), and an exec'd program's runtime asking for its locations
// (--resolve-only).
#include "causal/launcher/launch_inputs.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "causal/runtime/exec_resolve.h"

namespace cprof::causal {

// --resolve-only OUT: the runtime of an exec'd program asks for its locations. Writes
// OUT atomically (a temporary file renamed); prints on stderr the resolution's notes, each
// on a line of its own after kResolveNotePrefix, and the error line, if any, last.
int write_resolved_locations(const std::string& program, const Selection& selection,
                             const std::string& out_path) {
  LocationResolver resolver(program, selection);
  std::vector<LocationLine> locations;
  std::vector<std::string> notes;
  std::string err = resolver.check_debug_info(notes);
  if (err.empty()) err = resolver.resolve(locations, notes);
  for (const auto& note : notes) fmt::print(stderr, "{}{}\n", kResolveNotePrefix, note);
  if (!err.empty()) {
    fmt::print(stderr, "{}\n", err);
    return 1;
  }
  const std::string tmp = out_path + ".tmp";
  {
    std::ofstream out(tmp);
    for (const auto& l : locations) out << format_location_line(l) << '\n';
    if (!out) {
      fmt::print(stderr, "cannot write {}\n", tmp);
      return 1;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, out_path, ec);
  if (ec) {
    fmt::print(stderr, "cannot write {}: {}\n", out_path, ec.message());
    return 1;
  }
  return 0;
}

// What to run instead of a script: the interpreter with the script as its argument, as the
// kernel would (with env, the program env would look up); for a version manager's shim
// (pyenv, rbenv, asdf: a script under a shims/ folder that picks a program and execs it)
// the interpreter is only the shell, so the program the shim picks is named instead.
namespace {

std::string instead_of_script(const std::string& program, const std::string& interpreter) {
  if (program.find("/shims/") != std::string::npos) {
    const std::string name = std::filesystem::path(program).filename().string();
    return fmt::format("the program the shim runs (pyenv: `pyenv which {}`)", name);
  }
  std::string run = interpreter;
  if (std::filesystem::path(interpreter).filename() == "env") {
    // "#!/usr/bin/env NAME": the kernel passes the rest of the line as one argument.
    std::ifstream in(program, std::ios::binary);
    std::string line;
    std::getline(in, line);
    const size_t at = line.find(interpreter);
    const size_t arg =
        at == std::string::npos ? at : line.find_first_not_of(" \t", at + interpreter.size());
    if (arg != std::string::npos) {
      run = line.substr(arg, line.find_last_not_of(" \t\r") + 1 - arg);
    }
  }
  return fmt::format(
      "the program the script runs, or the interpreter with the script as its "
      "argument ({} {})",
      run, program);
}

}  // namespace

namespace {

// Why the selection cannot wait for the images a program execs, or null when it can.
const char* needed_before_start(bool end_to_end, bool progress) {
  return end_to_end ? "--end-to-end runs no experiments in exec'd images"
         : progress ? "--progress needs the line's address before it starts"
                    : nullptr;
}

}  // namespace

std::string check_system_launcher(const std::string& program, const std::string& no_debug_info,
                                  bool end_to_end, bool progress, std::string& note) {
  if (const char* needs = needed_before_start(end_to_end, progress)) {
    return fmt::format("{}; {}: name the program it runs instead", no_debug_info, needs);
  }
  note = fmt::format(
      "{} has no debug information: no experiments in it; each program it runs resolves the "
      "selection for itself when it starts (for experiments in {} itself, install its debug "
      "symbols)",
      program, std::filesystem::path(program).filename().string());
  return "";
}

std::string check_script(const std::string& program, const std::string& interpreter,
                         bool end_to_end, bool progress, std::string& note) {
  const char* needs = needed_before_start(end_to_end, progress);
  if (needs != nullptr) {
    return fmt::format("{} is a script (#!{}): {}; name the ELF executable instead: {}", program,
                       interpreter, needs, instead_of_script(program, interpreter));
  }
  note = fmt::format(
      "{} is a script (#!{}): each program it runs resolves the selection for "
      "itself when it starts (a selection it does not have is said in a warning)",
      program, interpreter);
  return "";
}

}  // namespace cprof::causal
