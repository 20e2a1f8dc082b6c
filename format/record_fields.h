#pragma once
// The words records.h declares its records' fields with. Each record struct lists its
// fields once, in their order on disk:
//
//   static constexpr auto fields = std::tuple{
//       field("tid", &ThreadRecord::tid, wire::svarint),
//       field("name", &ThreadRecord::name, wire::str), ...};
//
// and that one list is the record's encoder, decoder, range checks and the least size of
// an entry when it is in a list (records.cpp reads it; docs/results-format.md documents
// it). This header only describes; it has no code that touches bytes.

#include <cstddef>
#include <string_view>

namespace cprof::format {

// How a value is written (docs/results-format.md, "Layout").
namespace wire {

struct Varint {};   // LEB128, an unsigned integer (a narrower member is cast back on reading)
struct Svarint {};  // zigzag LEB128, a signed integer
struct Str {};      // varint length, bytes
struct F64 {};      // IEEE double, 8 bytes little-endian
struct Flag {};     // a bool as one byte: 1 or 0 (read: anything but 0 is true)

// An enum as one byte; a byte above `last` makes the record malformed.
template <class E>
struct Enum {
  E last;
};

// An enum in bits 0-6 of one byte (above `last`: malformed) and a bool of the same
// record in bit 7.
template <class E, class FlagMember>
struct EnumAndFlag {
  E last;
  FlagMember flag;  // bool Record::*
};

// Inside a list: svarint, the difference from the same value in the list's previous
// element (from 0 for the first). Values that lie close together stay short.
struct Delta {};

// Varint, the value minus another field of the same struct, which comes before it on disk
// (an end written as a duration); 0 when the value is below it.
template <class BaseMember>
struct Since {
  BaseMember base;  // uint64_t Struct::*
};

// A struct element written as its own `fields`.
struct Nested {};

// varint count, then each element as `element`.
template <class Element>
struct List {
  Element element;
};

// Each element of a fixed-size array member as `element`, no count.
template <class Element>
struct Array {
  Element element;
};

inline constexpr Varint varint{};
inline constexpr Svarint svarint{};
inline constexpr Str str{};
inline constexpr F64 f64{};
inline constexpr Flag flag{};
inline constexpr Delta delta{};
inline constexpr Nested nested{};

template <class E>
constexpr Enum<E> u8_enum(E last) {
  return {last};
}
template <class E, class FlagMember>
constexpr EnumAndFlag<E, FlagMember> u8_enum_and_flag(E last, FlagMember flag_member) {
  return {last, flag_member};
}
template <class BaseMember>
constexpr Since<BaseMember> since(BaseMember base) {
  return {base};
}
template <class Element>
constexpr List<Element> list(Element element) {
  return {element};
}
template <class Element>
constexpr Array<Element> array(Element element) {
  return {element};
}

}  // namespace wire

// One field: its name (as docs/results-format.md names it), the member it is kept in, and
// how it is written.
template <class Member, class Encoding>
struct Field {
  std::string_view name;
  Member member;  // T Struct::*
  Encoding encoding;
};

template <class Member, class Encoding>
constexpr Field<Member, Encoding> field(std::string_view name, Member member, Encoding encoding) {
  return {name, member, encoding};
}

// A list of types (the record types: AllRecords in records.h).
template <class... Ts>
struct TypeList {
  template <template <class...> class To>
  using apply = To<Ts...>;
  static constexpr size_t size = sizeof...(Ts);
};

}  // namespace cprof::format
