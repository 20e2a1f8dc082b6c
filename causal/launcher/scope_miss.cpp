#include "causal/launcher/scope_miss.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <variant>

#include "causal/runtime/settings.h"
#include "format/records.h"

namespace cprof::causal {
namespace {

std::string file_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The profiler's own runtime libraries (libcprof-sample.so, libcprof-causal.so, ...).
bool is_profiler_module(const std::string& path) {
  return file_name(path).rfind("libcprof-", 0) == 0;
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

SampleModuleCounter::SampleModuleCounter(BinaryScope scope) : scope_(std::move(scope)) {}

void SampleModuleCounter::add(const format::Record& r) {
  if (const auto* p = std::get_if<format::ProcessRecord>(&r)) {
    end_file();  // a file starts with its process record
    open_ = true;
    executable_ = p->executable;
    gpu_hooks_ = format::is_gpu_engine(p->engine);
  } else if (const auto* m = std::get_if<format::ModuleRecord>(&r)) {
    modules_.push_back(ModuleRange{m->start, m->end, m->path});
  } else if (const auto* s = std::get_if<format::SampleRecord>(&r)) {
    if (!s->frames.empty()) stacks_.push_back(s->frames);
  } else if (const auto* msg = std::get_if<format::MessageRecord>(&r)) {
    none_in_scope_ |= msg->text.rfind(kNoSampleInScopeMessage, 0) == 0;
  }
}

// The file read so far: its samples by the module of their PC (at its end, since a module
// record may follow samples in it), and those with a frame in scope.
void SampleModuleCounter::end_file() {
  if (open_ && !gpu_hooks_) {
    out_.processes_without_scope_samples += none_in_scope_ ? 1 : 0;
    std::error_code ec;
    const auto canonical_exe = std::filesystem::weakly_canonical(executable_, ec);
    // Per module, once: whether it is the executable (paths compared as written, then
    // canonically) and whether the scope includes it.
    std::vector<bool> main(modules_.size(), false);
    std::vector<bool> in_scope(modules_.size(), false);
    for (size_t i = 0; i < modules_.size(); ++i) {
      if (is_profiler_module(modules_[i].path)) continue;
      std::error_code ec2;
      main[i] = modules_[i].path == executable_ ||
                (!ec && std::filesystem::weakly_canonical(modules_[i].path, ec2) == canonical_exe);
      in_scope[i] = main[i] ? scope_.includes_main() : scope_.includes_library(modules_[i].path);
    }
    const auto module_of = [&](uint64_t pc) {
      const auto m = std::find_if(modules_.begin(), modules_.end(),
                                  [&](const ModuleRange& r) { return pc >= r.start && pc < r.end; });
      return m == modules_.end() ? modules_.size() : static_cast<size_t>(m - modules_.begin());
    };
    for (const auto& frames : stacks_) {
      ++out_.samples;
      if (const size_t m = module_of(frames[0]);
          m < modules_.size() && !is_profiler_module(modules_[m].path)) {
        ++counts_[{modules_[m].path, main[m]}];
      }
      const bool any = std::any_of(frames.begin(), frames.end(), [&](uint64_t pc) {
        const size_t m = module_of(pc);
        return m < modules_.size() && in_scope[m];
      });
      out_.samples_in_scope += any ? 1 : 0;
    }
  }
  open_ = false;
  gpu_hooks_ = false;
  none_in_scope_ = false;
  executable_.clear();
  modules_.clear();
  stacks_.clear();
}

SampleModules SampleModuleCounter::finish() {
  end_file();
  SampleModules out = out_;
  for (const auto& [key, n] : counts_) out.modules.push_back(ModuleSamples{key.first, n, key.second});
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
