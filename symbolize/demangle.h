#pragma once
// C++ name demangling in either of the two common spellings (see DemangleStyle).

#include <string>

#include "symbolize/types.h"

namespace cprof::symbolize {

// Demangles an Itanium C++ name ("_Z..."); anything else comes back unchanged, and so
// does a name the demangler rejects (llvm-symbolizer then prints it mangled too).
//  - llvm: llvm::itaniumDemangle, exactly as llvm-symbolizer 14 does;
//  - gnu: abi::__cxa_demangle, clone suffixes as "foo(int) [clone .cold]".
std::string demangle(const char* name, DemangleStyle style = DemangleStyle::llvm);

}  // namespace cprof::symbolize
