#pragma once
// C++ name demangling, in the spelling llvm-symbolizer uses, so that our output compares
// one to one with it.

#include <string>

namespace cprof::symbolize {

// Demangles an Itanium C++ name with abi::__cxa_demangle. A compiler clone suffix
// ("_Z3fooi.cold", ".constprop.0", ".isra.0") is written as llvm-symbolizer writes it:
// "foo(int) (.cold)" (GNU tools write "foo(int) [clone .cold]"). Names that are not
// mangled, or fail to demangle, come back unchanged.
std::string demangle(const char* name);

}  // namespace cprof::symbolize
