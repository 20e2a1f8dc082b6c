// docs/results-format.md documents every record type and field (the design's contract):
// each type of AllRecords has a row in its Records table that names the fields of the
// record's `fields` table, in their order on disk (a list of structs: its field, then the
// element's fields).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "format/records.h"

namespace cprof::format {
namespace {

template <class S>
void add_field_names(std::vector<std::string>& names) {
  std::apply(
      [&](const auto&... f) {
        const auto add = [&](const auto& one) {
          names.emplace_back(one.name);
          if constexpr (std::is_same_v<std::remove_cvref_t<decltype(one.encoding)>,
                                       wire::List<wire::Nested>>) {
            using Element =
                typename std::remove_cvref_t<decltype(std::declval<S&>().*one.member)>::value_type;
            add_field_names<Element>(names);
          }
        };
        (add(f), ...);
      },
      S::fields);
}

struct Documented {
  uint32_t type;
  std::vector<std::string> names;
};

template <class... Rs>
std::vector<Documented> documented(TypeList<Rs...> /*records*/) {
  std::vector<Documented> out;
  const auto add = [&]<class R>(const R*) {
    Documented d{static_cast<uint32_t>(R::type), {}};
    add_field_names<R>(d.names);
    out.push_back(std::move(d));
  };
  (add(static_cast<const Rs*>(nullptr)), ...);
  return out;
}

TEST(RecordDocs, EveryFieldOfEveryRecordIsDocumentedInOrder) {
  std::ifstream in(std::string(CPROF_DOCS_DIR) + "/results-format.md");
  ASSERT_TRUE(in) << CPROF_DOCS_DIR "/results-format.md";
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (const auto& record : documented(AllRecords{})) {
    const std::string prefix = "| " + std::to_string(record.type) + " | ";
    const std::string* row = nullptr;
    for (const auto& line : lines) {
      if (line.starts_with(prefix)) row = &line;
    }
    ASSERT_NE(row, nullptr) << "type " << record.type << " has no row in its Records table";
    size_t at = 0;
    for (const auto& name : record.names) {
      std::smatch m;
      const std::string rest = row->substr(at);
      ASSERT_TRUE(std::regex_search(rest, m, std::regex("\\b" + name + "\\b")))
          << "type " << record.type << ": field " << name
          << " is not in its row after the field before it:\n"
          << *row;
      at += static_cast<size_t>(m.position(0) + m.length(0));
    }
  }
}

}  // namespace
}  // namespace cprof::format
