#pragma once
// Decoding side of records.h, used by the reader.

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "format/records.h"

namespace cprof::format {

// Decodes one record's payload. nullopt when the payload is malformed for its type.
// Unknown types are the caller's to skip (it checks is_known_record_type first).
std::optional<Record> decode_record(uint32_t type, std::span<const uint8_t> payload);

namespace detail {
// known[type]: AllRecords has a record of that type number.
template <class... Rs>
constexpr auto known_record_types(TypeList<Rs...> /*records*/) {
  std::array<bool, std::max({static_cast<uint32_t>(Rs::type)...}) + 1> known{};
  for (const RecordType type : {Rs::type...}) known[static_cast<uint32_t>(type)] = true;
  return known;
}
inline constexpr auto kKnownRecordTypes = known_record_types(AllRecords{});
}  // namespace detail

// Every type decode_record understands: those of AllRecords. Ranges are not contiguous
// (16-31 causal, 32-47 GPU, each part using a few).
inline bool is_known_record_type(uint32_t type) {
  return type < detail::kKnownRecordTypes.size() && detail::kKnownRecordTypes[type];
}

}  // namespace cprof::format
