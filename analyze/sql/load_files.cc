// SPDX-License-Identifier: Apache-2.0
#include "analyze/sql/load_files.h"

#include "core/proc_parse.h"
#include "format/format_error.h"

namespace proctape::sql {
namespace {

FailureKind KindOf(FormatErrorKind kind) {
  return FailureKindOf(kind).value_or(FailureKind::kInternal);
}

// The failure that stops the load at `f`, or nothing.
std::optional<LoadFailure> Stopped(const std::string& f, const Loaded& l, bool damage_loads) {
  if (l.refused) return LoadFailure{{KindOf(l.refused->kind), l.refused->message}, f};
  if (!l.error.empty()) return LoadFailure{{FailureKind::kInternal, "the database: " + l.error}, f};
  // Past its header, the file's name is said masked with its tokens. A
  // file too large to hold is not damaged: it is refused, never loaded
  // in part (docs/format.md section 7, "What a command holds").
  if (!l.damage.empty() && (!damage_loads || l.damage_kind == FormatErrorKind::kTooLarge)) {
    return LoadFailure{{KindOf(l.damage_kind), l.damage}, l.tokens.Masked(f)};
  }
  return std::nullopt;
}

}  // namespace

std::unique_ptr<Database> LoadDatabase(const LoadRequest& request, LoadFailure* failure) {
  auto progress = [&](const std::string& line) {
    if (request.progress) request.progress(line);
  };
  auto warn = [&](const std::string& file, const std::string& what) {
    if (request.warn) request.warn(file, what);
  };
  Failure opened;
  std::unique_ptr<Database> d = Database::Open(&opened, request.database_fd);
  if (!d) {
    *failure = {{FailureKind::kInternal, "cannot make the database: " + opened.message}, ""};
    return nullptr;
  }
  const std::vector<std::string>& files = request.files;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& f = files[i];
    progress("loading " + std::to_string(i + 1) + " of " + std::to_string(files.size()) + ": " +
             EscapeBytes(f, 4096));
    Loaded l = d->Load(f);
    progress("");
    if (std::optional<LoadFailure> stopped = Stopped(f, l, request.damage_loads)) {
      *failure = std::move(*stopped);
      return nullptr;
    }
    if (!l.warning.empty()) warn("", l.warning);
    if (!l.damage.empty()) warn(l.tokens.Masked(f), "loaded up to its damage: " + l.damage);
  }
  if (std::string f = d->Finish(); !f.empty()) {
    *failure = {{FailureKind::kInternal, "the database's indexes: " + f}, ""};
    return nullptr;
  }
  return d;
}

MaybeFailure SaveDatabase(Database& d, OutputFile& out) {
  if (d.keeps_environ()) out.KeepOwnerOnly();
  if (std::string error = d.SaveTo(out); !error.empty()) return Failure(FailureKind::kIo, error);
  return out.Commit();
}

}  // namespace proctape::sql
