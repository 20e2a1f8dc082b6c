#include "sampler/runtime/process_identity.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "common/monotonic.h"

namespace cprof::sampler {

int64_t rank_from_environment() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    char* end = nullptr;
    const long long r = std::strtoll(v, &end, 10);
    if (*end == '\0' && r >= 0) return r;
  }
  return -1;
}

ProcessIdentity current_process_identity() {
  ProcessIdentity id;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) id.hostname = host;
  char exe[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) id.executable.assign(exe, static_cast<size_t>(n));
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(cmdline)), {});
  size_t start = 0;
  while (start < all.size()) {
    const size_t end = all.find('\0', start);
    id.command_line.push_back(all.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  id.rank = rank_from_environment();
  return id;
}

std::string results_file_stem(const std::string& dir, const ProcessIdentity& id,
                              const std::string& kind) {
  std::string exe = id.executable;
  if (const auto slash = exe.rfind('/'); slash != std::string::npos) exe = exe.substr(slash + 1);
  if (exe.empty()) exe = "process";
  std::string base = dir + "/" + exe + "." + (id.hostname.empty() ? "host" : id.hostname) + "." +
                     std::to_string(getpid());
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
  p.pid = getpid();
  p.ppid = getppid();
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
