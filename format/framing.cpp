#include "format/framing.h"

#include <zlib.h>

namespace cprof::format {

uint32_t chunk_checksum(uint32_t payload_size, uint32_t record_count,
                        std::span<const uint8_t> payload) {
  uint8_t fields[8];
  for (int i = 0; i < 4; ++i) {
    fields[i] = static_cast<uint8_t>(payload_size >> (8 * i));
    fields[4 + i] = static_cast<uint8_t>(record_count >> (8 * i));
  }
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, fields, sizeof fields);
  // zlib takes uInt lengths; payloads are bounded by kMaxChunkPayload, far below 4 GiB.
  crc = crc32(crc, payload.data(), static_cast<uInt>(payload.size()));
  return static_cast<uint32_t>(crc);
}

}  // namespace cprof::format
