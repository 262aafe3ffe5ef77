// SPDX-License-Identifier: Apache-2.0
// What can be wrong with a snapshot file. Each kind has its own exit status
// (cli/exit_codes.h) and every message is one line naming the chunk and the
// byte offset where the damage was found.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/failure.h"

namespace proctape {

enum class FormatErrorKind : int {
  kNone = 0,
  kIo = 1,            // open/read/write failed, or an output path was refused
  kBadMagic = 2,      // not a .ptape file
  kNewerVersion = 3,  // written by a newer format version
  kTruncated = 4,     // ends inside a chunk, or has no footer
  kChecksum = 5,      // a chunk's content checksum does not match
  kCorrupt = 6,       // a chunk does not decode or parse, or breaks the structure
  kTooLarge = 7,      // a length, declared size, count or copy over the limits
};

struct FormatError {
  FormatErrorKind kind = FormatErrorKind::kNone;
  // The chunk concerned (from 0, the header) and the byte offset of its
  // length prefix ("truncated": where the missing bytes begin). An error of
  // the preamble has chunk 0 and the offset of its field: 0 for the magic,
  // 8 for the version, the file's size for a file ending inside it.
  std::uint64_t chunk = 0;
  std::uint64_t offset = 0;
  std::string message;  // one line, without the file name
  bool ok() const { return kind == FormatErrorKind::kNone; }
};

const char* FormatErrorName(FormatErrorKind kind);

// The failure of a damaged file where it crosses into another layer
// (docs/architecture.md, "Errors"): kNone has none; each other kind is the
// FailureKind of the same name, the message kept.
std::optional<FailureKind> FailureKindOf(FormatErrorKind kind);
MaybeFailure ToFailure(const FormatError& error);

}  // namespace proctape
