// SPDX-License-Identifier: Apache-2.0
// The structure-aware input of the replay and views targets.
//
// The input is a serialized v1::SnapshotExport: the decoded content of a
// .ptape file (header, frames with their records, observations, resolutions,
// fingerprint, footer), as `export --format json` shows it. Each input is
// encoded with the real SnapshotWriter (zstd, checksums, blobs stored once,
// the writer's count limits) into a scratch file and read back with
// ReadSnapshot, so the code under test only ever sees what the reader
// accepts from a file -- and every mutation lands past the checksums and
// the compression, which byte mutations of a .ptape never would.
//
// Why this and not a mutator over .ptape files: the message is what the
// fuzzer mutates, so libFuzzer's own byte mutations, its comparison tracing
// and its dictionary work on the fields directly; the writer is the one
// encoder, so no second one can drift from it. The custom mutator
// (MutateSnapshotInput) adds what bytes alone reach slowly: one nested
// message mutated by libFuzzer in place, a repeated element copied or
// dropped, and an integer field set to an edge value (INT64_MIN, INT64_MAX,
// 0, 1, -1: the overflow classes `core/checked.h` saturates against).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "format/reader.h"
#include "proctape.pb.h"

namespace proctape::fuzz {

// Writes `content` to `path` with the real writer, as a capture writes its
// records: frame k gets index k, observation i index i, a resolution's span
// is clamped to the observations written, only the first fingerprint is
// written. False when the writer refuses or fails (the input reaches
// nothing then).
bool WriteSnapshotFile(const v1::SnapshotExport& content, const std::string& path);

// The input parsed, encoded and read back whole; false when any step fails.
bool DecodeSnapshotInput(const std::uint8_t* data, std::size_t size, Snapshot* out);

// The input form of a snapshot (a seed, a generated regression input).
std::string SnapshotInputOf(const Snapshot& snapshot);

#ifdef PROCTAPE_LIBFUZZER
// LLVMFuzzerCustomMutator of the replay and views targets (see above).
std::size_t MutateSnapshotInput(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                unsigned seed);
#endif

}  // namespace proctape::fuzz
