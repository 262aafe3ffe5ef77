// SPDX-License-Identifier: Apache-2.0
// Small helpers over SQLite's C API for the loader and the database: a
// prepared INSERT bound column by column, one-shot SQL, one count.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace proctape::sql {

// One prepared statement, reset after each row.
class Insert {
 public:
  Insert(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Insert() { sqlite3_finalize(stmt_); }
  Insert(const Insert&) = delete;
  Insert& operator=(const Insert&) = delete;
  bool ok() const { return stmt_ != nullptr; }

  Insert& Int(std::int64_t v) {
    sqlite3_bind_int64(stmt_, ++at_, v);
    return *this;
  }
  Insert& Null() {
    sqlite3_bind_null(stmt_, ++at_);
    return *this;
  }
  Insert& Text(std::string_view v) {
    sqlite3_bind_text(stmt_, ++at_, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // Bytes that outlive the row (a record of the item being loaded): not copied.
  Insert& Blob(std::string_view v) {
    sqlite3_bind_blob(stmt_, ++at_, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
    return *this;
  }
  template <typename T>
  Insert& Maybe(const std::optional<T>& v) {
    return v ? Int(static_cast<std::int64_t>(*v)) : Null();
  }
  // Runs it: "" or SQLite's message.
  std::string Row() {
    const int rc = sqlite3_step(stmt_);
    sqlite3_reset(stmt_);  // every row binds every parameter: none to clear
    at_ = 0;
    return rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int at_ = 0;
};

// Runs `sql` (any number of statements, no rows wanted): "" or SQLite's
// message.
inline std::string Exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return "";
  std::string out = message != nullptr ? message : "unknown SQLite error";
  sqlite3_free(message);
  return out;
}

// The one count `sql` selects (0 when it selects none or fails).
inline std::uint64_t SelectCount(sqlite3* db, const std::string& sql) {
  std::uint64_t n = 0;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    n = static_cast<std::uint64_t>(sqlite3_column_int64(s, 0));
  }
  sqlite3_finalize(s);
  return n;
}

}  // namespace proctape::sql
