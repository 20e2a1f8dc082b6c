#include "sampler/runtime/jit_map.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>

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
  const int in = ::open(source, O_RDONLY | O_CLOEXEC);
  if (in < 0) return true;  // no JIT map: nothing to keep
  const int out = ::open(jit_map_path_for(results_path).c_str(),
                         O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = out >= 0;
  char buf[65536];
  while (ok) {
    const ssize_t n = ::read(in, buf, sizeof buf);
    if (n == 0) break;
    ok = n > 0 && ::write(out, buf, static_cast<size_t>(n)) == n;
  }
  ::close(in);
  if (out >= 0) ::close(out);
  return ok;
}

}  // namespace cprof::sampler
