// SPDX-License-Identifier: Apache-2.0
// A file read by a command that masks its tokens in what it says (replay,
// explain), and the recording that explore and minimize start from: read
// whole, holding at least one recorded check (and check N, when one is
// named). Nothing is said here: each failure is returned, with the file's
// name as it must be said (masked: it may hold a piece of the token).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/failure.h"
#include "format/reader.h"
#include "replay/token_mask.h"

namespace proctape {

// Why a read (or the work after it) stopped: `failure`, said about `path`
// ("PATH: WHAT", the file's name masked) when `path` is not empty, else as
// its message says it.
struct FileFailure {
  Failure failure;
  std::string path;
};
using MaybeFileFailure = std::optional<FileFailure>;

// Reads `file` into *snapshot as `keep` says, and *mask its tokens: nothing,
// or its first damage (kinds kIo..kTooLarge, the reader's message) about the
// file's name masked.
MaybeFileFailure ReadMaskedFile(const std::string& file, const ReadKeep& keep, Snapshot* snapshot,
                                TokenMask* mask);

// Reads `file` into *snapshot: nothing, or why it cannot be replayed from:
// its damage (kIo..kTooLarge, about the file's name masked), or, kUsage, that
// it holds no recorded check or no check `check` (`command` names the
// command in that line: "explore starts from a recording"). A file too large
// to hold that holds no recording at all is read as its outline (frame
// shells and resolutions), so that what it is can be said.
MaybeFileFailure ReadRecordingFile(const std::string& command, const std::string& file,
                                   std::optional<std::uint64_t> check, Snapshot* snapshot);

}  // namespace proctape
