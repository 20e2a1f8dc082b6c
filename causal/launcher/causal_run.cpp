// causal-run: runs a program with the causal runtime preloaded and answers "if this code
// were s% faster, how much faster would the program be?" (docs/causal.md).
//   causal-run [options] -- PROGRAM [ARGS...]

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "causal/end_to_end_speedups.h"
#include "causal/experiment.h"
#include "causal/experiment_focus.h"
#include "causal/experiment_timings.h"
#include "causal/launcher/breakpoint_probe.h"
#include "causal/launcher/cpu_wait_warnings.h"
#include "causal/launcher/experiment_summary.h"
#include "causal/launcher/focus.h"
#include "causal/launcher/launch_inputs.h"
#include "causal/launcher/live_status.h"
#include "causal/launcher/mpi_job.h"
#include "causal/launcher/no_debug_info.h"
#include "causal/launcher/patch_planner.h"
#include "causal/launcher/progress_points.h"
#include "causal/launcher/resolve.h"
#include "causal/launcher/scope_miss.h"
#include "causal/line_progress_name.h"
#include "causal/minimum_evidence.h"
#include "causal/prediction.h"
#include "causal/runtime/breakpoints.h"
#include "causal/runtime/settings.h"
#include "common/cli.h"
#include "format/reader.h"
#include "sampler/launcher/earlier_results.h"
#include "sampler/launcher/gpu_environment.h"
#include "sampler/launcher/launch.h"
#include "sampler/launcher/repeated_input.h"
#include "sampler/launcher/run_summary.h"
#include "sampler/launcher/sampler_environment.h"
#include "sampler/launcher/sampling_cost.h"
#include "sampler/runtime/config.h"
#include "sampler/runtime/process_identity.h"

namespace {

constexpr const char* kTool = "causal-run";
constexpr const char* kRuntimeLibrary = "libcprof-causal.so";
constexpr const char* kMpiLibrary = "libcprof-causal-mpi.so";  // for an MPI job

// What a run without progress needs, in the lines that say so.
constexpr const char* kProgressAdvice =
    "add CAUSAL_PROGRESS (include/causal/progress.h) or COZ_PROGRESS where a unit of work "
    "ends, or use --progress FILE:LINE or --end-to-end";

[[noreturn]] void fail(int code, const std::string& message) {
  fmt::print(stderr, "{}: {}\n", kTool, message);
  std::exit(code);
}

struct Options {
  cprof::causal::Selection selection;
  std::string resolve_only;  // --resolve-only OUT: write the locations file and exit
  std::string speedups;
  double fixed_speedup = -1;
  unsigned experiment_ms = 0;  // 0: the runtime's default or the environment's
  uint64_t seed = 0;
  std::vector<std::string> progress;
  bool end_to_end = false;
  unsigned runs = 1;
  unsigned focus = 4;  // --focus: locations per run after the screening run; 0: Coz's draw
  std::string output = "results";
  bool append = false;  // --append: add to the directory's earlier runs
  double frequency = 1000;
  bool quiet = false;
  bool gpu = false;
  double gpu_duty = 100;
  int64_t only_rank = -1;  // --rank: the MPI rank whose samples of the location count
  std::vector<std::string> command;
};

// The first and shortest experiment's length: --experiment-ms, else what the runtime reads
// from the environment (its default where nothing is set).
uint64_t shortest_experiment_ms(const Options& o) {
  if (o.experiment_ms > 0) return o.experiment_ms;
  std::vector<std::string> ignored;  // the runtime reports them, in the program
  return cprof::causal::causal_settings_from_environment(ignored).experiments.min_duration_ns /
         1000000;
}

// An automatic run whose samples ran (nearly) all outside the binary scope: why it started
// no experiment (`miss`), or that its experiments measure code that hardly runs (`scarce`).
struct ScopeHints {
  std::string miss;
  std::string scarce;
};
ScopeHints scope_hints(cprof::causal::SampleModuleCounter& counter,
                       const cprof::causal::BinaryScope& scope) {
  const cprof::causal::SampleModules where = counter.finish();
  return {cprof::causal::scope_miss_hint(where, scope), cprof::causal::scarce_scope_note(where, scope)};
}

// This launcher's own path, for the runtime to run it again (--resolve-only).
std::string self_path() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec).string();
}

std::string write_locations_file(const std::vector<cprof::causal::LocationLine>& locations) {
  char path[] = "/tmp/causal-run-locations-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) fail(1, "cannot create a temporary file in /tmp for the locations");
  ::close(fd);
  std::ofstream out(path);
  for (const auto& l : locations) out << cprof::causal::format_location_line(l) << '\n';
  if (!out) fail(1, fmt::format("cannot write {}", path));
  return path;
}

// Sets NAME in `env`, replacing an earlier value.
void set_variable(cprof::launch::ChildEnvironment& env, const char* name,
                  const std::string& value) {
  for (auto& [key, old] : env.set) {
    if (key == name) {
      old = value;
      return;
    }
  }
  env.set.emplace_back(name, value);
}

