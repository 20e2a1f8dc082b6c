// The causal runtime's locations: the file causal-run resolved (addresses of the
// executable or of a library, moved by their load biases), or, for an exec'd program,
// resolved by causal-run at the controller thread's start (exec_resolve.h) and shared
// with the run's other processes (locations_cache.h).
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "causal/runtime/causal_runtime.h"
#include "causal/runtime/exec_resolve.h"
#include "causal/runtime/locations_cache.h"
#include "sampler/unwind/loader_walk.h"

namespace cprof::causal {

std::map<std::string, uint64_t> CausalRuntime::library_load_biases() {
  std::map<std::string, uint64_t> out;
  sampler::walk_loaded_objects(
      [](dl_phdr_info* info, size_t, void* p) {
        auto& m = *static_cast<std::map<std::string, uint64_t>*>(p);
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
        m.emplace(info->dlpi_name, info->dlpi_addr);
        char buf[PATH_MAX];
        if (realpath(info->dlpi_name, buf) != nullptr) m.emplace(buf, info->dlpi_addr);
        return 0;
      },
      &out);
  return out;
}

uint64_t CausalRuntime::main_load_bias() {
  uint64_t bias = 0;
  // The main executable is the first object dl_iterate_phdr reports.
  sampler::walk_loaded_objects(
      [](dl_phdr_info* info, size_t, void* out) {
        *static_cast<uint64_t*>(out) = info->dlpi_addr;
        return 1;
      },
      &bias);
  return bias;
}

std::string CausalRuntime::self_executable() {
  char buf[PATH_MAX];
  if (realpath("/proc/self/exe", buf) == nullptr) return {};
  return buf;
}

bool CausalRuntime::load_locations(std::string& error) {
  if (settings_.locations_file.empty()) return false;  // only progress points count
  const std::string exe = self_executable();
  if (!settings_.executable.empty() && exe != settings_.executable) {
    error =
        "no experiments in " + exe + ": the locations were resolved for " + settings_.executable;
    return false;
  }
  return load_locations_file(settings_.locations_file, error);
}

bool CausalRuntime::load_locations_file(const std::string& path, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read the locations file " + path;
    return false;
  }
  // An exec'd image's table is built on the controller thread, while a dlopen on another
  // may attach later libraries: it waits until the table is whole.
  std::lock_guard lock(later_mutex_);
  std::optional<std::map<std::string, uint64_t>> biases;  // only when a line names a library
  std::set<std::string> not_loaded;
  std::string text;
  while (std::getline(in, text)) {
    auto line = parse_location_line(text);
    if (!line) continue;
    uint64_t bias = load_bias_;
    if (!line->module.empty()) {
      if (!biases) biases = library_load_biases();
      auto it = biases->find(line->module);
      if (it == biases->end()) {
        // A library the program loads later (dlopen): its locations wait for it
        // (attach_later_libraries). An MPI job's ranks run the same experiment in lockstep,
        // which a location that one rank has loaded and another not would break.
        if (!settings_.job.empty()) {
          not_loaded.insert(line->module);
          continue;
        }
        const uint32_t id = table_.add_unloaded(line->name, line->ranges);
        later_locations_.push_back(LaterLocation{id, line->module});
        if (!settings_.automatic) fixed_.push_back(id);
        continue;
      }
      bias = it->second;
    }
    std::vector<AddressRange> ranges;
    for (const auto& r : line->ranges) ranges.push_back(AddressRange{r.start + bias, r.end + bias});
    const uint32_t id = table_.add(line->name, std::move(ranges));
    if (!settings_.automatic) fixed_.push_back(id);
  }
  for (const auto& m : not_loaded) {
    problems_.push_back("no experiments on code in " + m +
                        ": not loaded when the program started (in an MPI job, a library "
                        "loaded later is not experimented on)");
  }
  table_.finish();
  if (table_.size() == 0) {
    error = "the locations file " + path + " lists no location";
    return false;
  }
  return true;
}

bool CausalRuntime::resolve_exec_locations() {
  // Another process of this run may have resolved the same program already.
  const LocationsCache cache(settings_.locations_cache, resolve_for_);
  std::string error;
  bool ok = false;
  if (const auto cached = cache.locations()) {
    ok = load_locations_file(*cached, error);
  } else if (auto cached_error = cache.error()) {
    error = std::move(*cached_error);
  } else {
    char path[] = "/tmp/cprof-causal-exec-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) {
      queue_message(format::MessageLevel::warning,
                    "no experiments in " + resolve_for_ +
                        ": cannot create a temporary file in /tmp for its locations");
      resolve_for_.clear();
      experiments_enabled_ = false;
      return false;
    }
    ::close(fd);
    std::vector<std::string> notes;
    error = resolve_locations_for(settings_.resolver, settings_.selection_args, resolve_for_, path,
                                  notes);
    // What causal-run says of the first image, said of this one in its results (naming
    // it where the note does not).
    for (const auto& note : notes) {
      queue_message(format::MessageLevel::info, note.find(resolve_for_) != std::string::npos
                                                    ? note
                                                    : "in " + resolve_for_ + ": " + note);
    }
    if (error.empty()) {
      ok = load_locations_file(path, error);
      if (!cache.store_locations(path)) std::remove(path);
    } else {
      cache.store_error(error);
      std::remove(path);
    }
  }
  const std::string program = resolve_for_;
  resolve_for_.clear();  // done (a forked child keeps the result)
  experiments_enabled_ = ok;
  for (auto& p : problems_) queue_message(format::MessageLevel::warning, p);
  problems_.clear();
  if (!ok) {
    queue_message(format::MessageLevel::warning, "no experiments in " + program + ": " + error);
    return false;
  }
  make_controller(settings_.experiments);
  return true;
}

const Location* CausalRuntime::pair_location(uint64_t seed) const {
  const auto name =
      LocationsCache(settings_.locations_cache, self_executable()).pair_location(seed);
  if (!name) return nullptr;
  for (uint32_t id = 0; id < table_.size(); ++id) {
    if (table_.at(id).name == *name) return &table_.at(id);
  }
  return nullptr;
}

}  // namespace cprof::causal
