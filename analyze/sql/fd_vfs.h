// SPDX-License-Identifier: Apache-2.0
// A SQLite database whose file is a descriptor already open: an output's
// temporary (`sql --db`, `export --format sqlite`) or an unnamed file in an
// output's directory (`export --format csv`). No path is opened again, as
// the jail wants (cli/jail.h); the pages SQLite does not hold in its cache
// are on disk, so the memory a load takes is bounded by the cache, not by
// the database (docs/sql.md, "Memory").
//
// The VFS serves one file per name, the main database; it opens no
// journal, temporary or WAL file (the database is made with journal_mode
// OFF and temp_store MEMORY: a load that fails is never committed, so a
// journal would protect nothing), and it takes no lock (one connection of
// one process uses the descriptor).
#pragma once

#include <string>

namespace proctape::sql {

// The name of the SQLite VFS, registered (once, not as the default) by
// FdDatabaseUri.
inline constexpr const char* kFdVfsName = "proctape-fd";

// The file name to give sqlite3_open_v2 with kFdVfsName for the database
// held by `fd` (open for reading and writing, positioned anywhere). The VFS
// reads and writes it by pread/pwrite on a duplicate of `fd`, so the
// caller may close or commit its own descriptor while the database is
// still open.
std::string FdDatabaseName(int fd);

}  // namespace proctape::sql