// An option that does nothing in the mode the others chose is an error, not a silent
// no-op: the user expected it to change something (pbzip2: `-n 3` without --end-to-end
// ran once). "" when the combination means what it says.
std::string option_without_effect(const CLI::App& app) {
  const auto given = [&](const char* name) { return app.count(name) > 0; };
  if (given("--resolve-only")) return "";  // the runtime's own call, for an exec'd image
  const bool automatic = !given("--line") && !given("--function");
  if (given("--speedups") && given("--fixed-speedup")) {
    return "--speedups and --fixed-speedup: give one of them (--fixed-speedup uses one speedup "
           "in every experiment; --speedups draws from a list)";
  }
  if (given("--end-to-end") && given("--experiment-ms")) {
    return "--experiment-ms does nothing with --end-to-end (each run is one experiment, as "
           "long as the program); leave one of them out";
  }
  if (given("--end-to-end") && given("--progress")) {
    return "--progress does nothing with --end-to-end (it measures whole-run time, not "
           "progress points); leave one of them out";
  }
  if (!automatic && given("--mode")) {
    return "--mode chooses how automatic selection picks code; with --line or --function "
           "there is none: leave --mode out";
  }
  if (given("--focus") && !automatic) {
    return "--focus chooses among the locations automatic selection finds; with --line or "
           "--function there is nothing to choose: leave --focus out";
  }
  if (given("--focus") && given("--end-to-end")) {
    return "--focus does nothing with --end-to-end (each run is one experiment, and the pairs "
           "stay on one location until it has a curve); leave one of them out";
  }
  if (given("--focus") && !given("--runs")) {
    return "--focus acts between runs: give -n RUNS (2 or more; the first run screens, the "
           "others focus)";
  }
  if (given("--rank") && (automatic || given("--end-to-end"))) {
    return "--rank speeds --line or --function up in one rank of an MPI job, in lockstep "
           "with the others; give one of them, without --end-to-end";
  }
  if (given("--line") && !given("--function") && given("--source-scope")) {
    return "--source-scope does nothing with --line (the line names its file); it limits "
           "automatic selection and --function";
  }
  return "";
}

// Parses the command line into `o`; a code to exit with when there is nothing to run
// (--help, a usage error).
std::optional<int> parse_options(int argc, char** argv, Options& o) {
  CLI::App app{
      "Causal profiling: runs PROGRAM with virtual speedups of code locations and records\n"
      "how fast it makes progress, to predict what speeding each location up would gain.\n"
      "Read the predictions with causal-report DIR.",
      kTool};
  auto& sel = o.selection;
  app.add_option("--line", sel.lines,
                 "speed up FILE:LINE, or the block FILE:FIRST-LAST as one location (repeatable)");
  app.add_option("--function", sel.function, "speed up the functions matching this regular expression");
  app.add_option("--mode", sel.mode, "automatic selection by line or function")
      ->check(cprof::cli::one_of({"line", "function"}))
      ->default_val("line");
  app.add_option("--binary-scope", sel.binary_scope,
                 "binaries whose code may be selected: MAIN (the executable; default), "
                 "patterns of libraries it loads at start, e.g. '%libfoo%', and paths of "
                 "library files it loads later with dlopen, e.g. ./plugins/%.so "
                 "(repeatable, comma-separated)");
  app.add_option("--source-scope", sel.source_scope,
                 "source files whose code may be selected, as path patterns, e.g. '%/src/%' "
                 "(default: the program's own, not system headers)");
  app.add_option("--resolve-only", o.resolve_only,
                 "write the resolved locations to this file and exit (used by the runtime "
                 "for exec'd programs)")->group("");
  app.add_option("--speedups", o.speedups,
                 "virtual speedups to draw from, percentages (default 0,5,...,100)");
  app.add_option("--fixed-speedup", o.fixed_speedup,
                 "use this speedup (percent) in every experiment "
                 "that is not a baseline")
      ->check(cprof::cli::number_in(0, 100, "a percentage"));
  app.add_option("--experiment-ms", o.experiment_ms,
                 fmt::format("length of the first and shortest experiment in ms (default {}; "
                             "Coz's is 500): shorter ones give more experiments in a short "
                             "run, which averages out a machine whose speed drifts "
                             "(docs/causal.md)",
                             cprof::causal::timing::kFirstExperimentNs /
                                 cprof::causal::timing::kMillisecond))
      ->check(cprof::cli::whole_number_in(1, 60000, "milliseconds"));
  app.add_option("--rank", o.only_rank,
                 "in an MPI job, speed the location up in this rank only: the others run the "
                 "same experiments and pay its delays, but their own samples of it do not "
                 "count (docs/causal.md, \"One rank\")")
      ->check(cprof::cli::whole_number_in(0, INT64_MAX, "a rank"));
  app.add_option("--seed", o.seed, "seed of the experiment schedule, for a repeatable run")
      ->check(cprof::cli::whole_number_in(0, UINT64_MAX, "a seed"));
  app.add_option("--progress", o.progress,
                 "a progress point at FILE:LINE, named FILE:LINE (--progress): counted by a "
                 "counter patched into the program's code, or where its code cannot be moved "
                 "by the kernel (hardware breakpoints: at most 4 places; uprobes); repeatable");
  app.add_flag("--end-to-end", o.end_to_end,
               "no progress points: one experiment per run, predictions from whole-run time");
  app.add_option("--focus", o.focus,
                 "automatic mode with -n RUNS: after the first run, each run experiments only "
                 "on the N locations that most deserve it, dropping those shown to have no "
                 "effect (default 4; 0: every run draws from every sample, as Coz)")
      ->check(cprof::cli::whole_number_in(0, 1000, "locations"));
  app.add_option("-n,--runs", o.runs,
                 "runs of the program, their results in one directory "
                 "(--end-to-end: one experiment each; else each run's experiments add up)")
      ->check(cprof::cli::whole_number_in(1, 100000, "runs"))
      ->default_val(1);
  app.add_option("-o,--output", o.output,
                 "results directory; one that holds an earlier run is moved to DIR.old first")
      ->default_val("results");
  app.add_flag("--append", o.append, "add this run to the results directory's earlier runs");
  app.add_option("-f,--frequency", o.frequency, "samples per second of CPU time per thread")
      ->check(cprof::cli::number_in(10, 20000, "samples per second"))
      ->default_val(1000);
  app.add_flag("--gpu", o.gpu, "also record GPU kernels and copies (HSA: libcprof-hsa, CUDA: "
               "libcprof-cuda); waits for the GPU count as blocked");
  app.add_option("--gpu-duty", o.gpu_duty, cprof::launch::kGpuDutyHelp)
      ->check(cprof::cli::number_in(0.1, 100, "a percentage"));
  app.add_flag("-q,--quiet", o.quiet, "print nothing but errors");
  app.add_option("command", o.command, "-- PROGRAM [ARGS...]")->required();
  app.positionals_at_end();
  if (int code = 0; !cprof::cli::parse(app, argc, argv, code)) return code;
  if (std::string err = option_without_effect(app); !err.empty()) fail(1, err);
  // Without --seed, a seed of this run's own: with one fixed default every run would draw
  // the same schedule (with --fixed-speedup the same run of baselines and sped-up
  // experiments; end to end, the same location for a pair), and merging runs would not
  // average over draws. The summary names it, so a run can be drawn again.
  if (app.count("--seed") == 0) {
    // The ranks of an MPI job draw one schedule (lockstep): a seed from the job's key.
    const std::string job = cprof::causal::rank_job_key();
    o.seed =
        job.empty() ? std::random_device{}() : static_cast<unsigned>(std::hash<std::string>{}(job));
  }
  o.gpu = o.gpu || app.count("--gpu-duty") > 0;
  // Library paths relative to this directory: an exec'd image resolves the same scope
  // wherever it runs (exec_resolve.h).
  o.selection.binary_scope = cprof::causal::absolute_path_patterns(
      cprof::causal::split_scope_list(o.selection.binary_scope));
  return std::nullopt;
}

