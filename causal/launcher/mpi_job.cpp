#include "causal/launcher/mpi_job.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "causal/runtime/settings.h"
#include "common/mpi_launchers.h"

namespace cprof::causal {
namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::string host_name() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return host;
}

}  // namespace

std::string rank_job_key() {
  bool rank = false;
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"}) {
    rank = rank || !env_or_empty(name).empty();
  }
  if (!rank) return "";
  for (const char* name : {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_KVSNAME"}) {
    if (auto v = env_or_empty(name); !v.empty()) return std::string(name) + "=" + v;
  }
  if (auto job = env_or_empty("SLURM_JOB_ID"); !job.empty()) {
    return "slurm=" + job + "." + env_or_empty("SLURM_STEP_ID");
  }
  return "ppid=" + std::to_string(getppid()) + "@" + host_name();
}

std::string launched_job_key(const std::string& program) {
  if (!is_mpi_launcher(program)) return "";
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return "causal-run=" + std::to_string(getpid()) + "@" + host_name() + "." +
         std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count());
}

std::string rank_program(const std::vector<std::string>& command) {
  for (size_t i = 1; i < command.size(); ++i) {
    const std::string& arg = command[i];
    if (arg.empty() || arg[0] == '-') continue;  // an option; its value is no program
    std::string resolved;
    if (!launch::check_program(arg, resolved).empty()) continue;
    std::error_code ec;
    const auto canonical = std::filesystem::canonical(resolved, ec);
    return ec ? resolved : canonical.string();
  }
  return "";
}

void add_mpi_environment(launch::ChildEnvironment& env, const std::string& mpi_library,
                         const std::string& key, bool lockstep) {
  for (auto& [name, value] : env.set) {
    if (name == "LD_PRELOAD") value += ":" + mpi_library;
  }
  if (lockstep) env.set.emplace_back(env::kJob, key);
}

}  // namespace cprof::causal
