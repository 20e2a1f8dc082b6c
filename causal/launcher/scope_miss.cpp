#include "causal/launcher/scope_miss.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <variant>

#include "causal/runtime/settings.h"
#include "format/reader.h"

namespace cprof::causal {
namespace {

struct ModuleRange {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string path;
};

std::string file_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The profiler's own runtime libraries (libcprof-sample.so, libcprof-causal.so, ...).
bool is_profiler_module(const std::string& path) {
  return file_name(path).rfind("libcprof-", 0) == 0;
}

// Counts one file's samples into `where` and `counts` (keyed by path and whether it is
// the executable).
void count_file(const std::filesystem::path& file, const BinaryScope& scope,
                std::map<std::pair<std::string, bool>, uint64_t>& counts, SampleModules& where) {
  std::string executable;
  bool gpu_hooks = false;
  bool none_in_scope = false;
  std::vector<ModuleRange> modules;
  std::vector<uint64_t> pcs;
  std::vector<std::vector<uint64_t>> stacks;
  format::read_results_file(file, [&](format::Record&& r) {
    if (const auto* p = std::get_if<format::ProcessRecord>(&r)) {
      executable = p->executable;
      gpu_hooks = format::is_gpu_engine(p->engine);
    } else if (const auto* m = std::get_if<format::ModuleRecord>(&r)) {
      modules.push_back(ModuleRange{m->start, m->end, m->path});
    } else if (const auto* s = std::get_if<format::SampleRecord>(&r)) {
      if (!s->frames.empty()) {
        pcs.push_back(s->frames[0]);
        stacks.push_back(s->frames);
      }
    } else if (const auto* msg = std::get_if<format::MessageRecord>(&r)) {
      none_in_scope |= msg->text.rfind(kNoSampleInScopeMessage, 0) == 0;
    }
  });
  if (gpu_hooks) return;
  where.processes_without_scope_samples += none_in_scope ? 1 : 0;
  // Per module, once: its samples, and whether it is the executable (paths compared as
  // written, then canonically).
  std::vector<uint64_t> per_module(modules.size(), 0);
  for (const uint64_t pc : pcs) {
    ++where.samples;
    const auto m = std::find_if(modules.begin(), modules.end(),
                                [&](const ModuleRange& r) { return pc >= r.start && pc < r.end; });
    if (m != modules.end()) ++per_module[static_cast<size_t>(m - modules.begin())];
  }
  std::error_code ec;
  const auto canonical_exe = std::filesystem::weakly_canonical(executable, ec);
  const auto is_main = [&](const std::string& path) {
    std::error_code ec2;
    return path == executable ||
           (!ec && std::filesystem::weakly_canonical(path, ec2) == canonical_exe);
  };
  std::vector<bool> in_scope(modules.size(), false);
  for (size_t i = 0; i < modules.size(); ++i) {
    if (is_profiler_module(modules[i].path)) continue;
    const bool main = is_main(modules[i].path);
    in_scope[i] = main ? scope.includes_main() : scope.includes_library(modules[i].path);
    if (per_module[i] > 0) counts[{modules[i].path, main}] += per_module[i];
  }
  for (const auto& frames : stacks) {
    const bool any = std::any_of(frames.begin(), frames.end(), [&](uint64_t pc) {
      const auto m = std::find_if(modules.begin(), modules.end(),
                                  [&](const ModuleRange& r) { return pc >= r.start && pc < r.end; });
      return m != modules.end() && in_scope[static_cast<size_t>(m - modules.begin())];
    });
    where.samples_in_scope += any ? 1 : 0;
  }
}

// The busiest module outside the scope, or nullptr.
const ModuleSamples* busiest_outside(const SampleModules& where, const BinaryScope& scope) {
  const auto outside = std::find_if(where.modules.begin(), where.modules.end(), [&](const ModuleSamples& m) {
    return m.main_executable ? !scope.includes_main() : !scope.includes_library(m.path);
  });
  return outside == where.modules.end() ? nullptr : &*outside;
}

// "P% of them ran in PATH: add OPTION to select code there (it needs debug information)".
std::string where_they_ran(const SampleModules& where, const ModuleSamples& outside) {
  const double share = 100.0 * static_cast<double>(outside.samples) / static_cast<double>(where.samples);
  const std::string option = outside.main_executable
                                 ? "--binary-scope MAIN"
                                 : fmt::format("--binary-scope '%{}%'", file_name(outside.path));
  return fmt::format("{:.0f}% of them ran in {}: add {} to select code there (it needs debug "
                     "information)",
                     share, outside.path, option);
}

std::string scope_text(const BinaryScope& scope) {
  return fmt::format("--binary-scope {}", fmt::join(scope.patterns(), ","));
}

}  // namespace

SampleModules count_sample_modules(const std::vector<std::filesystem::path>& files,
                                   const BinaryScope& scope) {
  std::map<std::pair<std::string, bool>, uint64_t> counts;
  SampleModules out;
  for (const auto& f : files) {
    try {
      count_file(f, scope, counts, out);
    } catch (const std::exception&) {
      // unreadable: the run summary says so
    }
  }
  for (const auto& [key, n] : counts) {
    out.modules.push_back(ModuleSamples{key.first, n, key.second});
  }
  std::stable_sort(out.modules.begin(), out.modules.end(),
                   [](const ModuleSamples& a, const ModuleSamples& b) { return a.samples > b.samples; });
  return out;
}

std::string scope_miss_hint(const SampleModules& where, const BinaryScope& scope) {
  if (where.processes_without_scope_samples == 0 || where.samples == 0) return "";
  const ModuleSamples* outside = busiest_outside(where, scope);
  if (outside == nullptr) {
    return fmt::format("no sample had a frame in the code it may select ({}, and --source-scope): "
                       "see causal-report for where they ran",
                       scope_text(scope));
  }
  return fmt::format("no sample had a frame in the code it may select ({}); {}", scope_text(scope),
                     where_they_ran(where, *outside));
}

std::string scarce_scope_note(const SampleModules& where, const BinaryScope& scope) {
  constexpr uint64_t kEnoughSamples = 100;
  if (where.processes_without_scope_samples > 0 || where.samples < kEnoughSamples ||
      where.samples_in_scope * 100 >= where.samples) {
    return "";
  }
  const ModuleSamples* outside = busiest_outside(where, scope);
  if (outside == nullptr) return "";
  return fmt::format("only {} of {} samples had a frame in the code it may select ({}), so its "
                     "experiments measure code that hardly runs; {}",
                     where.samples_in_scope, where.samples, scope_text(scope),
                     where_they_ran(where, *outside));
}

}  // namespace cprof::causal
