// Running SQL over the loaded tables and printing its rows (`proctape sql`):
// as an aligned table, CSV (RFC 4180) or JSON (one object per statement:
// its columns and its rows, a BLOB as its bytes escaped).
#pragma once

#include <sqlite3.h>

#include <cstdio>
#include <string>

namespace proctape::sql {

enum class Format { kTable, kCsv, kJson };

// Runs every statement of `text` in turn, printing each one's rows to `out`:
// "" or SQLite's message (one line) for the first that fails.
std::string Run(sqlite3* db, const std::string& text, Format format, FILE* out);

}  // namespace proctape::sql
