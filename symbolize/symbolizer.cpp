#include "symbolize/symbolizer.h"

#include <tbb/parallel_for.h>

#include <charconv>

namespace cprof::symbolize {

std::string_view to_string(Reason r) {
  switch (r) {
    case Reason::ok: return "ok";
    case Reason::missing_file: return "module file not found";
    case Reason::invalid_file: return "module file is not a valid ELF file";
    case Reason::build_id_mismatch: return "build-id mismatch: module rebuilt after the run";
    case Reason::unmapped: return "address is not in the module's code";
    case Reason::no_symbols: return "no symbol covers the address";
    case Reason::no_line_info: return "no line information";
    case Reason::missing_split_dwarf: return "split DWARF (.dwo/.dwp) not found";
  }
  return "unknown";
}

Result<SourceLine> parse_source_line(std::string_view text) {
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) {
    return Error{"'" + std::string(text) + "': expected FILE:LINE"};
  }
  SourceLine out;
  out.file = std::string(text.substr(0, colon));
  auto digits = text.substr(colon + 1);
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), out.line);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || out.line == 0) {
    return Error{"'" + std::string(text) + "': line must be a positive number"};
  }
  return out;
}

Symbolizer::Symbolizer(Options options) : options_(std::move(options)) {}
Symbolizer::~Symbolizer() = default;

std::shared_ptr<Module> Symbolizer::module(const ModuleRef& ref) {
  std::unique_lock lock(mu_);
  auto key = std::make_pair(ref.path, ref.build_id);
  if (auto it = modules_.find(key); it != modules_.end()) return it->second;
  // Opening reads headers and unit lists; do it outside the lock so that other modules
  // open in parallel. Two threads racing on one module both open it; the first one wins.
  lock.unlock();
  auto opened = std::make_shared<Module>(ref, options_);
  lock.lock();
  auto [it, inserted] = modules_.emplace(key, std::move(opened));
  return it->second;
}

std::vector<Symbol> Symbolizer::symbolize(const ModuleRef& ref,
                                          std::span<const uint64_t> addresses) {
  return module(ref)->symbolize(addresses);
}

std::vector<std::vector<Symbol>> Symbolizer::symbolize(std::span<const ModuleAddresses> batch) {
  std::vector<std::vector<Symbol>> out(batch.size());
  // One task per module: libdw work on one module is serialized anyway.
  tbb::parallel_for(size_t{0}, batch.size(), [&](size_t i) {
    out[i] = symbolize(batch[i].module, batch[i].addresses);
  });
  return out;
}

Result<std::vector<AddressRange>> Symbolizer::ranges_for_line(const ModuleRef& ref,
                                                              std::string_view file, uint32_t line,
                                                              LineCode code) {
  return module(ref)->line_ranges(file, line, code);
}

Result<std::vector<FunctionRanges>> Symbolizer::ranges_for_function(const ModuleRef& ref,
                                                                    const std::string& pattern) {
  return module(ref)->function_ranges(pattern);
}

std::vector<FunctionRanges> Symbolizer::functions_defined_at(const ModuleRef& ref,
                                                             std::string_view file, uint32_t line) {
  return module(ref)->functions_defined_at(file, line);
}

Result<std::vector<LineRanges>> Symbolizer::all_lines(const ModuleRef& ref) {
  return module(ref)->all_line_ranges();
}

Reason Symbolizer::status(const ModuleRef& ref) { return module(ref)->status(); }

std::vector<std::string> Symbolizer::diagnostics(const ModuleRef& ref) {
  std::unique_lock lock(mu_);
  auto it = modules_.find({ref.path, ref.build_id});
  if (it == modules_.end()) return {};
  auto m = it->second;
  lock.unlock();
  return m->diagnostics();
}

}  // namespace cprof::symbolize
