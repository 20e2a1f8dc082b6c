#pragma once
// Byte layout of a results file: a 16-byte file header, then self-delimiting chunks.
//
//   file header:  "CPROFRES" | u16 major | u16 minor | u32 reserved (0)
//   chunk:        u32 magic "CHNK" | u32 payload bytes | u32 record count |
//                 u32 CRC-32 over (payload bytes, record count, payload) | payload
//   payload:      records, each varint type | varint length | bytes
//
// A chunk is written with one write() call, so a crash leaves whole chunks plus at most
// one torn chunk at the end, which the checksum or the length exposes.

#include <cstdint>
#include <span>

namespace cprof::format {

inline constexpr char kFileMagic[8] = {'C', 'P', 'R', 'O', 'F', 'R', 'E', 'S'};
inline constexpr uint16_t kMajorVersion = 1;
inline constexpr uint16_t kMinorVersion = 5;  // 1: causal (16-18); 2: GPU (32-34); 3: region spans (19); 4: GPU trace windows (35); 5: thread names (9)
inline constexpr size_t kFileHeaderSize = 16;

inline constexpr uint32_t kChunkMagic = 0x4B4E4843;  // "CHNK" little-endian
inline constexpr size_t kChunkHeaderSize = 16;
inline constexpr uint32_t kMaxChunkPayload = 64u << 20;  // larger lengths are corruption

// CRC-32 (zlib) of the chunk's length and count fields followed by its payload.
uint32_t chunk_checksum(uint32_t payload_size, uint32_t record_count,
                        std::span<const uint8_t> payload);

}  // namespace cprof::format
