#include "causal/runtime/exec_resolve.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

extern char** environ;

namespace cprof::causal {
namespace {

using ExecveFn = int (*)(const char*, char* const*, char* const*);

struct ChildArgs {
  ExecveFn execve_fn;  // libc's: the runtime's own execve would do its exec bookkeeping
  const char* path;
  char* const* argv;
  char* const* envp;
  int stderr_fd;
};

int child_main(void* p) {
  // Shares the parent's memory until execve (CLONE_VM | CLONE_VFORK, as posix_spawn):
  // system calls only, and libc's execve, not the runtime's interposed one (which would
  // flush and reset the parent's state through the shared memory).
  const auto* a = static_cast<const ChildArgs*>(p);
  if (a->stderr_fd >= 0) dup2(a->stderr_fd, 2);
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    dup2(null_fd, 0);
    dup2(null_fd, 1);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  a->execve_fn(a->path, a->argv, a->envp);
  _exit(127);
}

}  // namespace

std::string resolve_locations_for(const std::string& resolver, const std::vector<std::string>& args,
                                  const std::string& executable, const std::string& out_path) {
  std::vector<std::string> argv_s = {resolver, "--resolve-only", out_path};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  argv_s.insert(argv_s.end(), {"--", executable});
  std::vector<char*> argv;
  argv.reserve(argv_s.size() + 1);
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "LD_PRELOAD=", 11) == 0 || std::strncmp(*e, "CPROF_", 6) == 0) continue;
    env_s.emplace_back(*e);
  }
  std::vector<char*> envp;
  envp.reserve(env_s.size() + 1);
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);

  // Its error line goes to a file, not to the program's stderr.
  const std::string err_path = out_path + ".err";
  const int err_fd = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  constexpr size_t kStack = size_t{256} * 1024;
  void* stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    if (err_fd >= 0) close(err_fd);
    return "cannot map a stack to start " + resolver + ": " + std::strerror(errno);
  }
  auto real_execve = reinterpret_cast<ExecveFn>(dlsym(RTLD_NEXT, "execve"));
  if (real_execve == nullptr) real_execve = &execve;
  ChildArgs child{real_execve, argv_s[0].c_str(), argv.data(), envp.data(), err_fd};
  // No exit signal (the low byte of the flags is 0): a "clone child" to the kernel.
  const pid_t pid = clone(child_main, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK, &child);
  const int clone_errno = errno;
  munmap(stack, kStack);
  if (err_fd >= 0) close(err_fd);
  if (pid < 0) return "cannot start " + resolver + ": " + std::strerror(clone_errno);
  int status = 0;
  while (waitpid(pid, &status, __WCLONE) < 0 && errno == EINTR) {
  }
  std::string error_line;
  {
    std::ifstream in(err_path);
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) error_line = line;
    }
  }
  unlink(err_path.c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (!error_line.empty()) return error_line;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return "cannot run " + resolver;
  return resolver + " failed to resolve the locations for " + executable;
}

}  // namespace cprof::causal
