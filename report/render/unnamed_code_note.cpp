#include "report/render/unnamed_code_note.h"

#include <fmt/format.h>

#include <cmath>

namespace cprof::report {

std::string unnamed_code_note(const ProcessProfile& p, const UnnamedCode& u) {
  if (!u.flagged) return {};
  const std::string head =
      fmt::format("note: {}: {:.0f}% of the samples ({}) ran in code outside every mapped file",
                  p.label(), std::floor(100 * u.share), u.samples);
  if (!p.jit_symbols.empty()) {
    return head + fmt::format("; JIT-compiled code that its perf map does not name ({})"
                              "; was the map written for all of the code?",
                              p.jit_map.string());
  }
  return head +
         "; JIT-compiled code? No perf map names it"
         "; node --perf-basic-prof and python3.12 -X perf write one"
         "; so does java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit (JDK 17 on)"
         "; sample-run keeps it with the results";
}

}  // namespace cprof::report
