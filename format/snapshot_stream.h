// SPDX-License-Identifier: Apache-2.0
// A .ptape file read item by item, in file order, checked against the
// structure of docs/format.md (sections 2-5, 7 and 8) chunk by chunk: the one
// reader of the format's structure. ReadSnapshot (format/reader.h) collects
// its items into a Snapshot; a command that needs no whole file (verify,
// show, export, tree) pulls them and keeps what it needs.
//
// Everything it materializes (each chunk as parsed, every copy out of a
// reference) is charged to the reader's budget before it is made
// (format/read_budget.h; ChunkReader::budget()).
//
// What the stream itself keeps is what the checks need: the blob table
// (blobs are file-global, bounded by kMaxBlobBytes), counters, the open
// frame's index, and in a version 2 file the records of the previous frame
// and of the open one (serialized, at most 2 x kMaxPreviousFrameBytes), which
// a record may refer to. One item is held at a time: the chunk just read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "format/chunk_reader.h"
#include "format/format_error.h"
#include "format/previous_frame.h"
#include "format/tape_calls.h"
#include "proctape.pb.h"

namespace proctape {

// One checked chunk as a reader wants it.
struct StreamItem {
  enum class Kind { kHeader, kFramePart, kObservations, kResolution, kFingerprint, kFooter };
  Kind kind = Kind::kHeader;
  // The chunk. A frame part's blob references are resolved (its reads hold
  // the blobs' bytes, blob 0) and its blobs cleared; a resolution's verdict
  // is upgraded (UpgradeVerdict, UpgradeLiveness: proto/convert.h).
  v1::Chunk chunk;
  bool first_part = false;  // a frame part that opens its frame
  bool last_part = false;   // a frame part that closes it (Frame.complete)
  // A frame part of version 2: which of its records the file said are the
  // previous frame's, whole (same_as_previous, now resolved), by position.
  std::vector<bool> same_as_previous;
  std::uint64_t index = 0;   // the chunk's number, from 0 (the header)
  std::uint64_t offset = 0;  // the byte offset of its length prefix
};

// What the checked chunks so far hold: what the footer counts.
struct StreamCounts {
  std::uint64_t chunks = 0;
  std::uint64_t frames = 0;  // frames begun (an open frame counts)
  std::uint64_t processes = 0;
  std::uint64_t observations = 0;
  std::uint64_t resolutions = 0;
  std::uint64_t fingerprints = 0;
  std::uint64_t reads_truncated = 0;
  std::uint64_t frames_cut_by_bounds = 0;
  bool frame_open = false;       // a part came, the frame's last has not
  std::uint64_t open_frame = 0;  // its index, while frame_open
};

// A file that can be read more than once: a path ("-": standard input, read
// once), or (fd >= 0) a descriptor of a regular file (a copy of standard
// input, fs/inputs.h InputCopy) read from its start each time.
struct StreamSource {
  std::string path;
  int fd = -1;
};

class SnapshotStream {
 public:
  // Opens `path` ("-" for standard input): nullptr with *error when the
  // preamble is wrong (ChunkReader::Open).
  static std::unique_ptr<SnapshotStream> Open(const std::string& path, FormatError* error);
  // The same of `fd` (ChunkReader::OpenFd): the stream owns it.
  static std::unique_ptr<SnapshotStream> OpenFd(int fd, FormatError* error);
  // `source` from its start: its path opened, or its descriptor duplicated
  // and rewound (kIo "cannot read the input again: ..." when it cannot be).
  static std::unique_ptr<SnapshotStream> OpenSource(const StreamSource& source, FormatError* error);
  ~SnapshotStream();
  SnapshotStream(const SnapshotStream&) = delete;
  SnapshotStream& operator=(const SnapshotStream&) = delete;

