#include "sampler/launcher/run_processes.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "sampler/runtime/config.h"
#include "sampler/runtime/process_identity.h"

namespace cprof::launch {
namespace {

std::string value_of(const std::vector<std::string>& environment, const std::string& name) {
  const std::string prefix = name + "=";
  for (const auto& v : environment) {
    if (v.starts_with(prefix)) return v.substr(prefix.size());
  }
  return {};
}

// Whether /proc/<pid>/maps maps LIBRARY (a path; the maps name files by their real path).
bool maps_library(const std::string& pid, const std::string& library) {
  std::error_code ec;
  const std::string real = std::filesystem::weakly_canonical(library, ec).string();
  const std::string& wanted = ec ? library : real;
  std::ifstream in("/proc/" + pid + "/maps");
  for (std::string line; std::getline(in, line);) {
    if (line.size() > wanted.size() && line.ends_with(wanted) &&
        line[line.size() - wanted.size() - 1] == ' ') {
      return true;
    }
  }
  return false;
}

}  // namespace

std::optional<ProcStat> read_proc_stat(const std::string& which) {
  std::ifstream in("/proc/" + which + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const size_t paren = line.rfind(')');  // the name may hold spaces and parentheses
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(paren + 1));
  ProcStat stat;
  fields >> stat.state;
  std::string skipped;
  for (int field = 4; field < 22 && fields >> skipped; ++field) {
  }
  if (!(fields >> stat.start_ticks)) return std::nullopt;
  return stat;
}

std::optional<std::set<int64_t>> processes_of_run(const std::string& dir, int64_t rank) {
  const auto self = read_proc_stat("self");
  if (!self) return std::nullopt;
  std::error_code ec;
  std::filesystem::directory_iterator proc("/proc", ec);
  if (ec) return std::nullopt;
  const std::string self_pid = std::to_string(::getpid());
  std::set<int64_t> pids;
  // increment(ec): an error while listing ends the scan with what it found, no throw.
  for (; !ec && proc != std::filesystem::directory_iterator(); proc.increment(ec)) {
    const std::string pid = proc->path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (pid == self_pid) continue;
    const auto stat = read_proc_stat(pid);
    if (!stat || stat->start_ticks < self->start_ticks) continue;
    if (stat->done()) continue;
    const auto environment = sampler::proc_strings("/proc/" + pid + "/environ");
    if (value_of(environment, sampler::env::kOutputDir) != dir) continue;
    if (rank >= 0 && sampler::rank_in_environment(environment) != rank) continue;
    const std::string library = value_of(environment, sampler::env::kPreload);
    if (library.empty() || !maps_library(pid, library)) continue;
    pids.insert(std::strtoll(pid.c_str(), nullptr, 10));
  }
  return pids;
}

}  // namespace cprof::launch
