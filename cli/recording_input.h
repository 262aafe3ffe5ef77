// SPDX-License-Identifier: Apache-2.0
// The recording that explore and minimize start from: read whole, holding
// at least one recorded check (and check N, when one is named).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "format/reader.h"

namespace proctape {

// Reads `file` into *snapshot: kExitOk, or the exit status after the one
// line saying why (a damaged file: 10-16; no recorded check, or no check
// `check`: 2). `command` names the command in the line ("explore starts
// from a recording").
int ReadRecording(const std::string& command, const std::string& file,
                  std::optional<std::uint64_t> check, Snapshot* snapshot);

}  // namespace proctape
