#include "causal/runtime/locations_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace cprof::causal {

LocationsCache::LocationsCache(const std::string& dir, const std::string& executable) {
  struct stat st {};
  if (dir.empty() || ::stat(executable.c_str(), &st) != 0) return;
  char name[160];
  std::snprintf(name, sizeof(name), "/%llx-%llx-%llx-%lld.%09ld",
                static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino),
                static_cast<unsigned long long>(st.st_size), static_cast<long long>(st.st_mtim.tv_sec),
                st.st_mtim.tv_nsec);
  key_ = dir + name;
}

std::optional<std::string> LocationsCache::locations() const {
  if (key_.empty()) return std::nullopt;
  const std::string path = key_ + ".locations";
  if (::access(path.c_str(), R_OK) != 0) return std::nullopt;
  return path;
}

std::optional<std::string> LocationsCache::error() const {
  if (key_.empty()) return std::nullopt;
  std::ifstream in(key_ + ".error");
  std::string line;
  if (!in || !std::getline(in, line) || line.empty()) return std::nullopt;
  return line;
}

std::optional<std::string> LocationsCache::pair_location(uint64_t seed) const {
  if (key_.empty()) return std::nullopt;
  std::ifstream in(key_ + ".pair." + std::to_string(seed));
  std::string line;
  if (!in || !std::getline(in, line) || line.empty()) return std::nullopt;
  return line;
}

namespace {

// Writes `line` to a file of this process's own next to `path` (PATH.PID), for a rename
// or link into place; "" when it could not (nothing is left behind then).
std::string write_temporary(const std::string& path, const std::string& line) {
  std::string tmp = path + "." + std::to_string(::getpid());
  std::ofstream out(tmp);
  out << line << '\n';
  out.close();
  if (!out) {
    std::remove(tmp.c_str());
    return {};
  }
  return tmp;
}

}  // namespace

void LocationsCache::store_pair_location(uint64_t seed, const std::string& name) const {
  if (key_.empty()) return;
  const std::string path = key_ + ".pair." + std::to_string(seed);
  const std::string tmp = write_temporary(path, name);
  if (tmp.empty()) return;
  // link() fails on an existing name: the first process to store keeps its pick (a
  // forked child of the baseline ends before or after it).
  (void)::link(tmp.c_str(), path.c_str());
  std::remove(tmp.c_str());
}

bool LocationsCache::store_locations(const std::string& file) const {
  return !key_.empty() && std::rename(file.c_str(), (key_ + ".locations").c_str()) == 0;
}

void LocationsCache::store_error(const std::string& error) const {
  if (key_.empty()) return;
  const std::string path = key_ + ".error";
  const std::string tmp = write_temporary(path, error);
  if (!tmp.empty() && std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
}

}  // namespace cprof::causal
