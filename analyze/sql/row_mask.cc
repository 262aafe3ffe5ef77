// SPDX-License-Identifier: Apache-2.0
#include "analyze/sql/row_mask.h"

#include "analyze/sql/statement.h"

namespace proctape::sql {
namespace {

// proctape_mask(X): X with the mask's tokens masked, of X's type.
void MaskFunction(sqlite3_context* context, int, sqlite3_value** args) {
  const auto* mask = static_cast<const TokenMask*>(sqlite3_user_data(context));
  const int type = sqlite3_value_type(args[0]);
  if (type != SQLITE_TEXT && type != SQLITE_BLOB) return sqlite3_result_value(context, args[0]);
  const char* p = static_cast<const char*>(sqlite3_value_blob(args[0]));
  const std::string_view v(p == nullptr ? "" : p,
                           static_cast<std::size_t>(sqlite3_value_bytes(args[0])));
  if (!mask->Holds(v)) return sqlite3_result_value(context, args[0]);
  const std::string masked = mask->Masked(v);
  if (type == SQLITE_TEXT) {
    sqlite3_result_text(context, masked.data(), static_cast<int>(masked.size()), SQLITE_TRANSIENT);
  } else {
    sqlite3_result_blob(context, masked.data(), static_cast<int>(masked.size()), SQLITE_TRANSIENT);
  }
}

}  // namespace

std::string RowMask::MaskLate(sqlite3* db, std::int64_t file_id) {
  bool added = false;
  for (const std::string& t : request_tokens_) added = mask_.Add(t) || added;
  request_tokens_.clear();
  if (!added) return "";
  if (sqlite3_create_function(db, "proctape_mask", 1, SQLITE_UTF8, &mask_, MaskFunction, nullptr,
                              nullptr) != SQLITE_OK) {
    return sqlite3_errmsg(db);
  }
  const std::string id = std::to_string(file_id);
  std::string failed = Exec(
      db,
      "UPDATE processes SET comm = proctape_mask(comm), argv = proctape_mask(argv), "
      "cmdline = proctape_mask(cmdline), environ = proctape_mask(environ), "
      "stat = proctape_mask(stat), status = proctape_mask(status), "
      "cgroup = proctape_mask(cgroup), cgroup_text = proctape_mask(cgroup_text) "
      "WHERE file_id = " +
          id +
          ";"
          "UPDATE resolutions SET argv = proctape_mask(argv), exe_path = proctape_mask(exe_path), "
          "detail = proctape_mask(detail) WHERE file_id = " +
          id);
  sqlite3_create_function(db, "proctape_mask", 1, SQLITE_UTF8, nullptr, nullptr, nullptr, nullptr);
  return failed;
}

}  // namespace proctape::sql
