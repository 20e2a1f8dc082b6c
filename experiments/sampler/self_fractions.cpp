// Self-time fractions per function from a sample-run results directory, for
// experiments/sampler/fidelity.sh:
//   cprof-self-fractions DIR
// For every sample, the innermost frame (frames[0], the interrupted PC, taken as is) is
// mapped to its module (ModuleRecord start..end of the same file), turned into an ELF
// address (runtime address - load bias) and named with symbolize/'s Symbolizer, without
// inline expansion (the real function, as perf's --sort sym names it). Prints
//   samples total=N unknown=U
//   self function=NAME samples=K fraction=F        (most samples first)
// Fractions are of all samples of all processes and threads (sample counts; every sample
// of a run stands for the same period).

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "format/reader.h"
#include "symbolize/symbolizer.h"

namespace f = cprof::format;
namespace sym = cprof::symbolize;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s RESULTS_DIR\n", argv[0]);
    return 1;
  }
  struct Module {
    f::ModuleRecord rec;
    std::vector<uint64_t> addresses;  // ELF addresses of samples' innermost frames
  };
  std::vector<Module> modules;  // across all files
  unsigned long long total = 0, unknown = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(argv[1], ec)) {
    if (entry.path().extension() != ".cprof") continue;
    const size_t first = modules.size();  // module records of this file start here
    try {
      f::read_results_file(entry.path(), [&](f::Record&& r) {
        if (auto* m = std::get_if<f::ModuleRecord>(&r)) {
          modules.push_back(Module{std::move(*m), {}});
        } else if (const auto* s = std::get_if<f::SampleRecord>(&r)) {
          if (s->frames.empty()) return;
          ++total;
          const uint64_t pc = s->frames[0];
          for (size_t i = first; i < modules.size(); ++i) {
            if (pc >= modules[i].rec.start && pc < modules[i].rec.end) {
              modules[i].addresses.push_back(pc - modules[i].rec.load_bias);
              return;
            }
          }
          ++unknown;
        }
      });
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  if (ec) {
    std::fprintf(stderr, "%s: %s\n", argv[1], ec.message().c_str());
    return 2;
  }
  sym::Options options;
  options.inlines = false;
  sym::Symbolizer symbolizer(options);
  std::map<std::string, unsigned long long> counts;
  for (const auto& m : modules) {
    if (m.addresses.empty()) continue;
    const sym::ModuleRef ref{m.rec.path, m.rec.build_id};
    const auto symbols = symbolizer.symbolize(ref, m.addresses);
    for (const auto& s : symbols) {
      if (s.frames.empty()) {
        ++counts["[unknown in " + std::filesystem::path(m.rec.path).filename().string() + "]"];
      } else {
        ++counts[s.frames.back().function];
      }
    }
  }
  if (unknown != 0) counts["[no module]"] += unknown;
  std::vector<std::pair<std::string, unsigned long long>> rows(counts.begin(), counts.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::printf("samples total=%llu unknown=%llu\n", total, unknown);
  for (const auto& [name, n] : rows) {
    std::printf("self function=%s samples=%llu fraction=%.6f\n", name.c_str(), n,
                total ? static_cast<double>(n) / static_cast<double>(total) : 0.0);
  }
  return 0;
}
