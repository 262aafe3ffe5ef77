// SPDX-License-Identifier: Apache-2.0
#include "procdir/export.h"

#include <utility>

#include "core/proc_parse.h"
#include "format/file_holds.h"
#include "format/reader.h"

namespace proctape {

ProcDirExport ExportProcDir(const ProcDirExportRequest& r, std::unique_ptr<OutputFile> output) {
  const auto progress = [&r](const std::string& step) {
    if (r.progress) r.progress(step);
  };
  ProcDirExport result;
  Snapshot snapshot;
  ReadKeep keep;  // the one frame written
  keep.frames = std::vector<std::uint64_t>{r.frame};
  keep.observations = false;
  // A file of many frames takes seconds to read: where it is, on a terminal.
  progress("export: reading " + EscapeBytes(r.file, 4096));
  result.input_failure = ToFailure(ReadSnapshot(r.file, &snapshot, keep));
  progress("");
  if (result.input_failure) return result;
  // What is said names the input and output masked with the input's tokens.
  result.mask = TokenMask::Of(snapshot);
  const std::string name = result.mask.Shown(r.file);
  if (r.frame >= snapshot.frames.size()) {
    result.failure =
        Failure(FailureKind::kUsage, NoSuchFrameIn(r.frame_option, r.frame, name, snapshot));
    return result;
  }
  const std::string shown = result.mask.Shown(r.out);
  if (KeepOwnerOnly(snapshot.header, *output)) {
    result.warnings.push_back(name + " keeps environment values: " + shown +
                              " holds them in files of mode 0600");
  }
  progress("export: writing " + shown);
  result.output_failure =
      WriteProcDir(snapshot, static_cast<std::size_t>(r.frame), std::move(output), &result.stats);
  progress("");
  return result;
}

}  // namespace proctape
