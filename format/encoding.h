#pragma once
// Little-endian, LEB128-varint encoding used by every record of the results format.
// Encoder appends to a caller-owned byte vector; Decoder reads a bounded span and turns
// every overrun into a sticky error instead of reading past the end.

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cprof::format {

class Encoder {
 public:
  explicit Encoder(std::vector<uint8_t>& out) : out_(out) {}

  void u8(uint8_t v) { out_.push_back(v); }
  void u32_fixed(uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u64_fixed(uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void varint(uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<uint8_t>(v | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<uint8_t>(v));
  }
  void svarint(int64_t v) {  // zigzag, so small negative numbers stay short
    varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void f64(double v) {
    uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    u64_fixed(bits);
  }
  void str(std::string_view s) {
    varint(s.size());
    out_.insert(out_.end(), s.begin(), s.end());
  }

 private:
  std::vector<uint8_t>& out_;
};

class Decoder {
 public:
  explicit Decoder(std::span<const uint8_t> in) : in_(in) {}

  bool ok() const { return ok_; }
  bool at_end() const { return pos_ >= in_.size(); }
  size_t position() const { return pos_; }

  uint8_t u8() {
    if (!need(1)) return 0;
    return in_[pos_++];
  }
  uint32_t u32_fixed() {
    if (!need(4)) return 0;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(in_[pos_++]) << (8 * i);
    return v;
  }
  uint64_t u64_fixed() {
    if (!need(8)) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(in_[pos_++]) << (8 * i);
    return v;
  }
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (!need(1)) return 0;
      const uint8_t b = in_[pos_++];
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    ok_ = false;  // more than 10 bytes: not a varint
    return 0;
  }
  int64_t svarint() {
    const uint64_t z = varint();
    return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  double f64() {
    const uint64_t bits = u64_fixed();
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::string str() {
    const uint64_t n = varint();
    if (!need(n)) return {};
    std::string s(reinterpret_cast<const char*>(in_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  std::span<const uint8_t> bytes(uint64_t n) {
    if (!need(n)) return {};
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  // Bounds a count read from the input by what the remaining bytes could possibly hold,
  // so a corrupt count cannot make the reader allocate gigabytes.
  uint64_t count(size_t min_bytes_per_item) {
    const uint64_t n = varint();
    if (min_bytes_per_item != 0 && n > (in_.size() - pos_) / min_bytes_per_item) {
      ok_ = false;
      return 0;
    }
    return n;
  }

 private:
  bool need(uint64_t n) {
    if (!ok_ || n > in_.size() - pos_) {
      ok_ = false;
      return false;
    }
    return true;
  }

  std::span<const uint8_t> in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace cprof::format
