#include "report/render/unnamed_code_note.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

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

std::string unnamed_module_note(const UnnamedModule& m) {
  const double share = m.self.time_ns == 0 ? 0
                                           : static_cast<double>(m.unnamed.time_ns) /
                                                 static_cast<double>(m.self.time_ns);
  const std::string head =
      fmt::format("note: {}: {:.0f}% of its samples ({}) are in functions its symbols do not name",
                  std::filesystem::path(m.module).filename().string(), std::floor(100 * share),
                  m.unnamed.samples);
  if (!m.debug_package.empty()) {
    return head + fmt::format(
                      "; Debian's {0} names them (apt-get install {0} from the debian-debug "
                      "archive: wiki.debian.org/AutomaticDebugPackages), as does a "
                      "debuginfod server (DEBUGINFOD_URLS=https://debuginfod.debian.net) "
                      "without installing anything",
                      m.debug_package);
  }
  return head + fmt::format(
                    "; no package lists {}, so its debug file must come from its build: "
                    "causal-report --debug-dir DIR, a debuginfod server in DEBUGINFOD_URLS, "
                    "or a build with -g",
                    m.module);
}

}  // namespace cprof::report
