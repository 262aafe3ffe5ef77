// SPDX-License-Identifier: Apache-2.0
#include "analyze/sql/query.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/proc_parse.h"
#include "proto/summary.h"

namespace proctape::sql {
namespace {

// A value as text: NULL as "NULL" (table) or "" (CSV); a BLOB's bytes
// escaped as every view escapes them (\xNN outside printable ASCII, '\'
// included). Text was escaped so when loaded: only a byte outside printable
// ASCII that SQL made (char(10), a BLOB cast) is escaped again, '\' kept, so
// that loaded text shows as loaded.
std::string Cell(sqlite3_stmt* s, int i, Format format) {
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_NULL: return format == Format::kTable ? "NULL" : "";
    case SQLITE_BLOB: {
      const char* p = static_cast<const char*>(sqlite3_column_blob(s, i));
      return EscapeBytes(std::string_view(p == nullptr ? "" : p,
                                          static_cast<std::size_t>(sqlite3_column_bytes(s, i))),
                         65536);
    }
    default: {
      const unsigned char* t = sqlite3_column_text(s, i);
      return Printable(std::string_view(t == nullptr ? "" : reinterpret_cast<const char*>(t),
                                        static_cast<std::size_t>(sqlite3_column_bytes(s, i))));
    }
  }
}

// A CSV field (RFC 4180): quoted when it holds a separator, a quote or a
// line end, and when it is empty but not NULL (`null`: an empty field), so
// that a reader tells the two apart as PostgreSQL's COPY does (an unquoted
// empty field is NULL, "" the empty value: docs/sql.md, "Into PostgreSQL: a
// fleet's captures in one database").
std::string Csv(const std::string& v, bool null = false) {
  if (v.empty()) return null ? "" : "\"\"";
  if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// One JSON value, by protobuf's printer (google.protobuf.Value): an integer
// of magnitude 2^53 or more, which a double may not hold, as its decimal string (as 64-bit
// integers print in every proctape JSON); a float that is no JSON number
// (inf) as its text.
void SetValue(sqlite3_stmt* s, int i, google::protobuf::Value* v) {
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_NULL: v->set_null_value(google::protobuf::NULL_VALUE); return;
    case SQLITE_INTEGER: {
      const std::int64_t n = sqlite3_column_int64(s, i);
      constexpr std::int64_t kExact = std::int64_t{1} << 53;
      if (n > -kExact && n < kExact) {
        v->set_number_value(static_cast<double>(n));
      } else {
        v->set_string_value(std::to_string(n));
      }
      return;
    }
    case SQLITE_FLOAT: {
      const double d = sqlite3_column_double(s, i);
      if (std::isfinite(d)) {
        v->set_number_value(d);
      } else {
        v->set_string_value(d > 0 ? "inf" : "-inf");
      }
      return;
    }
    default: v->set_string_value(Cell(s, i, Format::kJson)); return;
  }
}

std::string Json(const google::protobuf::Message& m) {
  std::string out;
  (void)google::protobuf::util::MessageToJsonString(m, &out);
  return out;
}

// A table's widths come from its first rows, which are held: past them a
// row is printed as it is read, aligned to those widths (a wider cell
// pushes the next), so that a result of millions of rows is never held.
constexpr std::size_t kAlignedRows = 1000;

// Prints a table's rows, aligned.
class Table {
 public:
  Table(std::vector<std::string> names, FILE* out) : out_(out) {
    for (const std::string& n : names) width_.push_back(n.size());
    held_.push_back(std::move(names));
  }
  void Add(std::vector<std::string> row) {
    if (held_.empty()) return Line(row);
    for (std::size_t i = 0; i < row.size(); ++i) width_[i] = std::max(width_[i], row[i].size());
    held_.push_back(std::move(row));
    if (held_.size() > kAlignedRows) Flush();
  }
  void Flush() {
    for (const auto& row : held_) Line(row);
    held_.clear();
  }

 private:
  void Line(const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      l += cells[i];
      if (i + 1 < cells.size()) {
        l += std::string(cells[i].size() < width_[i] ? width_[i] - cells[i].size() + 2 : 2, ' ');
      }
    }
    std::fprintf(out_, "%s\n", l.c_str());
  }

