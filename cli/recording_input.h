// SPDX-License-Identifier: Apache-2.0
// A file read by a command that masks its tokens in what it says (replay,
// explain), and the recording that explore and minimize start from: read
// whole, holding at least one recorded check (and check N, when one is
// named). The reads are replay/recording_read.h's; these say their failures.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "format/reader.h"
#include "replay/recording_read.h"
#include "replay/token_mask.h"

namespace proctape {

// Reads `file` into *snapshot as `keep` says, and *mask its tokens: kExitOk,
// or the exit status after the one line of its damage (10-16), the file's
// name masked (it may hold a piece of the token).
int ReadMasked(const std::string& file, const ReadKeep& keep, Snapshot* snapshot, TokenMask* mask);

// Reads `file` into *snapshot: kExitOk, or the exit status after the one
// line saying why (a damaged file: 10-16; no recorded check, or no check
// `check`: 2). `command` names the command in the line ("explore starts
// from a recording").
int ReadRecording(const std::string& command, const std::string& file,
                  std::optional<std::uint64_t> check, Snapshot* snapshot);

// Says `failure` (about its path, when it names one) and returns its status.
int FailFile(const FileFailure& failure);

}  // namespace proctape
