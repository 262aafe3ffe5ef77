// SPDX-License-Identifier: Apache-2.0
// How an evidence source that reads files turns a read into evidence: the
// live /proc (capture/procfs_evidence.h) and a /proc-like directory
// (procdir/evidence.h) read alike, so a record of either holds the same
// bytes, bound and truncation for the same file (docs/format.md, "Process
// records").
#pragma once

#include <cstdint>
#include <vector>

#include "core/evidence.h"

namespace proctape {

// The one place a failed system call becomes evidence: its errno, never 0
// (EIO when the call left none).
int FailedErrno();

// At most `bound` bytes of the open `fd` into *buffer, then `fd` closed:
// bound + 1 bytes are read, so a file of exactly `bound` bytes is whole and
// one more is `truncated`. The buffer grows with what the file holds, never
// to the bound itself: a huge bound is a limit, not an allocation (UINT64_MAX
// does not wrap). The result's data views *buffer until its next use; a
// failed read is its errno (EINTR retried).
ReadResult ReadBoundedAndClose(int fd, std::uint64_t bound, std::vector<char>* buffer);

}  // namespace proctape