// What the program's runs are given: its locations and counted progress places, resolved
// before it starts.
struct Selected {
  std::vector<cprof::causal::LocationLine> locations;
  std::string breakpoints;  // "NAME<TAB>HEXADDR" lines, the --progress places
  std::optional<cprof::causal::VisitCounter> visit_counter;
  double ns_per_visit = 0;  // what counting a visit cost in the probe
  // The --progress points the kernel counts at one place at least (the others are counted
  // in the program's code, at no cost worth a warning).
  std::set<std::string> kernel_counted;
  // The --progress points in a library the program loads later (dlopen), by name: its path.
  std::map<std::string, std::string> later_library;
  // No image is the one the locations were resolved for: each resolves them itself (a
  // system program without debug information started to run the program).
  bool resolved_by_each_image = false;
};

// What to speed up, as ELF addresses of the executable. A script has none: the images it
// execs resolve the selection for themselves, as any exec'd program does
// (exec_resolve.h), except where it is needed before the program starts.
Selected select_locations(const std::string& program, const Options& o) {
  Selected out;
  size_t kernel_places = 0;  // the --progress lines' addresses counted by the kernel
  std::vector<cprof::causal::PlacePlan> places;  // every --progress line's addresses
  std::vector<std::string> place_specs;          // the --progress spec of each
  std::set<std::string> later_libraries;         // of them, those loaded later (dlopen)
  // A program whose exec'd images resolve the selection: the error line, or the note.
  const auto fail_or_note = [&o](const std::string& err, const std::string& note) {
    if (!err.empty()) fail(1, err);
    if (!o.quiet) fmt::print(stderr, "{}: {}\n", kTool, note);
  };
  if (const std::string interpreter = cprof::launch::script_interpreter(program);
      !interpreter.empty()) {
    std::string note;
    const std::string err = cprof::causal::check_script(program, interpreter, o.end_to_end,
                                                        !o.progress.empty(), note);
    fail_or_note(err, note);
  } else {
    cprof::causal::LocationResolver resolver(program, o.selection);
    std::vector<std::string> notes;
    if (std::string err = resolver.check_debug_info(notes); !err.empty()) {
      // A system program without debug information: a launcher, most often (bash -c,
      // env, time, taskset), whose exec'd images resolve the selection as a script's do.
      if (!cprof::causal::is_system_file(program) ||
          err != cprof::causal::no_debug_info_error(program)) {
        fail(1, err);
      }
      std::string note;
      const std::string e = cprof::causal::check_system_launcher(program, err, o.end_to_end,
                                                                 !o.progress.empty(), note);
      fail_or_note(e, note);
      out.resolved_by_each_image = true;
      return out;
    }
    if (std::string err = resolver.resolve(out.locations, notes); !err.empty()) fail(1, err);
    if (!o.quiet) {
      for (const auto& n : notes) fmt::print(stderr, "{}: {}\n", kTool, n);
    }
    for (const auto& spec : o.progress) {
      std::vector<uint64_t> addresses;
      std::string library;  // "" for the executable
      if (std::string err = resolver.breakpoint_addresses(spec, addresses, library); !err.empty())
        fail(1, err);
      if (resolver.loaded_later(library)) later_libraries.insert(library);
      if (addresses.size() > 1 && !o.quiet) {
        fmt::print(stderr,
                   "{}: --progress {}: the line has {} copies (inlined into several "
                   "places); each is counted\n",
                   kTool, spec, addresses.size());
      }
      for (const uint64_t address : addresses) {
        // In the program's code where its first instructions can be moved (patch_plan.h):
        // no trap per visit. Elsewhere a kernel counter, which also stands in where the
        // runtime cannot patch.
        cprof::causal::PlacePlan place{address, library, std::nullopt, ""};
        if (cprof::causal::progress_patching_allowed()) {
          place.planned =
              cprof::causal::plan_patch(library.empty() ? program : library, address, place.why);
        }
        places.push_back(std::move(place));
        place_specs.push_back(spec);
      }
    }
  }
  cprof::causal::drop_overlapping_plans(places);
  std::set<std::string> said;
  for (const auto& spec : o.progress) {
    if (!said.insert(spec).second) continue;  // given twice: its places are listed already
    size_t count = 0;
    size_t patched = 0;
    std::string why_not_patched;
    for (size_t i = 0; i < places.size(); ++i) {
      if (place_specs[i] != spec) continue;
      const auto& place = places[i];
      ++count;
      const std::string name = cprof::causal::line_progress_name(spec);
      if (later_libraries.count(place.module) != 0) out.later_library[name] = place.module;
      if (place.planned) {
        ++patched;
        out.breakpoints +=
            fmt::format("{}\t{:x}\t{}\t{}\n", name, place.planned->site, place.module,
                        cprof::causal::format_patch_plan(place.planned->plan));
        continue;
      }
      if (why_not_patched.empty() && !place.why.empty()) {
        why_not_patched = fmt::format("at 0x{:x}: {}", place.address, place.why);
      }
      out.breakpoints += fmt::format("{}\t{:x}{}\n", name, place.address,
                                     place.module.empty() ? "" : "\t" + place.module);
      ++kernel_places;
      out.kernel_counted.insert(name);
      if (o.selection.automatic() && o.selection.mode == "line")
        cprof::causal::leave_out_counted_line(out.locations, place.address, place.module, o.quiet);
    }
    if (count > 0 && !o.quiet && cprof::causal::progress_patching_allowed()) {
      fmt::print(stderr, "{}: {}\n", kTool,
                 cprof::causal::patched_progress_note(spec, count, patched, why_not_patched));
    }
  }
  if (!out.breakpoints.empty()) {
    out.visit_counter =
        cprof::causal::choose_progress_counter(o.quiet, kernel_places == 0, out.ns_per_visit);
  }
  if (out.visit_counter == cprof::causal::VisitCounter::breakpoint &&
      kernel_places > cprof::causal::BreakpointPoints::kMaxBreakpoints) {
    fail(1, fmt::format("--progress: {} places for the kernel to count (copies of the lines "
                        "included, those whose code can be patched left out), and x86 has {} "
                        "debug registers; count with uprobes instead ({}=uprobe)",
                        kernel_places, cprof::causal::BreakpointPoints::kMaxBreakpoints,
                        cprof::causal::env::kVisitCounter));
  }
  return out;
}

