#include "format/records.h"

#include <algorithm>
#include <array>
#include <string>
#include <type_traits>
#include <utility>

#include "format/encoding.h"
#include "format/framing.h"
#include "format/record_codec.h"

namespace cprof::format {
namespace {

// Reads the `fields` tables of records.h: every record is written and read here by walking
// its fields in order, so one table is its encoder, its decoder and its range checks.

template <class T, template <class...> class Template>
constexpr bool is_a = false;
template <template <class...> class Template, class... Args>
constexpr bool is_a<Template<Args...>, Template> = true;

template <class T>
using Element = std::remove_cvref_t<decltype(std::declval<T&>()[0])>;

// The least bytes a value of type T written as `encoding` takes: a count read from a file
// is bounded by what the rest of the payload could hold (Decoder::count).
template <class T, class Encoding>
constexpr size_t min_bytes(const Encoding& encoding) {
  if constexpr (std::is_same_v<Encoding, wire::F64>) {
    return 8;
  } else if constexpr (is_a<Encoding, wire::Array>) {
    return std::extent_v<T> * min_bytes<Element<T>>(encoding.element);
  } else if constexpr (std::is_same_v<Encoding, wire::Nested>) {
    return std::apply(
        [](const auto&... f) {
          return (
              min_bytes<std::remove_cvref_t<decltype(std::declval<T&>().*f.member)>>(f.encoding) +
              ...);
        },
        T::fields);
  } else {
    static_assert(std::is_same_v<Encoding, wire::Varint> ||
                      std::is_same_v<Encoding, wire::Svarint> ||
                      std::is_same_v<Encoding, wire::Str> || std::is_same_v<Encoding, wire::Flag> ||
                      std::is_same_v<Encoding, wire::Delta> || is_a<Encoding, wire::Enum> ||
                      is_a<Encoding, wire::EnumAndFlag> || is_a<Encoding, wire::Since> ||
                      is_a<Encoding, wire::List>,
                  "an encoding min_bytes() does not know");
    return 1;  // one varint (a string's length, a list's count) or one byte
  }
}

template <class S>
void put_fields(Encoder& e, const S& s, const S* prev);
template <class S>
bool get_fields(Decoder& d, S& s, const S* prev);

// Writes one value. `prev` is the same value in the list's previous element (null outside
// a list and for its first element): only wire::delta reads it.
template <class T, class Encoding>
void put(Encoder& e, const Encoding& encoding, const T& v, const T* prev) {
  if constexpr (std::is_same_v<Encoding, wire::Varint>) {
    static_assert(std::is_unsigned_v<T>);
    e.varint(v);
  } else if constexpr (std::is_same_v<Encoding, wire::Svarint>) {
    static_assert(std::is_same_v<T, int64_t>);
    e.svarint(v);
  } else if constexpr (std::is_same_v<Encoding, wire::Str>) {
    static_assert(std::is_same_v<T, std::string>);
    e.str(v);
  } else if constexpr (std::is_same_v<Encoding, wire::F64>) {
    static_assert(std::is_same_v<T, double>);
    e.f64(v);
  } else if constexpr (std::is_same_v<Encoding, wire::Flag>) {
    static_assert(std::is_same_v<T, bool>);
    e.u8(v ? 1 : 0);
  } else if constexpr (std::is_same_v<Encoding, wire::Enum<T>>) {
    e.u8(static_cast<uint8_t>(v));
  } else if constexpr (std::is_same_v<Encoding, wire::Delta>) {
    static_assert(std::is_same_v<T, uint64_t>);
    e.svarint(static_cast<int64_t>(v - (prev != nullptr ? *prev : 0)));
  } else if constexpr (is_a<Encoding, wire::List>) {
    e.varint(v.size());
    const Element<T>* previous = nullptr;
    for (const auto& x : v) {
      put(e, encoding.element, x, previous);
      previous = &x;
    }
  } else if constexpr (is_a<Encoding, wire::Array>) {
    for (const auto& x : v) put<Element<T>>(e, encoding.element, x, nullptr);
  } else if constexpr (std::is_same_v<Encoding, wire::Nested>) {
    put_fields(e, v, prev);
  } else {
    static_assert(is_a<Encoding, wire::Since> || is_a<Encoding, wire::EnumAndFlag>,
                  "an encoding put() does not know");
  }
}

// Reads one value, as put() wrote it. False when it is out of its range (an enum above its
// last value); the decoder's own errors (a short payload) are left for the caller to check.
template <class T, class Encoding>
bool get(Decoder& d, const Encoding& encoding, T& v, const T* prev) {
  if constexpr (std::is_same_v<Encoding, wire::Varint>) {
    v = static_cast<T>(d.varint());
  } else if constexpr (std::is_same_v<Encoding, wire::Svarint>) {
    v = d.svarint();
  } else if constexpr (std::is_same_v<Encoding, wire::Str>) {
    v = d.str();
  } else if constexpr (std::is_same_v<Encoding, wire::F64>) {
    v = d.f64();
  } else if constexpr (std::is_same_v<Encoding, wire::Flag>) {
    v = d.u8() != 0;
  } else if constexpr (std::is_same_v<Encoding, wire::Enum<T>>) {
    const uint8_t byte = d.u8();
    if (byte > static_cast<uint8_t>(encoding.last)) return false;
    v = static_cast<T>(byte);
  } else if constexpr (std::is_same_v<Encoding, wire::Delta>) {
    v = (prev != nullptr ? *prev : 0) + static_cast<uint64_t>(d.svarint());
  } else if constexpr (is_a<Encoding, wire::List>) {
    v.resize(d.count(min_bytes<Element<T>>(encoding.element)));
    for (size_t i = 0; i < v.size(); ++i) {
      if (!get(d, encoding.element, v[i], i > 0 ? &v[i - 1] : nullptr)) return false;
    }
  } else if constexpr (is_a<Encoding, wire::Array>) {
    for (auto& x : v) {
      if (!get<Element<T>>(d, encoding.element, x, nullptr)) return false;
    }
  } else if constexpr (std::is_same_v<Encoding, wire::Nested>) {
    return get_fields(d, v, prev);
  } else {
    static_assert(is_a<Encoding, wire::Since> || is_a<Encoding, wire::EnumAndFlag>,
                  "an encoding get() does not know");
  }
  return true;
}

// One field of s. The encodings that involve another field of s are written here; the
// rest by put() and get() on the field's value alone.
template <class S, class F>
void put_field(Encoder& e, const F& f, const S& s, const S* prev) {
  const auto& v = s.*f.member;
  if constexpr (is_a<decltype(f.encoding), wire::Since>) {
    const auto base = s.*f.encoding.base;
    e.varint(v > base ? v - base : 0);
  } else if constexpr (is_a<decltype(f.encoding), wire::EnumAndFlag>) {
    e.u8(static_cast<uint8_t>(static_cast<uint8_t>(v) | (s.*f.encoding.flag ? 0x80 : 0)));
  } else {
    put(e, f.encoding, v, prev != nullptr ? &(prev->*f.member) : nullptr);
  }
}

template <class S, class F>
bool get_field(Decoder& d, const F& f, S& s, const S* prev) {
  auto& v = s.*f.member;
  if constexpr (is_a<decltype(f.encoding), wire::Since>) {
    v = s.*f.encoding.base + d.varint();
  } else if constexpr (is_a<decltype(f.encoding), wire::EnumAndFlag>) {
    const uint8_t byte = d.u8();
    s.*f.encoding.flag = (byte & 0x80) != 0;
    if ((byte & 0x7f) > static_cast<uint8_t>(f.encoding.last)) return false;
    v = static_cast<std::remove_cvref_t<decltype(v)>>(byte & 0x7f);
  } else {
    return get(d, f.encoding, v, prev != nullptr ? &(prev->*f.member) : nullptr);
  }
  return true;
}

template <class S>
void put_fields(Encoder& e, const S& s, const S* prev) {
  std::apply([&](const auto&... f) { (put_field(e, f, s, prev), ...); }, S::fields);
}

// Stops at the first field out of its range.
template <class S>
bool get_fields(Decoder& d, S& s, const S* prev) {
  return std::apply([&](const auto&... f) { return (get_field(d, f, s, prev) && ...); }, S::fields);
}

template <class R>
std::optional<Record> decode_as(std::span<const uint8_t> payload) {
  Decoder d(payload);
  R r;
  if (!get_fields(d, r, static_cast<const R*>(nullptr)) || !d.ok()) return std::nullopt;
  if constexpr (requires { r.valid(); }) {
    if (!r.valid()) return std::nullopt;
  }
  return Record(std::move(r));
}

// decode_as<R> by type number, for every type of AllRecords.
using DecodeFn = std::optional<Record> (*)(std::span<const uint8_t>);

template <class... Rs>
constexpr auto make_decoders(TypeList<Rs...> /*records*/) {
  constexpr uint32_t last = std::max({static_cast<uint32_t>(Rs::type)...});
  std::array<DecodeFn, last + 1> decoders{};
  const auto add = [&](uint32_t type, DecodeFn decode) {
    if (decoders[type] != nullptr) throw "two record types of AllRecords have one type number";
    if (type == kChunkSequenceType || type == kFileEndType) throw "a framing record's number";
    decoders[type] = decode;
  };
  (add(static_cast<uint32_t>(Rs::type), &decode_as<Rs>), ...);
  return decoders;
}

constexpr auto kDecoders = make_decoders(AllRecords{});

}  // namespace

void encode_record(const Record& record, std::vector<uint8_t>& out) {
  // The payload is encoded in place and its length put in front afterwards: no scratch
  // buffer, which as a thread_local would already be destroyed when the runtime writes
  // its last records from a library destructor at exit.
  Encoder e(out);
  std::visit(
      [&](const auto& r) {
        using R = std::decay_t<decltype(r)>;
        e.varint(static_cast<uint32_t>(R::type));
        const size_t payload_start = out.size();
        put_fields(e, r, static_cast<const R*>(nullptr));
        uint8_t length[10];
        size_t n = 0;
        for (uint64_t v = out.size() - payload_start;; v >>= 7) {
          length[n++] = static_cast<uint8_t>(v >= 0x80 ? (v & 0x7f) | 0x80 : v);
          if (v < 0x80) break;
        }
        out.insert(out.begin() + static_cast<std::ptrdiff_t>(payload_start), length, length + n);
      },
      record);
}

std::optional<Record> decode_record(uint32_t type, std::span<const uint8_t> payload) {
  if (type >= kDecoders.size() || kDecoders[type] == nullptr) return std::nullopt;
  return kDecoders[type](payload);
}

}  // namespace cprof::format
