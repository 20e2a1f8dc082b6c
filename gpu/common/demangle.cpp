#include "gpu/common/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace cprof::gpu {

std::string demangle_kernel_name(const std::string& symbol) {
  std::string name = symbol;
  if (name.size() > 3 && name.compare(name.size() - 3, 3, ".kd") == 0) name.resize(name.size() - 3);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out != nullptr ? std::string(out.get()) : name;
}

}  // namespace cprof::gpu
