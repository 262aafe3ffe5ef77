// SPDX-License-Identifier: Apache-2.0
#include "analyze/explain_file.h"

#include <filesystem>

#include "analyze/explain.h"
#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/reader.h"

namespace proctape {
namespace {

// Why `snapshot`, shown as `name`, has nothing to explain for `r`; "" when
// it has.
std::string NothingToExplain(const ExplainFileRequest& r, const Snapshot& snapshot,
                             const std::string& name) {
  const std::size_t n = snapshot.resolutions.size();
  if (n == 0 && snapshot.frames.empty()) {
    return name + " holds no recorded check and no frame: it is " + FileHolds(snapshot) +
           ", nothing to explain ('proctape show " + name + "' shows it)";
  }
  if (n == 0) {
    return name +
           " holds no recorded check: explain a resolution on its frames with 'proctape replay " +
           name + " --model frames --root PID --token T --exe-like PID'";
  }
  if (r.check && *r.check >= n) {
    return r.check_option + " " + std::to_string(*r.check) + ": " + name + " holds " +
           Plural(n, "recorded check", "recorded checks") + " (0.." + std::to_string(n - 1) + ")";
  }
  return "";
}

}  // namespace

ExplainedFile ExplainFile(const ExplainFileRequest& r) {
  ExplainedFile result;
  // Each check replays against its tape: no frame's processes are kept.
  Snapshot snapshot;
  ReadKeep keep;
  keep.frames.emplace();
  keep.compact_tape = true;  // the tape as replay keeps it (format/tape.h)
  const FormatError read = ReadSnapshot(r.file, &snapshot, keep);
  result.mask = TokenMask::Of(snapshot);
  if ((result.input_failure = ToFailure(read))) return result;
  const std::string name = result.mask.Shown(r.file);
  if (std::string why = NothingToExplain(r, snapshot, name); !why.empty()) {
    result.failure = Failure(FailureKind::kUsage, why);
    return result;
  }
  result.explanation =
      Explain(snapshot, std::filesystem::path(r.file).filename().string(), r.check);
  return result;
}

}  // namespace proctape
