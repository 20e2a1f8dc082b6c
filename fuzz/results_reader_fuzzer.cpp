// libFuzzer target: the results reader (format/reader.h) on any bytes. Every record the
// reader hands out is visited, samples both as views and decoded, so the decoders of
// every record type run. A finding is a crash, a sanitizer report or a hang.
#include <cstddef>
#include <cstdint>
#include <span>

#include "format/reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  uint64_t seen = 0;
  try {
    cprof::format::read_results_bytes(bytes, "fuzz.cprof",
                                      [&](cprof::format::Record&& r) { seen += r.index(); });
    cprof::format::read_results_bytes(
        bytes, "fuzz.cprof", [&](cprof::format::Record&& r) { seen += r.index(); },
        [&](const cprof::format::SampleView& v) { seen += v.frame_count; });
  } catch (const cprof::format::FormatError&) {
    // Not a results file, or a newer major version: the one error the reader may raise.
  }
  return seen == ~uint64_t{0} ? 1 : 0;
}
