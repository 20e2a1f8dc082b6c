#include "sampler/launcher/attach_run.h"

#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "sampler/attach/attach_session.h"
#include "sampler/launcher/earlier_results.h"
#include "sampler/launcher/launch.h"
#include "sampler/launcher/run_summary.h"

namespace cprof::launch {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_stop_signal(int) { g_stop.store(true, std::memory_order_relaxed); }

// "123,456" -> ids; "" and one line when a part is not a process id.
std::string parse_pids(const std::string& list, std::vector<pid_t>& out) {
  size_t start = 0;
  while (start <= list.size()) {
    const size_t comma = std::min(list.find(',', start), list.size());
    const std::string part = list.substr(start, comma - start);
    char* end = nullptr;
    const long v = part.empty() ? 0 : std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v <= 0 || v > 0x3fffffff) {
      return fmt::format(
          "--pid {}: '{}' is not a process id; give one or more ids, "
          "comma-separated (--pid 1234,5678)",
          list, part);
    }
    out.push_back(static_cast<pid_t>(v));
    start = comma + 1;
  }
  return {};
}

}  // namespace

int run_attached(const char* tool, const AttachRequest& req) {
  sampler::AttachOptions o;
  o.seconds = req.seconds;
  o.frequency_hz = req.frequency_hz;
  o.wall = req.wall;
  if (!req.events.empty()) o.events = sampler::resolve_events(req.events);
  o.depth = req.depth;
  o.tid = static_cast<pid_t>(req.tid);
  if (!req.pids.empty()) {
    if (std::string err = parse_pids(req.pids, o.pids); !err.empty()) {
      fmt::print(stderr, "{}: {}\n", tool, err);
      return 1;
    }
  }
  // Every target is checked before anything is written: a typo loses no earlier results.
  for (const pid_t pid : o.pids) {
    if (std::string err = sampler::check_attach_target(pid, false); !err.empty()) {
      fmt::print(stderr, "{}: {}\n", tool, err);
      return 1;
    }
  }
  if (o.tid != 0) {
    if (std::string err = sampler::check_attach_target(o.tid, true); !err.empty()) {
      fmt::print(stderr, "{}: {}\n", tool, err);
      return 1;
    }
  }
  if (const auto earlier = set_earlier_results_aside(req.output, req.append);
      !earlier.error.empty()) {
    fmt::print(stderr, "{}: {}\n", tool, earlier.error);
    return 1;
  } else if (!earlier.said.empty() && !req.quiet) {
    fmt::print(stderr, "{}: {}\n", tool, earlier.said);
  }
  if (std::string err = prepare_results_dir(req.output, o.results_dir); !err.empty()) {
    fmt::print(stderr, "{}: {}\n", tool, err);
    return 1;
  }
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGHUP, &sa, nullptr);

  if (!req.quiet) {
    const std::string what =
        o.tid != 0 ? fmt::format("thread {}", o.tid)
                   : fmt::format("process{} {}", o.pids.size() > 1 ? "es" : "", req.pids);
    const std::string until =
        o.seconds > 0 ? fmt::format("for {:g} s", o.seconds) : "until it ends";
    // Said once attached: a script (or a test) may start the load then.
    o.on_attached = [tool, what, until] {
      fmt::print(stderr, "{}: attached to {}; sampling {}; Ctrl-C stops\n", tool, what, until);
    };
  }
  const auto before = results_files_in(o.results_dir);
  const auto outcome = sampler::attach_and_sample(o, g_stop);
  if (!outcome.error.empty()) {
    fmt::print(stderr, "{}: {}\n", tool, outcome.error);
    return 1;
  }
  if (!req.quiet) {
    for (const auto& note : outcome.notes) fmt::print(stderr, "{}: {}\n", tool, note);
    if (outcome.ended) fmt::print(stderr, "{}: the sampled processes ended\n", tool);
    if (outcome.lost > 0) {
      fmt::print(stderr,
                 "{}: {} samples lost: the rings filled faster than they were read; lower -f\n",
                 tool, outcome.lost);
    }
    print_run_summary(stderr, tool, o.results_dir, summarize_new_results(o.results_dir, before));
  }
  return 0;
}

}  // namespace cprof::launch
