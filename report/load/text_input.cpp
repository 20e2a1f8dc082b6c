#include "report/load/text_input.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace cprof::report {

InputKind input_kind_of(const std::filesystem::path& path) {
  const auto ext = path.extension();
  if (ext == ".coz") return InputKind::coz;
  if (ext == ".tsv") return InputKind::tsv;
  if (ext == ".jsonl") return InputKind::jsonl;
  return InputKind::results;
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
