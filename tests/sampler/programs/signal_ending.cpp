// Ends by a signal whose default action terminates it, or shows what it sees of those
// signals' actions (sampler/runtime/terminating_signals.h). MODE:
//   term   burns 400 ms of CPU, then sends itself SIGTERM
//   pipe   burns 300 ms, then writes into a pipe whose reading end is closed (SIGPIPE)
//   view   prints the actions it finds, sets and gets back, and runs its own SIGINT
//          handler: the same lines with or without a profiler
//   count  counts the SIGINTs it gets in 2 s (its handler takes 20 ms, so a second
//          one that arrives meanwhile is counted too) and prints "got N SIGINT"
//   resethand  sets a SIGTERM handler with SA_RESETHAND that prints "tidied" and raises
//          SIGTERM again (node's way), burns 400 ms, then sends itself SIGTERM
//   exit   burns 400 ms, then ends with _exit(3): no atexit handlers, no destructors
//   quick_exit  sets an at_quick_exit handler that prints "handler ran", burns 400 ms,
//          then calls quick_exit(4)
//   child_exit  forks a child that burns 300 ms and ends with _exit(0); waits for it
//   segv   burns 400 ms, then writes through a null pointer
//   gp_fault  burns 400 ms, then writes through a non-canonical pointer (x86-64: a general
//          protection fault, SIGSEGV with si_code SI_KERNEL)
//   abort  burns 400 ms, then calls abort()
//   abort_handler  sets a SIGABRT handler that prints "handler ran" and returns, raises
//          SIGABRT (the handler returns and the program goes on), burns 400 ms, then
//          calls abort(), which runs the handler and, when it returns, ends the process
//   throw  burns 400 ms, then throws an exception nothing catches (std::terminate)
//   thread_segv  a second thread burns 400 ms and faults while the first waits to join it
//   segv_reset  sets a SIGSEGV handler that puts the default back and returns (Rust's
//          stack-overflow handler, for a fault it does not own), burns 400 ms, faults
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "spin.h"

namespace {

__attribute__((noinline)) void burn_before_signal(int ms) { SPIN_FOR_MS(ms); }

volatile sig_atomic_t g_handled = 0;
void own_handler(int) { g_handled = 1; }

volatile sig_atomic_t g_interrupts = 0;
void counting_handler(int) {
  g_interrupts = g_interrupts + 1;
  const timespec slow{0, 20000000};
  nanosleep(&slow, nullptr);
}

void count() {
  signal(SIGINT, counting_handler);
  for (int i = 0; i < 200; ++i) {
    const timespec tick{0, 10000000};
    nanosleep(&tick, nullptr);
  }
  std::printf("got %d SIGINT\n", static_cast<int>(g_interrupts));
}

void tidy_and_raise_again(int sig, siginfo_t* /*info*/, void* /*context*/) {
  (void)!write(STDOUT_FILENO, "tidied\n", 7);
  raise(sig);  // the kernel reset the action to the default: this one ends the process
}

__attribute__((noinline)) void fault() {
  volatile int* volatile nowhere = nullptr;
  *nowhere = 1;
}

__attribute__((noinline)) void general_protection_fault() {
  volatile int* volatile noncanonical = reinterpret_cast<int*>(0x8000000000000000ull);
  *noncanonical = 1;
}

void* burn_and_fault(void*) {
  burn_before_signal(400);
  fault();
  return nullptr;
}

void put_default_back(int sig) { signal(sig, SIG_DFL); }

void say_and_return(int) { (void)!write(STDOUT_FILENO, "handler ran\n", 12); }

// A handler that recovers from a fault, as probes of memory and managed runtimes do.
sigjmp_buf g_probe;
void leave_fault(int /*sig*/) { siglongjmp(g_probe, 1); }

int faults_recovered(int tries) {
  struct sigaction probe {};
  probe.sa_handler = leave_fault;
  sigemptyset(&probe.sa_mask);
  struct sigaction before {};
  sigaction(SIGSEGV, &probe, &before);
  int recovered = 0;
  for (int i = 0; i < tries; ++i) {
    if (sigsetjmp(g_probe, 1) == 0) {
      fault();
    } else {
      ++recovered;
    }
  }
  sigaction(SIGSEGV, &before, nullptr);
  return recovered;
}

const char* describe(sighandler_t h) {
  if (h == SIG_DFL) return "default";
  if (h == SIG_IGN) return "ignore";
  if (h == own_handler) return "own";
  return "other";
}

void view() {
  for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGALRM, SIGUSR1, SIGQUIT, SIGABRT,
                        SIGSEGV, SIGBUS, SIGFPE}) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    std::printf("SIG%s at start: %s\n", sigabbrev_np(sig),
                (old.sa_flags & SA_SIGINFO) != 0 ? "siginfo" : describe(old.sa_handler));
  }
  std::printf("signal(SIGINT, own) returned %s\n", describe(signal(SIGINT, own_handler)));
  raise(SIGINT);
  std::printf("own handler ran: %d\n", static_cast<int>(g_handled));
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  struct sigaction old {};
  sigaction(SIGINT, &dfl, &old);
  std::printf("sigaction(SIGINT, default) returned %s\n", describe(old.sa_handler));
  std::printf("signal(SIGPIPE, ignore) returned %s\n", describe(signal(SIGPIPE, SIG_IGN)));
  std::printf("signal(SIGPIPE, default) returned %s\n", describe(signal(SIGPIPE, SIG_DFL)));
  sigaction(SIGINT, nullptr, &old);
  std::printf("SIGINT now: %s\n", describe(old.sa_handler));
  std::printf("signal(SIGABRT, own) returned %s\n", describe(signal(SIGABRT, own_handler)));
  sigaction(SIGABRT, nullptr, &old);
  std::printf("SIGABRT now: %s\n", describe(old.sa_handler));
  g_handled = 0;
  raise(SIGABRT);
  std::printf("own SIGABRT handler ran: %d\n", static_cast<int>(g_handled));
  std::printf("signal(SIGABRT, default) returned %s\n", describe(signal(SIGABRT, SIG_DFL)));
  // A one-shot handler: the program's until it has run, the default after.
  struct sigaction once {};
  once.sa_handler = own_handler;
  once.sa_flags = SA_RESETHAND;
  sigemptyset(&once.sa_mask);
  sigaction(SIGHUP, &once, nullptr);
  sigaction(SIGHUP, nullptr, &old);
  std::printf("SIGHUP set once: %s, SA_RESETHAND %s\n", describe(old.sa_handler),
              (old.sa_flags & SA_RESETHAND) != 0 ? "kept" : "lost");
  g_handled = 0;
  raise(SIGHUP);
  std::printf("one-shot handler ran: %d\n", static_cast<int>(g_handled));
  sigaction(SIGHUP, nullptr, &old);
  std::printf("SIGHUP after it ran: %s\n", describe(old.sa_handler));
  std::printf("faults recovered by its own handler: %d of 3\n", faults_recovered(3));
  sigaction(SIGSEGV, nullptr, &old);
  std::printf("SIGSEGV after it: %s\n", describe(old.sa_handler));
}

}  // namespace

