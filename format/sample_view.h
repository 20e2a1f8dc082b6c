#pragma once
// A sample record with its frames left encoded, for readers that intern stacks (the
// report): the writer encodes a stack one way only (frame deltas from 0, minimal varints),
// so equal stacks have equal bytes and the bytes can be the key; only a stack not seen
// before needs decode_frames(). Ten million samples then cost ten million byte-string
// lookups instead of ten million decodes (docs/report.md "How it scales").

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "format/records.h"

namespace cprof::format {

struct SampleView {
  int64_t tid = 0;
  uint64_t time_ns = 0;
  uint64_t weight_ns = 0;
  SampleClock clock = SampleClock::cpu;
  bool truncated = false;
  uint64_t frame_count = 0;
  std::span<const uint8_t> encoded_frames;    // frame_count svarints, as in the record
  std::span<const uint64_t> counter_deltas;  // decoded (few, and summed per sample)
};

// Parses a sample record's payload (type 6). `counters` is reused storage for the counter
// deltas the view points into. nullopt when the payload is malformed, as decode_record.
std::optional<SampleView> decode_sample_view(std::span<const uint8_t> payload,
                                             std::vector<uint64_t>& counters);

// The frames of a view, appended to `out` (cleared first).
void decode_frames(const SampleView& view, std::vector<uint64_t>& out);

}  // namespace cprof::format
