// SPDX-License-Identifier: Apache-2.0
#include "cli/sql_database.h"

#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "core/proc_parse.h"

namespace proctape {

std::vector<InputPath> ManifestsBeside(const std::vector<std::string>& files) {
  std::vector<InputPath> out;
  for (const std::string& f : files) {
    out.push_back({"the MANIFEST", sql::ManifestBeside(f), /*dash_is_stdin=*/false});
  }
  return out;
}

std::unique_ptr<sql::Database> LoadDatabase(const std::vector<std::string>& files,
                                            bool damage_loads, int* exit_code) {
  std::string error;
  std::unique_ptr<sql::Database> d = sql::Database::Open(&error);
  if (!d) {
    *exit_code = Fail(kExitInternal, "cannot make the database: " + error);
    return nullptr;
  }
  // A corpus of many files takes a while: where it is, on a terminal.
  Progress progress;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& f = files[i];
    progress.Show("loading " + std::to_string(i + 1) + " of " + std::to_string(files.size()) +
                  ": " + EscapeBytes(f, 4096));
    sql::Loaded l = d->Load(f);
    if (l.refused) {
      progress.Done();
      *exit_code = FailAbout(ExitCodeFor(l.refused->kind), "", f, l.refused->message);
      return nullptr;
    }
    if (!l.error.empty()) {
      progress.Done();
      *exit_code = FailAbout(kExitInternal, "", f, "the database: " + l.error);
      return nullptr;
    }
    // Past its header, the file's name is said masked with its tokens. A
    // file too large to hold is not damaged: it is refused, never loaded
    // in part (docs/format.md section 7, "What a command holds").
    if (!l.damage.empty() && (!damage_loads || l.damage_kind == FormatErrorKind::kTooLarge)) {
      progress.Done();
      *exit_code = FailAbout(ExitCodeFor(l.damage_kind), "", l.tokens.Masked(f), l.damage);
      return nullptr;
    }
    progress.Done();
    if (!l.warning.empty()) Warn(l.warning);
    if (!l.damage.empty())
      Warn(AboutPath("", l.tokens.Masked(f), "loaded up to its damage: " + l.damage));
  }
  if (std::string f = d->Finish(); !f.empty()) {
    *exit_code = Fail(kExitInternal, "the database's indexes: " + f);
    return nullptr;
  }
  return d;
}

}  // namespace proctape
