#pragma once
// Locations resolved for exec'd programs, shared by every process of one causal-run
// through the directory it names in CPROF_CAUSAL_LOCATIONS_CACHE: a script that runs the
// same program many times (bash -c, seq, a compiler) has it resolved once, not once per
// exec (each resolution is a causal-run process reading the program's DWARF). An entry is
// keyed by the executable's device, inode, size and modification time, so a rebuilt
// program is resolved again; it holds the locations file or the resolver's error line.
// Entries are written to a temporary name and renamed, so a reader sees whole ones only.
// End-to-end runs keep the location each pair of runs shares here too.
//
// Normal context only (the controller thread).

#include <cstdint>
#include <optional>
#include <string>

namespace cprof::causal {

class LocationsCache {
 public:
  // Unusable (every lookup misses, every store is dropped) when `dir` is empty or the
  // executable cannot be stat'ed.
  LocationsCache(const std::string& dir, const std::string& executable);

  // The cached locations file, if there is one.
  std::optional<std::string> locations() const;
  // The cached error line, if there is one.
  std::optional<std::string> error() const;

  // End-to-end automatic selection: the location the two runs of a pair share (the
  // baseline draws it from its own samples at its end, the sped-up run of the same seed
  // reads it at its start). The first one stored for a seed stays.
  std::optional<std::string> pair_location(uint64_t seed) const;
  void store_pair_location(uint64_t seed, const std::string& name) const;

  // Moves `file` (on the same file system) into the cache; false when it could not.
  bool store_locations(const std::string& file) const;
  void store_error(const std::string& error) const;

 private:
  std::string key_;  // the entry's path without its suffix; empty when unusable
};

}  // namespace cprof::causal