  enum class Result { kItem, kEnd, kError };
  // kItem: item() is the next chunk, checked whole (a damaged chunk is never
  // an item: docs/format.md section 8). kEnd: the file is whole (its footer
  // read, nothing after it). kError: error() is the first damage, exactly as
  // ReadSnapshot reports it ("chunk K at byte B: ...", or "truncated after
  // chunk K at byte B: no footer ..." when the file ends without one); every
  // item before it was returned. After kEnd or kError, Next returns the same.
  Result Next();
  StreamItem& item() { return item_; }
  const FormatError& error() const { return error_; }
  const StreamCounts& counts() const { return counts_; }
  std::uint64_t bytes() const { return reader_->offset(); }     // bytes of the file read
  std::uint32_t version() const { return reader_->version(); }  // the preamble's
  // What the reader's budget was charged so far (format/read_budget.h).
  std::uint64_t materialized() const { return reader_->budget().used(); }
  // Version 2's "same as observation K" (docs/format.md section 9a) is
  // resolved by default: an observation item holds its result, same_as 0.
  // false: items keep the reference (checked all the same) for a reader that
  // resolves it itself without copying (format/tape.h) or needs no results
  // (verify); the stream then keeps no results, only their sizes.
  void set_resolve_same_as(bool resolve) { resolve_same_as_ = resolve; }
  // Version 2's whole references to the previous frame's record
  // (same_as_previous) are resolved by default: a frame part's record holds
  // the record. false: such a record keeps the reference (checked, and
  // charged to the budget the copy it stands for, all the same) for a reader
  // that reads no record (verify); StreamItem::same_as_previous marks it.
  void set_resolve_same_records(bool resolve) { resolve_same_records_ = resolve; }

 private:
  explicit SnapshotStream(std::unique_ptr<ChunkReader> reader);
  std::string Check(const v1::Chunk& chunk, FormatErrorKind* kind) const;
  std::string CheckHeader(const v1::Header& header) const;
  std::string CheckFrame(const v1::Frame& part, FormatErrorKind* kind) const;
  std::string CheckObservations(const v1::ObservationBatch& batch, FormatErrorKind* kind) const;
  std::string CheckResolution(const v1::Resolution& r) const;
  std::string CheckFooter(const v1::Footer& footer) const;
  void Keep(StreamItem* item);
  std::string ResolveFrame(v1::Frame* part, FormatErrorKind* kind);
  void KeepFrame(StreamItem* item);
  std::string KeepObservations(v1::ObservationBatch* batch, FormatErrorKind* kind);
  std::string Charge(const std::string& what, std::uint64_t bytes, FormatErrorKind* kind);

  std::unique_ptr<ChunkReader> reader_;
  StreamItem item_;
  FormatError error_;
  bool ended_ = false;
  bool footer_ = false;
  StreamCounts counts_;
  std::vector<std::string> blobs_;
  std::uint64_t blob_bytes_ = 0;
  std::uint64_t blob_copy_bytes_ = 0;  // bytes copied out of blobs into records
  // Version 2: the previous frame's records (and the open frame's so far),
  // at most 2 x kMaxPreviousFrameBytes; nothing for a version 1 file.
  PreviousFrame previous_;
  std::uint64_t previous_copy_bytes_ = 0;  // bytes copied out of them
  // Version 2's tape: per call (format/tape_calls.h SameAsKey), its last
  // observation, its result's size and (resolving) the observation itself.
  struct LastResult {
    std::uint64_t index = 0;
    std::uint64_t size = 0;
    v1::Observation latest;
    std::uint64_t held = 0;  // what latest takes in memory (SpaceUsedLong)
  };
  std::unordered_map<CallKey, LastResult, CallKeyHash> last_results_;
  std::uint64_t tape_table_bytes_ = 0;    // sizes of the latest results
  std::uint64_t same_as_copy_bytes_ = 0;  // sizes of the results referred to
  bool resolve_same_as_ = true;
  bool resolve_same_records_ = true;
  std::uint64_t carried_truncated_ = 0;  // reads cut at their bound in the part's references
};

// Joins a frame part (an item of kind kFramePart, first_part as the item
// says) to *frame, as ReadSnapshot joins them: the first part becomes the
// frame; a later one adds its processes and sets what the last part says
// (complete, scan end, cut by bounds and its reason, bytes read).
void JoinFramePart(v1::Frame* frame, v1::Frame&& part, bool first_part);

}  // namespace proctape
