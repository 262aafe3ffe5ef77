// SPDX-License-Identifier: Apache-2.0
// The statements of one `proctape sql` run (docs/sql.md): each -c QUERY in
// turn, or else the statements read from a stream, each run once it is
// complete (';'), with the few commands of sqlite3's a user reaches for
// first (.tables, .schema [NAME], .help, .quit and .exit). Their rows go to
// one FILE in one format (analyze/sql/query.h): a JSON run is one document
// whatever happened, a failure's too.
#pragma once

#include <cstdio>
#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "analyze/sql/database.h"
#include "analyze/sql/query.h"
#include "core/failure.h"

namespace proctape::sql {

struct StatementsRequest {
  Format format = Format::kTable;
  FILE* out = nullptr;               // the rows (the CLI's standard output)
  std::vector<std::string> queries;  // each -c, run in turn; empty: the statements of `in`
  std::istream* in = nullptr;
  // `in` is a terminal: a banner and a prompt before each statement
  // (`prompt`), each failure given to `said` as it comes and the run goes
  // on to the end of `in` (Ctrl-D). Else the first failure ends the run.
  bool terminal = false;
  std::function<void(const std::string& text)> prompt;  // shown as it is, newlines included
  std::function<void(const std::string& failed)> said;  // one line, no newline
};

// Runs the statements of `request` over `d` (read-only by now: a refusal
// of it says so). Nothing when the run ended without a failure (on a
// terminal: always, each failure having been said); else kUsage with the
// failure that ended it: SQLite's message for the statement ("statement N:
// " before it when it is not the run's first), or a command that is none.
MaybeFailure RunStatements(Database& d, const StatementsRequest& request);

}  // namespace proctape::sql
