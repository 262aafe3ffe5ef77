// SPDX-License-Identifier: Apache-2.0
// `proctape verify`'s check of one snapshot file: read chunk by chunk
// (format/snapshot_stream.h, holding nothing of it but its header and
// fingerprint), every chunk's size, checksum and order checked; complete
// chunks before the first damage are counted all the same. The file's name
// is said masked by the tokens the file holds (replay/token_mask.h): it may
// hold a piece of one. Nothing is said here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/failure.h"
#include "proctape.pb.h"

namespace proctape {

struct FileVerified {
  // The report as --json prints it (VerifyReport): intact or the damage's
  // kind, chunk and offset, and the counts.
  v1::VerifyReport report;
  // The text line of an intact file ("NAME: intact: ...\n"): what it holds,
  // or of a fingerprint file what it fingerprinted. Empty when damaged.
  std::string line;
  // The first damage (kinds kIo..kTooLarge): one line naming the file, the
  // damage and the complete chunks before it. Nothing: intact.
  MaybeFailure damage;
  // Said after the line or the report: an intact file that stores
  // environment values as read.
  std::vector<std::string> warnings;
};

// Verifies `file` (a path, or "-": standard input).
FileVerified VerifyFile(const std::string& file);

}  // namespace proctape
