// SPDX-License-Identifier: Apache-2.0
// A .ptape built chunk by chunk, by hand (docs/format.md sections 1 and 2),
// for the hostile shapes of tests/hostile/: unlike format/writer.h it keeps
// none of the rules of sections 2 to 9a, so it writes what the writer never
// would (a chain of references at every copy limit, content the writer
// refuses, one chunk repeated thousands of times). It keeps only the framing
// of section 1 (each chunk one zstd frame with its content size and a
// checksum, no dictionary, a window of at most kMaxChunkContent) and the
// footer's counts, so that what a reader refuses is what a shape means it
// to refuse, not a mistake of the builder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "proctape.pb.h"

namespace proctape::hostile {

// What a chunk adds to the footer's counts (docs/format.md section 2).
struct Tally {
  std::uint64_t frames = 0;  // frames begun (a frame counts at its first part)
  std::uint64_t processes = 0;
  std::uint64_t observations = 0;
  std::uint64_t resolutions = 0;
  std::uint64_t reads_truncated = 0;
  std::uint64_t frames_cut = 0;
};

class FileBuilder {
 public:
  // The preamble of `version` (a version 1 file refuses every form of 9a).
  explicit FileBuilder(std::uint32_t version = kFormatVersion);

  // One chunk holding `chunk`, its counts taken from the message: a frame
  // part counts a frame when no frame is open (its first part), its
  // records' truncated reads as written (a reference's are not known).
  void Add(const v1::Chunk& chunk);
  // One chunk holding `content` as it is (bytes that need not parse), with
  // the counts the caller says it adds.
  void AddContent(const std::string& content, const Tally& tally);
  // The header chunk: `header` with its format_version set to the file's,
  // and the padding SetHeaderPad asks for.
  void AddHeader(v1::Header header);
  // Every header written after this holds an unknown field (number 1000) of
  // `bytes` incompressible bytes: a file near 1 MiB whose reader's budget
  // (128 MiB + 8,192 per byte read, docs/format.md section 7) is 8 GiB
  // before any costly chunk comes (hostile_file --pad).
  static void SetHeaderPad(std::uint64_t bytes);
  // `frame` as the next frame (its index set), in parts of at most
  // `part_bytes` of serialized records (every record in a part of its own
  // when 0), the last part complete.
  void AddFrame(const v1::Frame& frame, std::uint64_t part_bytes = kTargetChunkContent);
  // Observation batches of at most `batch_bytes` serialized each.
  void AddObservations(const std::vector<v1::Observation>& observations,
                       std::uint64_t batch_bytes = kTargetChunkContent);
  // The footer, counting every chunk added. Nothing may be added after it.
  void AddFooter(std::int64_t capture_end_mono_ns = 0);

  std::uint64_t frames() const { return counts_.frames; }
  std::uint64_t observations() const { return counts_.observations; }
  // The outcome of each resolution chunk added by Add, in file order (a
  // corpus entry's expect lines).
  const std::vector<v1::Resolution>& outcomes() const { return outcomes_; }
  const std::string& bytes() const { return bytes_; }
  // The file as built so far, to `path` (replaced); false with *error.
  bool WriteTo(const std::string& path, std::string* error) const;

 private:
  std::string bytes_;
  std::uint32_t version_;
  std::uint64_t chunks_ = 0;
  bool frame_open_ = false;
  Tally counts_;
  std::vector<v1::Resolution> outcomes_;
};

// `content` as one zstd frame (level 19, a window of at most 16 MiB, its
// content size and checksum), the way docs/format.md section 1 wants a chunk.
std::string ZstdFrame(const std::string& content);

// A protobuf varint (the wire form of every integer field).
std::string Varint(std::uint64_t v);
// A length-delimited field: tag (number, wire type 2), length, bytes.
std::string LengthDelimited(int number, const std::string& bytes);

}  // namespace proctape::hostile
