// SPDX-License-Identifier: Apache-2.0
// How the views that draw frames (tree, diff) read a snapshot file, and say
// its damage (docs/architecture.md, "Errors"). A damaged file that still
// holds frames is drawn from the frames before the damage: its damage is a
// Failure of the damage's kind said before the view, and the view's status
// is the damage's. A file that cannot be read at all, or holds no frame
// before its damage, is one Failure and no view.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/failure.h"
#include "format/format_error.h"
#include "format/reader.h"

namespace proctape {

// "NAME: DAMAGE" (the damage escaped) of the damage's kind; nothing when
// `error` is none. `name` is the file as the view names it.
MaybeFailure DamageOf(const std::string& name, const FormatError& error);

// A file as a view read it.
struct ViewFile {
  Snapshot snapshot;
  // The file as the user gave it, masked with the file's tokens and escaped
  // (TokenMask::Shown: the name may hold a piece of a token).
  std::string name;
  FormatError error;  // the damage, if any: `snapshot` holds what came before it
  // DamageOf(name, error): nothing when the file is intact.
  MaybeFailure Damage() const { return DamageOf(name, error); }
};

// The frames to keep whole, known only once the file's frames are (the last
// complete one): given the file as first read, without any frame whole.
using FramesToKeep = std::function<std::vector<std::uint64_t>(const Snapshot& first_read)>;

// Reads `file` ('-': standard input) with `keep`. With `frames_to_keep`, the
// file is read twice: first keeping no frame whole, then keeping the frames
// it picks (standard input, or a pipe, copied once for it: fs/inputs.h
// InputCopy). Nothing when the file was read: intact, or damaged after at
// least one frame (its damage in out->error); else the failure: kIo when
// the copy cannot be made, or the damage of a file with no frame before it
// ("NAME: DAMAGE", ViewFile::Damage).
MaybeFailure ReadViewFile(const std::string& file, ReadKeep keep,
                          const FramesToKeep& frames_to_keep, ViewFile* out);

// The last complete frame of `snapshot`, or its last frame when none is
// complete (0 when it has none).
std::size_t LastCompleteFrame(const Snapshot& snapshot);

// A view that cannot show what was asked of damaged files (a frame past the
// frames before the damage): one line, each damage then why ("D1; D2;
// WHY"), of the first damage's kind. Without a damage: `why` of `otherwise`.
Failure RefuseView(const std::vector<Failure>& damages, const std::string& why,
                   FailureKind otherwise = FailureKind::kUsage);

// A damage said before a view drawn from the frames before it.
Failure FramesBeforeDamage(const Failure& damage);

// What is said around a view that was built, in this order: each damage
// (FramesBeforeDamage's words), each warning, the view itself, then
// `nothing_selected`. The view's status is nothing_selected's (kNotFound)
// when there is one, else the first damage's, else success.
struct ViewNotes {
  std::vector<Failure> damages;
  std::vector<std::string> warnings;
  MaybeFailure nothing_selected;  // a filter that selects no process
};

}  // namespace proctape
