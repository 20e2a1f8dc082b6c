#include "symbolize/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <utility>

#include "symbolize/rust_legacy_names.h"

#ifdef CPROF_HAVE_LLVM_DEMANGLE
#include <llvm/Demangle/Demangle.h>
#endif

namespace cprof::symbolize {
namespace {

using Owned = std::unique_ptr<char, decltype(&std::free)>;

std::string cxa(const char* name) {
  int status = 0;
  Owned out(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  if (status != 0 || !out) return {};
  return out.get();
}

#ifndef CPROF_HAVE_LLVM_DEMANGLE
// Without libLLVMDemangle: GNU demangling, clone suffix spelled as LLVM does. Mangled
// names never contain '.', so the first one starts the suffix.
std::string llvm_like(const char* name) {
  if (const char* dot = std::strchr(name, '.')) {
    std::string out = cxa(std::string(name, dot).c_str());
    return out.empty() ? std::string(name) : out + " (" + dot + ")";
  }
  std::string out = cxa(name);
  return out.empty() ? std::string(name) : out;
}
#endif

}  // namespace

bool have_llvm_demangler() {
#ifdef CPROF_HAVE_LLVM_DEMANGLE
  return true;
#else
  return false;
#endif
}

std::string demangle(const char* name, DemangleStyle style) {
  if (name == nullptr) return {};
  if (auto rust = rust_legacy_name(name)) return std::move(*rust);
#ifdef CPROF_HAVE_LLVM_DEMANGLE
  if (std::strncmp(name, "_R", 2) == 0) {  // Rust's v0 mangling
    int status = 0;
    Owned out(llvm::rustDemangle(name, nullptr, nullptr, &status), &std::free);
    return status == 0 && out ? std::string(out.get()) : std::string(name);
  }
#endif
  if (std::strncmp(name, "_Z", 2) != 0) return name;
  if (style == DemangleStyle::gnu) {
    std::string out = cxa(name);
    return out.empty() ? std::string(name) : out;
  }
#ifdef CPROF_HAVE_LLVM_DEMANGLE
  int status = 0;
  Owned out(llvm::itaniumDemangle(name, nullptr, nullptr, &status), &std::free);
  if (status != 0 || !out) return name;
  return out.get();
#else
  return llvm_like(name);
#endif
}

}  // namespace cprof::symbolize
