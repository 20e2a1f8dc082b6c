// The functions the runtime interposes (the only symbols the library exports, see
// exports.map): thread creation, dynamic loading and exec; the signal masks are in
// mask_interpose.cpp. Each forwards faithfully to the next definition (RTLD_NEXT) with
// the same arguments, errno and result.

#include "sampler/runtime/interpose.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sampler/runtime/real.h"
#include "sampler/runtime/runtime.h"
#include "sampler/runtime/signal_mask.h"

namespace cprof::sampler {
namespace {

struct ThreadStart {
  void* (*routine)(void*);
  void* arg;
  bool blocks_sampling_signal;  // the creator's view of its mask (signal_mask.h)
};

void* thread_trampoline(void* p) {
  const ThreadStart start = *static_cast<ThreadStart*>(p);
  delete static_cast<ThreadStart*>(p);
  if (Runtime* rt = Runtime::instance()) rt->thread_started(start.blocks_sampling_signal);
  return start.routine(start.arg);
}

// The environment an exec'd image needs to be profiled too: our library in LD_PRELOAD
// and every CPROF_ setting, as they were when the runtime started. A program that execs
// with an environment of its own (execle) or clears its own first (env -i, clearenv)
// would otherwise drop them.
std::vector<std::string> profiling_environment_for(char* const envp[],
                                                   const RuntimeConfig& config) {
  std::vector<std::string> out;
  bool has_preload = false;
  const std::string& ours = config.preload_library;
  for (char* const* e = envp; e != nullptr && *e != nullptr; ++e) {
    std::string var = *e;
    if (var.rfind("LD_PRELOAD=", 0) == 0) {
      has_preload = true;
      if (!ours.empty() && var.find(ours) == std::string::npos) var += ":" + ours;
    }
    if (var.rfind("CPROF_", 0) == 0) continue;  // re-added below from our own values
    out.push_back(std::move(var));
  }
  if (!has_preload && !ours.empty()) out.push_back("LD_PRELOAD=" + ours);
  out.insert(out.end(), config.profiling_environment.begin(), config.profiling_environment.end());
  return out;
}

// exec through `exec(envp)` with the mask the program set, so the new image starts with
// it (signal_mask.h); if exec returns, the sampling signal is open again. errno is exec's.
template <typename Exec>
int exec_with_program_mask(int signal, char* const envp[], const Exec& exec) {
  const bool masked = apply_program_mask_for_exec(signal);
  const int rc = exec(envp);
  const int saved = errno;
  if (masked) keep_sampling_signal_deliverable(signal, true);
  errno = saved;
  return rc;
}

// One exec through `exec(envp)` (one of libc's exec calls, with the rest of its
// arguments bound): everything buffered is written first, the new image keeps the
// profiling environment, and sampling resumes if exec fails.
template <typename Exec>
int exec_profiled(char* const envp[], const Exec& exec) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return exec(envp);
  const int signal = rt->config().signal;
  if (getpid() != rt->pid()) {  // a vfork child: its own mask, but our memory
    return exec_with_program_mask(signal, envp, exec);
  }
  rt->before_exec();
  auto vars = profiling_environment_for(envp, rt->config());
  std::vector<char*> env;
  env.reserve(vars.size() + 1);
  for (auto& v : vars) env.push_back(v.data());
  env.push_back(nullptr);
  const int rc = exec_with_program_mask(signal, env.data(), exec);
  const int saved = errno;
  rt->after_failed_exec();
  errno = saved;
  return rc;
}

}  // namespace

bool exec_system_call(long number, const long args[6], long& result) {
  if (number == SYS_execve) {
    result = execve(reinterpret_cast<const char*>(args[0]), reinterpret_cast<char* const*>(args[1]),
                    reinterpret_cast<char* const*>(args[2]));
    return true;
  }
  if (number == SYS_execveat) {
    result = execveat(static_cast<int>(args[0]), reinterpret_cast<const char*>(args[1]),
                      reinterpret_cast<char* const*>(args[2]),
                      reinterpret_cast<char* const*>(args[3]), static_cast<int>(args[4]));
    return true;
  }
  return false;
}

}  // namespace cprof::sampler

