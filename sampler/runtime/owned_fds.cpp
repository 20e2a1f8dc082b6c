#include "sampler/runtime/owned_fds.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "format/writer.h"

namespace cprof::sampler {
namespace {

// The process's table: the preloaded runtime's (cprof_owned_fds_v1, fd_interpose.cpp)
// where one is loaded, else this library's own. Chosen when the library loads, before any
// other constructor of it runs (priority 101: the first an application may use).
OwnedFdTable g_local;
OwnedFdTable* g_table = &g_local;

__attribute__((constructor(101))) void find_process_table() {
  if (void* shared = dlsym(RTLD_DEFAULT, "cprof_owned_fds_v1")) {
    g_table = static_cast<OwnedFdTable*>(shared);
  }
}

bool tracked(int fd) { return fd >= 0 && fd < kTrackedFds; }
std::atomic<uint32_t>& ticket_of(int fd) { return g_table->tickets[fd]; }

uint32_t new_ticket() {
  uint32_t t = 0;
  while (t == 0) t = g_table->next_ticket.fetch_add(1, std::memory_order_relaxed) + 1;
  return t;
}

// Whether descriptors a and b share one open file description: kcmp(2), or where that
// is refused (seccomp, a kernel without it) the same file by device and inode.
bool same_description(int a, int b) {
  const pid_t self = ::getpid();
  const long rc = ::syscall(SYS_kcmp, self, self, KCMP_FILE, a, b);
  if (rc >= 0) return rc == 0;
  struct stat sa {};
  struct stat sb {};
  return ::fstat(a, &sa) == 0 && ::fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

bool release(OwnedFd owned) {
  if (!tracked(owned.fd) || owned.ticket == 0) return false;
  uint32_t expected = owned.ticket;
  return ticket_of(owned.fd).compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
}

}  // namespace

OwnedFd own_fd(int fd) noexcept {
  if (!tracked(fd)) return {fd, 0};
  const uint32_t ticket = new_ticket();
  ticket_of(fd).store(ticket, std::memory_order_release);
  return {fd, ticket};
}

bool owns(OwnedFd owned) noexcept {
  return tracked(owned.fd) && owned.ticket != 0 &&
         ticket_of(owned.fd).load(std::memory_order_acquire) == owned.ticket;
}

bool is_owned_fd(int fd) noexcept {
  return tracked(fd) && ticket_of(fd).load(std::memory_order_acquire) != 0;
}

uint32_t disown_fd(int fd) noexcept {
  return tracked(fd) ? ticket_of(fd).exchange(0, std::memory_order_acq_rel) : 0;
}

void reown_fd(int fd, uint32_t ticket) noexcept {
  if (!tracked(fd) || ticket == 0) return;
  uint32_t none = 0;
  ticket_of(fd).compare_exchange_strong(none, ticket, std::memory_order_acq_rel);
}

int close_fd_raw(int fd) noexcept {
  const int saved = errno;
  const int rc = static_cast<int>(::syscall(SYS_close, fd));
  errno = saved;
  return rc;
}

void close_owned(OwnedFd owned) noexcept {
  if (release(owned)) close_fd_raw(owned.fd);
}

int owned_fd_floor() noexcept {
  constexpr rlim_t kHighest = 4096;  // 3072 at most: a 24 KiB descriptor table
  rlimit limit{};
  rlim_t soft = kHighest;
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    // Room above the soft limit (the hard one is higher): the runtime's descriptors go
    // there, and the program keeps every number its limit gives it.
    if (limit.rlim_cur < kHighest && limit.rlim_max > limit.rlim_cur) {
      return static_cast<int>(limit.rlim_cur);
    }
    soft = std::min(limit.rlim_cur, kHighest);
  }
  return static_cast<int>(soft / 4 * 3);
}

bool descriptor_limit_is_tight() noexcept {
  rlimit limit{};
  return ::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
         limit.rlim_cur <= 1024 && limit.rlim_max <= limit.rlim_cur;
}

namespace {

// F_DUPFD to the first free number at or above `floor`. F_DUPFD takes no number at or
// above the soft RLIMIT_NOFILE: where `floor` is there, the soft limit is raised (within
// the hard one) for that one call and put back at once.
int dup_at_or_above(int fd, int floor) noexcept {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<rlim_t>(floor) >= limit.rlim_cur && limit.rlim_max > limit.rlim_cur) {
    rlimit raised = limit;
    raised.rlim_cur = std::min<rlim_t>(limit.rlim_max, static_cast<rlim_t>(floor) + 256);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) {
      const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, floor);
      const int saved = errno;
      ::setrlimit(RLIMIT_NOFILE, &limit);
      errno = saved;
      return moved;
    }
  }
  return ::fcntl(fd, F_DUPFD_CLOEXEC, floor);
}

}  // namespace

OwnedFd adopt_fd(int fd) noexcept {
  if (fd < 0) return {fd, 0};
  const int saved = errno;
  const OwnedFd original = own_fd(fd);  // from here the program's dup2 onto it is seen
  const int floor = owned_fd_floor();
  OwnedFd kept = original;
  // The program may dup2 onto the number F_DUPFD just chose before it is owned: then the
  // number is the program's, and another is chosen.
  for (int attempt = 0; attempt < 4 && fd < floor && kept.fd == fd; ++attempt) {
    const int moved = dup_at_or_above(fd, floor);
    if (!tracked(moved)) {
      if (moved >= 0) close_fd_raw(moved);
      break;
    }
    const OwnedFd candidate = own_fd(moved);
    if (!owns(original)) {  // the program's dup2 took the original meanwhile
      release(candidate);   // and may hold this number too: leave it open
      break;
    }
    if (same_description(fd, moved)) {
      kept = candidate;
    } else {
      release(candidate);
    }
  }
  if (kept.fd != fd) {
    close_owned(original);  // unless the program took the number
  } else if (!owns(original)) {
    errno = EBADF;  // the program's dup2 replaced it: the description is gone
    return {-1, 0};
  }
  errno = saved;
  return kept;
}

int next_owned_fd(unsigned from, unsigned last) noexcept {
  const unsigned end = std::min<unsigned>(last, kTrackedFds - 1);
  for (unsigned fd = from; fd <= end; ++fd) {
    if (ticket_of(static_cast<int>(fd)).load(std::memory_order_acquire) != 0) {
      return static_cast<int>(fd);
    }
  }
  return -1;
}

OwnedFd open_owned(const char* path, int flags, unsigned mode) noexcept {
  return own_fd(::open(path, flags | O_CLOEXEC, static_cast<mode_t>(mode)));
}

OwnedFile fopen_owned(const char* path) noexcept {
  std::FILE* f = std::fopen(path, "re");
  if (f == nullptr) return {};
  return {f, own_fd(::fileno(f)).ticket};
}

void fclose_owned(OwnedFile f) noexcept {
  if (f.file == nullptr) return;
  release({::fileno(f.file), f.ticket});
  std::fclose(f.file);
}

namespace {

int keeper_adopt(int fd, uint32_t* ticket) {
  const OwnedFd owned = adopt_fd(fd);
  *ticket = owned.ticket;
  return owned.fd;
}
bool keeper_owns(int fd, uint32_t ticket) { return owns({fd, ticket}); }
void keeper_release(int fd, uint32_t ticket) { close_owned({fd, ticket}); }

}  // namespace

format::DescriptorKeeper owned_descriptor_keeper() noexcept {
  return {keeper_adopt, keeper_owns, keeper_release};
}

}  // namespace cprof::sampler
