#include "symbolize/module.h"

#include <unistd.h>

#include <algorithm>

#include "symbolize/demangle.h"
#include "symbolize/elf/debug_locator.h"

namespace cprof::symbolize {
namespace {

bool has_symtab(const ElfFile& file) {
  Elf_Scn* scn = file.section(".symtab");
  GElf_Shdr shdr;
  return scn != nullptr && gelf_getshdr(scn, &shdr) != nullptr && shdr.sh_type == SHT_SYMTAB;
}

}  // namespace

Module::Module(const ModuleRef& ref, const Options& options) : ref_(ref), options_(options) {
  auto main = ElfFile::open(ref.path);
  if (main) {
    main_ = std::move(main).value();
  } else {
    notes_.push_back(main.error().message);
    status_ = access(ref.path.c_str(), F_OK) == 0 ? Reason::invalid_file : Reason::missing_file;
  }
  bool rebuilt = main_ && !ref.build_id.empty() && main_->build_id() != ref.build_id;
  if (rebuilt) {
    notes_.push_back(ref.path + ": build-id " + main_->build_id() + " differs from the run's " +
                     ref.build_id + ": the file was rebuilt after the run");
  }
  const ElfFile* usable_main = rebuilt ? nullptr : main_.get();
  std::string wanted_id = !ref.build_id.empty() ? ref.build_id : (main_ ? main_->build_id() : "");

  DebugFile debug = locate_debug_file(usable_main, ref.path, wanted_id, options_, notes_);
  debug_ = std::move(debug.file);
  if (debug_ && usable_main == nullptr) {
    // The module is gone or rebuilt, but the debug file of the run's build is at hand.
    status_ = Reason::ok;
    notes_.push_back(ref.path + ": using " + debug_->path() + " found by build-id " + wanted_id);
  } else if (rebuilt) {
    status_ = Reason::build_id_mismatch;
  }
  if (status_ != Reason::ok) return;
  layout_ = usable_main != nullptr ? usable_main : debug_.get();
  plt_ = PltTable(layout_);
  unwind_functions_ = UnwindFunctions(usable_main);  // a debug file's .eh_frame has no contents

  if (debug_) {
    if (auto index = DwarfIndex::build(*debug_)) {
      dwarf_ = std::move(index).value();
      // -gsplit-dwarf packaged with dwp: PROG.dwp next to the program or its debug file.
      std::vector<std::string> dwp = {ref.path + ".dwp", debug_->path() + ".dwp"};
      const std::string& dbg = debug_->path();
      if (dbg.size() > 6 && dbg.ends_with(".debug")) dwp.push_back(dbg.substr(0, dbg.size() - 6) + ".dwp");
      dwarf_->set_dwp_candidates(std::move(dwp));
    } else {
      notes_.push_back(index.error().message);
    }
  }

  // Symbol names: the module's own .symtab, else the debug file's, else .dynsym plus the
  // mini debug info (.gnu_debugdata) that some distributions add to stripped files.
  if (usable_main != nullptr && has_symtab(*usable_main)) {
    symbols_.add(*usable_main);
  } else if (debug_ && has_symtab(*debug_)) {
    symbols_.add(*debug_);
  } else if (usable_main != nullptr) {
    symbols_.add(*usable_main);
    auto mini = open_gnu_debugdata(*usable_main);
    if (!mini) {
      notes_.push_back(mini.error().message);
    } else if (*mini) {
      debugdata_ = std::move(mini).value();
      symbols_.add(*debugdata_);
    }
  }
  symbols_.finish();
  if (!dwarf_) {
    notes_.push_back(ref.path + (symbols_.empty() ? ": no DWARF and no symbols"
                                                  : ": no DWARF found: function names only, no lines"));
  }
}

std::vector<std::string> Module::diagnostics() {
  std::lock_guard lock(mu_);
  std::vector<std::string> all = notes_;
  if (dwarf_) all.insert(all.end(), dwarf_->diagnostics().begin(), dwarf_->diagnostics().end());
  return all;
}

std::string Module::debug_file_path() const { return debug_ ? debug_->path() : std::string(); }

const std::string& Module::name_of(const char* raw) {
  auto [it, inserted] = names_.try_emplace(raw);
  if (inserted && raw != nullptr) it->second = options_.demangle ? demangle(raw, options_.demangle_style) : raw;
  return it->second;
}

std::vector<Symbol> Module::symbolize(std::span<const uint64_t> addresses) {
  std::lock_guard lock(mu_);
  std::vector<Symbol> out(addresses.size());
  if (status_ != Reason::ok) {
    for (auto& s : out) s.reason = status_;
    return out;
  }
  // Look up each distinct address once, in address order (kind to the caches).
  std::vector<uint32_t> order(addresses.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return addresses[a] < addresses[b]; });
  for (size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && addresses[order[i]] == addresses[order[i - 1]]) {
      out[order[i]] = out[order[i - 1]];
    } else {
      out[order[i]] = lookup(addresses[order[i]]);
    }
  }
  return out;
}