// Where the runs' files are: the results directory, the locations file and the cache
// the programs it execs share their resolved locations through (locations_cache.h).
struct RunFiles {
  std::string results_dir;
  std::string locations_file;
  std::string locations_cache;  // "" when none could be made
};

// The environment every run shares: the sampling runtime's variables and the causal
// runtime's (settings.h).
cprof::launch::ChildEnvironment run_environment(const Options& o, const std::string& program,
                                                const std::string& library,
                                                const Selected& selected, const RunFiles& files) {
  cprof::sampler::RuntimeConfig sampling;
  sampling.preload_library = library;
  sampling.output_dir = files.results_dir;
  sampling.frequency_hz = o.frequency;
  sampling.backend = "auto";
  if (const std::string note = cprof::launch::resolve_auto_backend(sampling);
      !note.empty() && !o.quiet) {
    fmt::print(stderr, "{}: {}\n", kTool, note);
  }

  namespace cenv = cprof::causal::env;
  cprof::launch::ChildEnvironment child_env;
  cprof::launch::add_sampler_environment(child_env, sampling);
  child_env.set.emplace_back(cenv::kLocations, files.locations_file);
  if (!selected.resolved_by_each_image) child_env.set.emplace_back(cenv::kExecutable, program);
  // For programs it execs: resolve the same selection for them (exec_resolve.h).
  child_env.set.emplace_back(cenv::kResolver, self_path());
  if (!files.locations_cache.empty()) {
    child_env.set.emplace_back(cenv::kLocationsCache, files.locations_cache);
  }
  child_env.set.emplace_back(
      cenv::kSelectionArgs,
      fmt::format("{}", fmt::join(cprof::causal::selection_arguments(o.selection), "\t")));
  child_env.set.emplace_back(cenv::kSelection, o.selection.automatic() ? "auto" : "fixed");
  if (!o.speedups.empty()) child_env.set.emplace_back(cenv::kSpeedups, o.speedups);
  if (o.fixed_speedup >= 0) {
    child_env.set.emplace_back(cenv::kFixedSpeedup, fmt::format("{}", o.fixed_speedup));
  }
  if (o.experiment_ms > 0) {
    child_env.set.emplace_back(cenv::kDurationMs, fmt::format("{}", o.experiment_ms));
  }
  if (!selected.breakpoints.empty()) {
    child_env.set.emplace_back(cenv::kBreakpoints, selected.breakpoints);
  }
  if (selected.visit_counter) {
    child_env.set.emplace_back(cenv::kVisitCounter, to_string(*selected.visit_counter));
  }
  if (o.gpu) {
    std::vector<std::string> gpu_notes;
    if (std::string err = cprof::launch::add_gpu_environment(child_env, gpu_notes, o.gpu_duty);
        !err.empty()) {
      fail(1, err);
    }
    for (const auto& note : gpu_notes) {
      if (!o.quiet) fmt::print(stderr, "{}: {}\n", kTool, note);
    }
  }
  return child_env;
}

