// SPDX-License-Identifier: Apache-2.0
#include "replay/recording_read.h"

#include <utility>

#include "core/proc_parse.h"
#include "format/file_holds.h"

namespace proctape {

MaybeFileFailure ReadMaskedFile(const std::string& file, const ReadKeep& keep, Snapshot* snapshot,
                                TokenMask* mask) {
  const FormatError error = ReadSnapshot(file, snapshot, keep);
  *mask = TokenMask::Of(*snapshot);
  if (MaybeFailure damage = ToFailure(error)) return FileFailure{*damage, mask->Masked(file)};
  return std::nullopt;
}

MaybeFileFailure ReadRecordingFile(const std::string& command, const std::string& file,
                                   std::optional<std::uint64_t> check, Snapshot* snapshot) {
  FormatError error = ReadSnapshot(file, snapshot);
  if (error.kind == FormatErrorKind::kTooLarge) {
    // Too large to hold: but if it holds no recording at all, that is what
    // to say. Read again keeping only frame shells and resolutions (bounded
    // as a streaming reader is).
    Snapshot outline;
    ReadKeep keep;
    keep.frames.emplace();
    keep.observations = false;
    if (ReadSnapshot(file, &outline, keep).ok() && outline.resolutions.empty()) {
      error = {};
      *snapshot = std::move(outline);
    }
  }
  // The file's name may hold a piece of its token: said masked.
  const TokenMask mask = TokenMask::Of(*snapshot);
  if (MaybeFailure damage = ToFailure(error)) return FileFailure{*damage, mask.Masked(file)};
  const std::string name = mask.Shown(file);
  if (snapshot->resolutions.empty()) {
    return FileFailure{{FailureKind::kUsage, name + " holds no recorded resolution (it is " +
                                                 FileHolds(*snapshot) + "): " + command +
                                                 " starts from a recording"},
                       ""};
  }
  if (check && *check >= snapshot->resolutions.size()) {
    return FileFailure{
        {FailureKind::kUsage, "--check " + std::to_string(*check) + ": " + name + " records " +
                                  Plural(snapshot->resolutions.size(), "check", "checks")},
        ""};
  }
  return std::nullopt;
}

}  // namespace proctape
