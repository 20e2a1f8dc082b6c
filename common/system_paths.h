#pragma once
// What belongs to the system rather than to the program: source files of system headers
// and of the C and C++ libraries, and the modules of installed libraries. causal-run's
// default source scope leaves the first out; the report's view of waits finds the call a
// program made into a library by the second. Header-only: each part uses it.

#include <algorithm>
#include <iterator>
#include <string_view>

namespace cprof {

// A system header or library source: /usr/include, /usr/lib (the compiler's own
// headers), /usr/local/include, /usr/src, and the relative paths glibc and libstdc++ are
// built with ("../sysdeps/...").
inline bool is_system_source(std::string_view file) {
  static constexpr std::string_view kPrefixes[] = {
      "/usr/include/", "/usr/lib/", "/usr/local/include/", "/usr/src/", "../", "<built-in>"};
  return file.empty() || std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                                     [&](std::string_view p) { return file.starts_with(p); });
}

// A library the system installed (the dynamic linker, libc, libstdc++, libgomp, an MPI
// library: /lib, /lib64, /usr/lib, /usr/lib64, /usr/local/lib), the vDSO, or this
// profiler's own preloaded libraries (libcprof-*, whose interposers stand for the calls
// they wrap). A program's executable never is, wherever it is installed.
inline bool is_system_library(std::string_view module) {
  static constexpr std::string_view kPrefixes[] = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/",
                                                   "/usr/local/lib/"};
  if (module == "[vdso]" || module.starts_with("linux-vdso")) return true;
  std::string_view name = module;
  if (const auto slash = name.rfind('/'); slash != std::string_view::npos)
    name.remove_prefix(slash + 1);
  if (name.starts_with("libcprof")) return true;
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [&](std::string_view p) { return module.starts_with(p); });
}

}  // namespace cprof
