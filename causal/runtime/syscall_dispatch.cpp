#include "causal/runtime/syscall_dispatch.h"

#include <dirent.h>
#include <link.h>
#include <linux/prctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "causal/runtime/blocking_calls.h"
#include "causal/runtime/futex_rules.h"
#include "causal/runtime/loaded_text.h"
#include "causal/runtime/real_calls.h"
#include "sampler/runtime/sanitizer_stack.h"
#include "sampler/runtime/signal_mask.h"
#include "sampler/runtime/thread_registry.h"

// Linux 6.16+: trap only the system calls made from inside the range.
#ifndef PR_SYS_DISPATCH_EXCLUSIVE_ON
#define PR_SYS_DISPATCH_EXCLUSIVE_ON 1
#endif
#ifndef PR_SYS_DISPATCH_INCLUSIVE_ON
#define PR_SYS_DISPATCH_INCLUSIVE_ON 2
#endif
#ifndef SYS_USER_DISPATCH
#define SYS_USER_DISPATCH 2
#endif

namespace cprof::causal::dispatch {
namespace {

// Libraries known to make futex calls with inline `syscall` instructions (docs/causal.md:
// libgomp 12 has 38, behind config/linux/x86/futex.h). Inclusive mode covers one range
// per thread, so one library at a time.
constexpr const char* kInlineFutexLibraries[] = {"libgomp.so"};

enum class Want : uint8_t { automatic, inclusive, exclusive, off };
enum class Trap : uint8_t { experiments, delays, always };

Want g_want = Want::automatic;
Trap g_trap = Trap::experiments;

// Read by every thread's handler; written once, before `g_active` is published.
Mode g_mode = Mode::off;
uintptr_t g_offset = 0;
uintptr_t g_length = 0;
char g_target[512] = {};  // the library's path (no constructor: see library.cpp's order)
std::atomic<bool> g_active{false};
std::atomic<uint32_t> g_acks{0};
bool g_warned = false;  // a warning was returned: once per process

// The selector the kernel reads on each system call from a trapping range: one byte for
// every thread, so switching trapping on and off is one store.
volatile char g_selector = SYSCALL_DISPATCH_FILTER_ALLOW;

__attribute__((tls_model("initial-exec"))) thread_local bool t_on = false;

// The program's SIGSYS action: slots written under a spin lock (with every signal
// blocked, so no handler on the writing thread reads a half-written slot), published by
// index; a reader copies the current slot.
constexpr unsigned kActionSlots = 16;
struct sigaction g_actions[kActionSlots];
std::atomic<unsigned> g_action_index{0};
std::atomic_flag g_action_lock = ATOMIC_FLAG_INIT;

// The tag of our "turn dispatch on" requests (SI_QUEUE, sival_ptr).
void* request_tag() { return const_cast<char*>(&g_selector); }

bool is_target(const char* name) {
  if (name == nullptr) return false;
  for (const char* lib : kInlineFutexLibraries) {
    if (std::strstr(name, lib) != nullptr) return true;
  }
  return false;
}

// The first executable segment of the first loaded object whose name `match` accepts.
template <typename Match>
LoadedText find_text(Match match) {
  return find_loaded_text([&match](const char* name, uintptr_t, uintptr_t) { return match(name); });
}

int prctl_op() { return g_mode == Mode::inclusive ? PR_SYS_DISPATCH_INCLUSIVE_ON : PR_SYS_DISPATCH_EXCLUSIVE_ON; }

// Async-signal-safe (prctl and sigprocmask are system call wrappers).
bool enable_this_thread() {
  if (t_on) return true;
  sigset_t current;
  sampler::real_pthread_sigmask(SIG_BLOCK, nullptr, &current);
  // A thread that blocks SIGSYS would be killed by its first trap.
  if (sigismember(&current, SIGSYS)) return false;
  const auto selector = reinterpret_cast<unsigned long>(&g_selector);
  t_on = prctl(PR_SET_SYSCALL_USER_DISPATCH, prctl_op(), g_offset, g_length, selector) == 0;
  return t_on;
}

// rt_sigprocmask made from a trapping range (exclusive mode: code outside libc): done on
// the mask the handler's return restores, or the handler's own would be undone.
long emulate_sigprocmask(ucontext_t* uc, const greg_t* r) {
  const int how = static_cast<int>(r[REG_RDI]);
  const auto* set = reinterpret_cast<const uint64_t*>(r[REG_RSI]);
  auto* old = reinterpret_cast<uint64_t*>(r[REG_RDX]);
  if (static_cast<size_t>(r[REG_R10]) != sizeof(uint64_t)) return -EINVAL;
  uint64_t mask = 0;
  std::memcpy(&mask, &uc->uc_sigmask, sizeof mask);
  const uint64_t before = mask;
  if (set != nullptr) {
    switch (how) {
      case SIG_BLOCK: mask |= *set; break;
      case SIG_UNBLOCK: mask &= ~*set; break;
      case SIG_SETMASK: mask = *set; break;
      default: return -EINVAL;
    }
  }
  mask &= ~((uint64_t{1} << (SIGSYS - 1)) | (uint64_t{1} << (SIGKILL - 1)) |
            (uint64_t{1} << (SIGSTOP - 1)));
  if (old != nullptr) *old = before;
  std::memcpy(&uc->uc_sigmask, &mask, sizeof mask);
  return 0;
}

// A system call trapped by dispatch: redo it from libc, result in rax as the kernel
// would leave it (-errno on failure).
void redo(const siginfo_t* info, ucontext_t* uc) {
  greg_t* r = uc->uc_mcontext.gregs;
  const long number = info->si_syscall;
  long result = 0;
  switch (number) {
    case SYS_rt_sigprocmask:
      result = emulate_sigprocmask(uc, r);
      break;
    // Cannot be redone from a signal handler (a new thread or process would start on
    // the handler's stack and context); only code outside libc makes them in exclusive
    // mode, and libc falls back from clone3 to its own clone.
    case SYS_clone:
    case SYS_clone3:
    case SYS_fork:
    case SYS_vfork:
    case SYS_rt_sigreturn:
      result = -ENOSYS;
      break;
    default: {
      const long args[6] = {r[REG_RDI], r[REG_RSI], r[REG_RDX], r[REG_R10], r[REG_R8], r[REG_R9]};
      result = syscall_with_futex_rules(number, args, FutexPath::dispatch);
      if (result == -1) result = -errno;
    }
  }
  r[REG_RAX] = result;
}

// SIGSYS that dispatch did not raise: the program's action.
void chain(int sig, siginfo_t* info, void* context) {
  struct sigaction action;
  program_action(&action);
  if (action.sa_handler == SIG_IGN) return;
  if (action.sa_handler == SIG_DFL) {
    // The default action (terminate with a core): uninstall ourselves and raise it again;
    // SIGSYS is not blocked in the handler (SA_NODEFER), so it is delivered at once.
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    real_sigaction_call(SIGSYS, &dfl, nullptr);
    real_syscall6(SYS_tgkill, getpid(), gettid(), sig, 0, 0, 0);
    return;
  }
  if ((action.sa_flags & SA_RESETHAND) != 0) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    set_program_action(dfl);
  }
  // The program's handler runs with its own mask, SIGSYS excepted (see thread_on()).
  sigset_t mask = action.sa_mask;
  sigdelset(&mask, SIGSYS);
  sigset_t old;
  sampler::real_pthread_sigmask(SIG_BLOCK, &mask, &old);
  if ((action.sa_flags & SA_SIGINFO) != 0) {
    action.sa_sigaction(sig, info, context);
  } else {
    action.sa_handler(sig);
  }
  sampler::real_pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void on_sigsys(int sig, siginfo_t* info, void* context) {
  sampler::unpoison_signal_frame(info, context);  // sanitizer_stack.h
  const int saved_errno = errno;
  if (info->si_code == SYS_USER_DISPATCH) {
    redo(info, static_cast<ucontext_t*>(context));
  } else if (info->si_code == SI_QUEUE && info->si_pid == getpid() &&
             info->si_value.sival_ptr == request_tag()) {
    // Only the program's threads (registered by the sampler) turn it on.
    if (sampler::ThreadRegistry::current() != nullptr) enable_this_thread();
    g_acks.fetch_add(1, std::memory_order_release);
  } else {
    chain(sig, info, context);
  }
  errno = saved_errno;
}

// Takes SIGSYS over; what was there becomes the program's action (and is put back by
// uninstall_handler() if dispatch cannot be turned on).
bool install_handler() {
  struct sigaction previous {};
  if (real_sigaction_call(SIGSYS, nullptr, &previous) != 0) return false;
  set_program_action(previous);
  struct sigaction sa {};
  sa.sa_sigaction = on_sigsys;
  // SA_NODEFER: a system call trapped inside the handler (exclusive mode: a vDSO
  // fallback, ld.so) is handled again instead of killing the process.
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  return real_sigaction_call(SIGSYS, &sa, nullptr) == 0;
}

void uninstall_handler() {
  struct sigaction action;
  program_action(&action);
  real_sigaction_call(SIGSYS, &action, nullptr);
}

// Chooses the mode by turning it on in the calling thread. Returns why not, or "".
std::string choose_mode(const LoadedText& target) {
  const int saved = errno;
  std::string why;
  if (g_want == Want::automatic || g_want == Want::inclusive) {
    g_mode = Mode::inclusive;
    g_offset = target.start;
    g_length = target.end - target.start;
    if (enable_this_thread()) return "";
    why = std::string("inclusive mode: ") + std::strerror(errno);
  }
  if (g_want == Want::automatic || g_want == Want::exclusive) {
    const LoadedText libc = find_text([](const char* name) {
      return name != nullptr && std::strstr(name, "/libc.so") != nullptr;
    });
    if (libc.start != 0) {
      g_mode = Mode::exclusive;
      g_offset = libc.start;
      g_length = libc.end - libc.start;
      if (enable_this_thread()) return "";
      why += std::string(why.empty() ? "" : "; ") + "exclusive mode: " + std::strerror(errno);
    } else {
      why += std::string(why.empty() ? "" : "; ") + "libc's text not found";
    }
  }
  g_mode = Mode::off;
  errno = saved;
  return why.empty() ? "disabled by CPROF_CAUSAL_DISPATCH=off" : why;
}

// Whether thread `tid` blocks SIGSYS now (/proc/self/task/TID/status, SigBlk).
bool blocks_sigsys(pid_t tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
  FILE* f = std::fopen(path, "re");
  if (f == nullptr) return true;
  char line[256];
  unsigned long long blocked = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "SigBlk: %llx", &blocked) == 1) break;
  }
  std::fclose(f);
  return (blocked & (1ull << (SIGSYS - 1))) != 0;
}