// An MPI job (docs/causal.md, "MPI"): as one of its ranks (`mpirun ... causal-run`) or
// around its launcher (`causal-run -- mpirun ...`), the MPI wrappers are preloaded too, so
// that waits inside MPI count as blocked, and the ranks' experiments run in lockstep (the
// job key): with --line/--function from the job's seed, automatically as one rank of each
// host draws. End to end each rank's run is its own: said.
void add_mpi_job(const Options& o, const std::string& program, int64_t rank,
                 cprof::launch::ChildEnvironment& env) {
  const std::string key =
      rank >= 0 ? cprof::causal::rank_job_key() : cprof::causal::launched_job_key(program);
  if (key.empty()) {
    if (o.only_rank >= 0) {
      fail(1, "--rank names an MPI rank, and " + program +
                  " runs neither as a rank (under mpirun) nor through an MPI launcher");
    }
    return;
  }
  if (const int64_t size = cprof::sampler::job_size_from_environment();
      rank >= 0 && o.only_rank >= size && size > 0) {
    // Every rank would sit out, and the experiments measure nothing. Said once, by rank 0.
    if (rank != 0) std::exit(1);
    fail(1, fmt::format("--rank {}: this job has {} rank{} (0 to {})", o.only_rank, size,
                        size == 1 ? "" : "s", size - 1));
  }
  if (rank >= 0 && o.runs > 1) {
    fail(1,
         "-n/--runs under mpirun: each rank's causal-run can run its rank once only; put "
         "causal-run around the MPI launcher (causal-run -n N -- mpirun ...) for several runs");
  }
  std::string mpi_library;
  if (std::string err = cprof::launch::find_runtime_library(kMpiLibrary, mpi_library);
      !err.empty()) {
    fail(1, err);
  }
  const bool lockstep = !o.end_to_end;
  if (!lockstep && !o.quiet && rank <= 0) {
    fmt::print(stderr,
               "{}: warning: an MPI job's experiments run in lockstep across its ranks only "
               "without --end-to-end; each rank experiments on its own here\n",
               kTool);
  }
  cprof::causal::add_mpi_environment(env, mpi_library, key, lockstep);
  if (o.only_rank >= 0)
    env.set.emplace_back(cprof::causal::env::kOnlyRank, std::to_string(o.only_rank));
}

struct RunsDone {
  cprof::launch::ChildResult last;  // the last run's (a killed run ends the loop)
  unsigned runs = 0;                // the runs started
  int stopped_by = 0;               // a signal the launcher received ended the loop
  uint64_t cpu_ns = 0;              // of every run
  size_t speedup_levels = 1;        // end to end: how many speedups the sped-up runs take
};

