#include "format/sample_view.h"

#include <bit>
#include <cstring>

#include "format/encoding.h"

namespace cprof::format {

std::optional<SampleView> decode_sample_view(std::span<const uint8_t> payload,
                                             std::vector<uint64_t>& counters) {
  Decoder d(payload);
  SampleView v;
  v.tid = d.svarint();
  v.time_ns = d.varint();
  v.weight_ns = d.varint();
  const uint8_t flags = d.u8();
  v.clock = static_cast<SampleClock>(flags & 0x7f);
  v.truncated = (flags & 0x80) != 0;
  if (v.clock != SampleClock::cpu && v.clock != SampleClock::wall) return std::nullopt;
  v.frame_count = d.count(1);
  if (!d.ok()) return std::nullopt;
  // Skip the frames without decoding them: a varint ends at a byte with the top bit clear.
  // Eight bytes at a time while the stops in them do not finish the frames (a stack is
  // ~100 bytes; a byte loop was most of this function's time).
  const size_t start = d.position();
  size_t end = start;
  uint64_t ended = 0;
  while (end + 8 <= payload.size()) {
    uint64_t x = 0;
    std::memcpy(&x, payload.data() + end, sizeof x);
    const auto stops = static_cast<uint64_t>(std::popcount(~x & 0x8080808080808080ULL));
    if (ended + stops >= v.frame_count) break;
    ended += stops;
    end += 8;
  }
  for (; ended < v.frame_count; ++end) {
    if (end >= payload.size() || end - start > 10 * v.frame_count) return std::nullopt;
    if ((payload[end] & 0x80) == 0) ++ended;
  }
  v.encoded_frames = payload.subspan(start, end - start);
  d.bytes(end - start);
  counters.resize(d.count(1));
  for (auto& c : counters) c = d.varint();
  if (!d.ok()) return std::nullopt;
  v.counter_deltas = counters;
  return v;
}

void decode_frames(const SampleView& view, std::vector<uint64_t>& out) {
  out.clear();
  Decoder d(view.encoded_frames);
  uint64_t prev = 0;
  for (uint64_t i = 0; i < view.frame_count; ++i) {
    prev += static_cast<uint64_t>(d.svarint());
    out.push_back(prev);
  }
}

}  // namespace cprof::format
