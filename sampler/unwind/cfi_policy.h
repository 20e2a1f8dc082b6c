#pragma once
// When the sampling runtime parses a module's CfiTable: rent or buy (docs/unwinding.md,
// "When tables are parsed").
//
// Until a module has a table, every walk that reaches it hands the rest of its stack to
// libunwind, which costs more per sample than a table walk (the rent). Parsing the
// module's .eh_frame costs once, in proportion to its size (the price). The ski-rental
// rule: keep renting until the rent paid so far reaches the price, then buy. Whatever
// the process does afterwards, rent + price stays within twice what the better choice in
// hindsight (never parse, or parse at the first sample) would have cost; a short-lived
// process (a compiler's cc1: 35 samples, a 2.4 MB .eh_frame) never parses, a long one
// parses the modules its samples keep entering.
//
// Pure functions of counts and sizes; async-signal-safe (nothing here is called from a
// handler, but nothing would stop it).

#include <cstdint>

namespace cprof::sampler {

// The constants, measured with bench/unwind/unwind_bench on the 2-core development VM, CPU
// time (docs/benchmarks.md, "CFI tables: rent or buy", has the runs and how to repeat them).
//
// The rent: extra CPU of a libunwind walk over a table walk, per hand-off and per frame
// libunwind unwinds. BM_Libunwind_Context minus BM_Dwarf_Context: 923 / 941 ns at depth
// 10 (22 frames), 2651 / 2223 ns at depth 50 (62 frames), two runs; the line through
// their means is 104 ns + 37.6 ns per frame. That is libunwind with a warm rule cache; a
// cold one (BM_Libunwind_ColdContext: a PC the thread never unwound through) costs 20x
// more, so while a process is young the rule rents longer than ideal, never buys sooner.
inline constexpr double kCfiHandOffExtraNs = 100;
inline constexpr double kCfiFrameExtraNs = 38;
// The price: build_cfi_table() CPU per byte of .eh_frame (BM_BuildCfiTable: 8.3-13.4 ns
// for the system's libraries of 8-200 KB, 13.2-13.6 ns for 2.2 MB ones (libclang, libz3;
// cc1's is 2.4 MB), 18 ns for libLLVM's 5 MB; perf's profile of the make workload gave
// cc1 ~17 ns/byte including the page faults on its .eh_frame).
inline constexpr double kCfiBuildNsPerByte = 14;

// What the walks that found no table in a module have cost so far.
struct CfiRent {
  uint64_t handoffs = 0;  // walks that handed off to libunwind at this module
  uint64_t frames = 0;    // frames libunwind unwound in those walks
};

constexpr double cfi_rent_ns(CfiRent r) noexcept {
  return kCfiHandOffExtraNs * static_cast<double>(r.handoffs) +
         kCfiFrameExtraNs * static_cast<double>(r.frames);
}

constexpr double cfi_build_ns(uint64_t eh_frame_bytes) noexcept {
  return kCfiBuildNsPerByte * static_cast<double>(eh_frame_bytes);
}

// True once a module's table has paid for itself: the rent so far reaches its price.
// A module with no .eh_frame to parse (0 bytes) is "built" at its first hand-off, for
// nothing (build_cfi_table returns at once).
constexpr bool cfi_table_pays_off(CfiRent rent, uint64_t eh_frame_bytes) noexcept {
  return rent.handoffs > 0 && cfi_rent_ns(rent) >= cfi_build_ns(eh_frame_bytes);
}

}  // namespace cprof::sampler
