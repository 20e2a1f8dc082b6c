#include "causal/launcher/focus.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>
#include <map>

#include "causal/end_to_end_stay.h"
#include "causal/experiment_focus.h"
#include "causal/idle_tail.h"
#include "causal/minimum_evidence.h"
#include "format/reader.h"
#include "sampler/launcher/run_summary.h"
#include "sampler/runtime/process_identity.h"

namespace cprof::causal {
namespace {

// The experiments of `dir`'s results files that are not in `before` (and of `rank`'s
// files when it is one: each rank's launcher runs its own end-to-end pairs).
std::vector<format::ExperimentRecord> experiments_in(const std::string& dir,
                                                     const std::set<std::string>& before,
                                                     int64_t rank = -1) {
  std::vector<format::ExperimentRecord> records;
  for (const auto& file : launch::results_files_in(dir)) {
    if (before.count(file) != 0) continue;
    if (rank >= 0 && sampler::rank_of_results_file(file) != rank) continue;
    std::vector<format::ExperimentRecord> of_file;  // one process (an exec'd image: its own)
    // Samples are most of a file, and undecoded here: a live look costs little. A file
    // that cannot be read (just created, or damaged) is left out: the report says why.
    try {
      format::read_results_file(
          file,
          [&](format::Record&& r) {
            if (auto* e = std::get_if<format::ExperimentRecord>(&r)) of_file.push_back(std::move(*e));
          },
          [](const format::SampleView&) {});
    } catch (const format::FormatError&) {
      continue;
    }
    drop_idle_tail(of_file);  // as the report does (causal/idle_tail.h)
    records.insert(records.end(), std::make_move_iterator(of_file.begin()),
                   std::make_move_iterator(of_file.end()));
  }
  return records;
}

std::map<std::string, const LocationLine*> by_name(const std::vector<LocationLine>& all) {
  std::map<std::string, const LocationLine*> named;
  for (const auto& l : all) named.emplace(l.name, &l);
  return named;
}

}  // namespace

FocusStep next_focus(const std::string& dir, const std::set<std::string>& before,
                     const std::vector<LocationLine>& all, size_t keep,
                     std::vector<std::string>& focus, unsigned done, unsigned runs) {
  const auto records = experiments_in(dir, before);
  const FocusChoice choice = choose_focus(records, keep, focus);
  FocusStep step;
  const auto named = by_name(all);
  std::vector<std::string> next;
  for (const auto& name : choice.locations) {
    // A location of an exec'd program or a library the executable's list lacks is left to
    // that program's own automatic draw.
    if (auto it = named.find(name); it != named.end()) {
      step.locations.push_back(*it->second);
      next.push_back(name);
    }
  }
  step.said = fmt::format(
      "after run {}/{}: {} experiment{}, {} location{} with the minimum evidence ({} with an "
      "effect)",
      done, runs, records.size(), records.size() == 1 ? "" : "s", choice.with_enough_evidence,
      choice.with_enough_evidence == 1 ? "" : "s", choice.with_effect);
  if (!choice.settled.empty()) {
    step.said += fmt::format("; settled (within {:g}% of no effect): {}", kSettledBand * 100,
                             fmt::join(choice.settled, ", "));
  }
  if (done == runs) return step;  // the last: what was found, nothing to plan
  if (next.empty()) {
    step.said += "; the next run draws from every sample";
    step.locations.clear();
  } else {
    step.said += fmt::format("; the next run on {}", fmt::join(next, ", "));
    focus = next;
  }
  return step;
}

std::string evidence_so_far(const std::string& dir, const std::set<std::string>& before) {
  const auto records = experiments_in(dir, before);
  if (records.empty()) return "";
  std::set<std::string> locations;
  for (const auto& r : records) locations.insert(r.location);
  const FocusChoice choice = choose_focus(records, 0, {});
  return fmt::format(
      "{} experiment{} so far on {} location{}, {} with the minimum evidence ({} "
      "with an effect)",
      records.size(), records.size() == 1 ? "" : "s", locations.size(),
      locations.size() == 1 ? "" : "s", choice.with_enough_evidence, choice.with_effect);
}

EndToEndStep next_end_to_end_pair(const std::string& dir, const std::vector<LocationLine>& all,
                                  const std::string& kept, size_t levels, int64_t rank,
                                  bool first) {
  const auto records = experiments_in(dir, {}, rank);
  const auto named = by_name(all);
  EndToEndStep step;
  // A location of a library or an exec'd image the executable's list lacks cannot be
  // named to the runtime: the next one short of the evidence, or a draw.
  EndToEndChoice choice = end_to_end_locations_to_continue(records);
  auto& runs_of = choice.runs;
  for (const auto& name : choice.to_continue) {
    if (auto it = named.find(name); it != named.end()) {
      step.location = name;
      step.locations = {*it->second};
      break;
    }
  }
  // A new draw leaves out what was measured already: a second curve of the hottest line
  // is not what the next runs are for (SQLite's drew its first location again).
  std::set<std::string> measured(choice.with_curve.begin(), choice.with_curve.end());
  for (const auto& [name, share] : choice.too_little) measured.insert(name);
  std::string leaving_out;
  if (step.location.empty() && !measured.empty()) {
    for (const auto& l : all) {
      if (measured.count(l.name) == 0) step.draw_from.push_back(l);
    }
    leaving_out = fmt::format(", leaving out the {} measured already", measured.size());
  }
  // The last pair's location, when it ran too little to stay on: said once, after it.
  for (const auto& [name, share] : choice.too_little) {
    if (name != choice.latest || !step.location.empty()) continue;
    step.said = fmt::format(
        "{} was on the stack for {:.1f}% of its runs' time, too little to change the program "
        "by more than that; the next pair draws a new location{}",
        name, share * 100, leaving_out);
    return step;
  }
  if (step.location == kept) {
    // The start of an --append run that draws anew: say what the draw leaves out.
    if (kept.empty() && step.location.empty() && !leaving_out.empty() && first) {
      step.said = "the next pair draws a new location" + leaving_out;
    }
    return step;
  }
  const size_t needed = end_to_end_runs_for_curve(levels);
  if (!step.location.empty()) {
    step.said = fmt::format(
        "the next pairs stay on {} until its runs meet the minimum evidence for a curve ({} "
        "of the {} runs it needs so far)",
        step.location, runs_of[step.location], needed);
  } else if (!kept.empty()) {
    step.said = fmt::format(
        "{} has the minimum evidence for a curve ({} runs); the next pair draws a new "
        "location{}",
        kept, runs_of[kept], leaving_out);
  }
  return step;
}

}  // namespace cprof::causal
