#include "sampler/runtime/jit_map.h"

#include <fcntl.h>
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
  const OwnedFd in = open_owned(source, O_RDONLY);
  if (in.fd < 0) return true;  // no JIT map: nothing to keep
  const OwnedFd out = open_owned(jit_map_path_for(results_path).c_str(),
                                  O_WRONLY | O_CREAT | O_TRUNC, 0644);
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