// Runs the program o.runs times. End-to-end: run r is one experiment; even runs are the
// baselines, odd runs take a speedup (the fixed one, or the next of the levels, each round
// of them in a seeded order: causal/end_to_end_speedups.h). The two runs of a pair share
// a seed and so a location (automatic: the one the baseline drew from its samples,
// docs/causal.md): each location gets a baseline of its own next to its sped-up run.
// Automatic end to end, a pair stays on a location until its runs meet the minimum
// evidence (end_to_end_stay.h). With progress points, each run's experiments add to the
// others' in the directory (the report merges them), each run drawing its own schedule
// (seed + r); automatic runs with -n focus after the first (experiment_focus.h).
RunsDone run_program(const Options& o, const std::vector<std::string>& command,
                     cprof::launch::ChildEnvironment child_env, const std::vector<double>& speedups,
                     const Selected& selected, const RunFiles& files,
                     const std::set<std::string>& before, int64_t rank) {
  namespace cenv = cprof::causal::env;
  cprof::causal::EndToEndSpeedups drawn(o.speedups.empty() ? std::vector<double>{} : speedups,
                                        o.seed);
  const unsigned runs = o.runs;
  RunsDone done;
  done.speedup_levels = o.fixed_speedup >= 0 ? 1 : drawn.levels();
  const bool focusing = o.selection.automatic() && !o.end_to_end && o.focus > 0 && o.runs > 1 &&
                        !selected.locations.empty();
  const bool staying = o.selection.automatic() && o.end_to_end && !selected.locations.empty();
  std::string stayed_on;       // end to end: the location the last pair stayed on
  std::string pair_selection;  // end to end: "fixed" while staying; "": the automatic draw
  std::vector<std::string> focus;
  std::string focus_file;
  if (focusing && o.speedups.empty() && o.fixed_speedup < 0) {
    set_variable(child_env, cenv::kSpeedups, cprof::causal::kFewSpeedups);
  }
  const cprof::launch::RepeatedInput input;
  if (const std::string w = input.warning(runs); !w.empty() && !o.quiet) {
    fmt::print(stderr, "{}: warning: {}\n", kTool, w);
  }
  for (unsigned r = 0; r < runs; ++r) {
    // The user stopped the launcher (^C, kill) during a run the program ended normally,
    // or between runs: no more runs.
    if (cprof::launch::signal_received() != 0) {
      done.stopped_by = cprof::launch::signal_received();
      break;
    }
    if (r > 0) input.rewind();
    cprof::launch::ChildEnvironment run_env = child_env;
    run_env.set.emplace_back(cenv::kSeed,
                             std::to_string(o.end_to_end ? o.seed + r / 2 : o.seed + r));
    if (focusing && r > 0) {
      const auto step = cprof::causal::next_focus(files.results_dir, before, selected.locations,
                                                  o.focus, focus, r, runs);
      if (!o.quiet) fmt::print(stderr, "{}: {}\n", kTool, step.said);
      if (!step.locations.empty()) {
        if (!focus_file.empty()) std::remove(focus_file.c_str());
        focus_file = write_locations_file(step.locations);
        set_variable(run_env, cenv::kLocations, focus_file);
        set_variable(run_env, cenv::kSelection, "fixed");
      }
    }
    if (staying && r % 2 == 0) {  // a pair begins: both of its runs take one location
      const auto step = cprof::causal::next_end_to_end_pair(
          files.results_dir, selected.locations, stayed_on, done.speedup_levels, rank, r == 0);
      if (!step.said.empty() && !o.quiet) fmt::print(stderr, "{}: {}\n", kTool, step.said);
      stayed_on = step.location;
      if (!focus_file.empty()) std::remove(focus_file.c_str());
      focus_file.clear();
      if (!step.locations.empty()) {
        focus_file = write_locations_file(step.locations);
        pair_selection = "fixed";
      } else if (!step.draw_from.empty()) {
        focus_file = write_locations_file(step.draw_from);
        pair_selection.clear();  // drawn, from fewer
      }
    }
    if (staying && !focus_file.empty()) {
      set_variable(run_env, cenv::kLocations, focus_file);
      if (!pair_selection.empty()) set_variable(run_env, cenv::kSelection, pair_selection);
    }
    if (!o.end_to_end && runs > 1 && !o.quiet) {
      fmt::print(stderr, "{}: run {}/{}\n", kTool, r + 1, runs);
    }
    if (o.end_to_end) {
      double speedup = 0;
      if (r % 2 == 1) {
        speedup = o.fixed_speedup >= 0 ? o.fixed_speedup / 100.0 : drawn.next();
      }
      run_env.set.emplace_back(cenv::kEndToEndSpeedup, fmt::format("{}", speedup * 100.0));
      if (!o.quiet) {
        fmt::print(stderr, "{}: run {}/{} at a {:g}% virtual speedup\n", kTool, r + 1, runs,
                   speedup * 100.0);
      }
    }
    {
      // A run of minutes says what its experiments have found as it goes (not end to end:
      // one experiment per run; not per rank: each rank's launcher would say it).
      std::optional<cprof::causal::LiveStatus> live;
      if (!o.end_to_end && !o.quiet && rank < 0) {
        live.emplace(files.results_dir, before,
                     runs > 1 ? fmt::format("{}: run {}/{},", kTool, r + 1, runs)
                              : fmt::format("{}:", kTool),
                     stderr);
      }
      done.last = cprof::launch::run_child(command, run_env, kTool);
    }
    ++done.runs;
    done.cpu_ns += done.last.cpu_ns;
    if (done.last.term_signal != 0) break;
  }
  if (done.runs < runs && done.stopped_by == 0) done.stopped_by = cprof::launch::signal_received();
  if (done.stopped_by != 0 && !o.quiet) {
    fmt::print(stderr, "{}: {} received: stopped after run {} of {}\n", kTool,
               cprof::launch::signal_name(done.stopped_by), done.runs, runs);
  }
  if (!focus_file.empty()) std::remove(focus_file.c_str());
  if (focusing && !o.quiet && done.runs > 0) {
    fmt::print(stderr, "{}: {}\n", kTool,
               cprof::causal::next_focus(files.results_dir, before, selected.locations, o.focus,
                                         focus, done.runs, runs)
                   .said);
  }
  return done;
}

