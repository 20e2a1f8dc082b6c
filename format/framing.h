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
//
// Framing records (format 1.6): every chunk begins with a chunk_sequence record (type 10,
// payload: varint number, 0 for the file's first chunk), and a file whose writer ended it
// (exit, a signal the runtime caught, exec) has a file_end record (type 11, payload:
// varint number of chunks written with this one) in its last chunk. The reader consumes
// them itself: a chunk whose number it has seen is a copy and is skipped, a gap in the
// numbers is chunks lost, and a file whose last chunk holds no file_end was cut (the
// process was SIGKILLed, the disk filled, the file was truncated). Readers before 1.6
// skip them as unknown records.

#include <cstdint>
#include <span>

namespace cprof::format {

inline constexpr char kFileMagic[8] = {'C', 'P', 'R', 'O', 'F', 'R', 'E', 'S'};
inline constexpr uint16_t kMajorVersion = 1;
// Minor versions: 1 causal (16-18); 2 GPU (32-34); 3 region spans (19); 4 GPU trace
// windows (35); 5 thread names (9); 6 framing records (10, 11).
inline constexpr uint16_t kMinorVersion = 6;
inline constexpr size_t kFileHeaderSize = 16;

inline constexpr uint32_t kChunkMagic = 0x4B4E4843;  // "CHNK" little-endian
inline constexpr size_t kChunkHeaderSize = 16;
inline constexpr uint32_t kMaxChunkPayload = 64u << 20;  // larger lengths are corruption

inline constexpr uint32_t kChunkSequenceType = 10;
inline constexpr uint32_t kFileEndType = 11;

// CRC-32 (zlib) of the chunk's length and count fields followed by its payload.
uint32_t chunk_checksum(uint32_t payload_size, uint32_t record_count,
                        std::span<const uint8_t> payload);

}  // namespace cprof::format
