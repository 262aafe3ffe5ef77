// SPDX-License-Identifier: Apache-2.0
// One SQLite database of .ptape files, by the one schema
// (analyze/sql/schema.sql): what `proctape sql` queries and `proctape export
// --format sqlite|csv` writes. In memory; the caller says where it goes.
//
//   Open() -> Load(path) for each file, in order (file_id 1, 2, ...) ->
//   Finish() (the indexes, once: faster than kept up row by row) ->
//   SaveTo / WriteCsv / queries (analyze/sql/query.h).
#pragma once

#include <sqlite3.h>

#include <sys/types.h>

#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <memory>
#include <string>
#include <vector>

#include "analyze/sql/load.h"
#include "core/failure.h"
#include "corpus/manifest.h"
#include "fs/output_file.h"

namespace proctape::sql {

class Database {
 public:
  // A database holding the schema's tables and views, and the function
  // errno_name(N) ("ENOENT" for 2), or nullptr with *failure (kInternal:
  // SQLite's message). In memory; or, given `file_fd` (an empty file open
  // for reading and writing: an output's temporary), in that file, with at
  // most kFileCacheKiB of its pages in memory (analyze/sql/fd_vfs.h).
  static std::unique_ptr<Database> Open(Failure* failure, int file_fd = -1);
  static constexpr int kFileCacheKiB = 16 * 1024;
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  sqlite3* get() const { return db_; }

  // Loads `path` ("-": standard input) as the next file. A file listed in
  // the MANIFEST of its directory (a corpus entry) gets its entry name and
  // scenario; a MANIFEST that does not parse leaves them NULL and says why
  // in Loaded::warning.
  Loaded Load(const std::string& path);
  // The indexes: after the last Load. "" or SQLite's message.
  std::string Finish();
  // Makes every later statement read-only (PRAGMA query_only), for good: a
  // PRAGMA that sets a value is refused ("not authorized").
  std::string ReadOnly();

  // Writes the database, as one SQLite file, to `out`: "" or what failed.
  // A database made in `out`'s file (Open's `file_fd`) is only flushed.
  std::string SaveTo(OutputFile& out);
  // The size of the file SaveTo writes.
  std::uint64_t ImageBytes();
  // Every table as TABLE.csv (RFC 4180, a header row, NULL as an empty
  // field, text and BLOBs escaped as every view escapes bytes) in the
  // directory `dir_fd`, mode 0600 when `owner_only` (else 0644 less the
  // umask), adding their sizes to *bytes: "" or what failed.
  std::string WriteCsv(int dir_fd, bool owner_only, std::uint64_t* bytes);
  // The tables, in schema order.
  std::vector<std::string> Tables();
  // The rows of `table` (one of Tables()).
  std::uint64_t Count(const std::string& table);

  // Some file loaded keeps environment values (format/file_holds.h): what is
  // written of the database is 0600 (fs/output_file.h, rule 2).
  bool keeps_environ() const { return keeps_environ_; }
  // The tokens of every file loaded: what a message naming them masks.
  const TokenMask& tokens() const { return tokens_; }

 private:
  Database() = default;
  // The MANIFEST entry naming `path`'s base name in its directory, or null.
  const ManifestEntry* EntryOf(const std::string& path, std::string* warning);

  sqlite3* db_ = nullptr;
  std::optional<std::pair<dev_t, ino_t>> file_;  // the file it is made in
  std::int64_t next_id_ = 1;
  bool keeps_environ_ = false;
  TokenMask tokens_;
  // The MANIFEST of a directory and its entries by file name (a corpus of
  // 10,000 entries is looked up 10,000 times); null: none.
  struct Entries {
    std::unique_ptr<Manifest> manifest;
    std::unordered_map<std::string, const ManifestEntry*> by_file;
  };
  std::map<std::string, Entries> manifests_;  // by directory
};

// The tables of the schema, in its order (what Tables() lists): the files
// of a CSV export are these names with ".csv".
inline constexpr const char* kTables[] = {"files",        "frames",      "processes",
                                          "observations", "resolutions", "errnos"};

// The MANIFEST beside `path` (DIR/MANIFEST), which Load reads when it is
// there: for the jail's list of inputs. "" for "-".
std::string ManifestBeside(const std::string& path);

}  // namespace proctape::sql