// Queues a request to every other thread (the runtime's own ignore it) and waits a
// little for those that can take it now.
void enable_existing_threads() {
  const pid_t self = gettid();
  const pid_t pid = getpid();
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return;
  const uint32_t acks_before = g_acks.load(std::memory_order_acquire);
  uint32_t expected = 0;
  while (dirent* e = readdir(dir)) {
    const auto tid = static_cast<pid_t>(std::atoi(e->d_name));
    if (tid <= 0 || tid == self) continue;
    siginfo_t si{};
    si.si_signo = SIGSYS;
    si.si_code = SI_QUEUE;
    si.si_pid = pid;
    si.si_uid = getuid();
    si.si_value.sival_ptr = request_tag();
    // One that blocks SIGSYS takes it when it unblocks it, if ever: not waited for.
    if (real_syscall6(SYS_rt_tgsigqueueinfo, pid, tid, SIGSYS, reinterpret_cast<long>(&si), 0, 0) == 0 &&
        !blocks_sigsys(tid)) {
      ++expected;
    }
  }
  closedir(dir);
  const Sleeper sleeper = real_sleeper();
  for (int i = 0; i < 100 && g_acks.load(std::memory_order_acquire) - acks_before < expected; ++i) {
    sleeper.sleep_ns(1000000);
  }
}

}  // namespace

