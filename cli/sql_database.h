// SPDX-License-Identifier: Apache-2.0
// The .ptape FILEs loaded into one SQLite database (analyze/sql/database.h),
// as `proctape sql` and `proctape export --format sqlite|csv` load them: the
// load is analyze/sql/load_files.h's; this says its progress line, its
// warnings and its failure.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "analyze/sql/database.h"
#include "cli/outputs.h"

namespace proctape {

// What the load reads beside the FILEs (CommandIo::reads_beside): the
// MANIFEST beside each, an input of the command.
std::vector<InputPath> ManifestsBeside(const std::vector<std::string>& files);

// Every FILE loaded, in order, and indexed. A FILE that is no .ptape is
// refused with its status (10-16); a damaged one loads up to its damage with
// one warning when `damage_loads`, else is refused as damaged (11-16). On
// failure returns nullptr with *exit_code set and the line said. Made in
// the file `database_fd` when it is >= 0 (sql::LoadRequest::database_fd).
std::unique_ptr<sql::Database> LoadDatabase(const std::vector<std::string>& files,
                                            bool damage_loads, int* exit_code,
                                            int database_fd = -1);

}  // namespace proctape
