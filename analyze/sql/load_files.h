// SPDX-License-Identifier: Apache-2.0
// The .ptape FILEs loaded into one SQLite database (analyze/sql/database.h),
// in order, and indexed: as `proctape sql` and `proctape export --format
// sqlite|csv` load them. Where the load is and what it says of a FILE it
// goes on past are callbacks; what stops it is a LoadFailure. And the
// database saved as one SQLite file (`sql --db`).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "analyze/sql/database.h"
#include "core/failure.h"
#include "fs/output_file.h"

namespace proctape::sql {

struct LoadRequest {
  std::vector<std::string> files;  // in order; "-" is standard input
  // A damaged FILE loads up to its damage, with a warning; else it is
  // refused as damaged. A FILE too large to hold is refused either way
  // (docs/format.md section 7, "What a command holds").
  bool damage_loads = true;
  // "loading I of N: FILE" (escaped) before each FILE, and "" once its load
  // ended, before anything is said of it. May be empty.
  std::function<void(const std::string& line)> progress;
  // A FILE that loaded but is warned of, as it comes: `what`, about `file`
  // (as it is to be named) when that is not empty. May be empty.
  std::function<void(const std::string& file, const std::string& what)> warn;
  // The database made in this file (an output's temporary, empty, open for
  // reading and writing: Database::Open's `file_fd`), its memory bounded;
  // -1: in memory.
  int database_fd = -1;
};

// What stopped a load, and the FILE it is about ("": none).
struct LoadFailure {
  Failure failure;
  std::string file;
};

// Every FILE of `request` loaded and the indexes made, or nullptr with
// *failure: kInternal, the database could not be made, filled or indexed;
// the FILE's kind (kIo, kBadMagic ... kTooLarge), a FILE that is no .ptape
// or (unless damage_loads) a damaged one. Past its header a FILE is named
// masked with its tokens.
std::unique_ptr<Database> LoadDatabase(const LoadRequest& request, LoadFailure* failure);

// `d` written to `out` as one SQLite file and committed (the owner's only
// when a file loaded keeps environment values: fs/output_file.h, rule 2).
// Nothing when done; else kIo (SQLite's message, or why the commit failed:
// its own failure), and nothing is left of `out`.
MaybeFailure SaveDatabase(Database& d, OutputFile& out);

}  // namespace proctape::sql