using cprof::sampler::Runtime;

extern "C" {

CPROF_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr,
                                void* (*routine)(void*), void* arg) {
  const auto real = cprof::real::pthread_create();
  if (Runtime::instance() == nullptr) return real(thread, attr, routine, arg);
  auto* start = new (std::nothrow) cprof::sampler::ThreadStart{
      routine, arg, cprof::sampler::program_blocks_sampling_signal()};
  if (start == nullptr) return real(thread, attr, routine, arg);
  const int rc = real(thread, attr, cprof::sampler::thread_trampoline, start);
  if (rc != 0) delete start;
  return rc;
}

CPROF_EXPORT void* dlopen(const char* file, int mode) {
  const auto real = cprof::real::dlopen();
  void* handle = real(file, mode);
  if (handle != nullptr) {
    const int saved = errno;
    if (Runtime* rt = Runtime::instance()) rt->modules_changed();
    errno = saved;
  }
  return handle;
}

CPROF_EXPORT int dlclose(void* handle) {
  const auto real = cprof::real::dlclose();
  const int rc = real(handle);
  const int saved = errno;
  if (Runtime* rt = Runtime::instance()) rt->modules_changed();
  errno = saved;
  return rc;
}

CPROF_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  const auto real = cprof::real::execve();
  return cprof::sampler::exec_profiled(envp, [&](char* const* e) { return real(path, argv, e); });
}

CPROF_EXPORT int execv(const char* path, char* const argv[]) { return execve(path, argv, environ); }

CPROF_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) {
  const auto real = cprof::real::execvpe();
  return cprof::sampler::exec_profiled(envp, [&](char* const* e) { return real(file, argv, e); });
}

// fexecve and execveat make the system call inside libc, past the execve above. An exec
// none of these sees (a raw system call) keeps the thread's sampling event counting
// through exec, and the new image dies of the signal it sends (docs/sampler.md).
CPROF_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) {
  const auto real = cprof::real::fexecve();
  return cprof::sampler::exec_profiled(envp, [&](char* const* e) { return real(fd, argv, e); });
}

CPROF_EXPORT int execveat(int dirfd, const char* path, char* const argv[], char* const envp[],
                          int flags) {
  const auto real = cprof::real::execveat();
  if (real == nullptr) {  // glibc before 2.34
    errno = ENOSYS;
    return -1;
  }
  return cprof::sampler::exec_profiled(
      envp, [&](char* const* e) { return real(dirfd, path, argv, e, flags); });
}

CPROF_EXPORT int execvp(const char* file, char* const argv[]) {
  return execvpe(file, argv, environ);
}

}  // extern "C"

// The execl family builds an argument vector and calls glibc's internal execve, which no
// interposer sees; route them through the interposed vector forms instead.
namespace {
using VectorExec = int (*)(const char*, char* const*, char* const*);
// Runs `exec` on the arguments after `first` up to the null, and the environment after it
// where `with_environment` (execle), else environ.
int exec_list(VectorExec exec, const char* path, const char* first, va_list& args,
              bool with_environment) {
  std::vector<char*> argv{const_cast<char*>(first)};
  while (char* a = va_arg(args, char*)) argv.push_back(a);
  argv.push_back(nullptr);
  char** envp = with_environment ? va_arg(args, char**) : environ;
  return exec(path, argv.data(), envp);
}
}  // namespace

extern "C" {

CPROF_EXPORT int execl(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int rc = exec_list(&execve, path, arg, args, false);
  va_end(args);
  return rc;
}

CPROF_EXPORT int execlp(const char* file, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int rc = exec_list(&execvpe, file, arg, args, false);
  va_end(args);
  return rc;
}

CPROF_EXPORT int execle(const char* path, const char* arg, ...) {
  va_list args;
  va_start(args, arg);
  const int rc = exec_list(&execve, path, arg, args, true);
  va_end(args);
  return rc;
}

}  // extern "C"
