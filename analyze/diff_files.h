// SPDX-License-Identifier: Apache-2.0
// `proctape diff` as a whole: one or two snapshot files read (only the two
// frames compared kept whole), the frames chosen, the request refused when
// it cannot be shown, and the report built (analyze/diff.h BuildDiff). The
// CLI prints what DiffFiles returns; nothing here prints.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analyze/filter.h"
#include "analyze/view_read.h"
#include "core/failure.h"
#include "views.pb.h"

namespace proctape {

struct DiffRequest {
  std::vector<std::string> files;      // one (two of its frames) or two; '-': standard input
  std::vector<std::size_t> frames;     // --frames I J; empty: not given
  std::optional<std::size_t> frame_a;  // --frame-a
  std::optional<std::size_t> frame_b;  // --frame-b
  bool force = false;                  // compare frames of different boots all the same
  ProcessFilter filter;                // --pid, --uid, --comm when given
  // A and B are one file (one path, a path given twice, a link, standard
  // input redirected from the other): set by CheckDiffRequest.
  bool one_file = false;
};

// The frame options checked before any file is read: --frames I J becomes
// frame_a and frame_b, and `one_file` is set (the files' device and inode).
// A kUsage failure when they cannot be met: --frames with two files,
// --frames beside --frame-a or --frame-b, a frame of one file compared with
// itself.
[[nodiscard]] MaybeFailure CheckDiffRequest(DiffRequest* request);

struct DiffOutcome {
  // No report: why (a file unreadable or without frames: its damage's kind;
  // a frame the file does not have, one frame to compare, frames of
  // different boots without `force`: kUsage, or the damage's kind when the
  // file is damaged, in one line with the damage).
  MaybeFailure failure;
  v1::DiffReport report;
  // Damages, then the report's warnings and a reversed order (A captured
  // after B); a filter that selects nothing in either frame.
  ViewNotes notes;
};

// The diff of a request CheckDiffRequest passed. By default: one file's
// first frame and its last complete one; two files' A's last complete frame
// and B's first.
DiffOutcome DiffFiles(const DiffRequest& request);

}  // namespace proctape
