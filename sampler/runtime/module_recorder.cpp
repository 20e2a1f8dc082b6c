#include "sampler/runtime/module_recorder.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>

#include "sampler/runtime/owned_fds.h"
#include "sampler/runtime/remapped_code.h"

namespace cprof::sampler {

void ModuleRecorder::reset() {
  generation_ = 0;
  written_.clear();
  remapped_.clear();
  last_maps_read_ns_ = 0;
}

void ModuleRecorder::write_remapped(const ModuleSnapshot* snapshot, format::ResultsWriter& writer,
                                    uint64_t now_ns) {
  if (snapshot == nullptr) return;
  if (last_maps_read_ns_ != 0 && now_ns - last_maps_read_ns_ < 1000000000ull) return;
  last_maps_read_ns_ = now_ns;
  std::string maps;
  const OwnedFd fd = open_owned("/proc/self/maps", O_RDONLY);
  if (fd.fd < 0) return;
  char buf[16384];
  for (ssize_t n; (n = ::read(fd.fd, buf, sizeof buf)) > 0;) maps.append(buf, static_cast<size_t>(n));
  close_owned(fd);
  for (format::ModuleRecord& r : remapped_code_modules(*snapshot, maps)) {
    const std::pair<uint64_t, uint64_t> key{r.start, r.load_bias};
    if (std::find(remapped_.begin(), remapped_.end(), key) != remapped_.end()) continue;
    r.id = next_id();
    r.time_ns = now_ns;
    writer.add(r);
    remapped_.push_back(key);
  }
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
    r.id = next_id();
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
