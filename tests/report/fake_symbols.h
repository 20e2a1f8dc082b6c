#pragma once
// A SymbolSource that names address ranges as a test says, inline chains included, so
// aggregation tests do not depend on a compiler's DWARF.

#include <map>
#include <mutex>

#include "report/symbols/symbol_source.h"

namespace cprof::report::testing {

class FakeSymbols final : public SymbolSource {
 public:
  // [low, high) resolves to `frames` (innermost first).
  void add(uint64_t low, uint64_t high, std::vector<SourceLocation> frames) {
    ranges_[low] = {high, ResolvedAddress{std::move(frames)}};
  }

  std::string name() const override { return "fake"; }

  ModuleSymbols resolve(const ModuleKey&, std::span<const uint64_t> addresses) override {
    std::lock_guard lock(mu_);
    ++calls_;
    asked_ += addresses.size();
    ModuleSymbols out;
    for (uint64_t a : addresses) {
      auto it = ranges_.upper_bound(a);
      if (it != ranges_.begin() && a < std::prev(it)->second.first) {
        out.addresses.push_back(std::prev(it)->second.second);
      } else {
        out.addresses.push_back({});
      }
    }
    return out;
  }

  size_t calls() const { return calls_; }
  size_t addresses_asked() const { return asked_; }

 private:
  std::map<uint64_t, std::pair<uint64_t, ResolvedAddress>> ranges_;
  std::mutex mu_;
  size_t calls_ = 0;
  size_t asked_ = 0;
};

}  // namespace cprof::report::testing
