#pragma once
// The file descriptors the runtime holds inside the profiled program, kept out of the
// program's way (docs/sampler.md, "Descriptors").
//
// A program may close every descriptor it did not open (daemons, servers after fork,
// `closefrom(3)`, a loop over /proc/self/fd) and then open files of its own, which get the
// lowest free numbers: without care, the runtime's results file or perf_event descriptor
// is closed under it, and the next write goes into the program's own file. So:
//   - long-lived descriptors move to the top of the program's range (adopt_fd), away
//     from the low numbers a program opens or names in dup2();
//   - every runtime descriptor is owned under a ticket, and the interposed close(),
//     close_range(), closefrom() leave owned descriptors open, answering as for a
//     descriptor that is not open (EBADF) where they close just that one
//     (fd_interpose.cpp);
//   - dup2()/dup3() onto an owned number gives it to the program: the ownership ends,
//     and the holder sees it (owns() is false) before it reads or writes. The ticket
//     tells a holder's descriptor from a later one the runtime opened at the same number.
//
// Signal-safety: everything but open_owned/fopen_owned/fclose_owned is async-signal-safe
// (atomics on a static table, fcntl(2), getrlimit(2), kcmp(2), close(2)). Descriptors at
// or above kTrackedFds are not tracked (never owned); adopt_fd keeps below it.
//
// One table per process: the runtime exports it (cprof_owned_fds_v1), and a tools library
// loaded beside it (the GPU hooks) owns its descriptors in that same table, which the
// runtime's interposers consult.

#include <atomic>
#include <cstdint>
#include <cstdio>

namespace cprof::format {
struct DescriptorKeeper;  // format/writer.h
}  // namespace cprof::format

namespace cprof::sampler {

inline constexpr int kTrackedFds = 1 << 16;

// The process's table (cprof_owned_fds_v1): per descriptor number, the ticket it is owned
// under, 0 when the runtime does not own it. 256 KiB of zero pages, touched only near the
// numbers in use.
struct OwnedFdTable {
  std::atomic<uint32_t> next_ticket;
  std::atomic<uint32_t> tickets[kTrackedFds];
};

// A descriptor as its holder knows it.
struct OwnedFd {
  int fd = -1;
  uint32_t ticket = 0;
};

// Owns `fd` where it is (short-lived descriptors). Ignores -1.
OwnedFd own_fd(int fd) noexcept;
// Moves a freshly opened `fd` to the first free number at or above owned_fd_floor(),
// closes the old number and owns the new one; where it cannot move (the range is full),
// owns `fd` where it is. -1 stays -1; so does a descriptor the program replaced (dup2)
// while it moved (errno EBADF). The descriptor keeps FD_CLOEXEC.
OwnedFd adopt_fd(int fd) noexcept;
// Whether the holder of `owned` still owns it: neither closed by the runtime nor taken
// by the program's dup2 since.
bool owns(OwnedFd owned) noexcept;
// Whether the runtime owns number `fd` at all (the interposers' question).
bool is_owned_fd(int fd) noexcept;
// Ends whatever ownership `fd` is under, without closing it; returns its ticket (0: none).
uint32_t disown_fd(int fd) noexcept;
// Gives `fd` back the ownership disown_fd ended (the program's dup2 failed), unless it
// has been owned again since.
void reown_fd(int fd, uint32_t ticket) noexcept;
// Closes the descriptor if its holder still owns it (a number the program took, or that
// now holds another runtime descriptor, is left alone).
void close_owned(OwnedFd owned) noexcept;
// The first number adopt_fd tries: the soft RLIMIT_NOFILE itself where the hard limit is
// higher (above every number the program can open: adopt_fd raises the soft limit for
// the one fcntl call that moves a descriptor there), else three quarters of the way to
// it; at most 3072 (so the kernel's descriptor table stays small).
int owned_fd_floor() noexcept;

// Whether the soft RLIMIT_NOFILE is small (at most 1024) with no room above it (the hard
// limit is no higher): every descriptor the runtime kept would take one of the program's
// numbers, so it keeps only its results file (runtime.cpp: timer sampling, not one
// perf_event descriptor per thread; the /proc files opened for each reading).
bool descriptor_limit_is_tight() noexcept;

// The lowest owned descriptor in [from, last], or -1: close_range() steps around them.
int next_owned_fd(unsigned from, unsigned last) noexcept;

// The keeper a results writer inside the program uses (adopt_fd, owns, close_owned).
format::DescriptorKeeper owned_descriptor_keeper() noexcept;

// Short-lived descriptors (a /proc file read now and then), owned while open so that the
// program cannot close one under the runtime and get its number for a file of its own.
// Not for signal handlers (fopen).
struct OwnedFile {
  std::FILE* file = nullptr;
  uint32_t ticket = 0;
};
OwnedFd open_owned(const char* path, int flags, unsigned mode = 0) noexcept;
OwnedFile fopen_owned(const char* path) noexcept;  // read-only, close-on-exec
void fclose_owned(OwnedFile f) noexcept;

// The raw close(2), bypassing the interposed close(): for the runtime's own descriptors.
int close_fd_raw(int fd) noexcept;

}  // namespace cprof::sampler
