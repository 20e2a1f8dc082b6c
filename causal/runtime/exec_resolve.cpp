#include "causal/runtime/exec_resolve.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string_view>

#include "sampler/runtime/real.h"

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
  void* resolver_stack_top;  // in the intermediate's copy of the memory
};

// The resolver itself, in a vfork child of the intermediate process below: system calls
// and libc's execve only (the runtime's interposed execve would do its exec bookkeeping).
[[noreturn]] void exec_resolver(const ChildArgs& a) {
  if (a.stderr_fd >= 0) dup2(a.stderr_fd, 2);
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null_fd >= 0) {
    dup2(null_fd, 0);
    dup2(null_fd, 1);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  a.execve_fn(a.path, a.argv, a.envp);
  _exit(127);
}

int resolver_main(void* p) { exec_resolver(*static_cast<const ChildArgs*>(p)); }

// The intermediate process: a copy of the program made by clone() with no exit signal.
// It never execs (an exec would turn its exit signal back into SIGCHLD, which the program
// would see), so it stays a "clone child" that only a __WCLONE wait sees. It starts the
// resolver the way posix_spawn does (clone with CLONE_VM | CLONE_VFORK on a stack of its
// own, no atfork handlers, nothing a sanitizer intercepts) and exits with its status; the
// resolver's SIGCHLD goes to it, not to the program.
int intermediate_main(void* p) {
  const auto* a = static_cast<const ChildArgs*>(p);
  const pid_t pid = clone(resolver_main, a->resolver_stack_top, CLONE_VM | CLONE_VFORK | SIGCHLD,
                          const_cast<ChildArgs*>(a));
  if (pid < 0) _exit(125);
  int status = 0;
  pid_t waited = -1;
  do {
    waited = waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  // ECHILD: SIGCHLD ignored (inherited from the program), the resolver reaped itself;
  // the caller judges by the file it wrote.
  if (waited != pid) _exit(0);
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 126);
}

}  // namespace

std::string resolve_locations_for(const std::string& resolver, const std::vector<std::string>& args,
                                  const std::string& executable, const std::string& out_path,
                                  std::vector<std::string>& notes) {
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
  // Two stacks, one for the intermediate and one for the resolver's first moments; the
  // intermediate gets its own copy of both.
  constexpr size_t kStack = size_t{256} * 1024;
  void* stack = mmap(nullptr, 2 * kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) {
    if (err_fd >= 0) close(err_fd);
    return "cannot map a stack to start " + resolver + ": " + std::strerror(errno);
  }
  ExecveFn real_execve = real::execve();
  if (real_execve == nullptr) real_execve = &execve;
  ChildArgs child{real_execve, argv_s[0].c_str(), argv.data(), envp.data(), err_fd,
                  static_cast<char*>(stack) + 2 * kStack};
  // No exit signal (the low byte of the flags is 0) and no shared memory: a copy of the
  // process that the program's wait() and SIGCHLD never see.
  const pid_t pid = clone(intermediate_main, static_cast<char*>(stack) + kStack, 0, &child);
  const int clone_errno = errno;
  munmap(stack, 2 * kStack);
  if (err_fd >= 0) close(err_fd);
  if (pid < 0) return "cannot start " + resolver + ": " + std::strerror(clone_errno);
  int status = 0;
  pid_t waited = -1;
  do {
    waited = waitpid(pid, &status, __WCLONE);
  } while (waited < 0 && errno == EINTR);
  if (waited != pid) {
    const int wait_errno = errno;
    unlink(err_path.c_str());
    return "cannot wait for " + resolver + ": " + std::strerror(wait_errno);
  }
  std::string error_line;
  {
    std::ifstream in(err_path);
    std::string line;
    const std::string_view note = kResolveNotePrefix;
    while (std::getline(in, line)) {
      if (line.starts_with(note)) {
        notes.push_back(line.substr(note.size()));
      } else if (!line.empty()) {
        error_line = line;
      }
    }
  }
  unlink(err_path.c_str());
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  if (!error_line.empty()) return error_line;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) return "cannot run " + resolver;
  return resolver + " failed to resolve the locations for " + executable;
}

}  // namespace cprof::causal
