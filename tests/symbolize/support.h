#pragma once
// Helpers for the symbolize/ tests: where the fixture binaries are, the marked lines of
// the fixture source, symbol addresses (nm) and llvm-symbolizer as an oracle.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symbolize/types.h"

namespace cprof::symbolize::test {

// OUT/KIND/prog (or libprog.so) built by build_fixtures.sh; empty if that kind was not
// built (e.g. no clang on this machine).
std::string fixture(const std::string& kind, const std::string& file = "prog");
std::string fixture_dir();
std::string fixture_source();  // absolute path of fixtures/prog.cpp

// Line number of the line holding "MARK:name" in the fixture source (or a header).
uint32_t mark_line(const std::string& name, const std::string& file = "prog.cpp");

// Output of a shell command (stdout), and its exit status.
std::string shell(const std::string& command, int* status = nullptr);

// Address of a symbol in the ELF symbol table (via nm); nullopt when absent.
std::optional<uint64_t> symbol_address(const std::string& binary, const std::string& name);

// [start, end) of .text.
std::pair<uint64_t, uint64_t> text_range(const std::string& binary);

// llvm-symbolizer --inlining --functions=linkage --demangle, one Symbol per address.
std::vector<Symbol> llvm_symbolize(const std::string& binary, const std::vector<uint64_t>& addrs);
bool have_llvm_symbolizer();

// Frames as "function @ file:line" lines, for readable test failures.
std::string describe(const Symbol& sym);

// Whether path ends with "/" + suffix (or equals it).
bool ends_with_path(const std::string& path, const std::string& suffix);

}  // namespace cprof::symbolize::test
