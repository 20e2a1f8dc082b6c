#pragma once
// The vDSO has no file: a program's samples in clock_gettime() or gettimeofday() fall in
// "[vdso]", which the symbolizer cannot open. The report usually runs on the host the
// results came from, and then its own vDSO is the same image (the kernel's; the module's
// build id says whether it is). host_vdso_file() copies the report's own vDSO into an
// unlinked temporary file, once, and names it through /proc/self/fd, so the symbolizer
// reads it as any module file and checks its build id against the one the runtime
// recorded: results from another kernel get a build-id mismatch, not wrong names.

#include <optional>
#include <string>

namespace cprof::report {

inline constexpr const char* kVdsoPath = "[vdso]";

// A path to a copy of this process's vDSO image, or nullopt when there is none (no
// AT_SYSINFO_EHDR, no temporary file). Thread-safe; the copy lives until the report exits.
std::optional<std::string> host_vdso_file();

}  // namespace cprof::report
