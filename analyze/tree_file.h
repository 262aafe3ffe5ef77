// SPDX-License-Identifier: Apache-2.0
// `proctape tree` as a whole: one snapshot file read (only the frame drawn
// kept whole; every frame of a `proctape lab` recording without a marker,
// where DerivedMarker looks), the tree built (analyze/tree.h BuildTree), and
// what is said around it. The CLI prints what TreeOfFile returns; nothing
// here prints.
#pragma once

#include <string>

#include "analyze/tree.h"
#include "analyze/view_read.h"
#include "core/failure.h"
#include "views.pb.h"

namespace proctape {

struct TreeRequest {
  std::string file;  // '-': standard input
  TreeOptions tree;  // the frame, --root, --marker, --kernel, the filter
};

struct TreeOutcome {
  // No tree: why. A file unreadable or without frames: its damage's kind; a
  // --root in no process of the frame: kNotFound (an empty selection); a
  // frame the file does not have: kUsage. A damaged file that cannot show
  // what was asked is one line, the damage then why, of the damage's kind.
  MaybeFailure failure;
  // A damaged file's tree holds the damage as its warning.
  v1::TreeReport report;
  // The damage, if any; a filter that selects no process.
  ViewNotes notes;
};

TreeOutcome TreeOfFile(const TreeRequest& request);

}  // namespace proctape
