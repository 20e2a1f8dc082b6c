// libFuzzer target: the report's text inputs (report/load/text_input.h), Coz profiles,
// TSV and JSON-lines files, on any bytes. The first byte picks the reader; the rest is
// the file. A bad line must be a warning, never a crash, a sanitizer report or a hang.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "report/load/text_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  std::vector<std::string> bad_lines;
  size_t records = 0;
  const auto sink = [&](cprof::format::Record&&) { ++records; };
  try {
    switch (data[0] % 3) {
      case 0:
        cprof::report::read_tsv_lines(in, "fuzz.tsv", sink, bad_lines);
        break;
      case 1:
        cprof::report::read_jsonl_lines(in, "fuzz.jsonl", sink, bad_lines);
        break;
      default:
        cprof::report::read_coz_lines(in, "fuzz.coz", sink, bad_lines);
        break;
    }
  } catch (const std::exception&) {
    // A file the reader refuses whole (the caller says so in one line).
  }
  return records + bad_lines.size() == ~size_t{0} ? 1 : 0;
}
