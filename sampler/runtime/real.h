#pragma once
// The next definition (RTLD_NEXT) of every function the runtimes interpose or must call
// past their own interposers, declared once, as Coz's libcoz/real.h: cprof::real::
// nanosleep() is what `nanosleep` names after this library, libc's, whichever runtime
// (libcprof-sampler.so or libcprof-causal.so) calls it. And the one export macro.
//
// Every entry is looked up at load (a constructor of this file, before the others of the
// library: dlsym is not async-signal-safe and a handler may reach an entry first); an
// entry not found there (null) is looked up again at its first call. A call is one atomic
// load: async-signal-safe.
//
// OpenMP's entry points (openmp_interpose.cpp) are not here: they live in a runtime the
// program may load later, which RTLD_NEXT does not see, and are found by a search of
// their own (openmp_waits.h, next_openmp_definition).

#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <cstddef>

// What the runtimes export: the interposed functions (each library's exports.map lists them).
#define CPROF_EXPORT extern "C" __attribute__((visibility("default")))

// X(name): a function a system header declares, of its declared type.
// clang-format off
#define CPROF_REAL_DECLARED(X)                                                                   \
  X(pthread_create) X(pthread_join) X(pthread_timedjoin_np) X(pthread_setname_np)                \
  X(pthread_kill) X(pthread_sigmask) X(sigprocmask) X(sigaction) X(signal)                       \
  X(pthread_mutex_lock) X(pthread_mutex_trylock) X(pthread_mutex_timedlock)                      \
  X(pthread_mutex_unlock) X(pthread_cond_wait) X(pthread_cond_timedwait)                         \
  X(pthread_cond_clockwait) X(pthread_cond_signal) X(pthread_cond_broadcast)                     \
  X(pthread_barrier_wait) X(pthread_rwlock_rdlock) X(pthread_rwlock_wrlock)                      \
  X(pthread_rwlock_tryrdlock) X(pthread_rwlock_trywrlock) X(pthread_rwlock_timedrdlock)          \
  X(pthread_rwlock_timedwrlock) X(pthread_rwlock_unlock) X(pthread_spin_lock)                    \
  X(pthread_spin_trylock) X(pthread_spin_unlock) X(sem_wait) X(sem_trywait) X(sem_timedwait)      \
  X(sem_clockwait) X(sem_post) X(sigwait)                                                        \
  X(sigwaitinfo) X(sigtimedwait) X(sigsuspend) X(pause) X(nanosleep) X(clock_nanosleep)          \
  X(usleep) X(sleep) X(read) X(poll) X(ppoll) X(select) X(pselect) X(epoll_wait)                 \
  X(epoll_pwait) X(syscall) X(close) X(close_range) X(dup2) X(dup3) X(dlopen) X(dlclose)         \
  X(execve) X(execvpe) X(fexecve) X(execveat)
// clang-format on

// X(accessor, symbol, type): a function no header declares as such (the fortified
// checks), or whose name is reserved as an identifier.
#define CPROF_REAL_TYPED(X)                                                                       \
  X(poll_chk, "__poll_chk", int (*)(pollfd*, nfds_t, int, size_t))                                \
  X(ppoll_chk, "__ppoll_chk", int (*)(pollfd*, nfds_t, const timespec*, const sigset_t*, size_t)) \
  X(exit_now, "_exit", void (*)(int))                                                             \
  X(Exit_now, "_Exit", void (*)(int))                                                             \
  /* OpenMP's tool entry (omp-tools.h): the program's own, before the causal runtime's */         \
  X(ompt_start_tool, "ompt_start_tool", void* (*)(unsigned, const char*))

namespace cprof::real {

// The RTLD_NEXT lookup behind every entry: `cache` once found, else dlsym (not in a
// signal handler). A plain pointer read and written atomically (std::atomic of a
// function pointer type would drop its attributes, nonnull and the like).
template <typename Fn>
Fn next_definition(Fn& cache, const char* name) {
  Fn fn = __atomic_load_n(&cache, __ATOMIC_ACQUIRE);
  if (fn == nullptr) {
    fn = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
    __atomic_store_n(&cache, fn, __ATOMIC_RELEASE);
  }
  return fn;
}

#define CPROF_DECLARE_REAL(name) decltype(&::name) name();
CPROF_REAL_DECLARED(CPROF_DECLARE_REAL)
#undef CPROF_DECLARE_REAL
#define CPROF_DECLARE_REAL_TYPED(accessor, symbol, ...) auto accessor()->__VA_ARGS__;
CPROF_REAL_TYPED(CPROF_DECLARE_REAL_TYPED)
#undef CPROF_DECLARE_REAL_TYPED

// Looks every entry up (the constructor calls it; again is harmless).
void resolve_all();

}  // namespace cprof::real
