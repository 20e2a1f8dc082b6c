#include "report/symbols/symbol_table.h"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <unordered_map>

#include "report/load/stack_table.h"
#include "report/symbols/host_vdso.h"

namespace cprof::report {
namespace {

constexpr uint32_t kNoModule = ~uint32_t{0};

std::string basename_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The distinct lookup addresses of one process and where each one lives. A return
// address is looked up at address - 1, inside the call instruction, so that the line is
// the call's and not the next statement's.
struct ProcessAddresses {
  std::vector<uint64_t> lookups;       // distinct runtime lookup addresses, first-seen order
  std::vector<uint32_t> module;        // global module id per lookup, kNoModule when unmapped
  std::vector<uint64_t> elf;           // ELF address per lookup
  std::vector<uint32_t> frame_lookup;  // per frame of the stack table: index into lookups
  std::vector<uint32_t> launch_frame_lookup;  // the same for the GPU launch stacks
};

// Adds the frames of one stack table. all_returns: every frame is a return address (GPU
// launch stacks); otherwise frame 0 is an interrupted PC (samples).
void add_stack_addresses(const StackTable& st, bool all_returns, IndexMap& index,
                         std::vector<uint64_t>& lookups, std::vector<uint32_t>& frame_lookup) {
  frame_lookup.resize(st.all_frames().size());
  for (uint32_t s = 0; s < st.size(); ++s) {
    const auto frames = st.frames(s);
    const uint64_t base = st.offset(s);
    for (size_t i = 0; i < frames.size(); ++i) {
      const uint64_t lookup =
          (i == 0 && !all_returns) || frames[i] == 0 ? frames[i] : frames[i] - 1;
      bool inserted = false;
      const uint32_t k =
          index.find_or_insert(lookup, static_cast<uint32_t>(lookups.size()), inserted);
      if (inserted) lookups.push_back(lookup);
      frame_lookup[base + i] = k;
    }
  }
}

// `jit_module`: the global module id of the process's perf map (kNoModule without one).
ProcessAddresses collect_addresses(const ProcessProfile& p, const std::vector<uint32_t>& global_module,
                                   uint32_t jit_module) {
  ProcessAddresses out;
  // One hash probe per frame gives both the distinct addresses and each frame's index.
  IndexMap index;
  add_stack_addresses(p.stacks, false, index, out.lookups, out.frame_lookup);
  add_stack_addresses(p.gpu.launch_stacks, true, index, out.lookups, out.launch_frame_lookup);
  // Modules are sorted by start; max_end[k] (the highest end among modules[0..k]) lets the
  // backward scan stop early. Overlaps (a range reused after dlclose): the latest wins.
  const auto& mods = p.modules;
  std::vector<uint64_t> max_end(mods.size());
  for (size_t k = 0; k < mods.size(); ++k) {
    max_end[k] = std::max(mods[k].end, k ? max_end[k - 1] : 0);
  }
  out.module.resize(out.lookups.size(), kNoModule);
  out.elf.resize(out.lookups.size(), 0);
  for (size_t i = 0; i < out.lookups.size(); ++i) {
    const uint64_t a = out.lookups[i];
    auto k = static_cast<size_t>(
        std::upper_bound(mods.begin(), mods.end(), a,
                         [](uint64_t x, const format::ModuleRecord& m) { return x < m.start; }) -
        mods.begin());
    size_t best = mods.size();
    while (k-- > 0 && max_end[k] > a) {
      if (a < mods[k].end && (best == mods.size() || mods[k].time_ns > mods[best].time_ns)) best = k;
    }
    if (best == mods.size()) {
      // Outside every module: JIT code, named by the runtime's perf map if it wrote one
      // (its "ELF address" is the address itself).
      if (jit_module != kNoModule && find_jit_symbol(p.jit_symbols, a) != nullptr) {
        out.module[i] = jit_module;
        out.elf[i] = a;
      }
      continue;
    }
    out.module[i] = global_module[best];
    out.elf[i] = a - mods[best].load_bias;
  }
  return out;
}

const std::string kNoFile;

class Interner {
 public:
  explicit Interner(SymbolTable& t) : t_(t) {
    // Location 0 and function 0: addresses outside every known module.
    t_.functions.push_back({.name = "[unknown]"});
    declared_.push_back(false);
    t_.lines.push_back({.function = 0});
    t_.location_frames.push_back({0, 0});
    t_.location_offsets.push_back(1);
  }

