// SPDX-License-Identifier: Apache-2.0
// What a command that holds a whole file may hold of it (docs/format.md
// section 7, "What a command holds"): format/reader.h ReadSnapshot keeps
// every frame and observation it is asked for until the command ends, and
// `sql` keeps every process row in its database. What they keep is charged,
// as it is kept, with what the reader's budget (format/read_budget.h)
// counted for it, to a limit below that budget: kHeldBaseBytes plus
// kHeldBytesPerFileByte per byte of the file read, so that no file under
// 1 MiB makes such a command hold more than 320 MiB (with what it holds
// besides, within 512 MiB: docs/format.md section 7). A real capture of 10
// frames of 10,000 CI processes (1 MB) materializes 456 bytes per byte of
// its file, most of it copies of unchanged records: replay --model frames
// holds each such record once (ReadKeep::shared_records), in about 100 MB
// of memory all told; the commands that copy every frame (ownership, explore,
// minimize, sql, export sqlite|csv) refuse it here.
#pragma once

#include <cstdint>
#include <string>

#include "format/read_budget.h"

namespace proctape {

inline constexpr std::uint64_t kHeldBaseBytes = 64u << 20;
inline constexpr std::uint64_t kHeldBytesPerFileByte = 256;

// The budget: no per-chunk limit of its own (the reader's applies).
inline ReadBudget HeldBudget() {
  return ReadBudget(kHeldBaseBytes, kHeldBytesPerFileByte, UINT64_MAX);
}

// Its refusal, one line: the chunk (number `index`, at byte `offset`) whose
// `made` bytes would take `held` past its limit, `file_bytes` read.
std::string HeldRefusal(const ReadBudget& held, std::uint64_t index, std::uint64_t offset,
                        std::uint64_t made, std::uint64_t file_bytes);

}  // namespace proctape
