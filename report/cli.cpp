#include "report/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "report/render/render.h"

namespace cprof::report {
namespace {

constexpr int kOk = 0;
constexpr int kUsage = 1;
constexpr int kBadInput = 2;

int fail(int code, const std::string& message) {
  std::cerr << "causal-report: " << message << '\n';
  return code;
}

}  // namespace

int run_causal_report(int argc, char** argv) {
  CLI::App app{"Reads a results directory (every process, rank and run in it) and reports "
               "where the time went.",
               "causal-report"};
  std::string dir;
  std::string format = "text";
  std::optional<size_t> top;
  RowKind by = RowKind::function;
  std::string output;
  std::string symbols = "dwarf";
  bool quiet = false;
  app.add_option("DIR", dir, "results directory written by sample-run or causal-run")
      ->required();
  app.add_option("--format,-f", format, "output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->default_str("text");
  app.add_option("--top,-n", top, "rows per table, 0 for all (default: 20 for text, all for json)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--by", by, "rows of the flat profile")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, RowKind>{{"function", RowKind::function}, {"line", RowKind::line}}))
      ->default_str("function");
  app.add_option("-o,--output", output, "write the report to FILE instead of standard output");
  app.add_option("--symbols", symbols,
                 "dwarf: names, lines and inlines from the binaries (symbolize/); none: "
                 "module+0xoffset, without reading any binary")
      ->check(CLI::IsMember({"dwarf", "none"}))
      ->default_str("dwarf");
  app.add_flag("-q,--quiet", quiet, "no warnings or progress on standard error");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kUsage, std::string(e.what()) + " (see --help)");
  }

  std::vector<ResultsFile> files;
  try {
    files = find_results_files(dir);
  } catch (const std::exception& e) {
    return fail(kBadInput, e.what());
  }
  if (files.empty()) return fail(kBadInput, dir + ": no results files in this directory");

  LoadResult loaded = load_results(files, {.progress = !quiet && ::isatty(STDERR_FILENO)});
  if (!quiet) {
    for (const auto& w : loaded.warnings) std::cerr << "causal-report: warning: " << w << '\n';
  }
  if (loaded.processes.empty()) {
    return fail(kBadInput, dir + ": none of its " + std::to_string(files.size()) +
                               " results files could be read");
  }

  const auto source =
      symbols == "none" ? make_address_only_source() : make_default_symbol_source();
  const size_t before = loaded.warnings.size();
  const Report report = build_report(std::move(loaded), *source);
  if (!quiet) {
    for (size_t i = before; i < report.warnings.size(); ++i) {
      std::cerr << "causal-report: warning: " << report.warnings[i] << '\n';
    }
  }

  RenderOptions options{.by = by};
  options.top = top.value_or(format == "text" ? 20 : 0);
  const std::string text =
      format == "json" ? render_json(report, options) : render_text(report, options);
  if (output.empty()) {
    std::cout << text;
    std::cout.flush();
    return std::cout ? kOk : fail(kBadInput, "cannot write to standard output");
  }
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (!out) return fail(kBadInput, output + ": cannot write report: " + std::strerror(errno));
  return kOk;
}

}  // namespace cprof::report