// What the runs gave, on stderr: the run summary, and why there is no experiment or
// prediction where there is none.
void summarize(const Options& o, const RunFiles& files, const std::set<std::string>& before,
               const RunsDone& done, int64_t rank, const Selected& selected) {
  // Children the program left running still write, experiments too: wait a little for
  // them (not with -q: nothing to sum up then but the warnings below).
  const auto writers = cprof::launch::wait_for_writers(
      files.results_dir, before,
      o.quiet ? std::chrono::milliseconds(0) : cprof::launch::kWritersWait, rank);
  cprof::causal::ExperimentSummary seen;
  // Automatic selection: where the samples ran, counted in the summary's own pass.
  const bool count_where = o.selection.automatic() && !o.end_to_end;
  const cprof::causal::BinaryScope scope(cprof::causal::split_scope_list(o.selection.binary_scope));
  cprof::causal::SampleModuleCounter where(scope);
  auto summary = cprof::launch::summarize_new_results(
      files.results_dir, before, writers,
      [&](const cprof::format::Record& r) {
        seen.count(r);
        if (count_where) where.add(r);
      },
      rank);
  // --append: the runs already there are evidence the report merges with these (their
  // samples passed over undecoded; a file that cannot be read is the report's to say).
  for (const auto& file : before) {
    if (rank >= 0 && cprof::sampler::rank_of_results_file(file) != rank) continue;
    try {
      cprof::format::read_results_file(
          file, [&](cprof::format::Record&& r) { seen.count_earlier(r); },
          [](const cprof::format::SampleView&) {});
    } catch (const cprof::format::FormatError&) {
    }
  }
  const ScopeHints hints = count_where ? scope_hints(where, scope) : ScopeHints{};
  if (!o.quiet) {
    cprof::causal::group_no_debug_info_warnings(summary.warnings);
    cprof::causal::group_cpu_wait_warnings(summary.warnings);
    cprof::launch::print_run_summary(stderr, kTool, files.results_dir, summary,
                                     {done.last.term_signal, done.cpu_ns});
    for (const auto& [point, visits] : seen.counted_visits) {
      // In a library the program never loaded: the runtime's warning says so, and that
      // the line never ran would mislead.
      const auto later = selected.later_library.find(point);
      const bool never_loaded =
          later != selected.later_library.end() &&
          std::any_of(summary.warnings.begin(), summary.warnings.end(), [&](const auto& w) {
            return w.find(later->second) != std::string::npos &&
                   w.find("never loaded") != std::string::npos;
          });
      if (visits == 0 && !never_loaded) {
        fmt::print(stderr, "{}: warning: {}\n", kTool, cprof::causal::no_visit_warning(point));
      }
      if (const std::string w = cprof::causal::counting_cost_warning(
              point, visits, selected.kernel_counted.count(point) ? selected.ns_per_visit : 0,
              done.cpu_ns);
          !w.empty()) {
        fmt::print(stderr, "{}: warning: {}\n", kTool, w);
      }
    }
  }
  if (seen.experiments == 0 && writers.running > 0) {
    if (!o.quiet) {
      fmt::print(stderr,
                 "{}: no experiment finished yet: the program's own process ended "
                 "before the first one did, and {} it started still running; see causal-report "
                 "{} once {}\n",
                 kTool, cprof::launch::plural(writers.running, "process", "processes"),
                 writers.running == 1 ? "is" : "are", files.results_dir,
                 writers.running == 1 ? "it ends" : "they end");
    }
  } else if (seen.experiments == 0) {
    if (!hints.miss.empty()) {
      fmt::print(stderr, "{}: no experiment started: {}\n", kTool, hints.miss);
    } else if (o.end_to_end && done.last.term_signal != 0) {
      fmt::print(stderr,
                 "{}: no experiment finished: {} ended the program, and an end-to-end "
                 "run counts only when the program ends by itself\n",
                 kTool, cprof::launch::signal_name(done.last.term_signal));
    } else if (o.end_to_end) {
      fmt::print(stderr, "{}: no experiment finished: no end-to-end run was written (see the "
                 "messages above)\n", kTool);
    } else if (seen.never_progressed > 0) {
      fmt::print(stderr, "{}: no experiment began: the program never reached a progress point "
                 "(experiments wait for the first one): {}\n", kTool, kProgressAdvice);
      // Where its time went may be the larger problem: code the scope leaves out.
      if (!hints.scarce.empty()) fmt::print(stderr, "{}: note: {}\n", kTool, hints.scarce);
    } else if (!hints.scarce.empty()) {
      // An experiment started on code that hardly runs (a rare sample of main() while a
      // library's thread did the work) and the run ended before it did: running longer
      // would not help, the scope would.
      fmt::print(stderr, "{}: note: {}\n", kTool, hints.scarce);
    } else {
      fmt::print(stderr, "{}: no experiment finished: the program ended before the first one did "
                 "(they last {} ms or more); run it longer, shorten them with --experiment-ms, "
                 "or use --end-to-end\n", kTool, shortest_experiment_ms(o));
    }
  } else {
    if (!hints.scarce.empty()) fmt::print(stderr, "{}: note: {}\n", kTool, hints.scarce);
    if (seen.with_progress == 0) {
      // Under mpirun the point may be in one rank only (rank 0's launcher says it for all).
      if (rank <= 0) {
        fmt::print(stderr, "{}: no experiment saw a progress point: {}\n", kTool, kProgressAdvice);
      }
    } else if (!o.quiet) {
      fmt::print(stderr, "{}: {} on {}; predictions: causal-report {}; seed {}\n", kTool,
                 cprof::launch::plural(seen.experiments, "experiment"),
                 cprof::launch::plural(seen.locations.size(), "location"), files.results_dir,
                 o.seed);
      if (o.end_to_end) {
        if (const std::string note =
                seen.too_few_runs(done.speedup_levels, o.selection.automatic());
            !note.empty()) {
          fmt::print(stderr, "{}: note: {}\n", kTool, note);
        }
      } else if (!o.selection.automatic()) {
        // Only for named locations: automatic runs spread over many, most of them rare.
        if (const std::string note = seen.too_few(shortest_experiment_ms(o)); !note.empty()) {
          fmt::print(stderr, "{}: note: {}\n", kTool, note);
        }
      }
    }
  }
}

