#pragma once
// JIT symbol maps in perf's format ("/tmp/perf-PID.map": one "START SIZE NAME" line per
// compiled function, hex without 0x), written by runtimes that compile code at run time
// when asked (node --perf-basic-prof, python3.12 -X perf, java -XX:+DumpPerfMapAtExit). The
// sampler copies its process's map next to its results file at exit (X.perf-map for
// X.cprof, docs/sampler.md); the report names samples in anonymous JIT memory from it.

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace cprof::report {

struct JitSymbol {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  std::string name;
};

// The symbols of a perf map, sorted by start and disjoint: where code was compiled again
// over an old range (a runtime reuses its code space), the later line wins over the part
// of the earlier one it covers. Malformed lines are skipped. A perf map carries no times,
// so a sample taken there while the earlier function lived in it is named for the later
// one: `reused`, when given, counts the lines that covered part of an earlier line of
// another name (the same name again is the same function compiled anew), for the report
// to say so.
std::vector<JitSymbol> parse_perf_map(std::istream& in, uint64_t* reused = nullptr);

// The symbol holding `address` in `symbols` (as parse_perf_map returns them), or null.
const JitSymbol* find_jit_symbol(const std::vector<JitSymbol>& symbols, uint64_t address);

}  // namespace cprof::report
