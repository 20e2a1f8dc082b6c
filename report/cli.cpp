#include "report/cli.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include "common/cli.h"
#include "format/utf8.h"
#include "report/load/thread_filter.h"
#include "report/profile/source_lines.h"
#include "report/render/coz_writer.h"
#include "report/render/render.h"

namespace cprof::report {
namespace {

constexpr int kOk = 0;
constexpr int kUsage = 1;
constexpr int kBadInput = 2;

int fail(int code, const std::string& message) {
  std::cerr << "causal-report: " << format::printable_text(message) << '\n';
  return code;
}

// Every format but sqlite (which writes its own file) renders to one string.
// Names in the results are whatever bytes a program chose (docs/report.md, "Text
// encoding"): the text report escapes control characters and bytes that are not UTF-8;
// every other textual format holds UTF-8 only (JsonWriter, pprof's string table and
// SQLite's TEXT columns do the same on their own).
std::string render_format(const std::string& format, const Report& r, const RenderOptions& o) {
  if (format == "json") return render_json(r, o);
  if (format == "html") return format::valid_utf8(render_html(r, o));
  if (format == "folded") return format::valid_utf8(render_folded(r));
  if (format == "speedscope") return render_speedscope(r);
  if (format == "pprof") return render_pprof(r);
  if (format == "chrome") return render_chrome(r);
  if (format == "firefox") return render_firefox(r);
  if (format == "coz") return format::valid_utf8(render_coz(r, CozStyle::tab_separated));
  if (format == "coz-jsonl") return render_coz(r, CozStyle::json_lines);
  return format::printable_text(render_text(r, o), /*keep_newlines=*/true);
}

// What there is to choose from, for the error when a filter keeps nothing: the pids and
// the distinct thread names, the first few of each.
std::string thread_names_for_error(const LoadResult& loaded) {
  constexpr size_t kShown = 8;
  std::vector<std::string> pids;
  std::vector<std::string> names;
  for (const auto& p : loaded.processes) {
    if (pids.size() < kShown) pids.push_back(std::to_string(p.process.pid));
    for (const auto& t : p.threads) {
      if (names.size() < kShown && !t.name.empty() &&
          std::find(names.begin(), names.end(), t.name) == names.end())
        names.push_back(t.name);
    }
  }
  const auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  return "pids: " + join(pids) + (loaded.processes.size() > pids.size() ? ", ..." : "") +
         "; thread names: " + (names.empty() ? "none" : join(names));
}

// What one results directory (or file) becomes: loaded, filtered, symbolized, built.
struct ReportInputs {
  std::string format;
  ClockChoice clock = ClockChoice::automatic;
  View view = View::flat;
  RowKind by = RowKind::function;
  std::string symbols;
  std::vector<std::string> debug_dirs;  // --debug-dir
  bool quiet = false;
  ThreadFilter filter;
};

// The report of `dir`, or nullopt with `exit_code` set and the error said.
std::optional<Report> load_and_build(const std::string& dir, const ReportInputs& in,
                                     int& exit_code) {
  const std::string& format = in.format;
  const bool quiet = in.quiet;
  const View view = in.view;
  const RowKind by = in.by;
  const auto failed = [&](int code, const std::string& message) -> std::optional<Report> {
    exit_code = fail(code, message);
    return std::nullopt;
  };
  std::vector<ResultsFile> files;
  try {
    files = find_results_files(dir);
  } catch (const std::exception& e) {
    return failed(kBadInput, e.what());
  }
  if (files.empty()) return failed(kBadInput, dir + ": no results files in this directory");

  LoadResult loaded =
      load_results(files, {.progress = !quiet && ::isatty(STDERR_FILENO),
                           .keep_timeline = format == "chrome" || format == "firefox",
                           .clock = in.clock});
  if (loaded.processes.empty()) {
    // Nothing to report: one error giving the first file's reason, the others' warned.
    if (!quiet) {
      for (const auto& w : loaded.warnings) {
        if (w != loaded.first_failure)
          std::cerr << "causal-report: warning: " << format::printable_text(w) << '\n';
      }
    }
    if (files.size() == 1 && files[0].path == dir) return failed(kBadInput, loaded.first_failure);
    return failed(kBadInput,
                  files.size() == 1
                      ? dir + ": its one results file could not be read: " + loaded.first_failure
                      : dir + ": none of its " + std::to_string(files.size()) +
                            " results files could be read (first: " + loaded.first_failure + ")");
  }
  if (!quiet) {
    for (const auto& w : loaded.warnings)
      std::cerr << "causal-report: warning: " << format::printable_text(w) << '\n';
  }
  if (!in.filter.empty()) {
    const std::string names = thread_names_for_error(loaded);
    loaded.filter = apply_thread_filter(loaded, in.filter);
    if (loaded.processes.empty()) {
      return failed(kBadInput, loaded.filter.substr(0, loaded.filter.find(": ")) +
                                   ": no process or thread of the results matches (" + names + ")");
    }
  }

  const auto source = in.symbols == "none" ? make_address_only_source()
                                           : make_default_symbol_source(dir, in.debug_dirs);
  const size_t before = loaded.warnings.size();
  // The views beyond the flat profile are built only for the outputs that show them.
  const BuildOptions build{
      .call_tree = view == View::tree || format == "html" || format == "folded",
      // An MPI job's text header sums its ranks up (rank_spread_note.h).
      .breakdown = format != "text" || by == RowKind::thread || by == RowKind::process ||
                   by == RowKind::rank ||
                   std::any_of(loaded.processes.begin(), loaded.processes.end(),
                               [](const ProcessProfile& p) { return p.process.rank >= 0; }),
      .group_spread = format == "json"};
  Report report = build_report(std::move(loaded), *source, build);
  if (!quiet) {
    for (size_t i = before; i < report.warnings.size(); ++i) {
      std::cerr << "causal-report: warning: " << report.warnings[i] << '\n';
    }
  }
  return report;
}

}  // namespace

int run_causal_report(int argc, char** argv) {
  CLI::App app{"Reads a results directory (every process, rank and run in it) and reports "
               "where the time went.",
               "causal-report"};
  std::string dir;
  std::string format = "text";
  std::optional<size_t> top;
  std::string by_name = "function";
  std::string view_name = "flat";
  std::string clock_name;
  std::string output;
  std::string symbols = "dwarf";
  bool quiet = false;
  std::string source_file;
  std::vector<std::string> source_dirs;
  std::string diff_base;
  std::vector<std::string> debug_dirs;
  ThreadFilter filter;
  app.add_option("DIR", dir,
                 "results directory written by sample-run or causal-run (also read: *.coz, "
                 "*.tsv, *.jsonl), or one such file")
      ->required();
  app.add_option("--format,-f", format, "output format")
      ->check(cprof::cli::one_of({"text", "json", "html", "folded", "speedscope", "pprof", "chrome",
                                  "firefox", "sqlite", "coz", "coz-jsonl"}))
      ->default_str("text");
  app.add_option("--top,-n", top, "rows per table, 0 for all (default: 20 for text, all for json)")
      ->check(cprof::cli::whole_number_in(0, 1000000000, "rows (0 for all)"));
  app.add_option("--by", by_name,
                 "rows of the text table: the flat profile by function or line, or "
                 "the time per thread, process, rank or module (library), or (wall clock) where "
                 "threads waited off CPU, by call and caller")
      ->check(
          cprof::cli::one_of({"function", "line", "thread", "process", "rank", "module", "wait"}))
      ->default_str("function");
  app.add_option("--view", view_name,
                 "text and json: flat (default) or tree (the top-down call tree)")
      ->check(cprof::cli::one_of({"flat", "tree"}))
      ->default_str("flat");
  app.add_option("-o,--output", output, "write the report to FILE instead of standard output");
  app.add_option("--symbols", symbols,
                 "dwarf: names, lines and inlines from the binaries (symbolize/); none: "
                 "module+0xoffset, without reading any binary")
      ->check(cprof::cli::one_of({"dwarf", "none"}))
      ->default_str("dwarf");
  app.add_option("--clock", clock_name,
                 "whose samples make the profile: cpu (CPU time) or wall (wall time, blocked "
                 "time included); default: wall for a process sampled with sample-run --clock "
                 "wall, cpu for the others")
      ->check(cprof::cli::one_of({"cpu", "wall"}));
  app.add_option("--pid", filter.pids, "profile only these processes (repeat or comma-separate)")
      ->delimiter(',')
      ->check(cprof::cli::whole_number_in(0, INT64_MAX, "process ids"));
  app.add_option("--thread", filter.threads,
                 "profile only these threads: a tid, or a name pattern such as 'worker-*' "
                 "(repeat or comma-separate)")
      ->delimiter(',');
  app.add_option("--source", source_file,
                 "text: FILE's lines with their time (annotated source), FILE a path or its "
                 "last components as the debug information names it (a.c, src/a.c)");
  app.add_option("--source-dir", source_dirs,
                 "where --source reads sources not at their recorded path: DIR (searched for "
                 "the path's last components), or OLD=NEW (a prefix replaced); repeatable");
  app.add_option(
      "--diff", diff_base,
      "text or html: compare DIR with the earlier results BASE (causal-report --diff BASE "
      "DIR): the functions (or --by line, lines) whose time changed most");
  app.add_option("--debug-dir", debug_dirs,
                 "where separate debug files are, as /usr/lib/debug holds them "
                 "(DIR/.build-id/xx/yyyy.debug, or the module's directory under DIR), searched "
                 "first; repeatable. Servers in DEBUGINFOD_URLS are asked last")
      ->check(cprof::cli::existing_directory());
  app.add_flag("-q,--quiet", quiet, "no warnings or progress on standard error");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(kUsage, cprof::cli::usage_error(app, e) + " (see --help)");
  }
  // Checked by one_of above: each name maps.
  const RowKind by =
      std::map<std::string, RowKind>{{"function", RowKind::function}, {"line", RowKind::line},
                                     {"thread", RowKind::thread},     {"process", RowKind::process},
                                     {"rank", RowKind::rank},         {"module", RowKind::module},
                                     {"wait", RowKind::wait}}
          .at(by_name);
  const View view = view_name == "tree" ? View::tree : View::flat;
  const ClockChoice clock = clock_name == "cpu"    ? ClockChoice::cpu
                            : clock_name == "wall" ? ClockChoice::wall
                                                   : ClockChoice::automatic;