// NOLINTNEXTLINE(bugprone-exception-escape): "throw" leaves one uncaught on purpose
int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "term") {
    burn_before_signal(400);
    kill(getpid(), SIGTERM);
  } else if (mode == "pipe") {
    int fds[2];
    if (pipe(fds) != 0) return 3;
    close(fds[0]);
    burn_before_signal(300);
    (void)!write(fds[1], "x", 1);
  } else if (mode == "resethand") {
    struct sigaction once {};
    once.sa_sigaction = tidy_and_raise_again;
    once.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&once.sa_mask);
    sigaction(SIGTERM, &once, nullptr);
    burn_before_signal(400);
    kill(getpid(), SIGTERM);
  } else if (mode == "exit") {
    burn_before_signal(400);
    _exit(3);
  } else if (mode == "quick_exit") {
    at_quick_exit([] { (void)!write(STDOUT_FILENO, "handler ran\n", 12); });
    burn_before_signal(400);
    std::quick_exit(4);
  } else if (mode == "child_exit") {
    const pid_t child = fork();
    if (child == 0) {
      burn_before_signal(300);
      _exit(0);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) return 4;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
  } else if (mode == "segv") {
    burn_before_signal(400);
    fault();
  } else if (mode == "gp_fault") {
    burn_before_signal(400);
    general_protection_fault();
  } else if (mode == "abort") {
    burn_before_signal(400);
    std::abort();
  } else if (mode == "abort_handler") {
    signal(SIGABRT, say_and_return);
    raise(SIGABRT);
    (void)!write(STDOUT_FILENO, "went on\n", 8);
    burn_before_signal(400);
    std::abort();
  } else if (mode == "throw") {
    burn_before_signal(400);
    throw std::runtime_error("nobody catches this");
  } else if (mode == "thread_segv") {
    pthread_t worker;
    if (pthread_create(&worker, nullptr, burn_and_fault, nullptr) != 0) return 3;
    pthread_join(worker, nullptr);
  } else if (mode == "segv_reset") {
    signal(SIGSEGV, put_default_back);
    burn_before_signal(400);
    fault();
  } else if (mode == "view") {
    view();
    return 0;
  } else if (mode == "count") {
    count();
    return 0;
  }
  std::fprintf(stderr, "signal_ending: still alive after '%s'\n", mode.c_str());
  return 2;
}
