#include "symbolize/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace cprof::symbolize {
namespace {

std::string cxa(const char* name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  if (status != 0 || !out) return {};
  return out.get();
}

}  // namespace

std::string demangle(const char* name) {
  if (name == nullptr) return {};
  if (std::strncmp(name, "_Z", 2) != 0) return name;
  // Mangled names never contain '.', so the first one starts a clone suffix.
  if (const char* dot = std::strchr(name, '.')) {
    std::string base(name, dot);
    std::string out = cxa(base.c_str());
    if (out.empty()) return name;
    return out + " (" + dot + ")";
  }
  std::string out = cxa(name);
  return out.empty() ? std::string(name) : out;
}

}  // namespace cprof::symbolize