  if (!diff_base.empty() &&
      ((format != "text" && format != "html") || view == View::tree || !source_file.empty() ||
       (by != RowKind::function && by != RowKind::line))) {
    return fail(kUsage,
                "--diff is a view by function or line, in text or html: give it without --view "
                "or --source, with --format text or html (for pprof, export both runs and use "
                "pprof -diff_base BASE.pb.gz)");
  }
  if (!source_file.empty() && format != "text") {
    return fail(kUsage,
                "--source is a text view: give it without --format (or with --format text)");
  }
  if (!source_dirs.empty() && source_file.empty()) {
    return fail(kUsage, "--source-dir applies with --source FILE only");
  }
  if (format == "sqlite" && output.empty()) {
    return fail(kUsage, "--format sqlite writes a database file: give it with -o FILE");
  }
  if (format == "pprof" && output.empty() && ::isatty(STDOUT_FILENO)) {
    return fail(kUsage, "--format pprof is gzipped binary: give a file with -o FILE");
  }

  const ReportInputs inputs{.format = format,
                            .clock = clock,
                            .view = view,
                            .by = by,
                            .symbols = symbols,
                            .debug_dirs = debug_dirs,
                            .quiet = quiet,
                            .filter = filter};
  int exit_code = kOk;
  std::optional<Report> built = load_and_build(dir, inputs, exit_code);
  if (!built) return exit_code;
  const Report& report = *built;
  std::optional<Report> base;
  if (!diff_base.empty()) {
    base = load_and_build(diff_base, inputs, exit_code);
    if (!base) return exit_code;
  }