  FILE* out_;
  std::vector<std::size_t> width_;
  std::vector<std::vector<std::string>> held_;  // the header and the first rows
};

// The rows of one prepared statement: "" or SQLite's message. `separate`:
// a blank line first (a table or CSV block after another), a ',' (a JSON
// object after another).
// A statement refused at its first step (a write to the read-only database,
// an error before any row) prints nothing: its failure ends the output with
// the statements before it.
std::string Print(sqlite3* db, sqlite3_stmt* s, Format format, FILE* out, bool separate) {
  int rc = sqlite3_step(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sqlite3_errmsg(db);
  const int n = sqlite3_column_count(s);
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(Printable(sqlite3_column_name(s, i)));
  if (separate && format != Format::kJson && n > 0) std::fprintf(out, "\n");
  // JSON: {"columns":[...],"rows":[[...],...]}, each list by protobuf's
  // printer, a row printed as it is read.
  bool first = true;
  if (format == Format::kJson) {
    google::protobuf::ListValue columns;
    for (const std::string& name : names) columns.add_values()->set_string_value(name);
    std::fprintf(out, "%s{\"columns\":%s,\"rows\":[", separate ? "," : "", Json(columns).c_str());
  }
  if (format == Format::kCsv && n > 0) {
    for (int i = 0; i < n; ++i) std::fprintf(out, "%s%s", i ? "," : "", Csv(names[i]).c_str());
    std::fprintf(out, "\n");
  }
  std::optional<Table> table;
  if (format == Format::kTable && n > 0) table.emplace(names, out);
  for (; rc == SQLITE_ROW; rc = sqlite3_step(s)) {
    if (format == Format::kCsv) {
      for (int i = 0; i < n; ++i) {
        const bool null = sqlite3_column_type(s, i) == SQLITE_NULL;
        std::fprintf(out, "%s%s", i ? "," : "", Csv(Cell(s, i, format), null).c_str());
      }
      std::fprintf(out, "\n");
    } else if (format == Format::kJson) {
      google::protobuf::ListValue row;
      for (int i = 0; i < n; ++i) SetValue(s, i, row.add_values());
      std::fprintf(out, "%s%s", first ? "" : ",", Json(row).c_str());
      first = false;
    } else if (table) {
      std::vector<std::string> row;
      for (int i = 0; i < n; ++i) row.push_back(Cell(s, i, format));
      table->Add(std::move(row));
    }
  }
  if (format == Format::kJson) std::fprintf(out, "]}\n");
  if (table) table->Flush();
  return rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
}

}  // namespace

void OpenDocument(Format format, FILE* out) {
  if (format == Format::kJson) std::fprintf(out, "{\"statements\":[\n");
}

void CloseDocument(Format format, FILE* out) {
  if (format == Format::kJson) std::fprintf(out, "]}\n");
}

std::string Run(sqlite3* db, const std::string& text, Format format, FILE* out, RunState* state) {
  RunState here;
  if (state == nullptr) state = &here;
  auto numbered = [&](const std::string& message) {
    return state->statements > 1 ? "statement " + std::to_string(state->statements) + ": " + message
                                 : message;
  };
  const char* at = text.c_str();
  while (*at != '\0') {
    sqlite3_stmt* s = nullptr;
    const char* tail = nullptr;
    const int prepared = sqlite3_prepare_v2(db, at, -1, &s, &tail);
    if (prepared == SQLITE_OK && s == nullptr) {  // blank or a comment
      at = tail;
      continue;
    }
    ++state->statements;
    if (prepared != SQLITE_OK) return numbered(sqlite3_errmsg(db));
    at = tail;
    const bool has_columns = sqlite3_column_count(s) > 0;
    const bool separate = format == Format::kJson ? state->objects > 0 : state->printed > 0;
    const std::string failed = Print(db, s, format, out, separate);
    sqlite3_finalize(s);
    if (!failed.empty()) return numbered(failed);
    if (has_columns) ++state->printed;
    ++state->objects;
  }
  return "";
}

}  // namespace proctape::sql
