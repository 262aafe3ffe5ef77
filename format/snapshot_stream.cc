// SPDX-License-Identifier: Apache-2.0
#include "format/snapshot_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <unordered_set>
#include <utility>

#include "core/proc_parse.h"
#include "format/file_format.h"
#include "format/tape_calls.h"
#include "proto/convert.h"

namespace proctape {
namespace {

std::string Str(std::uint64_t v) { return std::to_string(v); }

}  // namespace

std::unique_ptr<SnapshotStream> SnapshotStream::Open(const std::string& path, FormatError* error) {
  std::unique_ptr<ChunkReader> reader = ChunkReader::Open(path, error);
  if (!reader) return nullptr;
  return std::unique_ptr<SnapshotStream>(new SnapshotStream(std::move(reader)));
}

std::unique_ptr<SnapshotStream> SnapshotStream::OpenFd(int fd, FormatError* error) {
  std::unique_ptr<ChunkReader> reader = ChunkReader::OpenFd(fd, error);
  if (!reader) return nullptr;
  return std::unique_ptr<SnapshotStream>(new SnapshotStream(std::move(reader)));
}

std::unique_ptr<SnapshotStream> SnapshotStream::OpenSource(const StreamSource& source,
                                                           FormatError* error) {
  if (source.fd < 0) return Open(source.path, error);
  const int fd = ::fcntl(source.fd, F_DUPFD_CLOEXEC, 0);
  if (fd < 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
    *error = FormatError{FormatErrorKind::kIo, 0, 0,
                         std::string("cannot read the input again: ") + std::strerror(errno)};
    if (fd >= 0) ::close(fd);
    return nullptr;
  }
  return OpenFd(fd, error);
}

SnapshotStream::SnapshotStream(std::unique_ptr<ChunkReader> reader) : reader_(std::move(reader)) {}

SnapshotStream::~SnapshotStream() = default;

SnapshotStream::Result SnapshotStream::Next() {
  if (!error_.ok()) return Result::kError;
  if (ended_) return Result::kEnd;
  const std::uint64_t start = reader_->offset();
  ChunkReader::Result r = reader_->Next(&item_.chunk);
  if (r == ChunkReader::Result::kError) {
    error_ = reader_->error();
    return Result::kError;
  }
  if (r == ChunkReader::Result::kEnd) {
    if (!footer_) {
      const std::uint64_t at = reader_->offset();
      std::string where = counts_.chunks == 0 ? "truncated before the first chunk"
                                              : "truncated after chunk " + Str(counts_.chunks - 1);
      error_ =
          FormatError{FormatErrorKind::kTruncated, counts_.chunks, at,
                      where + " at byte " + Str(at) + ": no footer (the capture did not finish)"};
      return Result::kError;
    }
    ended_ = true;
    return Result::kEnd;
  }
  // Each chunk is checked whole before anything of it is kept: a damaged
  // chunk is no item (section 8).
  FormatErrorKind kind = FormatErrorKind::kCorrupt;
  std::string wrong = Check(item_.chunk, &kind);
  if (!wrong.empty()) {
    error_ = FormatError{kind, counts_.chunks, start,
                         "chunk " + Str(counts_.chunks) + " at byte " + Str(start) + ": " + wrong};
    return Result::kError;
  }
  // A frame part's references (blobs, the previous frame's records) are
  // resolved whole before it is an item; past a failure nothing is read.
  if (item_.chunk.has_frame()) wrong = ResolveFrame(item_.chunk.mutable_frame(), &kind);
  if (item_.chunk.has_observations() && reader_->version() >= 2) {
    wrong = KeepObservations(item_.chunk.mutable_observations(), &kind);
  }
  if (!wrong.empty()) {
    error_ = FormatError{kind, counts_.chunks, start,
                         "chunk " + Str(counts_.chunks) + " at byte " + Str(start) + ": " + wrong};
    return Result::kError;
  }
  item_.index = counts_.chunks;
  item_.offset = start;
  Keep(&item_);
  ++counts_.chunks;
  return Result::kItem;
}

// Counts a checked chunk and makes it the item.
void SnapshotStream::Keep(StreamItem* item) {
  item->first_part = item->last_part = false;
  v1::Chunk& chunk = item->chunk;
  switch (chunk.body_case()) {
    case v1::Chunk::kHeader: item->kind = StreamItem::Kind::kHeader; break;
    case v1::Chunk::kFrame: KeepFrame(item); break;
    case v1::Chunk::kObservations:
      item->kind = StreamItem::Kind::kObservations;
      counts_.observations += static_cast<std::uint64_t>(chunk.observations().observations_size());
      break;
    case v1::Chunk::kResolution:
      item->kind = StreamItem::Kind::kResolution;
      ++counts_.resolutions;
      // Verdicts of files written before subject_pid existed are moved to it.
      if (chunk.resolution().has_verdict())
        UpgradeVerdict(chunk.mutable_resolution()->mutable_verdict());
      UpgradeLiveness(chunk.mutable_resolution());  // and liveness checks before boot_unchecked
      break;
    case v1::Chunk::kFingerprint:
      item->kind = StreamItem::Kind::kFingerprint;
      ++counts_.fingerprints;
      break;
    case v1::Chunk::kFooter:
      item->kind = StreamItem::Kind::kFooter;
      footer_ = true;
      break;
    case v1::Chunk::BODY_NOT_SET: break;  // never checked good
  }
}

// Resolves the references of a checked part, in record order: its blob
// references (to blobs of earlier parts or of its own) and, in a version 2
// file, its references to the previous frame's records (section 9a), each
// checked before use; then remembers each record, plain, for the next frame.
// Returns "" or what is wrong. The part's blobs are kept by KeepFrame.
std::string SnapshotStream::ResolveFrame(v1::Frame* part, FormatErrorKind* kind) {
  const bool version2 = reader_->version() >= 2;
  if (version2 && !counts_.frame_open) previous_.BeginFrame(part->index());
  item_.same_as_previous.assign(version2 ? static_cast<std::size_t>(part->processes_size()) : 0,
                                false);
  std::size_t position = 0;
  for (v1::ProcessRecord& p : *part->mutable_processes()) {
    const bool whole = version2 && p.same_as_previous();
    const RecordKey previous_key{p.pid(), p.previous_start_ticks()};
    if (version2) item_.same_as_previous[position++] = whole;
    if (version2 && p.has_previous_start_ticks()) {
      // The copy is made, then charged: it is at most one record of the
      // previous frame (kMaxPreviousFrameBytes), which the reader holds. A
      // whole reference left as it is (resolve_same_records_ false) is
      // charged the copy all the same.
      const std::uint64_t before = previous_copy_bytes_;
      const PreviousFrame::Held held = previous_.FindHeld(previous_key);
      std::string wrong;
      if (whole && !resolve_same_records_) {
        wrong = CheckSameAsPrevious(p, held, &previous_copy_bytes_);
        if (wrong.empty()) carried_truncated_ += TruncatedReads(*held.rest);
      } else {
        wrong = ResolveFromPrevious(&p, held, &previous_copy_bytes_);
      }
      if (!wrong.empty()) return wrong;
      if (previous_copy_bytes_ > kMaxPreviousCopyBytes) {
        *kind = FormatErrorKind::kTooLarge;
        return "references to the previous frame copy more than " + Str(kMaxPreviousCopyBytes) +
               " bytes (the limit)";
      }
      wrong =
          Charge("the copy out of the previous frame's record of pid " + std::to_string(p.pid()),
                 previous_copy_bytes_ - before, kind);
      if (!wrong.empty()) return wrong;
    } else if (version2 && UsesVersion2(p)) {
      return ResolveFromPrevious(&p, nullptr, &previous_copy_bytes_);
    }
    // Only reads that are present: mutable_*() would add absent ones.
    for (v1::FileRead* r : {p.has_cmdline() ? p.mutable_cmdline() : nullptr,
                            p.has_environ() ? p.mutable_environ() : nullptr}) {
      if (r == nullptr || r->blob() == 0) continue;
      const std::uint64_t id = r->blob();
      const std::string& data = id <= blobs_.size()
                                    ? blobs_[id - 1]
                                    : part->blobs(static_cast<int>(id - blobs_.size() - 1)).data();
      std::string wrong = Charge("the copy of blob " + Str(id), data.size(), kind);
      if (!wrong.empty()) return wrong;
      blob_copy_bytes_ += data.size();
      r->set_data(data);
      r->set_blob(0);
    }
    if (whole) {
      previous_.Carry(previous_key);  // the record the table holds: not copied again
    } else if (version2) {
      previous_.Remember(&p);
    }
  }
  return {};
}

// Charges `bytes` of `what` to the reader's budget: "" or the refusal
// (*kind too-large).
std::string SnapshotStream::Charge(const std::string& what, std::uint64_t bytes,
                                   FormatErrorKind* kind) {
  if (reader_->budget().Charge(bytes, reader_->offset())) return {};
  *kind = FormatErrorKind::kTooLarge;
  return reader_->budget().Refusal(what, bytes, reader_->offset());
}

// Keeps the part's blobs, counts its records, and opens or closes its frame.
void SnapshotStream::KeepFrame(StreamItem* item) {
  item->kind = StreamItem::Kind::kFramePart;
  v1::Frame& part = *item->chunk.mutable_frame();
  for (v1::Blob& blob : *part.mutable_blobs()) {
    blob_bytes_ += blob.data().size();
    blobs_.push_back(std::move(*blob.mutable_data()));
  }
  part.clear_blobs();
  counts_.reads_truncated += carried_truncated_;  // of the records left as references
  carried_truncated_ = 0;
  for (const v1::ProcessRecord& p : part.processes()) {
    ++counts_.processes;
    counts_.reads_truncated += TruncatedReads(p);
  }
  if (part.complete() && part.cut_by_bounds()) ++counts_.frames_cut_by_bounds;
  item->first_part = !counts_.frame_open;
  if (item->first_part) {
    ++counts_.frames;
    counts_.open_frame = part.index();
  }
  item->last_part = part.complete();
  counts_.frame_open = !part.complete();
}

// Version 2: the table of latest results follows the batch, and each
// "same as" is resolved by a copy (unless the reader resolves it itself).
// A copy is charged to the reader's budget what the result takes in memory
// (a listing of empty names: a string each), before it is made.
std::string SnapshotStream::KeepObservations(v1::ObservationBatch* batch, FormatErrorKind* kind) {
  for (v1::Observation& o : *batch->mutable_observations()) {
    CallKey key = SameAsKey(o);
    if (key.empty()) continue;
    LastResult& last = last_results_[std::move(key)];
    if (o.same_as() != 0) {
      same_as_copy_bytes_ += last.size;
      if (resolve_same_as_) {
        std::string wrong =
            Charge("the copy of observation " + Str(last.index) + "'s result", last.held, kind);
        if (!wrong.empty()) return wrong;
        CopyResult(last.latest, &o);
        o.clear_same_as();
      }
      last.index = o.index();
      continue;
    }
    const std::uint64_t size = ResultSize(o);
    tape_table_bytes_ = tape_table_bytes_ - last.size + size;
    last.index = o.index();
    last.size = size;
    if (resolve_same_as_) {
      last.latest = o;
      last.held = o.SpaceUsedLong();
    }
  }
  return {};
}

void JoinFramePart(v1::Frame* frame, v1::Frame&& part, bool first_part) {
  if (first_part) {
    *frame = std::move(part);
    return;
  }
  for (auto& p : *part.mutable_processes()) *frame->add_processes() = std::move(p);
  frame->set_complete(part.complete());
  frame->set_scan_end_mono_ns(part.scan_end_mono_ns());
  frame->set_cut_by_bounds(part.cut_by_bounds());
  frame->set_cut_reason(part.cut_reason());
  frame->set_bytes_read(part.bytes_read());
}

}  // namespace proctape
