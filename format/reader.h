// SPDX-License-Identifier: Apache-2.0
// Reader of .ptape files into a Snapshot: the items of format/snapshot_stream.h
// (the chunks of format/chunk_reader.h checked against the structure of
// docs/format.md: chunk order, frame parts, blobs, observations, the footer)
// collected, frame parts joined. Damage is reported, never guessed around: the
// first bad chunk ends the read, and every complete chunk before it is still
// returned. A command that needs no whole file reads the stream itself, or
// keeps only what it needs (ReadKeep).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "format/chunk_reader.h"
#include "format/format_error.h"
#include "format/frame_records.h"
#include "format/snapshot_stream.h"
#include "format/tape.h"
#include "proctape.pb.h"

namespace proctape {

// A whole file, blobs resolved and frame parts joined.
struct Snapshot {
  v1::Header header;
  std::vector<v1::Frame> frames;
  // ReadKeep::shared_records: every frame's records, each distinct one held
  // once; `frames` are then shells. Empty otherwise (FrameRecords::Of views
  // the frames' own).
  FrameRecords records;
  std::vector<v1::Observation> observations;
  // ReadKeep::compact_tape: the observations kept compact instead (each
  // distinct result once, format/tape.h); `observations` is then empty.
  Tape tape;
  std::vector<v1::Resolution> resolutions;
  std::vector<v1::RootFingerprint> fingerprints;  // `proctape fingerprint` files
  std::optional<v1::Footer> footer;
  std::uint64_t chunks = 0;
  std::uint64_t bytes = 0;  // bytes of the file that were read
  // The observations the file holds up to the damage: observations.size()
  // unless ReadKeep::observations was false.
  std::uint64_t observation_count = 0;
  // The process records of every frame up to the damage, kept or not.
  std::uint64_t process_count = 0;
};

// What ReadSnapshot keeps of what it reads (everything is checked all the
// same, and every count is the file's).
struct ReadKeep {
  // Only these frames' processes (by index, from 0; none when empty): every
  // other frame is its shell (each field but its processes), so frames.size()
  // and each frame's scan are still the file's. Unset: every frame whole.
  std::optional<std::vector<std::uint64_t>> frames;
  bool observations = true;  // false: none kept (observation_count counts them)
  // With `observations`: kept in Snapshot::tape, compact, not as messages
  // (replay, explain: a 5 s retry loop's tape in megabytes, not hundreds).
  bool compact_tape = false;
  // With `frames`: every frame is kept whole after all when this says so of
  // the file's header (a view that looks at every frame of some files).
  std::function<bool(const v1::Header&)> every_frame_if;
  // The kept frames' records in Snapshot::records, a record the file says is
  // the previous frame's held once (format/frame_records.h), and each frame
  // its shell: what a command that looks up records keeps of a capture of
  // many frames (replay --model frames).
  bool shared_records = false;
};

// Reads `path` within the limits of docs/format.md section 7: the counts of
// records, observations, resolutions and chunks are checked before a chunk is
// parsed, and blob references are counted against kMaxBlobCopyBytes before
// they are copied, so a 10 KB file cannot make it allocate gigabytes (a file
// past a limit is kTooLarge). Returns kNone when the file is whole; otherwise the first
// damage found, with *out holding everything before it (a capture killed
// mid-way: kTruncated, "truncated after chunk K at byte B").
FormatError ReadSnapshot(const std::string& path, Snapshot* out, const ReadKeep& keep = {});
// The same of a source that can be read again (a copy of standard input).
FormatError ReadSnapshot(const StreamSource& source, Snapshot* out, const ReadKeep& keep = {});

}  // namespace proctape