  if (by == RowKind::wait && report.waits.processes == 0) {
    return fail(kBadInput,
                "--by wait needs wall-clock samples beside the CPU-clock ones, and no process "
                "in these results has them: sample with sample-run --clock wall");
  }
  RenderOptions options{.by = by, .view = view};
  if (!source_file.empty()) {
    const auto matches = match_source_files(report, source_file);
    if (matches.size() != 1) {
      // Name what there is: the files it could mean, or those with the most time.
      const auto named = matches.empty() ? match_source_files(report, "") : matches;
      std::string names;
      for (size_t i = 0; i < named.size() && i < 5; ++i) names += (i ? ", " : "") + named[i].file;
      if (named.size() > 5) names += ", ...";
      return fail(kBadInput,
                  matches.empty()
                      ? "--source " + source_file + ": no sampled line is in a file of that name" +
                            (names.empty() ? std::string(" (no sampled line has a file)")
                                           : "; files with the most time: " + names)
                      : "--source " + source_file + " names " + std::to_string(matches.size()) +
                            " files with samples (" + names + "): give more of the path");
    }
    options.source_file = matches[0].file;
    options.source_dirs = source_dirs;
  }
  options.top = top.value_or(format == "text" ? (view == View::tree ? 60 : 20) : 0);
  if (format == "sqlite") {
    const std::string error = write_sqlite(report, output);
    return error.empty() ? kOk : fail(kBadInput, output + ": " + error);
  }
  const std::string text =
      !base ? render_format(format, report, options)
      : format == "html"
          ? format::valid_utf8(render_html_diff(*base, report, diff_base, dir, options))
          : format::printable_text(render_text_diff(*base, report, diff_base, dir, options), true);
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
