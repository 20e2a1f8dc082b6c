#pragma once
// A small Result<T>: a value, or an Error whose message gains context as it travels up
// ("reading /bin/app: .debug_info: invalid DWARF"). C++20 has no std::expected yet.

#include <string>
#include <utility>
#include <variant>

namespace cprof::symbolize {

struct Error {
  std::string message;

  // Prefixes what the caller was doing: err.context("opening " + path).
  Error context(const std::string& what) const { return Error{what + ": " + message}; }
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const T& value() const& { return std::get<0>(v_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace cprof::symbolize
