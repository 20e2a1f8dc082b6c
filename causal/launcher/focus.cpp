#include "causal/launcher/focus.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>
#include <map>

#include "causal/experiment_focus.h"
#include "causal/idle_tail.h"
#include "format/reader.h"
#include "sampler/launcher/run_summary.h"

namespace cprof::causal {

FocusStep next_focus(const std::string& dir, const std::set<std::string>& before,
                     const std::vector<LocationLine>& all, size_t keep,
                     std::vector<std::string>& focus, unsigned done, unsigned runs) {
  std::vector<format::ExperimentRecord> records;
  for (const auto& file : launch::results_files_in(dir)) {
    if (before.count(file) != 0) continue;
    std::vector<format::ExperimentRecord> of_file;  // one process (an exec'd image: its own)
    format::read_results_file(file, [&](format::Record&& r) {
      if (auto* e = std::get_if<format::ExperimentRecord>(&r)) of_file.push_back(std::move(*e));
    });
    drop_idle_tail(of_file);  // as the report does (causal/idle_tail.h)
    records.insert(records.end(), std::make_move_iterator(of_file.begin()),
                   std::make_move_iterator(of_file.end()));
  }
  const FocusChoice choice = choose_focus(records, keep, focus);
  FocusStep step;
  std::map<std::string, const LocationLine*> by_name;
  for (const auto& l : all) by_name.emplace(l.name, &l);
  std::vector<std::string> next;
  for (const auto& name : choice.locations) {
    // A location of an exec'd program or a library the executable's list lacks is left to
    // that program's own automatic draw.
    if (auto it = by_name.find(name); it != by_name.end()) {
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

}  // namespace cprof::causal
