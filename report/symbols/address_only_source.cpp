#include "report/symbols/symbol_source.h"

namespace cprof::report {
namespace {

class AddressOnlySource final : public SymbolSource {
 public:
  std::string name() const override { return "none"; }
  ModuleSymbols resolve(const ModuleKey&, std::span<const uint64_t> elf_addresses) override {
    return {.addresses = std::vector<ResolvedAddress>(elf_addresses.size())};
  }
};

}  // namespace

std::unique_ptr<SymbolSource> make_address_only_source() {
  return std::make_unique<AddressOnlySource>();
}

#ifndef CPROF_REPORT_HAVE_SYMBOLIZER
// symbolize/ is not part of this build: names come later, addresses now.
std::unique_ptr<SymbolSource> make_default_symbol_source(const std::string&,
                                                         const std::vector<std::string>&) {
  return make_address_only_source();
}
#endif

}  // namespace cprof::report
