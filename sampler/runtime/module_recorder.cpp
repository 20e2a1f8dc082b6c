#include "sampler/runtime/module_recorder.h"

#include <algorithm>

namespace cprof::sampler {

void ModuleRecorder::reset() {
  generation_ = 0;
  written_.clear();
}

void ModuleRecorder::write_new(const ModuleSnapshot* snapshot, format::ResultsWriter& writer,
                               uint64_t now_ns) {
  if (snapshot == nullptr || snapshot->generation() == generation_) return;
  generation_ = snapshot->generation();
  for (const Module& m : snapshot->modules()) {
    if (m.code.empty()) continue;
    std::pair<std::string, uint64_t> key{m.path, m.load_bias};
    if (std::find(written_.begin(), written_.end(), key) != written_.end()) continue;
    format::ModuleRecord r;
    r.id = static_cast<uint32_t>(written_.size());
    r.path = m.path;
    r.build_id = m.build_id;
    r.load_bias = m.load_bias;
    r.start = m.code.front().start;
    r.end = m.code.front().end;
    for (const auto& range : m.code) {
      r.start = std::min(r.start, range.start);
      r.end = std::max(r.end, range.end);
    }
    r.time_ns = now_ns;
    writer.add(r);
    written_.push_back(std::move(key));
  }
}

}  // namespace cprof::sampler
