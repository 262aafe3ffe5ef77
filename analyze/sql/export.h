// SPDX-License-Identifier: Apache-2.0
// `proctape export --format sqlite|csv`: a loaded database (analyze/sql/
// database.h, every file loaded and indexed) written to its output, kept to
// its owner when a file loaded keeps environment values (fs/output_file.h,
// rule 2), and committed. The output is open already; what is said of the
// run is the caller's.
#pragma once

#include <cstdint>
#include <string>

#include "analyze/sql/database.h"
#include "core/failure.h"
#include "fs/output_file.h"

namespace proctape::sql {

struct TablesExport {
  std::uint64_t processes = 0;     // rows of the processes table
  std::uint64_t observations = 0;  // rows of the observations table
  std::uint64_t files = 0;         // csv: the TABLE.csv files (every table); sqlite: 1
  std::uint64_t bytes = 0;         // what was written
  // The output cannot be written (kIo, or the commit's failure): about it.
  MaybeFailure output_failure;
};

// The OutputRequest of a csv export at `path`: a directory output that may
// replace (with `force`) only an earlier csv export, a directory holding
// files.csv and no entry but a TABLE.csv file (fs/output_file.h).
OutputRequest CsvRequest(const std::string& path, bool force);

// The file a database written to `output` is made in
// (LoadRequest::database_fd), so that its memory is bounded: for sqlite
// (`sql --db` too) the output's own temporary, when it was opened readable
// (OutputRequest::readable), which the caller keeps; for csv a new unnamed
// file in the output's directory (O_TMPFILE: the kernel frees it at its
// last close), which the caller closes once the database is open. -1 (in
// memory) for standard output, and where the file system makes no unnamed
// file.
int ExportDatabaseFd(bool csv, OutputFile& output);

// `database` into `output`: with `csv` every table as TABLE.csv in the
// directory `output` is, else one SQLite database file.
TablesExport ExportTables(Database& database, bool csv, OutputFile& output);

}  // namespace proctape::sql
