// SPDX-License-Identifier: Apache-2.0
// The one schema (analyze/sql/schema.sql) in PostgreSQL's dialect, for a
// fleet's captures loaded from `export --format csv` (docs/sql.md, "Into
// PostgreSQL: a fleet's captures in one database"). Translated, not written
// twice: every table, column, view and index is schema.sql's, by a small
// mapping of its types:
//
//   INTEGER -> bigint     SQLite's INTEGER holds 64 bits
//   TEXT    -> text
//   BLOB    -> bytea      the same bytes (the CSV's \xNN text decoded by
//                         proctape_bytes() as the rows are merged)
//
// and what PostgreSQL adds: files.sha256 unique (the key of a file's rows
// across loads and hosts), files.file_id numbered by a sequence, the
// SQLite functions the worked queries use under the same names
// (errno_name, group_concat, date(N, 'unixepoch')), and the staging tables
// the CSV is copied into, which proctape_merge() moves into the tables,
// skipping every file whose sha256 is already loaded.
#pragma once

#include <string>
#include <vector>

namespace proctape::sql {

struct SchemaColumn {
  std::string name;
  std::string type;  // as schema.sql declares it: INTEGER, TEXT or BLOB
};

struct SchemaTable {
  std::string name;
  std::vector<SchemaColumn> columns;  // in schema.sql's order
};

// The tables of schema.sql (CREATE TABLE), in its order, read from its text.
std::vector<SchemaTable> SchemaTables();

// schema.sql itself: what `proctape sql --schema sqlite` prints.
std::string SqliteSchema();

// The schema in PostgreSQL's dialect (above): what `proctape sql --schema
// postgresql` prints, to be run once in an empty database.
std::string PostgresqlSchema();

}  // namespace proctape::sql