Symbol Module::lookup(uint64_t addr) {
  Symbol sym;
  if (!layout_->is_executable_address(addr)) {
    sym.reason = Reason::unmapped;
    return sym;
  }
  if (plt_.contains(addr)) return plt_symbol(addr);
  const LineRow* row = nullptr;
  const UnitDetail* unit = dwarf_ ? dwarf_->unit_for(addr) : nullptr;
  if (unit != nullptr) {
    row = unit->lines ? unit->lines->find(addr) : nullptr;
    int32_t s = unit->scopes ? unit->scopes->find(addr) : -1;
    // Innermost frame: its file:line from the line table; each outer frame: the call
    // site recorded on the inlined callee one level in (docs/symbolize.md).
    const Scope* callee = nullptr;
    for (; s >= 0; s = unit->scopes->scope(s).parent) {
      const Scope& scope = unit->scopes->scope(s);
      SourceFrame frame;
      if (scope.printed == nullptr) scope.printed = &name_of(scope.name);
      frame.function = *scope.printed;
      if (scope.decl_line != 0) {
        frame.decl_file = unit->scopes->call_file_name(scope.decl_file);
        frame.decl_line = scope.decl_line;
      }
      if (callee == nullptr) {
        if (row != nullptr) {
          frame.file = unit->lines->file(row->file);
          frame.line = row->line;
          frame.column = row->column;
        }
      } else {
        frame.file = unit->scopes->call_file_name(callee->call_file);
        frame.line = callee->call_line;
        frame.column = callee->call_column;
      }
      sym.frames.push_back(std::move(frame));
      callee = &scope;
    }
    if (sym.frames.empty() && row != nullptr) {
      sym.frames.push_back({"", unit->lines->file(row->file), row->line, row->column});
    }
    if (unit->split_missing) sym.reason = Reason::missing_split_dwarf;
  }
  // The outermost frame is named from the ELF symbol table when it has the address, as
  // llvm-symbolizer does: that name tells compiler clones apart ("foo(int) (.cold)").
  if (const SymbolTable::Entry* e = symbols_.find(addr)) {
    if (sym.frames.empty()) {
      sym.frames.push_back({name_of(e->name), "", 0, 0});
      sym.reason = Reason::no_line_info;
    } else {
      sym.frames.back().function = name_of(e->name);
    }
    if (sym.frames.back().file.empty() && e->file != nullptr) sym.frames.back().file = e->file;
  }
  if (sym.frames.empty()) {
    sym.reason = Reason::no_symbols;
    if (const AddressRange* f = unwind_functions_.find(addr)) sym.function_start = f->low;
    return sym;
  }
  if (row == nullptr && sym.reason == Reason::ok) sym.reason = Reason::no_line_info;
  if (!options_.inlines && sym.frames.size() > 1) {
    // One frame: the real function, at the innermost line (what addr2line prints).
    SourceFrame outer = std::move(sym.frames.back());
    outer.file = std::move(sym.frames.front().file);
    outer.line = sym.frames.front().line;
    outer.column = sym.frames.front().column;
    sym.frames.clear();
    sym.frames.push_back(std::move(outer));
  }
  return sym;
}

// A PLT stub has no DWARF and no symbol of its own: without this it would take the name
// of the symbol before it (usually _init). It is named after the function it jumps to,
// "puts@plt" as perf and objdump write it, else "MODULE@plt" (the lazy-binding header,
// a stub whose target is not known, or PLT contents we cannot read).
Symbol Module::plt_symbol(uint64_t addr) {
  const char* target = nullptr;
  if (const PltTable::Stub* stub = plt_.find(addr)) {
    target = stub->symbol;
    if (target == nullptr) {
      // A local ifunc (IRELATIVE): the resolver's symbol names the function (strlen).
      if (const SymbolTable::Entry* e = symbols_.find(stub->ifunc)) target = e->name;
    }
  }
  std::string& name = target != nullptr ? plt_names_[target] : plt_fallback_;
  if (name.empty()) {
    auto slash = ref_.path.rfind('/');
    name = (target != nullptr ? name_of(target)
                              : ref_.path.substr(slash == std::string::npos ? 0 : slash + 1)) +
           "@plt";
  }
  Symbol sym;
  sym.frames.push_back({name, "", 0, 0});
  sym.reason = Reason::no_line_info;
  return sym;
}

}  // namespace cprof::symbolize
