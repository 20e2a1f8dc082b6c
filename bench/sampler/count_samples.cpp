// Counts what a sample-run results directory holds, for the benchmark scripts:
//   cprof-bench-samples DIR
// prints one line:
//   samples=N weight_s=W dropped=D truncated=T mean_frames=F threads=K files=M engine=E unwinder=U
// samples: sample records; weight_s: the time they stand for (sum of weight_ns); dropped: ThreadEnd dropped_samples (could not be stored);
// mean_frames: average recorded stack depth (frames[0] = interrupted PC).

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <variant>

#include "format/reader.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s RESULTS_DIR\n", argv[0]);
    return 1;
  }
  namespace fs = std::filesystem;
  namespace f = cprof::format;
  unsigned long long weight_ns = 0;
  unsigned long long samples = 0, dropped = 0, truncated = 0, frames = 0, threads = 0, files = 0;
  std::set<std::string> engines, unwinders;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(argv[1], ec)) {
    if (entry.path().extension() != ".cprof") continue;
    ++files;
    try {
      const auto summary = f::read_results_file(entry.path(), [&](f::Record&& r) {
        if (const auto* s = std::get_if<f::SampleRecord>(&r)) {
          ++samples;
          weight_ns += s->weight_ns;
          frames += s->frames.size();
          truncated += s->truncated ? 1 : 0;
        } else if (const auto* e = std::get_if<f::ThreadEndRecord>(&r)) {
          dropped += e->dropped_samples;
        } else if (std::holds_alternative<f::ThreadRecord>(r)) {
          ++threads;
        } else if (const auto* p = std::get_if<f::ProcessRecord>(&r)) {
          engines.insert(p->engine);
          unwinders.insert(p->unwinder);
        }
      });
      for (const auto& issue : summary.issues) {
        std::fprintf(stderr, "%s: offset %llu: %s\n", entry.path().c_str(),
                     static_cast<unsigned long long>(issue.offset), issue.message.c_str());
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 2;
    }
  }
  if (ec) {
    std::fprintf(stderr, "%s: %s\n", argv[1], ec.message().c_str());
    return 2;
  }
  auto join = [](const std::set<std::string>& s) {
    std::string out;
    for (const auto& v : s) out += (out.empty() ? "" : ",") + v;
    return out.empty() ? std::string("-") : out;
  };
  std::printf(
      "samples=%llu weight_s=%.4f dropped=%llu truncated=%llu mean_frames=%.2f threads=%llu "
      "files=%llu engine=%s unwinder=%s\n",
      samples, static_cast<double>(weight_ns) * 1e-9, dropped, truncated, samples ? static_cast<double>(frames) / samples : 0.0, threads,
      files, join(engines).c_str(), join(unwinders).c_str());
  return 0;
}
