// TSV input: one record a line, the type first, then its fields in the order of
// text_records.cpp's schema, tab-separated. '#' lines and empty lines are skipped.
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "report/load/text_input.h"
#include "report/load/text_records.h"

namespace cprof::report {
namespace {

class TsvFields : public RowFields {
 public:
  TsvFields(const RowSchema& schema, const std::vector<std::string_view>& cells)
      : schema_(schema), cells_(cells) {}

  std::string str(std::string_view field) const override { return std::string(cell(field)); }
  uint64_t u64(std::string_view field) const override {
    return parse_u64_field(field, cell(field));
  }
  int64_t i64(std::string_view field) const override { return parse_i64_field(field, cell(field)); }
  double f64(std::string_view field) const override { return parse_f64_field(field, cell(field)); }
  std::vector<uint64_t> u64_list(std::string_view field) const override {
    std::vector<uint64_t> out;
    std::string_view s = cell(field);
    if (s.empty() || s == "-") return out;  // "-": a sample without a stack
    while (true) {
      const size_t comma = s.find(',');
      out.push_back(parse_u64_field(field, s.substr(0, comma)));
      if (comma == std::string_view::npos) return out;
      s.remove_prefix(comma + 1);
    }
  }

 private:
  std::string_view cell(std::string_view field) const {
    for (size_t i = 0; i < schema_.fields.size(); ++i) {
      if (schema_.fields[i] == field) return cells_[i + 1];
    }
    throw RowError(std::string(field) + ": not a field of " + std::string(schema_.type));
  }

  const RowSchema& schema_;
  const std::vector<std::string_view>& cells_;
};

}  // namespace

void read_tsv_lines(std::istream& in, const std::string& name, const RecordSink& sink,
                    std::vector<std::string>& warnings) {
  RecordAssembler assembler(sink);
  std::string line;
  std::vector<std::string_view> cells;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    cells.clear();
    std::string_view rest(line);
    while (true) {
      const size_t tab = rest.find('\t');
      cells.push_back(rest.substr(0, tab));
      if (tab == std::string_view::npos) break;
      rest.remove_prefix(tab + 1);
    }
    const std::string where = name + ":" + std::to_string(number) + ": ";
    const RowSchema* schema = find_row_schema(cells[0]);
    if (schema == nullptr) {
      warnings.push_back(where + "unknown row type '" + std::string(cells[0]) + "'");
      continue;
    }
    if (cells.size() != schema->fields.size() + 1) {
      warnings.push_back(where + std::string(schema->type) + ": expected " +
                         std::to_string(schema->fields.size()) + " tab-separated fields after the " +
                         "type, found " + std::to_string(cells.size() - 1));
      continue;
    }
    try {
      assembler.add(*schema, TsvFields(*schema, cells));
    } catch (const RowError& e) {
      warnings.push_back(where + std::string(schema->type) + ": " + e.what());
    }
  }
  assembler.flush();
}

}  // namespace cprof::report
