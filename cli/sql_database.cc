// SPDX-License-Identifier: Apache-2.0
#include "cli/sql_database.h"

#include <optional>

#include "analyze/sql/load_files.h"
#include "cli/errors.h"
#include "cli/progress.h"

namespace proctape {

std::vector<InputPath> ManifestsBeside(const std::vector<std::string>& files) {
  std::vector<InputPath> out;
  for (const std::string& f : files) {
    out.push_back({"the MANIFEST", sql::ManifestBeside(f), /*dash_is_stdin=*/false});
  }
  return out;
}

std::unique_ptr<sql::Database> LoadDatabase(const std::vector<std::string>& files,
                                            bool damage_loads, int* exit_code, int database_fd) {
  // A corpus of many files takes a while: where it is, on a terminal.
  std::optional<Progress> progress;  // from the first FILE on
  sql::LoadRequest request{files, damage_loads, nullptr, nullptr, database_fd};
  request.progress = [&progress](const std::string& line) {
    if (!progress) progress.emplace();
    line.empty() ? progress->Done() : progress->Show(line);
  };
  request.warn = [](const std::string& file, const std::string& what) {
    Warn(file.empty() ? what : AboutPath("", file, what));
  };
  sql::LoadFailure failed;
  std::unique_ptr<sql::Database> d = sql::LoadDatabase(request, &failed);
  if (!d) {
    *exit_code =
        failed.file.empty() ? Fail(failed.failure) : FailAbout("", failed.file, failed.failure);
  }
  return d;
}

}  // namespace proctape
