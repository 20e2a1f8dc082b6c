#include "tests/support/results_loader.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>

#include "symbolize/symbolizer.h"

namespace cprof::testing {

size_t LoadedProcess::self_samples(const std::string& function) const {
  size_t n = 0;
  for (const auto& s : samples) {
    if (!s.functions.empty() && s.functions.front().find(function) != std::string::npos) ++n;
  }
  return n;
}

size_t LoadedProcess::total_samples(const std::string& function) const {
  size_t n = 0;
  for (const auto& s : samples) {
    for (const auto& f : s.functions) {
      if (f.find(function) != std::string::npos) {
        ++n;
        break;
      }
    }
  }
  return n;
}

uint64_t LoadedProcess::total_time_ns(const std::string& function,
                                      std::optional<format::SampleClock> clock) const {
  uint64_t sum = 0;
  for (const auto& s : samples) {
    if (clock && s.clock != *clock) continue;
    for (const auto& f : s.functions) {
      if (f.find(function) != std::string::npos) {
        sum += s.weight_ns;
        break;
      }
    }
  }
  return sum;
}

namespace {

const format::ModuleRecord* module_for(const std::vector<format::ModuleRecord>& modules,
                                       uint64_t address) {
  const format::ModuleRecord* found = nullptr;
  for (const auto& m : modules) {
    if (address >= m.start && address < m.end) found = &m;  // the latest load wins
  }
  return found;
}

void name_frames(LoadedProcess& p, const std::vector<format::SampleRecord>& raw,
                 symbolize::Symbolizer& symbolizer) {
  for (const auto& s : raw) {
    NamedSample named;
    named.tid = s.tid;
    named.clock = s.clock;
    named.weight_ns = s.weight_ns;
    named.counter_deltas = s.counter_deltas;
    for (size_t i = 0; i < s.frames.size(); ++i) {
      const uint64_t pc = i == 0 ? s.frames[i] : s.frames[i] - 1;
      const auto* m = module_for(p.modules, pc);
      if (m == nullptr) {
        named.functions.emplace_back("?");
        continue;
      }
      const uint64_t elf = pc - m->load_bias;
      const auto result = symbolizer.symbolize({m->path, m->build_id}, std::span(&elf, 1));
      if (result.empty() || result[0].frames.empty()) {
        named.functions.emplace_back("?");
        continue;
      }
      // Inline chain innermost first, as the stack is.
      for (const auto& f : result[0].frames) named.functions.push_back(f.function);
    }
    p.samples.push_back(std::move(named));
  }
}

}  // namespace

std::vector<LoadedProcess> load_results(const std::string& dir) {
  std::vector<LoadedProcess> out;
  symbolize::Symbolizer symbolizer;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".cprof") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    LoadedProcess p;
    p.file = path.string();
    std::vector<format::SampleRecord> raw;
    p.summary = format::read_results_file(path, [&](format::Record&& r) {
      std::visit(
          [&](auto&& rec) {
            using T = std::decay_t<decltype(rec)>;
            if constexpr (std::is_same_v<T, format::ProcessRecord>) p.process = rec;
            if constexpr (std::is_same_v<T, format::ModuleRecord>) p.modules.push_back(rec);
            if constexpr (std::is_same_v<T, format::ThreadRecord>) p.threads.push_back(rec);
            if constexpr (std::is_same_v<T, format::ThreadEndRecord>) p.thread_ends.push_back(rec);
            if constexpr (std::is_same_v<T, format::ThreadNameRecord>) {
              p.thread_names.push_back(rec);
              for (auto& t : p.threads) {
                if (t.tid == rec.tid) t.name = rec.name;
              }
            }
            if constexpr (std::is_same_v<T, format::EventRecord>) p.events.push_back(rec);
            if constexpr (std::is_same_v<T, format::MetricRecord>) p.metrics.push_back(rec);
            if constexpr (std::is_same_v<T, format::MessageRecord>) p.messages.push_back(rec);
            if constexpr (std::is_same_v<T, format::SampleRecord>) raw.push_back(std::move(rec));
          },
          std::move(r));
    });
    name_frames(p, raw, symbolizer);
    out.push_back(std::move(p));
  }
  return out;
}

int run_command(const std::string& command, std::string& output) {
  output.clear();
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) output.append(buf.data(), n);
  const int status = ::pclose(pipe);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string fresh_directory(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir = std::filesystem::path(base != nullptr ? base : "/tmp") /
                              ("cprof-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace cprof::testing
