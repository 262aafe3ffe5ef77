// SPDX-License-Identifier: Apache-2.0
// Loading .ptape files into the tables of analyze/sql/schema.sql: each file
// read chunk by chunk (format/snapshot_stream.h), never whole, its rows
// inserted in one transaction. A damaged file loads up to its damage, which
// files.damage names.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

#include "format/format_error.h"
#include "replay/token_mask.h"

namespace proctape::sql {

// Creates the schema's tables and views in `db`: "" or SQLite's message.
std::string CreateSchema(sqlite3* db);
// Creates its indexes, once every file is loaded: "" or SQLite's message.
std::string CreateIndexes(sqlite3* db);

// What the file's bytes do not say: files.sha256, entry and scenario.
struct FileFacts {
  std::string sha256;    // "" for standard input (NULL)
  std::string entry;     // the corpus entry naming it ("" NULL)
  std::string scenario;  // that entry's scenario ("" NULL)
};

struct Loaded {
  std::string error;  // SQLite's message: the database failed ("" otherwise)
  // The file could not be opened as a .ptape (missing, not one, a newer
  // version, no preamble): nothing was loaded, and this says why.
  std::optional<FormatError> refused;
  std::string damage;             // the file's first damage ("" intact)
  FormatErrorKind damage_kind{};  // its kind, for the exit status
  std::string warning;            // one line about the file that did not stop its load
  bool keeps_environ = false;     // its header keeps environment values
  TokenMask tokens;               // its tokens (what was masked in its rows)
  std::uint64_t processes = 0;
  std::uint64_t observations = 0;
};

// Loads `path` ("-": standard input) as file `file_id`.
Loaded LoadFile(sqlite3* db, std::int64_t file_id, const std::string& path,
                const FileFacts& facts = {});

}  // namespace proctape::sql
