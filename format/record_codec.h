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

// Every type decode_record understands. Ranges are not contiguous (16-31 causal, 32-47
// GPU, each part using a few), so every type is listed.
inline bool is_known_record_type(uint32_t type) {
  switch (static_cast<RecordType>(type)) {
    case RecordType::process:
    case RecordType::module:
    case RecordType::thread:
    case RecordType::thread_end:
    case RecordType::event:
    case RecordType::sample:
    case RecordType::metric:
    case RecordType::message:
    case RecordType::thread_name:
    case RecordType::experiment:
    case RecordType::progress_point:
    case RecordType::region:
    case RecordType::region_spans:
    case RecordType::kernel:
    case RecordType::gpu_copy:
    case RecordType::gpu_device:
    case RecordType::gpu_trace_window:
      return true;
  }
  return false;
}

}  // namespace cprof::format
