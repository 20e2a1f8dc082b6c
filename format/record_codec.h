#pragma once
// Decoding side of records.h, used by the reader.

#include <cstdint>
#include <optional>
#include <span>

#include "format/records.h"

namespace cprof::format {

// Decodes one record's payload. nullopt when the payload is malformed for its type.
// Unknown types are the caller's to skip (it checks is_known_record_type first).
std::optional<Record> decode_record(uint32_t type, std::span<const uint8_t> payload);

inline bool is_known_record_type(uint32_t type) {
  return (type >= static_cast<uint32_t>(RecordType::process) &&
          type <= static_cast<uint32_t>(RecordType::message)) ||
         (type >= static_cast<uint32_t>(RecordType::experiment) &&
          type <= static_cast<uint32_t>(RecordType::region));
}

}  // namespace cprof::format
