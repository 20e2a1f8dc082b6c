// sample-run: runs a program with the sampling runtime preloaded, or samples processes
// that already run from outside.
//   sample-run [options] -- PROGRAM [ARGS...]
//   sample-run [options] --pid PID[,PID...] | --tid TID [-d SECONDS]

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/cli.h"
#include "format/reader.h"
#include "sampler/events/counter_group.h"
#include "sampler/events/event_resolver.h"
#include "sampler/launcher/attach_run.h"
#include "sampler/launcher/earlier_results.h"
#include "sampler/launcher/frame_pointer_check.h"
#include "sampler/launcher/gpu_environment.h"
#include "sampler/launcher/launch.h"
#include "sampler/launcher/run_summary.h"
#include "sampler/launcher/sampler_environment.h"
#include "sampler/launcher/sampling_cost.h"
#include "sampler/runtime/config.h"
#include "sampler/runtime/process_identity.h"

namespace {

constexpr const char* kTool = "sample-run";
constexpr const char* kRuntimeLibrary = "libcprof-sampler.so";

[[noreturn]] void fail(int code, const std::string& message) {
  fmt::print(stderr, "{}: {}\n", kTool, message);
  std::exit(code);
}

// Checks -e events on this process before the program starts: unknown names and an event
// named twice are usage errors; events this machine cannot count, or counts at user level
// only, are named with the reason. All known names go on to the runtime, which resolves
// them again and records the unavailable ones and the fallbacks for the report.
std::vector<std::string> check_events(const std::vector<std::string>& names, bool quiet) {
  if (names.size() > cprof::sampler::kMaxCounters) {
    fail(1, fmt::format("-e: at most {} events at once", cprof::sampler::kMaxCounters));
  }
  using Kind = cprof::sampler::ResolvedEvent::Kind;
  const auto events = cprof::sampler::resolve_events(names);
  for (const auto& ev : events) {
    if (ev.kind == Kind::unknown) fail(1, fmt::format("-e {}: {}", ev.name, ev.detail));
  }
  if (std::string twice = cprof::sampler::duplicate_event_error(events); !twice.empty()) {
    fail(1, "-e: " + twice);
  }
  std::vector<std::string> known;  // to libpfm4; countable here or not
  for (const auto& ev : events) {
    known.push_back(ev.name);
    if (quiet) continue;
    if (ev.kind != Kind::resolved) {
      fmt::print(stderr, "{}: event '{}' not counted: {}\n", kTool, ev.name, ev.detail);
    } else if (ev.open_errno != 0) {
      fmt::print(stderr, "{}: event '{}' not counted: {}\n", kTool, ev.name,
                 cprof::sampler::perf_open_error(ev.open_errno));
    } else if (ev.user_only_fallback) {
      fmt::print(stderr, "{}: event '{}' counted {}\n", kTool, ev.name, ev.detail);
    } else if (ev.attr.exclude_kernel != 0 && cprof::sampler::happens_only_in_kernel(ev.attr)) {
      fmt::print(stderr,
                 "{}: event '{}' counts at user level only, as written, and happens only in "
                 "the kernel: it will count 0\n",
                 kTool, ev.name);
    }
  }
  return known;
}

}  // namespace

