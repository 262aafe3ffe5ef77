// SPDX-License-Identifier: Apache-2.0
// What a command that holds a whole file may hold of it (docs/format.md
// section 7, "What a command holds"): format/reader.h ReadSnapshot keeps
// every frame and observation it is asked for until the command ends, and
// `sql` keeps every process row in its database. What they keep is charged,
// as it is kept, with what the reader's budget (format/read_budget.h)
// counted for it, to a limit below that budget: kHeldBaseBytes plus
// kHeldBytesPerFileByte per byte of the file read: a file of a few KB makes
// such a command hold at most some 70 MiB, one of 1 MiB 1.06 GiB. A real
// capture of 10 frames of 10,000 CI processes (1 MB) keeps 456 bytes per
// byte of its file, 477 MB; 40 frames some 1,200 per byte, 1.9 GB, which is
// refused here: a command that holds every frame holds a copy of every
// unchanged record (docs/format.md section 7, "What a command holds").
#pragma once

#include <cstdint>
#include <string>

#include "format/read_budget.h"

namespace proctape {

inline constexpr std::uint64_t kHeldBaseBytes = 64u << 20;
inline constexpr std::uint64_t kHeldBytesPerFileByte = 1024;

// The budget: no per-chunk limit of its own (the reader's applies).
inline ReadBudget HeldBudget() { return ReadBudget(kHeldBaseBytes, kHeldBytesPerFileByte, UINT64_MAX); }

// Its refusal, one line: the chunk (number `index`, at byte `offset`) whose
// `made` bytes would take `held` past its limit, `file_bytes` read.
std::string HeldRefusal(const ReadBudget& held, std::uint64_t index, std::uint64_t offset,
                        std::uint64_t made, std::uint64_t file_bytes);

}  // namespace proctape