void configure_from_environment() {
  if (const char* v = std::getenv("CPROF_CAUSAL_DISPATCH")) {
    if (std::strcmp(v, "off") == 0) g_want = Want::off;
    if (std::strcmp(v, "inclusive") == 0) g_want = Want::inclusive;
    if (std::strcmp(v, "exclusive") == 0) g_want = Want::exclusive;
  }
  if (const char* v = std::getenv("CPROF_CAUSAL_DISPATCH_TRAP")) {
    if (std::strcmp(v, "always") == 0) g_trap = Trap::always;
    if (std::strcmp(v, "delays") == 0) g_trap = Trap::delays;
  }
  // Resolved now: the handler calls them.
  sampler::real_pthread_sigmask(SIG_BLOCK, nullptr, nullptr);
  real_sigaction_call(SIGSYS, nullptr, nullptr);
}

// Two threads may dlopen at once. Made afresh in a forked child (fork_child): a thread
// that did not come along may have held it, for up to ~100 ms in enable_existing_threads.
static std::mutex g_refresh_mutex;  // constant-initialized

std::string refresh() {
  std::lock_guard lock(g_refresh_mutex);
  const LoadedText target = find_text(is_target);
  if (target.start == 0 || g_warned) return "";
  if (active()) {
    if (target.name == g_target) return "";
    // Another library (or the same one loaded again elsewhere): one range per thread.
    g_warned = true;
    return "futex waits in " + target.name + " are not interposed (Syscall User Dispatch " +
           "already covers " + g_target + "): predictions for programs that block in it may be wrong";
  }
  std::string why;
  if (g_want == Want::off) {
    why = "disabled by CPROF_CAUSAL_DISPATCH=off";
  } else if (!install_handler()) {
    why = "the SIGSYS handler could not be installed";
  } else if (why = choose_mode(target); !why.empty()) {
    uninstall_handler();
  }
  if (!why.empty()) {
    g_warned = true;
    return "OpenMP (libgomp) futex waits are not interposed (inline syscall instructions; "
           "Syscall User Dispatch unavailable: " + why +
           "): predictions for programs that block in OpenMP barriers and locks may be wrong";
  }
  std::snprintf(g_target, sizeof g_target, "%s", target.name.c_str());
  if (g_trap == Trap::always) g_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
  // New threads turn it on in the trampoline from here on; only then are the threads
  // that already exist asked, so none is missed.
  g_active.store(true, std::memory_order_release);
  enable_existing_threads();
  return "";
}

