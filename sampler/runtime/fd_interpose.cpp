// The descriptor calls the runtime interposes so that a program closing "every other
// descriptor" leaves the runtime's own open (owned_fds.h): close(), close_range(),
// closefrom(), dup2(), dup3(). Each forwards to the next definition (RTLD_NEXT) with the
// same arguments, result and errno, except on an owned descriptor:
//   - close(owned) fails with EBADF, as for a descriptor that is not open; the runtime's
//     descriptors are the runtime's, and a program has no business with them;
//   - close_range()/closefrom() close the same range less the owned descriptors;
//   - dup2()/dup3() onto an owned number proceed: the program named that number, so the
//     runtime gives it up (disown_fd) before the call replaces it.
// close() is async-signal-safe here as in libc: the next definitions are looked up when
// the library loads, not in the call.

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>

#include "sampler/runtime/owned_fds.h"
#include "sampler/runtime/real.h"

namespace {

namespace sampler = cprof::sampler;
int forward_close_range(unsigned first, unsigned last, int flags) {
  if (const auto fn = cprof::real::close_range()) return fn(first, last, flags);
  return static_cast<int>(::syscall(SYS_close_range, first, last, flags));
}

// close_range(first, last, flags) less the owned descriptors: the gaps between them.
int close_range_around_owned(unsigned first, unsigned last, int flags) {
  unsigned from = first;
  while (from <= last) {
    const int owned = sampler::next_owned_fd(from, last);
    if (owned < 0) return forward_close_range(from, last, flags);
    const auto at = static_cast<unsigned>(owned);
    if (at > from) {
      if (const int rc = forward_close_range(from, at - 1, flags); rc != 0) return rc;
    }
    from = at + 1;  // owned numbers are below kTrackedFds: no wrap-around
  }
  return 0;
}

// closefrom() on a kernel without close_range (before 5.9): close each descriptor that
// /proc/self/fd lists, as glibc's own fallback does.
void close_listed_from(int lowfd) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  const int dir_fd = ::dirfd(dir);
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd < lowfd || fd == dir_fd || fd > INT_MAX) continue;
    if (!sampler::is_owned_fd(static_cast<int>(fd))) {
      cprof::real::close()(static_cast<int>(fd));
    }
  }
  ::closedir(dir);
}

}  // namespace

// The process's table of owned descriptors, which every copy of owned_fds.cpp (this
// runtime's, a GPU tools library's) finds by this name.
extern "C" {
__attribute__((visibility("default"))) sampler::OwnedFdTable cprof_owned_fds_v1;
}

CPROF_EXPORT int close(int fd) {
  if (sampler::is_owned_fd(fd)) {
    errno = EBADF;
    return -1;
  }
  const auto fn = cprof::real::close();
  return fn != nullptr ? fn(fd) : static_cast<int>(::syscall(SYS_close, fd));
}

CPROF_EXPORT int close_range(unsigned first, unsigned last, int flags) {
  if (first > last) return forward_close_range(first, last, flags);  // its EINVAL
  return close_range_around_owned(first, last, flags);
}

CPROF_EXPORT void closefrom(int lowfd) {
  const unsigned first = lowfd < 0 ? 0U : static_cast<unsigned>(lowfd);
  const int saved = errno;
  if (close_range_around_owned(first, UINT_MAX, 0) != 0 && errno == ENOSYS) {
    close_listed_from(static_cast<int>(first));
  }
  errno = saved;  // closefrom() returns nothing and leaves errno alone
}

namespace {

// Disowned before the call, so that no runtime write reaches the program's descriptor
// once it holds the number, and again after it, for a number the runtime chose for a
// descriptor of its own in between (adopt_fd on another thread); owned again if the call
// failed and left it as it was.
template <typename Call>
int replacing(int oldfd, int newfd, Call call) {
  const uint32_t ticket = oldfd != newfd ? sampler::disown_fd(newfd) : 0;
  const int rc = call();
  if (rc < 0) sampler::reown_fd(newfd, ticket);
  if (rc >= 0 && oldfd != newfd) sampler::disown_fd(newfd);
  return rc;
}

}  // namespace

CPROF_EXPORT int dup2(int oldfd, int newfd) {
  return replacing(oldfd, newfd, [&] { return cprof::real::dup2()(oldfd, newfd); });
}

CPROF_EXPORT int dup3(int oldfd, int newfd, int flags) {
  return replacing(oldfd, newfd, [&] { return cprof::real::dup3()(oldfd, newfd, flags); });
}
