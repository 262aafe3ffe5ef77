// SPDX-License-Identifier: Apache-2.0
#include "analyze/view_read.h"

#include <utility>

#include "core/proc_parse.h"
#include "format/snapshot_stream.h"
#include "fs/inputs.h"
#include "replay/token_mask.h"

namespace proctape {

MaybeFailure DamageOf(const std::string& name, const FormatError& error) {
  const std::optional<FailureKind> kind = FailureKindOf(error.kind);
  if (!kind) return std::nullopt;
  return Failure(*kind, name + ": " + EscapeBytes(error.message));
}

MaybeFailure ReadViewFile(const std::string& file, ReadKeep keep,
                          const FramesToKeep& frames_to_keep, ViewFile* out) {
  StreamSource source{file, -1};
  InputCopy copy;  // a file read twice that cannot be: a copy
  if (frames_to_keep) {
    if (MaybeFailure failed = copy.Open(file)) {
      return Failure(FailureKind::kIo, EscapeBytes(failed->message));
    }
    source.fd = copy.fd();
    keep.frames.emplace();
  }
  out->error = ReadSnapshot(source, &out->snapshot, keep);
  if (frames_to_keep && !out->snapshot.frames.empty()) {
    keep.frames = frames_to_keep(out->snapshot);
    out->error = ReadSnapshot(source, &out->snapshot, keep);
  }
  out->name = TokenMask::Of(out->snapshot).Shown(file);
  if (out->snapshot.frames.empty()) return out->Damage();
  return std::nullopt;
}

std::size_t LastCompleteFrame(const Snapshot& snapshot) {
  for (std::size_t i = snapshot.frames.size(); i > 0; --i) {
    if (snapshot.frames[i - 1].complete()) return i - 1;
  }
  return snapshot.frames.empty() ? 0 : snapshot.frames.size() - 1;
}

Failure RefuseView(const std::vector<Failure>& damages, const std::string& why,
                   FailureKind otherwise) {
  if (damages.empty()) return Failure(otherwise, why);
  std::string line;
  for (const Failure& damage : damages) line += damage.message + "; ";
  return Failure(damages.front().kind, line + why);
}

Failure FramesBeforeDamage(const Failure& damage) {
  return Failure(damage.kind, damage.message + " (the frames before the damage are used)");
}

}  // namespace proctape