void thread_started() {
  if (active()) enable_this_thread();
}

void fork_child() {
  // Locks a thread that did not come along may have held: made afresh (the old mutex is
  // abandoned), the SIGSYS-action spin lock released (its writer blocked every signal,
  // so the forking thread itself was not inside it).
  new (&g_refresh_mutex) std::mutex;
  g_action_lock.clear(std::memory_order_release);
  // The kernel does not carry dispatch into the child; the thread-local flag came along.
  t_on = false;
  if (active()) enable_this_thread();
}

void set_trapping(bool experiment_running, bool delays_inserted) {
  bool trap = false;
  switch (g_trap) {
    case Trap::experiments: trap = experiment_running; break;
    case Trap::delays: trap = delays_inserted; break;
    case Trap::always: trap = active(); break;
  }
  g_selector = trap ? SYSCALL_DISPATCH_FILTER_BLOCK : SYSCALL_DISPATCH_FILTER_ALLOW;
}

bool active() { return g_active.load(std::memory_order_acquire); }
bool thread_on() { return t_on; }
Mode mode() { return active() ? g_mode : Mode::off; }

std::string describe() {
  if (!active()) return "off";
  return std::string(g_mode == Mode::inclusive ? "inclusive mode on " : "exclusive mode (libc allowed) for ") +
         g_target;
}

void program_action(struct sigaction* out) {
  *out = g_actions[g_action_index.load(std::memory_order_acquire) % kActionSlots];
}

void set_program_action(const struct sigaction& action) {
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  sampler::real_pthread_sigmask(SIG_BLOCK, &all, &old);
  while (g_action_lock.test_and_set(std::memory_order_acquire)) {
  }
  const unsigned next = g_action_index.load(std::memory_order_relaxed) + 1;
  g_actions[next % kActionSlots] = action;
  g_action_index.store(next, std::memory_order_release);
  g_action_lock.clear(std::memory_order_release);
  sampler::real_pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace cprof::causal::dispatch
