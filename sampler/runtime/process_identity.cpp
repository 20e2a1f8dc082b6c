#include "sampler/runtime/process_identity.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/monotonic.h"

namespace cprof::sampler {

namespace {

constexpr const char* kRankVariables[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                          "SLURM_PROCID"};
// The job's size, in the same order (PMIx has no size variable of its own: Open MPI's
// PMIx launcher sets OMPI_COMM_WORLD_SIZE).
constexpr const char* kSizeVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};

// A launcher variable's whole number, or -1 when it is none.
int64_t rank_value(const char* v) {
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  const long long r = std::strtoll(v, &end, 10);
  return *end == '\0' && r >= 0 ? r : -1;
}

// The identity read from /proc/<which>/ ("self" or a pid), but the rank.
ProcessIdentity identity_from_proc(const std::string& which) {
  ProcessIdentity id;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) id.hostname = host;
  char exe[4096] = {};
  const ssize_t n = readlink(("/proc/" + which + "/exe").c_str(), exe, sizeof exe - 1);
  if (n > 0) id.executable.assign(exe, static_cast<size_t>(n));
  id.command_line = proc_strings("/proc/" + which + "/cmdline");
  return id;
}

}  // namespace

// The NUL-separated strings of a /proc file (cmdline, environ).
std::vector<std::string> proc_strings(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string all((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::string> out;
  size_t start = 0;
  while (start < all.size()) {
    const size_t end = all.find('\0', start);
    out.push_back(all.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

int64_t rank_from_environment() {
  for (const char* name : kRankVariables) {
    if (const int64_t r = rank_value(std::getenv(name)); r >= 0) return r;
  }
  return -1;
}

int64_t rank_in_environment(const std::vector<std::string>& environment) {
  for (const char* name : kRankVariables) {
    const std::string prefix = std::string(name) + "=";
    for (const auto& v : environment) {
      if (!v.starts_with(prefix)) continue;
      if (const int64_t r = rank_value(v.c_str() + prefix.size()); r >= 0) return r;
    }
  }
  return -1;
}

int64_t job_size_from_environment() {
  for (const char* name : kSizeVariables) {
    if (const int64_t n = rank_value(std::getenv(name)); n > 0) return n;
  }
  return -1;
}

ProcessIdentity current_process_identity() {
  ProcessIdentity id = identity_from_proc("self");
  id.rank = rank_from_environment();
  return id;
}

ProcessIdentity process_identity_of(int64_t pid) {
  const std::string which = std::to_string(pid);
  ProcessIdentity id = identity_from_proc(which);
  id.pid = pid;
  // " (deleted)": the file was replaced or removed since; the name is still the one it ran.
  if (id.executable.ends_with(" (deleted)")) id.executable.resize(id.executable.size() - 10);
  id.rank = rank_in_environment(proc_strings("/proc/" + which + "/environ"));
  return id;
}

std::string results_file_stem(const std::string& dir, const ProcessIdentity& id,
                              const std::string& kind) {
  std::string exe = id.executable;
  if (const auto slash = exe.rfind('/'); slash != std::string::npos) exe = exe.substr(slash + 1);
  if (exe.empty()) exe = "process";
  std::string base = dir + "/" + exe + "." + (id.hostname.empty() ? "host" : id.hostname) + "." +
                     std::to_string(id.pid > 0 ? id.pid : getpid());
  if (id.rank >= 0) base += ".rank" + std::to_string(id.rank);
  if (!kind.empty()) base += "." + kind;
  return base;
}

int64_t rank_of_results_file(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string_view name =
      std::string_view(path).substr(slash == std::string::npos ? 0 : slash + 1);
  // From the end, right after the pid: the executable and host parts may hold ".rank" too.
  for (size_t at = name.rfind(".rank"); at != std::string_view::npos && at > 0;
       at = name.rfind(".rank", at - 1)) {
    size_t pid = at;
    while (pid > 0 && name[pid - 1] >= '0' && name[pid - 1] <= '9') --pid;
    if (pid == at || pid == 0 || name[pid - 1] != '.') continue;
    size_t end = at + 5;
    int64_t rank = 0;
    while (end < name.size() && name[end] >= '0' && name[end] <= '9' && rank < (int64_t{1} << 40))
      rank = rank * 10 + (name[end++] - '0');
    if (end > at + 5 && end < name.size() && name[end] == '.') return rank;
  }
  return -1;
}

format::ProcessRecord process_record_now(const ProcessIdentity& id) {
  format::ProcessRecord p;
  p.pid = id.pid > 0 ? id.pid : getpid();
  p.ppid = id.pid > 0 ? id.ppid : getppid();
  p.rank = id.rank;
  p.hostname = id.hostname;
  p.executable = id.executable;
  p.command_line = id.command_line;
  timespec rt{};
  clock_gettime(CLOCK_REALTIME, &rt);
  p.start_realtime_ns =
      static_cast<uint64_t>(rt.tv_sec) * 1000000000ull + static_cast<uint64_t>(rt.tv_nsec);
  p.start_monotonic_ns = monotonic_ns();
  return p;
}

}  // namespace cprof::sampler
