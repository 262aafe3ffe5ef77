// SPDX-License-Identifier: Apache-2.0
// A Snapshot (format/reader.h, read whole) written again by the real writer,
// in the layout of a live recording: header, frame 0, the tape, every other
// frame, the resolutions, the footer (its counts the writer's). For files a
// test edited and for the corpus generator (bench/corpus_variants.cc).
// Fingerprints are not written.
#pragma once

#include <string>

#include "format/reader.h"

namespace proctape::shapes {

// Writes `snapshot` to `path` (replaced if there). Each observation's index
// is set to its position, as the reader insists, for tapes a test edited.
// False with *error when the writer refuses it.
bool WriteSnapshotCopy(const Snapshot& snapshot, const std::string& path, std::string* error);

}  // namespace proctape::shapes