static int run(int argc, char** argv) {
  CLI::App app{
      "Samples per-thread call stacks of PROGRAM on CPU time (and optionally wall time)\n"
      "and writes one results file per process into the results directory. With --pid or\n"
      "--tid, samples processes that already run, from outside, instead.",
      kTool};
  double frequency = 500;
  std::string output = "results";
  bool append = false;
  std::string backend = "auto";
  std::string clock = "cpu";
  std::string unwind = "dwarf";
  unsigned depth = 128;
  std::string events;
  bool quiet = false;
  bool gpu = false;
  double gpu_duty = 100;
  std::vector<std::string> command;
  std::string pids;
  long tid = 0;
  double seconds = 0;
  app.add_option("-f,--frequency", frequency, "samples per second of CPU time per thread")
      ->check(cprof::cli::number_in(1, 100000, "samples per second"))
      ->default_val(500);
  app.add_option("-o,--output", output,
                 "results directory; one that holds an earlier run is moved to DIR.old first")
      ->default_val("results");
  app.add_flag("--append", append, "add this run to the results directory's earlier runs");
  app.add_option("--backend", backend,
                 "perf (perf_event task-clock), timer (POSIX CPU-time timers), or auto")
      ->check(cprof::cli::one_of({"auto", "perf", "timer"}))
      ->default_val("auto");
  app.add_option("--clock", clock, "cpu, or wall to also sample blocked and sleeping time")
      ->check(cprof::cli::one_of({"cpu", "wall"}))
      ->default_val("cpu");
  app.add_option("--unwind", unwind,
                 "dwarf (.eh_frame rows parsed ahead, libunwind for the rest), libunwind "
                 "(DWARF CFI at every step), or fp (frame pointers); the first two need no "
                 "frame pointers and give the same stacks")
      ->check(cprof::cli::one_of({"dwarf", "libunwind", "fp"}))
      ->default_val("dwarf");
  app.add_option("--depth", depth, "deepest call stack recorded")
      ->check(cprof::cli::whole_number_in(1, 1024, "frames"))
      ->default_val(128);
  app.add_option("-e,--events", events,
                 "counters to attribute to samples, comma-separated libpfm4 names "
                 "(page-faults, context-switches, cycles, INST_RETIRED:ANY_P, ...)");
  app.add_flag("-q,--quiet", quiet, "print nothing but errors");
  app.add_flag("--gpu", gpu, "also record GPU kernels and copies (HSA: libcprof-hsa, CUDA: libcprof-cuda)");
  app.add_option("--gpu-duty", gpu_duty, cprof::launch::kGpuDutyHelp)
      ->check(cprof::cli::number_in(0.1, 100, "a percentage"));
  app.add_option("--pid", pids,
                 "sample these running processes (comma-separated) instead of starting one, "
                 "every thread, until -d, Ctrl-C or their end");
  app.add_option("--tid", tid, "sample this one running thread")
      ->check(cprof::cli::whole_number_in(1, 0x3fffffff, "a thread id"));
  app.add_option("-d,--duration", seconds,
                 "with --pid/--tid: seconds to sample (default: until "
                 "Ctrl-C or the processes end)")
      ->check(cprof::cli::number_in(0.001, 1e7, "seconds"));
  app.add_option("command", command, "-- PROGRAM [ARGS...]");
  app.positionals_at_end();
  if (int code = 0; !cprof::cli::parse(app, argc, argv, code)) return code;
  const bool attach = app.count("--pid") > 0 || app.count("--tid") > 0;
  if (attach) {
    if (!command.empty()) fail(1, "give a program to start or --pid/--tid to attach, not both");
    if (app.count("--pid") > 0 && app.count("--tid") > 0) fail(1, "give --pid or --tid, not both");
    // What attach mode does not do is an error, not silently ignored.
    for (const char* option : {"--backend", "--unwind", "--gpu", "--gpu-duty"}) {
      if (app.count(option) > 0) {
        fail(1, fmt::format("{} does not apply with --pid/--tid: attached processes are sampled "
                            "from outside with perf_event and unwound with libdw",
                            option));
      }
    }
    if (const std::string w = cprof::launch::sampling_cost_warning(frequency);
        !w.empty() && !quiet) {
      fmt::print(stderr, "{}: {}\n", kTool, w);
    }
    return cprof::launch::run_attached(
        kTool, {pids, tid, seconds, frequency, clock == "wall",
                check_events(cprof::sampler::split_event_list(events), quiet), depth, output,
                append, quiet});
  }
  if (app.count("--duration") > 0)
    fail(1, "-d applies with --pid/--tid only; a started program is sampled until it ends");
  if (command.empty())
    fail(1, "give a program to run (sample-run [options] -- PROGRAM [ARGS...]) or --pid PID");
  if (const std::string w = cprof::launch::sampling_cost_warning(frequency); !w.empty() && !quiet) {
    fmt::print(stderr, "{}: {}\n", kTool, w);
  }

  std::string program;
  if (std::string err = cprof::launch::check_program(command[0], program); !err.empty()) fail(1, err);
  if (unwind == "fp" && !quiet) {
    if (const std::string w = cprof::launch::frame_pointer_warning(program); !w.empty()) {
      fmt::print(stderr, "{}: {}\n", kTool, w);
    }
  }
  std::string results_dir;
  if (const auto earlier = cprof::launch::set_earlier_results_aside(output, append);
      !earlier.error.empty()) {
    fail(1, earlier.error);
  } else if (!earlier.said.empty() && !quiet) {
    fmt::print(stderr, "{}: {}\n", kTool, earlier.said);
  }
  if (std::string err = cprof::launch::prepare_results_dir(output, results_dir); !err.empty()) {
    fail(1, err);
  }
  std::string library;
  if (std::string err = cprof::launch::find_runtime_library(kRuntimeLibrary, library); !err.empty()) {
    fail(1, err);
  }
  const auto known_events = check_events(cprof::sampler::split_event_list(events), quiet);

  cprof::sampler::RuntimeConfig config;
  config.preload_library = library;
  config.output_dir = results_dir;
  config.frequency_hz = frequency;
  config.backend = backend;
  config.wall_clock = clock == "wall";
  config.unwinder = unwind;
  config.max_depth = depth;
  config.events = known_events;
  if (const std::string note = cprof::launch::resolve_auto_backend(config);
      !note.empty() && !quiet) {
    fmt::print(stderr, "{}: {}\n", kTool, note);
  }
  cprof::launch::ChildEnvironment child_env;
  cprof::launch::add_sampler_environment(child_env, config);
  if (gpu || app.count("--gpu-duty") > 0) {
    std::vector<std::string> notes;
    if (std::string err = cprof::launch::add_gpu_environment(child_env, notes, gpu_duty);
        !err.empty()) {
      fail(1, err);
    }
    for (const auto& note : notes) {
      if (!quiet) fmt::print(stderr, "{}: {}\n", kTool, note);
    }
  }

  const auto before = cprof::launch::results_files_in(results_dir);
  command[0] = program;
  const auto result = cprof::launch::run_child(command, child_env, kTool);
  if (!quiet) {
    // Children the program left running still write: wait a little for them.
    // One launcher per rank under mpirun: each sums up its own rank's files.
    const int64_t rank = cprof::sampler::rank_from_environment();
    const auto writers =
        cprof::launch::wait_for_writers(results_dir, before, cprof::launch::kWritersWait, rank);
    const auto summary =
        cprof::launch::summarize_new_results(results_dir, before, writers, {}, rank);
    cprof::launch::print_run_summary(stderr, kTool, results_dir, summary,
                                     {result.term_signal, result.cpu_ns});
  }
  cprof::launch::exit_like(result);
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", kTool, e.what());
    return 1;
  }
}
