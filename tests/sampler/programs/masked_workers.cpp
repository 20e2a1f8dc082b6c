// Worker threads that block every signal, as xz's do: the main thread blocks all signals
// before creating them, so they inherit that mask. Each checks that the mask it reads back
// is the one it was given, and the main thread checks sigprocmask's view as it restores its
// mask. The sampler must sample them all the same, and leave their view of the mask alone.
// With "exec", it then blocks every signal again and execs itself ("child"), which checks
// that it started with that mask.
//   masked_workers [exec]
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "spin.h"

namespace {

// Whether `mask` blocks every signal a program can block (glibc reserves 32 and 33, and
// never blocks them).
bool blocks_everything(const sigset_t& mask) {
  for (int sig = 1; sig <= SIGRTMAX; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP || sig == 32 || sig == 33) continue;
    if (sigismember(&mask, sig) != 1) return false;
  }
  return true;
}

bool blocks_nothing(const sigset_t& mask) {
  for (int sig = 1; sig <= SIGRTMAX; ++sig) {
    if (sigismember(&mask, sig) == 1) return false;
  }
  return true;
}

}  // namespace

extern "C" __attribute__((noinline)) void masked_work() { SPIN_FOR_MS(300); }

static void* worker(void*) {
  sigset_t mine;
  pthread_sigmask(SIG_BLOCK, nullptr, &mine);
  std::printf("worker mask %s\n", blocks_everything(mine) ? "as set" : "differs");
  masked_work();
  return nullptr;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "child") == 0) {
    sigset_t mine;
    pthread_sigmask(SIG_BLOCK, nullptr, &mine);
    std::printf("exec'd image mask %s\n", blocks_everything(mine) ? "as set" : "differs");
    return 0;
  }
  sigset_t all;
  sigset_t before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  std::printf("mask before %s\n", blocks_nothing(before) ? "empty" : "not empty");
  pthread_t a;
  pthread_t b;
  pthread_create(&a, nullptr, worker, nullptr);
  pthread_create(&b, nullptr, worker, nullptr);
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  sigset_t old;
  sigprocmask(SIG_SETMASK, &before, &old);
  sigset_t now;
  sigprocmask(SIG_BLOCK, nullptr, &now);
  std::printf("main mask %s, restored %s\n", blocks_everything(old) ? "as set" : "differs",
              blocks_nothing(now) ? "empty" : "not empty");
  if (argc > 1 && std::strcmp(argv[1], "exec") == 0) {
    std::fflush(stdout);
    pthread_sigmask(SIG_SETMASK, &all, nullptr);
    char* args[] = {argv[0], const_cast<char*>("child"), nullptr};
    execv("/proc/self/exe", args);
    return 20;
  }
  return 0;
}