  // `decl_*`: where the function is defined, when the debug information says (then it
  // is the function's place); else its place is the lowest line seen in its first file.
  FunctionId function(const std::string& module, const std::string& name, const std::string& file,
                      uint32_t line, const std::string& decl_file = kNoFile,
                      uint32_t decl_line = 0) {
    auto [it, inserted] = functions_.try_emplace(module + '\0' + name, t_.functions.size());
    if (inserted) {
      t_.functions.push_back({.name = name, .module = module, .file = file, .line = line});
      declared_.push_back(false);
    }
    auto& f = t_.functions[it->second];
    if (decl_line != 0 && !decl_file.empty()) {
      f.file = decl_file;
      f.line = decl_line;
      declared_[it->second] = true;
    } else if (!inserted && line != 0 && !declared_[it->second]) {
      if (f.file.empty()) f.file = file;
      if (f.file == file && (f.line == 0 || line < f.line)) f.line = line;
    }
    return it->second;
  }

  LineId line(const std::string& file, uint32_t number, FunctionId function) {
    // An address with no line stands alone: its function row's name is its only label.
    std::string key = file.empty() ? '\0' + std::to_string(function) : fmt::format("{}:{}", file, number);
    auto [it, inserted] = lines_.try_emplace(std::move(key), t_.lines.size());
    if (inserted) t_.lines.push_back({.file = file, .line = number, .function = function});
    return it->second;
  }

  void add_location(uint32_t module_index, const ModuleKey& module, uint64_t elf,
                    const ResolvedAddress& r) {
    t_.location_module.push_back(module_index);
    t_.location_address.push_back(elf);
    if (r.frames.empty()) {
      // A function the unwind table bounds is one row, named by where it starts (the
      // reverse engineers' "sub_"); any other address is a row of its own.
      const std::string name =
          r.unnamed_function_start != 0
              ? fmt::format("sub_{:x} ({})", r.unnamed_function_start, basename_of(module.path))
              : fmt::format("{}+{:#x}", basename_of(module.path), elf);
      const FunctionId f = function(module.path, name, "", 0);
      t_.functions[f].named = false;
      t_.location_frames.push_back({f, line("", 0, f)});
    } else {
      for (const auto& frame : r.frames) {
        const std::string name = frame.function.empty()
                                     ? fmt::format("{}+{:#x}", basename_of(module.path), elf)
                                     : frame.function;
        // Line 0 is DWARF's "no source line": its file is only the unit's (for Rust a
        // codegen unit's name, "so.49f5…-cgu.0"), and "FILE:0" would make one line row of
        // every function's unplaced code. Such an address has no line, like one without
        // DWARF.
        const std::string& file = frame.line != 0 ? frame.file : kNoFile;
        const FunctionId f =
            function(module.path, name, file, frame.line, frame.decl_file, frame.decl_line);
        if (frame.function.empty()) t_.functions[f].named = false;
        t_.location_frames.push_back({f, line(file, frame.line, f)});
      }
    }
    t_.location_offsets.push_back(static_cast<uint32_t>(t_.location_frames.size()));
  }

