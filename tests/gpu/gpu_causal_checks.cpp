#include "tests/gpu/gpu_causal_checks.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <variant>

#include "format/reader.h"

namespace cprof::testing {

int marked_line(const std::string& source, const std::string& mark) {
  std::ifstream in(source);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.find(mark) != std::string::npos) return n;
  }
  return 0;
}

CausalGpuRun read_causal_gpu_run(const std::string& dir) {
  CausalGpuRun s;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".cprof")) continue;
    if (name.find(".gpu.") != std::string::npos) ++s.gpu_files;
    format::read_results_file(entry.path(), [&](format::Record&& r) {
      if (std::holds_alternative<format::KernelRecord>(r)) ++s.kernels;
      if (auto* e = std::get_if<format::ExperimentRecord>(&r)) {
        ++s.experiments;
        s.selected_samples += e->selected_samples;
      }
      if (auto* m = std::get_if<format::MessageRecord>(&r)) s.messages += m->text + "\n";
    });
  }
  return s;
}

uint64_t number_after(const std::string& text, const std::string& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex(pattern + "([0-9]+)"))) return 0;
  return std::stoull(m[1]);
}

void expect_gpu_waits_not_counted_as_work(const CausalGpuRun& run, uint64_t rounds,
                                          const std::string& output) {
  // Every wait of the main thread was seen.
  const uint64_t waits = number_after(run.messages, "GPU waits seen: ");
  EXPECT_GE(waits, rounds) << run.messages;
  // The program spins inside the waits: its CPU-time samples there are counted apart, not
  // as samples of the selected line (whose every frame is under the wait).
  const uint64_t inside = number_after(run.messages, "blocked; ");
  EXPECT_GE(inside, 50u) << run.messages;
  ASSERT_GE(run.experiments, 1u) << output << run.messages;
  EXPECT_LE(run.selected_samples * 10, inside) << run.messages;
  std::printf("%s%zu experiments, %llu selected samples\n", run.messages.c_str(),
              run.experiments, static_cast<unsigned long long>(run.selected_samples));
}

}  // namespace cprof::testing
