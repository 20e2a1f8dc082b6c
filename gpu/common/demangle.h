#pragma once
// Kernel symbol -> readable name, for every GPU runtime (HSA code objects, CUDA's
// CUPTI records both give the mangled symbol).

#include <string>

namespace cprof::gpu {

// "_Z6squarePfi.kd" -> "square(float*, int)". Strips the ".kd" descriptor suffix of HSA
// code object v3+; returns the input when it is not a mangled C++ name.
std::string demangle_kernel_name(const std::string& symbol);

}  // namespace cprof::gpu
