#include "sampler/launcher/launch.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#if defined(__SANITIZE_ADDRESS__)
extern "C" void __asan_init();
#endif

namespace cprof::launch {
namespace {

volatile sig_atomic_t g_child_pid = 0;
volatile sig_atomic_t g_signal_received = 0;

void forward_signal(int sig, siginfo_t* info, void* /*ucontext*/) {
  g_signal_received = sig;
  const pid_t child = g_child_pid;
  if (child <= 0) return;
  // The terminal (^C, ^\, a hangup) signals the whole foreground process group, the
  // program included when it is in ours: sending it again would deliver it twice (a
  // program that reads a second ^C as "quit now" would quit).
  if (info != nullptr && info->si_code == SI_KERNEL && ::getpgid(child) == ::getpgrp()) return;
  ::kill(child, sig);
}

// True when the ELF file has no PT_INTERP: the kernel runs it without the dynamic
// loader, so LD_PRELOAD is never read. A script (#!) or non-ELF file is left alone.
bool is_static_elf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr eh{};
  if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh)) return false;
  if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64) {
    return false;
  }
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    in.seekg(static_cast<std::streamoff>(eh.e_phoff + size_t{i} * eh.e_phentsize));
    if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph)) return false;
    if (ph.p_type == PT_INTERP) return false;
  }
  return eh.e_type == ET_EXEC || eh.e_type == ET_DYN;
}

std::string self_directory() {
  char buf[PATH_MAX] = {};
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  return std::filesystem::path(std::string(buf, static_cast<size_t>(n))).parent_path().string();
}

}  // namespace

std::string check_program(const std::string& program, std::string& resolved) {
  if (program.empty()) return "no program given: usage is 'TOOL [options] -- PROGRAM [ARGS...]'";
  std::string candidate;
  if (program.find('/') != std::string::npos) {
    candidate = program;
  } else {
    const char* path_env = std::getenv("PATH");
    const std::string path = path_env != nullptr ? path_env : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= path.size()) {
      size_t end = path.find(':', start);
      if (end == std::string::npos) end = path.size();
      const std::string dir = end > start ? path.substr(start, end - start) : ".";
      const std::string full = dir + "/" + program;
      struct stat st {};
      if (::stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(full.c_str(), X_OK) == 0) {
        candidate = full;
        break;
      }
      start = end + 1;
    }
    if (candidate.empty()) return "program '" + program + "' not found in PATH";
  }
  struct stat st {};
  if (::stat(candidate.c_str(), &st) != 0) {
    return "program '" + candidate + "' not found: " + std::strerror(errno);
  }
  if (!S_ISREG(st.st_mode)) return "program '" + candidate + "' is not a regular file";
  if (::access(candidate.c_str(), X_OK) != 0) {
    return "program '" + candidate + "' is not executable (chmod +x?)";
  }
  if (is_static_elf(candidate)) {
    return "program '" + candidate +
           "' is statically linked: preloading the profiler cannot work; link it dynamically";
  }
  // Set-user-ID or set-group-ID to someone else: the kernel runs it in secure mode, where
  // the dynamic loader ignores LD_PRELOAD.
  if (((st.st_mode & S_ISUID) != 0 && st.st_uid != ::geteuid()) ||
      ((st.st_mode & S_ISGID) != 0 && st.st_gid != ::getegid())) {
    return "program '" + candidate + "' is set-" +
           ((st.st_mode & S_ISUID) != 0 ? "user" : "group") +
           "-ID: the dynamic loader ignores LD_PRELOAD for it, so it cannot be profiled; "
           "profile a copy without that bit";
  }
  resolved = candidate;
  return {};
}

std::string script_interpreter(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string line;
  if (!std::getline(in, line) || line.rfind("#!", 0) != 0) return {};
  // The kernel's rule: leading blanks skipped, the interpreter ends at a blank.
  const size_t start = line.find_first_not_of(" \t", 2);
  if (start == std::string::npos) return {};
  return line.substr(start, line.find_first_of(" \t\r", start) - start);
}

std::string prepare_results_dir(const std::string& dir, std::string& absolute) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return "results directory '" + dir + "' cannot be created: " + ec.message();
  if (!std::filesystem::is_directory(dir, ec)) {
    return "results directory '" + dir + "' is not a directory";
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return "results directory '" + dir + "' is not writable: " + std::strerror(errno);
  }
  absolute = std::filesystem::absolute(dir, ec).lexically_normal().string();
  if (!absolute.empty() && absolute.back() == '/') absolute.pop_back();
  return {};
}

std::string find_runtime_library(const std::string& file_name, std::string& path) {
  const std::string dir = self_directory();
  for (const std::string& candidate : {dir + "/../lib/" + file_name, dir + "/" + file_name}) {
    if (::access(candidate.c_str(), R_OK) == 0) {
      path = std::filesystem::path(candidate).lexically_normal().string();
      return {};
    }
  }
  return "runtime library " + file_name + " not found next to this tool (looked in " + dir +
         "/../lib); reinstall or rebuild";
}

std::string preload_value(const std::string& library) {
  std::string value;
#if defined(__SANITIZE_ADDRESS__)
  // The instrumented runtime needs libasan loaded first; find the copy this tool uses.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&__asan_init), &info) != 0 && info.dli_fname != nullptr) {
    value = info.dli_fname;
  }
#endif
  const char* existing = std::getenv("LD_PRELOAD");
  if (existing != nullptr && *existing != '\0') {
    if (!value.empty()) value += ":";
    value += existing;
  }
  if (!value.empty()) value += ":";
  return value + library;
}

ChildResult run_child(const std::vector<std::string>& argv, const ChildEnvironment& env,
                      const char* tool) {
  // Forward the signals a user sends to the tool; the program decides what they mean.
  struct sigaction sa {};
  sa.sa_sigaction = forward_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART | SA_SIGINFO;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);

  // Built before fork: the child only writes it.
  const std::string cannot_run = std::string(tool) + ": cannot run '" + argv[0] + "': ";
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    const std::string msg =
        std::string(tool) + ": cannot start '" + argv[0] + "': fork: " + std::strerror(err) + "\n";
    (void)!::write(2, msg.data(), msg.size());
    ChildResult r;
    r.exit_code = 127;
    return r;
  }
  if (pid == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::signal(sig, SIG_DFL);
    for (const auto& [name, value] : env.set) ::setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    const int err = errno;
    std::string msg = cannot_run + std::strerror(err);
    if (err == ENOEXEC) {
      // A shell would run it with /bin/sh; execv does not guess.
      msg +=
          " (neither an ELF executable nor a script with a #! line: run it with its "
          "interpreter, e.g. sh, python3)";
    }
    msg += "\n";
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(err == ENOENT ? 127 : 126);
  }
  g_child_pid = pid;
  int status = 0;
  rusage usage{};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  g_child_pid = 0;
  ChildResult r;
  const auto ns = [](const timeval& t) {
    return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_usec) * 1000ull;
  };
  r.cpu_ns = ns(usage.ru_utime) + ns(usage.ru_stime);
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r.term_signal = WTERMSIG(status);
    r.core_dumped = WCOREDUMP(status);
    r.exit_code = 128 + r.term_signal;
  }
  return r;
}

int signal_received() { return g_signal_received; }

void exit_like(const ChildResult& result) {
  if (result.term_signal != 0) {
    // Die of the same signal; no second core file (the program already wrote one).
    rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    ::signal(result.term_signal, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, result.term_signal);
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::raise(result.term_signal);
  }
  std::exit(result.exit_code);
}

}  // namespace cprof::launch