 private:
  SymbolTable& t_;
  std::unordered_map<std::string, FunctionId> functions_;
  std::vector<bool> declared_;  // per function: its place is its declaration's
  std::unordered_map<std::string, LineId> lines_;
};

}  // namespace

std::string SymbolTable::line_label(LineId id) const {
  const auto& l = lines[id];
  if (l.file.empty()) return functions[l.function].name;
  return fmt::format("{}:{}", l.file, l.line);
}

SymbolizedProfiles symbolize_profiles(const std::vector<ProcessProfile>& processes,
                                      SymbolSource& source) {
  SymbolizedProfiles out;
  auto& table = out.table;
  table.source = source.name();

  // 1. One id per distinct module over all processes.
  std::unordered_map<std::string, uint32_t> module_ids;
  std::vector<std::vector<uint32_t>> global_module(processes.size());
  // A process's perf map is a module of its own (JIT code is the process's alone), named
  // from its symbols instead of the symbol source.
  std::vector<uint32_t> jit_module(processes.size(), kNoModule);
  std::vector<const std::vector<JitSymbol>*> jit_symbols_of;  // per module; null for files
  for (size_t p = 0; p < processes.size(); ++p) {
    for (const auto& m : processes[p].modules) {
      auto [it, inserted] =
          module_ids.try_emplace(m.path + '\0' + m.build_id, table.modules.size());
      if (inserted) {
        table.modules.push_back({m.path, m.build_id});
        jit_symbols_of.push_back(nullptr);
      }
      global_module[p].push_back(it->second);
    }
    if (!processes[p].jit_symbols.empty()) {
      jit_module[p] = static_cast<uint32_t>(table.modules.size());
      table.modules.push_back({processes[p].jit_map.string(), ""});
      jit_symbols_of.push_back(&processes[p].jit_symbols);
    }
  }

  // 2. Distinct addresses per process, then per module.
  std::vector<ProcessAddresses> addresses(processes.size());
  tbb::parallel_for(size_t{0}, processes.size(), [&](size_t p) {
    addresses[p] = collect_addresses(processes[p], global_module[p], jit_module[p]);
  });
  std::vector<std::vector<uint64_t>> module_addresses(table.modules.size());
  for (const auto& pa : addresses) {
    for (size_t i = 0; i < pa.lookups.size(); ++i) {
      if (pa.module[i] != kNoModule) module_addresses[pa.module[i]].push_back(pa.elf[i]);
    }
  }

  // 3. Resolve each module once, modules in parallel.
  std::vector<ModuleSymbols> resolved(table.modules.size());
  tbb::parallel_for(size_t{0}, table.modules.size(), [&](size_t m) {
    auto& a = module_addresses[m];
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    if (const auto* jit = jit_symbols_of[m]) {
      resolved[m].addresses.resize(a.size());
      for (size_t i = 0; i < a.size(); ++i) {
        if (const JitSymbol* s = find_jit_symbol(*jit, a[i])) {
          resolved[m].addresses[i].frames.push_back({.function = s->name});
        }
      }
      return;
    }
    if (a.empty()) return;
    if (table.modules[m].path == kVdsoPath) {
      // Named from this host's vDSO when its build id is the one recorded (host_vdso.h).
      const auto copy = host_vdso_file();
      if (!copy) return;
      resolved[m] = source.resolve(ModuleKey{*copy, table.modules[m].build_id}, a);
      if (!resolved[m].problem.empty()) {
        resolved[m].problem = "not this host's vDSO (" + resolved[m].problem + ")";
      }
      return;
    }
    // Other "[...]" modules have no file to read: their frames stay addresses, silently.
    if (table.modules[m].path.starts_with('[')) return;
    resolved[m] = source.resolve(table.modules[m], a);
  });
  for (size_t m = 0; m < table.modules.size(); ++m) {
    resolved[m].addresses.resize(module_addresses[m].size());  // a short answer leaves the rest unnamed
  }

  // 4. Intern names in module order, so ids do not depend on scheduling.
  Interner interner(table);
  std::vector<uint32_t> module_base(table.modules.size(), 0);
  for (size_t m = 0; m < table.modules.size(); ++m) {
    module_base[m] = static_cast<uint32_t>(table.locations());
    if (!resolved[m].problem.empty()) {
      out.warnings.push_back(fmt::format("{}: {}; its frames are shown as addresses",
                                         table.modules[m].path, resolved[m].problem));
    }
    for (size_t i = 0; i < module_addresses[m].size(); ++i) {
      interner.add_location(static_cast<uint32_t>(m), table.modules[m], module_addresses[m][i],
                            resolved[m].addresses[i]);
    }
  }

  // 5. Every frame of every stack table -> its location.
  out.frame_locations.resize(processes.size());
  out.launch_frame_locations.resize(processes.size());
  tbb::parallel_for(size_t{0}, processes.size(), [&](size_t p) {
    auto& pa = addresses[p];
    std::vector<uint32_t> location_of(pa.lookups.size(), 0);
    for (size_t i = 0; i < pa.lookups.size(); ++i) {
      if (pa.module[i] == kNoModule) continue;
      const auto& ma = module_addresses[pa.module[i]];
      location_of[i] = module_base[pa.module[i]] +
                       static_cast<uint32_t>(std::lower_bound(ma.begin(), ma.end(), pa.elf[i]) - ma.begin());
    }
    auto& locations = out.frame_locations[p];
    locations.resize(pa.frame_lookup.size());
    for (size_t k = 0; k < locations.size(); ++k) locations[k] = location_of[pa.frame_lookup[k]];
    auto& launch = out.launch_frame_locations[p];
    launch.resize(pa.launch_frame_lookup.size());
    for (size_t k = 0; k < launch.size(); ++k) launch[k] = location_of[pa.launch_frame_lookup[k]];
    pa = {};  // done with it: free it while the other processes finish
  });
  return out;
}

}  // namespace cprof::report
