#pragma once
// Rust's legacy symbol mangling, made readable. rustc (by default, through at least 1.95)
// mangles a path as an Itanium nested name whose last part is a hash:
//   _ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h5f3e7ffaba5bd164E
// with '$..$' escapes for the characters Itanium names cannot hold and ".." for "::".
// A C++ demangler reads it as std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$::h5f3e…,
// which is what llvm-symbolizer prints; a profile wants std::rt::lang_start::{{closure}}.
// The hash is left out (it tells crate versions apart, which a profile row does not need),
// as perf and rustc-demangle's alternate form do.

#include <optional>
#include <string>
#include <string_view>

namespace cprof::symbolize {

// The readable path of a legacy Rust symbol ("_ZN...17h<16 hex digits>E", optionally
// followed by a ".llvm.NNN"-style suffix, which is dropped); nullopt for anything else,
// C++ names included (one without the hash, or with an escape Rust does not write).
std::optional<std::string> rust_legacy_name(std::string_view mangled);

}  // namespace cprof::symbolize
