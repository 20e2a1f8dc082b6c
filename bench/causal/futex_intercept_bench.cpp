// Research prototype (docs/causal.md, "Blocking that bypasses pthread"): what it costs to
// catch futex calls that do not go through pthread, by four mechanisms:
//
//   direct     raw `syscall` instruction, nothing installed (the baseline)
//   interpose  a wrapper around libc's syscall(), as an LD_PRELOADed syscall() would be
//              (libstdc++'s std::atomic::wait/barrier/latch and TBB call syscall() via PLT)
//   seccomp    a BPF filter: futex from outside libc's text -> SECCOMP_RET_TRAP -> SIGSYS;
//              the handler performs the futex through libc (an allowed address)
//   sud        Syscall User Dispatch with libc's text as the allowed range: every syscall
//              from outside it traps (SIGSYS) while the thread's selector says BLOCK
//   sud-masked the same in a thread that blocks every signal (it dies of SIGSYS: the
//              runtime must keep SIGSYS unblocked)
//   sud-incl   Syscall User Dispatch, Linux 6.16+ inclusive mode: only syscalls from
//              inside the range trap (here this executable's text, standing in for
//              libgomp's)
//
// Each mode runs FUTEX_WAKE on a word nobody waits on (the cheapest futex) N times from a
// raw `syscall` instruction in this executable (libgomp's way), plus getppid() through
// libc to show what the mechanism costs the program's other syscalls. A filter cannot be
// removed, so each mode runs in its own child process. Not built by default:
//   ninja -C build-causal causal_futex_bench && build-causal/bin/causal_futex_bench
#include <link.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint32_t g_word = 0;
std::atomic<uint64_t> g_trapped{0};  // futex calls seen by a handler ("delay bookkeeping")
volatile char g_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
uint64_t g_libc_start = 0, g_libc_end = 0;
uint64_t g_exe_start = 0, g_exe_end = 0;  // stands in for libgomp's text in sud-incl

// Linux 6.16+: trap only the syscalls issued from inside the range.
#ifndef PR_SYS_DISPATCH_INCLUSIVE_ON
#define PR_SYS_DISPATCH_INCLUSIVE_ON 2
#endif

// libgomp's way: the syscall instruction inlined in the caller.
__attribute__((noinline)) long raw_futex_wake(uint32_t* addr) {
  long ret;
  register long r10 asm("r10") = 0;
  asm volatile("syscall"
               : "=a"(ret)
               : "0"(static_cast<long>(SYS_futex)), "D"(addr), "S"(FUTEX_WAKE_PRIVATE), "d"(1),
                 "r"(r10)
               : "rcx", "r11", "memory");
  return ret;
}

// What an interposed syscall() does: look at the number, book-keep, forward.
__attribute__((noinline)) long interposed_syscall(long nr, uint32_t* addr, long op, long val) {
  if (nr == SYS_futex) g_trapped.fetch_add(1, std::memory_order_relaxed);
  return syscall(nr, addr, op, val, nullptr);
}

int find_text(dl_phdr_info* info, size_t, void*) {
  const bool libc = std::strstr(info->dlpi_name, "libc.so") != nullptr;
  const bool exe = info->dlpi_name[0] == '\0' && g_exe_start == 0;
  if (!libc && !exe) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const auto& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X) != 0) {
      (libc ? g_libc_start : g_exe_start) = info->dlpi_addr + ph.p_vaddr;
      (libc ? g_libc_end : g_exe_end) = info->dlpi_addr + ph.p_vaddr + ph.p_memsz;
    }
  }
  return 0;
}

// Performs the trapped system call from libc (an allowed address) and returns its result
// the way the kernel would (-errno in rax).
void redo_syscall(ucontext_t* uc) {
  greg_t* r = uc->uc_mcontext.gregs;
  const long nr = r[REG_RAX];
  if (nr == SYS_futex) g_trapped.fetch_add(1, std::memory_order_relaxed);
  const int saved = errno;
  long ret = syscall(nr, r[REG_RDI], r[REG_RSI], r[REG_RDX], r[REG_R10], r[REG_R8], r[REG_R9]);
  if (ret == -1) ret = -errno;
  errno = saved;
  r[REG_RAX] = ret;
}

