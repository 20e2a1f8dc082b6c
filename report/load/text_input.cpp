#include "report/load/text_input.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "report/load/json_value.h"
#include "report/load/text_records.h"

namespace cprof::report {

InputKind input_kind_of(const std::filesystem::path& path) {
  const auto ext = path.extension();
  if (ext == ".coz") return InputKind::coz;
  if (ext == ".tsv") return InputKind::tsv;
  if (ext == ".jsonl") return InputKind::jsonl;
  return InputKind::results;
}

namespace {

// The first line that holds a record (not empty, not a TSV comment) in the file's first
// 64 KiB: a large file of something else (a binary, a log without newlines) is never read
// whole.
std::string first_record_line(const std::filesystem::path& path) {
  constexpr size_t kLookahead = size_t{64} * 1024;
  std::ifstream in(path, std::ios::binary);
  std::string head(kLookahead, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  size_t at = 0;
  while (at < head.size()) {
    size_t end = head.find('\n', at);
    if (end == std::string::npos) {
      if (!in.eof()) break;  // a line cut at the lookahead's end: not judged
      end = head.size();
    }
    std::string line = head.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] != '#') return line;
    at = end + 1;
  }
  return {};
}

// The record's type and whether it names Coz's `selected` field, from either spelling.
struct FirstRecord {
  std::string type;  // '_' written as '-' (Coz's JSON writers may use either)
  bool json = false;
  bool has_selected = false;
};

std::optional<FirstRecord> parse_first_record(const std::string& line) {
  FirstRecord r;
  if (line[0] == '{') {
    r.json = true;
    try {
      const JsonValue v = parse_json(line);
      const JsonValue* type = v.find("type");
      if (type == nullptr || type->kind != JsonValue::Kind::string) return std::nullopt;
      r.type = type->text;
      r.has_selected = v.find("selected") != nullptr;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  } else {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) return std::nullopt;
    r.type = line.substr(0, tab);
    r.has_selected = line.find("\tselected=") != std::string::npos;
  }
  std::replace(r.type.begin(), r.type.end(), '_', '-');
  return r;
}

bool is_coz_record(const FirstRecord& r) {
  static constexpr std::array<std::string_view, 7> kCozOnly = {
      "startup",          "runtime",        "shutdown",     "samples",
      "throughput-point", "progress-point", "latency-point"};
  return std::find(kCozOnly.begin(), kCozOnly.end(), r.type) != kCozOnly.end() ||
         (r.type == "experiment" && r.has_selected);
}

}  // namespace

std::optional<InputKind> text_input_by_content(const std::filesystem::path& path) {
  const std::string line = first_record_line(path);
  if (line.empty()) return std::nullopt;
  const auto r = parse_first_record(line);
  if (!r) return std::nullopt;
  if (is_coz_record(*r)) return InputKind::coz;
  std::string ours = r->type;
  std::replace(ours.begin(), ours.end(), '-', '_');
  if (find_row_schema(ours) == nullptr) return std::nullopt;
  return r->json ? InputKind::jsonl : InputKind::tsv;
}

bool starts_like_coz_profile(const std::filesystem::path& path) {
  const std::string line = first_record_line(path);
  if (line.empty()) return false;
  const auto r = parse_first_record(line);
  return r && r->type == "startup";
}

const char* input_kind_name(InputKind kind) {
  switch (kind) {
    case InputKind::coz: return "coz";
    case InputKind::tsv: return "tsv";
    case InputKind::jsonl: return "jsonl";
    default: return "results";
  }
}

void read_text_input(const std::filesystem::path& path, InputKind kind, const RecordSink& sink,
                     std::vector<std::string>& warnings) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open: " + std::strerror(errno));
  const std::string name = path.string();
  switch (kind) {
    case InputKind::coz: read_coz_lines(in, name, sink, warnings); break;
    case InputKind::tsv: read_tsv_lines(in, name, sink, warnings); break;
    case InputKind::jsonl: read_jsonl_lines(in, name, sink, warnings); break;
    case InputKind::results: throw std::logic_error("read_text_input: a results file");
  }
  if (in.bad()) throw std::runtime_error(name + ": read error: " + std::strerror(errno));
}

}  // namespace cprof::report
