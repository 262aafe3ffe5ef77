// SPDX-License-Identifier: Apache-2.0
// `proctape diff`: what changed between two frames (of one file or of two).
// Identity is (pid, start tick), never a pid alone and never a name:
//   REUSED      the pid is in both frames with another start tick;
//   EXITED      an identity of A whose pid is absent from B;
//   APPEARED    an identity of B whose pid is absent from A;
//   REPARENTED  the same identity with another parent pid (its parent ended:
//               adopted by a subreaper or init);
//   ARGV_CHANGED, EXE_CHANGED  the same identity with another cmdline (an
//               exec, or a zombie's empty one) or executable identity;
//   UNIDENTIFIED a record whose stat is unreadable or malformed: no identity,
//               so not compared;
//   OUT_OF_SCOPE an identity of one frame whose pid is absent from the other,
//               which could not have held it (a `capture --root` subtree it
//               is not beneath, or a scan cut by a bound): not called EXITED
//               or APPEARED. Frames of different scopes are warned about.
// Start ticks count from boot: frames of different boots (Header boot_id)
// cannot be compared, and the report says so.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "analyze/filter.h"
#include "core/failure.h"
#include "format/reader.h"
#include "views.pb.h"

namespace proctape {

struct DiffSide {
  const Snapshot* snapshot = nullptr;
  std::string name;                // the file as the user gave it
  std::size_t frame = 0;           // position in the file
  std::string option = "--frame";  // the option that picked `frame`, for a refusal
};

// nullopt with *failure (kUsage, one line) when a frame is not in its file. With a
// `filter` (--pid, --uid, --comm), only the identities it selects in A or in B
// are compared: the changes and counts are theirs.
std::optional<v1::DiffReport> BuildDiff(const DiffSide& a, const DiffSide& b, Failure* failure,
                                        const ProcessFilter& filter = {});

// The text form: a heading (and the filter's selection), one line (or three,
// for REUSED) per change,
// grouped by kind in the order above, then the counts. The warnings are not
// in it (the CLI prints them on standard error). Processes outside the other
// frame's scope are one line per side, their count and why, unless
// `all_out_of_scope` lists each (a subtree beside a whole host would
// otherwise list every process of the host).
std::string RenderDiff(const v1::DiffReport& report, bool all_out_of_scope = false);

}  // namespace proctape
