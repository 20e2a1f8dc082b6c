#include "sampler/runtime/jit_map.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

#include "sampler/runtime/owned_fds.h"

namespace cprof::sampler {

std::string jit_map_path_for(const std::string& results_path) {
  const size_t slash = results_path.rfind('/');
  const size_t dot = results_path.rfind('.');
  const bool has_extension = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  return (has_extension ? results_path.substr(0, dot) : results_path) + ".perf-map";
}

bool copy_jit_map(int pid, const std::string& results_path) {
  char source[64];
  std::snprintf(source, sizeof source, "/tmp/perf-%d.map", pid);
  return copy_jit_map_from(source, results_path);
}

bool copy_jit_map_from(const std::string& source, const std::string& results_path) {
  // /tmp is anyone's: only a regular file of this process's user is its map (a FIFO
  // planted under the name would block the exit path, a link could copy another file).
  const OwnedFd in = open_owned(source.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
  if (in.fd < 0) return true;  // no JIT map: nothing to keep
  struct stat st {};
  if (::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) {
    close_owned(in);
    return false;
  }
  // A copy past the file size limit would raise SIGXFSZ in the program.
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      static_cast<uint64_t>(st.st_size) > limit.rlim_cur) {
    close_owned(in);
    return false;
  }
  // A new file only, never through a link: the name beside the results file is the
  // results directory's, which another user may be able to write (writer.cpp).
  const OwnedFd out = open_owned(jit_map_path_for(results_path).c_str(),
                                 O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
  bool ok = out.fd >= 0;
  char buf[65536];
  while (ok) {
    const ssize_t n = ::read(in.fd, buf, sizeof buf);
    if (n == 0) break;
    ok = n > 0 && ::write(out.fd, buf, static_cast<size_t>(n)) == n;
  }
  close_owned(in);
  close_owned(out);
  return ok;
}

}  // namespace cprof::sampler