void on_sigsys(int, siginfo_t* info, void* ctx) {
  auto* uc = static_cast<ucontext_t*>(ctx);
  // On SIGSYS the kernel leaves rax = -ENOSYS; the number is in si_syscall.
  uc->uc_mcontext.gregs[REG_RAX] = info->si_syscall;
  redo_syscall(uc);
}

bool install_sigsys() {
  struct sigaction sa{};
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  return sigaction(SIGSYS, &sa, nullptr) == 0;
}

bool install_seccomp() {
  const uint32_t hi = static_cast<uint32_t>(g_libc_start >> 32);
  if (hi != static_cast<uint32_t>((g_libc_end - 1) >> 32)) return false;  // keep the BPF simple
  const uint32_t lo_start = static_cast<uint32_t>(g_libc_start);
  const uint32_t lo_end = static_cast<uint32_t>(g_libc_end);
  const uint32_t ip_lo = offsetof(seccomp_data, instruction_pointer);
  sock_filter prog[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ip_lo + 4),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, hi, 0, 4),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ip_lo),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, lo_start, 0, 2),
      BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, lo_end, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
  };
  sock_fprog fprog{static_cast<unsigned short>(sizeof prog / sizeof prog[0]), prog};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) == 0;
}

bool install_sud() {
  return prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_ON, g_libc_start,
               g_libc_end - g_libc_start, &g_selector) == 0;
}

template <typename F>
double per_call_ns(F f, int n) {
  for (int i = 0; i < n / 10; ++i) f();  // warm up
  const uint64_t t0 = now_ns();
  for (int i = 0; i < n; ++i) f();
  return static_cast<double>(now_ns() - t0) / n;
}

void run_mode(const char* mode, int n) {
  bool ok = true;
  bool via_interpose = false;
  if (std::strcmp(mode, "interpose") == 0) {
    via_interpose = true;
  } else if (std::strcmp(mode, "seccomp") == 0) {
    ok = install_sigsys() && install_seccomp();
  } else if (std::strcmp(mode, "sud") == 0 || std::strcmp(mode, "sud-masked") == 0) {
    ok = install_sigsys() && install_sud();
    g_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
    if (std::strcmp(mode, "sud-masked") == 0) {
      // A thread that blocks every signal (a common worker-thread habit) still traps:
      // the kernel forces SIGSYS through (force_sig_info unblocks it).
      sigset_t all;
      sigfillset(&all);
      sigprocmask(SIG_BLOCK, &all, nullptr);
    }
  } else if (std::strcmp(mode, "sud-incl") == 0) {
    ok = install_sigsys() &&
         prctl(PR_SET_SYSCALL_USER_DISPATCH, PR_SYS_DISPATCH_INCLUSIVE_ON, g_exe_start,
               g_exe_end - g_exe_start, &g_selector) == 0;
    g_selector = SYSCALL_DISPATCH_FILTER_BLOCK;
  }
  if (!ok) {
    std::printf("%-10s unavailable: %s\n", mode, std::strerror(errno));
    return;
  }
  const double futex_ns =
      via_interpose ? per_call_ns([] { interposed_syscall(SYS_futex, &g_word, FUTEX_WAKE_PRIVATE, 1); }, n)
                    : per_call_ns([] { raw_futex_wake(&g_word); }, n);
  const double libc_ns = per_call_ns([] { getppid(); }, n);
  const long check = raw_futex_wake(&g_word);  // the result must still be right: 0 woken
  g_selector = SYSCALL_DISPATCH_FILTER_ALLOW;
  std::printf("%-10s futex %8.1f ns/call   getppid via libc %7.1f ns/call   "
              "seen by handler %llu   result %ld\n",
              mode, futex_ns, libc_ns, static_cast<unsigned long long>(g_trapped.load()), check);
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 200000;
  dl_iterate_phdr(find_text, nullptr);
  if (g_libc_start == 0) {
    std::fprintf(stderr, "libc's text segment not found\n");
    return 1;
  }
  for (const char* mode : {"direct", "interpose", "seccomp", "sud", "sud-masked", "sud-incl"}) {
    std::fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      run_mode(mode, n);
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status)) std::printf("%-10s child died (status %d)\n", mode, status);
  }
  return 0;
}
