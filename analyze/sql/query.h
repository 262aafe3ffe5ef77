// SPDX-License-Identifier: Apache-2.0
// Running SQL over the loaded tables and printing its rows (`proctape sql`):
// as an aligned table, CSV (RFC 4180) or JSON (one document for the whole
// run, an object per statement: its columns and its rows, a BLOB as its
// bytes escaped).
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <cstdio>
#include <string>

namespace proctape::sql {

enum class Format { kTable, kCsv, kJson };

// What one run of several texts (each -c, each statement of standard
// input) has done so far.
struct RunState {
  std::size_t statements = 0;  // statements run (or failed)
  std::size_t printed = 0;     // of them, those that printed columns
  std::size_t objects = 0;     // JSON: the statements' objects printed so far
};

// JSON: a run is one document, {"statements":[...]}, its statements'
// objects in the order run, each on a line of its own (docs/cli/json.md):
// OpenDocument before the first text is run, CloseDocument after the last,
// a failure's too, so that standard output is one document whatever
// happened. Table and CSV: nothing.
void OpenDocument(Format format, FILE* out);
void CloseDocument(Format format, FILE* out);

// Runs every statement of `text` in turn, printing each one's rows to `out`:
// "" or SQLite's message (one line) for the first that fails, "statement N:
// " before it when it is not the run's first. Column names and text show
// as values do (a byte outside printable ASCII as \xNN). A table's widths
// come from its first 1,000 rows; later rows are printed as they are read.
// A table or CSV block after another is set apart by a blank line (JSON:
// an object after another by a ',', each on its line, within the document
// OpenDocument began). `state` carries the counts across calls (nullptr:
// this text alone).
std::string Run(sqlite3* db, const std::string& text, Format format, FILE* out,
                RunState* state = nullptr);

}  // namespace proctape::sql
