#pragma once
// A SQLite connection for `--format sqlite`: prepared INSERTs bound from C++ values in
// order. The first error sticks (error()); every later call is a no-op, so a writer checks
// once at the end.

#include <sqlite3.h>

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "format/utf8.h"

namespace cprof::report {

class Db {
 public:
  explicit Db(const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK)
      error_ = db_ ? sqlite3_errmsg(db_) : "cannot open";
  }
  ~Db() {
    for (auto* s : statements_) sqlite3_finalize(s);
    sqlite3_close(db_);
  }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  void exec(const char* sql) {
    if (!ok()) return;
    char* message = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
      error_ = message ? message : "SQL error";
      sqlite3_free(message);
    }
  }

  // A prepared INSERT; bind values in order with row(...).
  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (ok() && sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK)
      error_ = sqlite3_errmsg(db_);
    statements_.push_back(s);
    return s;
  }

  template <typename... Values>
  void row(sqlite3_stmt* s, const Values&... values) {
    if (!ok() || !s) return;
    int i = 0;
    (bind(s, ++i, values), ...);
    if (sqlite3_step(s) != SQLITE_DONE) error_ = sqlite3_errmsg(db_);
    sqlite3_reset(s);
  }

 private:
  // TEXT is UTF-8 for SQLite's readers: bytes that are not become U+FFFD.
  static void bind(sqlite3_stmt* s, int i, const std::string& v) {
    if (!format::is_valid_utf8(v)) {
      const std::string checked = format::valid_utf8(v);
      sqlite3_bind_text(s, i, checked.data(), static_cast<int>(checked.size()), SQLITE_TRANSIENT);
      return;
    }
    sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  static void bind(sqlite3_stmt* s, int i, const char* v) { bind(s, i, std::string(v)); }
  static void bind(sqlite3_stmt* s, int i, double v) { sqlite3_bind_double(s, i, v); }
  static void bind(sqlite3_stmt* s, int i, std::nullptr_t) { sqlite3_bind_null(s, i); }
  static void bind(sqlite3_stmt* s, int i, const std::optional<double>& v) {
    v ? sqlite3_bind_double(s, i, *v) : sqlite3_bind_null(s, i);
  }
  static void bind(sqlite3_stmt* s, int i, const std::optional<int64_t>& v) {
    v ? sqlite3_bind_int64(s, i, *v) : sqlite3_bind_null(s, i);
  }
  template <typename Int>
  requires std::is_integral_v<Int>
  static void bind(sqlite3_stmt* s, int i, Int v) {
    // SQLite integers are signed 64-bit; addresses above 2^63 wrap, as in rocpd.
    sqlite3_bind_int64(s, i, static_cast<sqlite3_int64>(v));
  }

  sqlite3* db_ = nullptr;
  std::string error_;
  std::vector<sqlite3_stmt*> statements_;
};

}  // namespace cprof::report
