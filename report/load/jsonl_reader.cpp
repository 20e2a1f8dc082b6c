// JSON-lines input: one JSON object a line, {"type": "...", field: value, ...}, with the
// field names of text_records.cpp's schema; an experiment may carry its progress rows as
// "progress": [{...}, ...]. Empty lines are skipped.
#include <istream>
#include <string>
#include <vector>

#include "report/load/json_value.h"
#include "report/load/text_input.h"
#include "report/load/text_records.h"

namespace cprof::report {
namespace {

using Kind = JsonValue::Kind;

class JsonFields : public RowFields {
 public:
  explicit JsonFields(const JsonValue& object) : object_(object) {}

  std::string str(std::string_view field) const override {
    const JsonValue* v = object_.find(field);
    if (v == nullptr || v->kind == Kind::null) return {};
    if (v->kind != Kind::string && v->kind != Kind::number) wrong(field, "a string");
    return v->text;
  }
  uint64_t u64(std::string_view field) const override {
    const JsonValue* v = scalar(field);
    if (v == nullptr) return 0;
    // JSON writers may spell a whole number 1e9 or 1000.0: taken when it is one.
    if (v->kind == Kind::number && v->text.find_first_of(".eE") != std::string::npos) {
      const double d = parse_f64_field(field, v->text);
      if (d < 0 || d >= 18446744073709551616.0 || d != static_cast<double>(static_cast<uint64_t>(d))) {
        throw RowError(std::string(field) + ": not an unsigned integer: '" + v->text + "'");
      }
      return static_cast<uint64_t>(d);
    }
    return parse_u64_field(field, v->text);
  }
  int64_t i64(std::string_view field) const override {
    const JsonValue* v = scalar(field);
    return v == nullptr ? 0 : parse_i64_field(field, v->text);
  }
  double f64(std::string_view field) const override {
    const JsonValue* v = scalar(field);
    return v == nullptr ? 0 : parse_f64_field(field, v->text);
  }
  std::vector<uint64_t> u64_list(std::string_view field) const override {
    std::vector<uint64_t> out;
    const JsonValue* v = object_.find(field);
    if (v == nullptr || v->kind == Kind::null) return out;
    if (v->kind != Kind::array) wrong(field, "an array");
    for (const auto& item : v->items) {
      // Addresses above 2^53 do not survive a double: numbers are read from their text,
      // and "0x..." strings are accepted as well.
      if (item.kind != Kind::number && item.kind != Kind::string) wrong(field, "an array of addresses");
      out.push_back(parse_u64_field(field, item.text));
    }
    return out;
  }

 private:
  [[noreturn]] static void wrong(std::string_view field, const char* expected) {
    throw RowError(std::string(field) + ": expected " + expected);
  }
  // A number, or a string holding one ("0x7f..."), or null when absent.
  const JsonValue* scalar(std::string_view field) const {
    const JsonValue* v = object_.find(field);
    if (v == nullptr || v->kind == Kind::null) return nullptr;
    if (v->kind != Kind::number && v->kind != Kind::string) wrong(field, "a number");
    return v;
  }

  const JsonValue& object_;
};

}  // namespace

void read_jsonl_lines(std::istream& in, const std::string& name, const RecordSink& sink,
                      std::vector<std::string>& warnings) {
  RecordAssembler assembler(sink);
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = name + ":" + std::to_string(number) + ": ";
    try {
      const JsonValue row = parse_json(line);
      if (row.kind != Kind::object) throw RowError("not a JSON object");
      const JsonValue* type = row.find("type");
      if (type == nullptr || type->kind != Kind::string) throw RowError("no \"type\" string");
      const RowSchema* schema = find_row_schema(type->text);
      if (schema == nullptr) throw RowError("unknown row type '" + type->text + "'");
      assembler.add(*schema, JsonFields(row));
      if (const JsonValue* progress = row.find("progress"); progress && type->text == "experiment") {
        if (progress->kind != Kind::array) throw RowError("progress: expected an array");
        for (const auto& p : progress->items) {
          if (p.kind != Kind::object) throw RowError("progress: expected objects");
          assembler.add(*find_row_schema("progress"), JsonFields(p));
        }
      }
    } catch (const std::exception& e) {  // RowError, and the parser's "column N: ..."
      warnings.push_back(where + e.what());
    }
  }
  assembler.flush();
}

}  // namespace cprof::report
