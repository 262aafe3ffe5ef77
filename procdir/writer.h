// SPDX-License-Identifier: Apache-2.0
// Writing one frame of a snapshot as a directory laid out like /proc
// (docs/export.md, `proctape export --format proc-dir`):
//
//   DIR/proctape-frame           frame-level facts (FrameFacts, text)
//   DIR/PID/stat cmdline environ status cgroup
//                                exactly the recorded bytes; a read that
//                                failed (or was not recorded) has no file
//   DIR/PID/proctape-identity    what a directory cannot hold (IdentityFacts,
//                                text): exe and pid-namespace identity, the
//                                errno of each failed read, truncation
//
// The side files are procdir/facts.h; ProcDirEvidence
// (procdir/evidence.h) reads the directory back, so that for a frame
// without duplicate or invalid pids export -> capture --proc-root -> export
// gives the same directory byte for byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fs/output_file.h"
#include "format/reader.h"

namespace proctape {

struct ProcDirStats {
  std::uint64_t processes = 0;  // PID directories
  std::uint64_t files = 0;      // files written, side files included
  std::uint64_t bytes = 0;      // bytes written
};

// The OutputRequest of a proc-dir at `path`: a directory output that may
// replace (with `force`) a directory holding a proctape-frame, an earlier
// export, and never one that is not an export (fs/output_file.h).
OutputRequest ProcDirRequest(const std::string& path, bool force);

// Materializes snapshot.frames[frame] in `output`'s temporary directory and
// commits it (renamed to its path). Files are 0644, environ 0600 (it may hold
// kept entries), directories 0755. On failure (kIo, one line) nothing is
// left behind.
[[nodiscard]] MaybeFailure WriteProcDir(const Snapshot& snapshot, std::size_t frame,
                                        std::unique_ptr<OutputFile> output, ProcDirStats* stats);
// The same at `path`, opened here with ProcDirRequest(path, force).
[[nodiscard]] MaybeFailure WriteProcDir(const Snapshot& snapshot, std::size_t frame,
                                        const std::string& path, bool force, ProcDirStats* stats);

}  // namespace proctape
