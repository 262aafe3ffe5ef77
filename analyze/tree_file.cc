// SPDX-License-Identifier: Apache-2.0
#include "analyze/tree_file.h"

#include <optional>
#include <utility>
#include <vector>

#include "analyze/filter.h"

namespace proctape {

TreeOutcome TreeOfFile(const TreeRequest& request) {
  TreeOutcome out;
  // Only the frame drawn is kept whole (the others as their shells), and no
  // observation; a lab file without --marker keeps every frame, where
  // DerivedMarker looks for the process its resolution resolved.
  ReadKeep keep;
  keep.frames = std::vector<std::uint64_t>{request.tree.frame};
  keep.observations = false;
  if (!request.tree.marker) keep.every_frame_if = DerivesMarker;
  ViewFile file;
  if ((out.failure = ReadViewFile(request.file, keep, nullptr, &file))) return out;
  std::vector<Failure> damages;
  if (MaybeFailure damage = file.Damage()) damages.push_back(std::move(*damage));
  Failure refused;
  std::optional<v1::TreeReport> report =
      BuildTree(file.snapshot, file.name, request.tree, &refused);
  // A damaged file that cannot show what was asked (a --frame past the
  // frames before the damage) is one line, the damage's, with its status. A
  // --root in no process of the frame selected nothing: not found, as a
  // --pid that selects nothing.
  if (!report) {
    out.failure = RefuseView(damages, refused.message, refused.kind);
    return out;
  }
  for (const Failure& damage : damages) {
    out.notes.damages.push_back(FramesBeforeDamage(damage));
    report->set_warning(damage.message);
  }
  if (report->has_selected() && report->selected() == 0) {
    out.notes.nothing_selected = Failure(
        FailureKind::kNotFound, file.name + " frame " + std::to_string(request.tree.frame) + ": " +
                                    FilterText(report->filter(), true) + " selects no process");
  }
  out.report = std::move(*report);
  return out;
}

}  // namespace proctape
