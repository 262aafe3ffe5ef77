// SPDX-License-Identifier: Apache-2.0
#include "cli/recording_input.h"

#include "cli/errors.h"
#include "cli/exit_codes.h"

namespace proctape {

int ReadMasked(const std::string& file, const ReadKeep& keep, Snapshot* snapshot, TokenMask* mask) {
  if (MaybeFileFailure failure = ReadMaskedFile(file, keep, snapshot, mask)) {
    return FailFile(*failure);
  }
  return kExitOk;
}

int ReadRecording(const std::string& command, const std::string& file,
                  std::optional<std::uint64_t> check, Snapshot* snapshot) {
  if (MaybeFileFailure failure = ReadRecordingFile(command, file, check, snapshot)) {
    return FailFile(*failure);
  }
  return kExitOk;
}

int FailFile(const FileFailure& failure) {
  if (failure.path.empty()) return Fail(failure.failure);
  return FailAbout("", failure.path, failure.failure);
}

}  // namespace proctape