int run(int argc, char** argv) {
  Options o;
  if (const auto code = parse_options(argc, argv, o)) return *code;
  std::string program;
  if (std::string err = cprof::launch::check_program(o.command[0], program); !err.empty())
    fail(1, err);
  std::error_code ec;
  program = std::filesystem::canonical(program, ec).string();
  if (!o.resolve_only.empty())
    return cprof::causal::write_resolved_locations(program, o.selection, o.resolve_only);
  if (const std::string w = cprof::launch::sampling_cost_warning(o.frequency);
      !w.empty() && !o.quiet) {
    fmt::print(stderr, "{}: {}\n", kTool, w);
  }
  RunFiles files;
  if (const auto earlier = cprof::launch::set_earlier_results_aside(o.output, o.append);
      !earlier.error.empty()) {
    fail(1, earlier.error);
  } else if (!earlier.said.empty() && !o.quiet) {
    fmt::print(stderr, "{}: {}\n", kTool, earlier.said);
  }
  if (std::string err = cprof::launch::prepare_results_dir(o.output, files.results_dir);
      !err.empty()) {
    fail(1, err);
  }
  std::string library;
  if (std::string err = cprof::launch::find_runtime_library(kRuntimeLibrary, library);
      !err.empty()) {
    fail(1, err);
  }
  std::vector<double> speedups = cprof::causal::default_speedups();
  if (!o.speedups.empty()) {
    std::string speedup_error;
    auto parsed = cprof::causal::parse_speedups(o.speedups, speedup_error);
    if (!parsed) fail(1, speedup_error);
    speedups = *parsed;
  }

  // Around an MPI launcher, --line and --function name code of the ranks' program.
  std::string located = program;
  if (!cprof::causal::launched_job_key(program).empty()) {
    if (std::string ranks = cprof::causal::rank_program(o.command); !ranks.empty()) {
      located = ranks;
    }
  }
  const Selected selected = select_locations(located, o);
  files.locations_file = write_locations_file(selected.locations);
  char cache_template[] = "/tmp/causal-run-resolved-XXXXXX";
  if (::mkdtemp(cache_template) != nullptr) files.locations_cache = cache_template;
  auto child_env = run_environment(o, located, library, selected, files);
  const int64_t rank = cprof::sampler::rank_from_environment();
  add_mpi_job(o, program, rank, child_env);

  const auto before = cprof::launch::results_files_in(files.results_dir);
  std::vector<std::string> command = o.command;
  command[0] = program;
  const RunsDone done = run_program(o, command, child_env, speedups, selected, files, before, rank);
  std::remove(files.locations_file.c_str());
  if (!files.locations_cache.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(files.locations_cache, ignored);
  }
  summarize(o, files, before, done, rank, selected);
  cprof::launch::exit_like(done.last);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", kTool, e.what());
    return 1;
  }
}
