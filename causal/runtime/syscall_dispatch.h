#pragma once
// Syscall User Dispatch (Linux 5.11+) for the futex calls libraries make with inline
// `syscall` instructions, which no interposer sees (libgomp; docs/causal.md, "Blocking
// that bypasses pthread"). When such a library is loaded (at start or by dlopen) every
// program thread turns dispatch on for itself: inclusive mode on the library's text
// (Linux 6.16+, only its system calls trap), else exclusive mode with libc's text allowed
// (every system call from outside libc traps). A trapped call raises SIGSYS; the handler
// redoes it through libc's syscall() with the futex delay rules (real_calls.h) and puts
// the result in the interrupted context's rax. The selector byte, shared by all threads,
// says BLOCK only while an experiment runs, its 0% baselines included (they must pay the
// same trap costs as the experiments they are compared with, or the predictions would
// be biased by them); between experiments, and in runs without any, a libgomp system
// call costs the kernel one byte read.
//
// SIGSYS stays ours while dispatch is on (signal_interpose.cpp): a thread with dispatch on
// may not block it (the kernel would kill the process at the next trap), the program's
// own SIGSYS action is kept aside and run for SIGSYS not raised by dispatch.
//
// Threads: the thread that turns it on, then new threads (pthread_create trampoline,
// thread_started), then the threads that already exist (a SIGSYS request queued to each
// registered thread; one that blocks SIGSYS stays off until it unblocks it). After fork
// the child's thread turns it on again (fork_child). Nothing survives exec (the kernel
// clears it). The runtime's own threads never turn it on.
//
// Signal-safety contract: the SIGSYS handler, thread_on(), active(), set_trapping() and
// program_action() are async-signal-safe; the rest is for normal context.

#include <signal.h>

#include <cstdint>
#include <string>

namespace cprof::causal::dispatch {

enum class Mode : uint8_t { off, inclusive, exclusive };

// Reads CPROF_CAUSAL_DISPATCH (auto, inclusive, exclusive, off) and
// CPROF_CAUSAL_DISPATCH_TRAP (experiments, delays: only experiments above 0%, always)
// once.
void configure_from_environment();

// At start (once the sampling runtime registers threads) and after each dlopen: when a
// library with inline futex calls is loaded and dispatch is not on yet, turns it on in
// every thread. Returns a warning to record when the library is there but dispatch
// cannot cover it (kernel before 5.11, a second library in inclusive mode, disabled),
// once per library; "" otherwise.
std::string refresh();
// On a new program thread, before it runs its start routine.
void thread_started();
// In a forked child, on the forking thread (the only one left).
void fork_child();

// BLOCK (trap the library's system calls) or ALLOW, per CPROF_CAUSAL_DISPATCH_TRAP: one
// store. The controller calls it when an experiment begins and ends.
void set_trapping(bool experiment_running, bool delays_inserted);

bool active();     // dispatch is on (SIGSYS is ours)
bool thread_on();  // on in the calling thread
Mode mode();
// "inclusive mode on /usr/lib/.../libgomp.so.1" and the like, for messages.
std::string describe();

// The program's own SIGSYS action (what it installed, or what was there before dispatch).
void program_action(struct sigaction* out);
void set_program_action(const struct sigaction& action);

}  // namespace cprof::causal::dispatch
