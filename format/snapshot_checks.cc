// SPDX-License-Identifier: Apache-2.0
// The structure checks of SnapshotStream (docs/format.md sections 2-5 and
// 9a, the order of section 8): each chunk is checked whole before anything
// of it is kept. The reading and keeping are format/snapshot_stream.cc.
#include <unordered_set>
#include <utility>

#include "core/proc_parse.h"
#include "format/file_format.h"
#include "format/snapshot_stream.h"
#include "format/tape_calls.h"

namespace proctape {
namespace {

std::string Str(std::uint64_t v) { return std::to_string(v); }

}  // namespace

// The structure of docs/format.md (sections 2-5), chunk by chunk in file
// order. Returns an empty string, or what is wrong with `chunk` and *kind.
std::string SnapshotStream::Check(const v1::Chunk& chunk, FormatErrorKind* kind) const {
  // "The header is chunk 0, and only chunk 0."
  const bool first = counts_.chunks == 0;
  if (first != chunk.has_header())
    return first ? "the first chunk is not a header" : "a second header";
  switch (chunk.body_case()) {
    case v1::Chunk::kHeader: return CheckHeader(chunk.header());
    case v1::Chunk::kFrame: return CheckFrame(chunk.frame(), kind);
    case v1::Chunk::kObservations: return CheckObservations(chunk.observations(), kind);
    case v1::Chunk::kResolution: return CheckResolution(chunk.resolution());
    case v1::Chunk::kFingerprint:
      // "A file holds at most one fingerprint chunk."
      return counts_.fingerprints == 0 ? std::string() : "a second fingerprint";
    case v1::Chunk::kFooter: return CheckFooter(chunk.footer());
    case v1::Chunk::BODY_NOT_SET: break;
  }
  return chunk.GetReflection()->GetUnknownFields(chunk).empty()
             ? "an empty chunk"
             : "a chunk of a kind this reader does not know";
}

// "Header.format_version equals the preamble's version."
std::string SnapshotStream::CheckHeader(const v1::Header& header) const {
  const std::uint32_t version = reader_->version();
  if (header.format_version() == version) return {};
  if (header.format_version() == 0) {
    return "the header has no format version (the preamble's is " + Str(version) + ")";
  }
  return "the header's format version " + Str(header.format_version()) +
         " differs from the preamble's " + Str(version);
}

std::string SnapshotStream::CheckFrame(const v1::Frame& part, FormatErrorKind* kind) const {
  // "Frame k of the file (from 0) has index k; the parts of an open frame
  // carry its index, and no other frame's part comes while it is open."
  if (counts_.frame_open) {
    if (part.index() != counts_.open_frame) {
      return "a part of frame " + Str(part.index()) + " while frame " + Str(counts_.open_frame) +
             " is open";
    }
  } else if (part.index() != counts_.frames) {
    return "frame index " + Str(part.index()) + ", expected " + Str(counts_.frames);
  }
  // Blobs: ids 1, 2, 3, ... in order of definition; their total bounded.
  std::uint64_t bytes = blob_bytes_;
  for (int i = 0; i < part.blobs_size(); ++i) {
    const v1::Blob& blob = part.blobs(i);
    if (blob.id() != blobs_.size() + static_cast<std::uint64_t>(i) + 1)
      return "blob ids out of order";
    bytes += blob.data().size();
    if (bytes > kMaxBlobBytes) {
      *kind = FormatErrorKind::kTooLarge;
      return "blobs exceed " + Str(kMaxBlobBytes) + " bytes";
    }
  }
  const std::uint64_t defined = blobs_.size() + static_cast<std::uint64_t>(part.blobs_size());
  // "A file whose preamble says 1 holds none of the forms of section 9a."
  if (reader_->version() < 2) {
    for (const v1::ProcessRecord& p : part.processes()) {
      if (UsesVersion2(p)) {
        return "a reference to the previous frame (process record of pid " +
               std::to_string(p.pid()) + ") in a version 1 file";
      }
    }
  }
  std::unordered_set<std::uint64_t> used_new;
  // Each reference is resolved by a copy: their bytes are bounded too.
  std::uint64_t copies = blob_copy_bytes_;
  for (const v1::ProcessRecord& p : part.processes()) {
    // "Only ProcessRecord.cmdline and ProcessRecord.environ refer to blobs."
    for (const v1::FileRead* r : {&p.stat(), &p.status(), &p.cgroup()}) {
      if (r->blob() != 0) return "a blob reference outside a process record's cmdline or environ";
    }
    for (const v1::FileRead* r : {&p.cmdline(), &p.environ()}) {
      if (r->blob() == 0) continue;
      // "A reference has empty data and err 0: the data is the blob's."
      if (!r->data().empty()) return "a blob reference beside inline data";
      if (r->err() != 0) return "a blob reference on a failed read";
      if (r->blob() > defined) return "a reference to an undefined blob";
      if (r->blob() > blobs_.size()) used_new.insert(r->blob());
      const std::uint64_t id = r->blob();
      copies += id <= blobs_.size()
                    ? blobs_[id - 1].size()
                    : part.blobs(static_cast<int>(id - blobs_.size() - 1)).data().size();
      if (copies > kMaxBlobCopyBytes) {
        *kind = FormatErrorKind::kTooLarge;
        return "blob references copy more than " + Str(kMaxBlobCopyBytes) + " bytes (the limit)";
      }
    }
  }
  // "A blob is defined in the part where it is first referred to."
  for (const v1::Blob& blob : part.blobs()) {
    if (used_new.count(blob.id()) == 0) {
      return "blob " + Str(blob.id()) + " is defined but not referred to in its part";
    }
  }
  return {};
}

std::string SnapshotStream::CheckObservations(const v1::ObservationBatch& batch,
                                              FormatErrorKind* kind) const {
  std::uint64_t next = counts_.observations;
  // This batch's changes to the table of latest results, over the stream's.
  struct Latest {
    std::uint64_t index, size;
  };
  std::unordered_map<CallKey, Latest, CallKeyHash> batch_latest;
  std::uint64_t table = tape_table_bytes_;
  std::uint64_t copies = same_as_copy_bytes_;
  for (const v1::Observation& o : batch.observations()) {
    // "Observation indexes run 0, 1, 2, ... across the whole file."
    if (o.index() != next) return "observation index " + Str(o.index()) + ", expected " + Str(next);
    const v1::FileRead& result = o.read_file().result();
    if (result.from_previous() != v1::FROM_PREVIOUS_NONE || result.stat_changes_size() != 0) {
      return "a reference to the previous frame outside a process record (observation " +
             Str(o.index()) + ")";
    }
    if (o.read_file().result().blob() != 0) {
      return "a blob reference outside a process record's cmdline or environ (observation " +
             Str(o.index()) + ")";
    }
    ++next;
    if (o.same_as() == 0 && reader_->version() < 2) continue;
    // Made only for a message: this loop runs once per observation.
    auto where = [&o] { return " (observation " + Str(o.index()) + ")"; };
    // "A file whose preamble says 1 holds none of the forms of section 9a."
    if (reader_->version() < 2) return "a 'same as' reference in a version 1 file" + where();
    const CallKey key = SameAsKey(o);
    if (key.empty()) {
      if (o.same_as() == 0) continue;
      return "a 'same as' reference on a call that returns no result of its own" + where();
    }
    auto in_batch = batch_latest.find(key);
    Latest last{0, 0};
    bool known = in_batch != batch_latest.end();
    if (known) {
      last = in_batch->second;
    } else if (auto it = last_results_.find(key); it != last_results_.end()) {
      last = Latest{it->second.index, it->second.size};
      known = true;
    }
    if (o.same_as() == 0) {
      // "A reader keeps the latest result of each call: at most kMaxTapeTableBytes."
      const std::uint64_t size = ResultSize(o);
      table = table - (known ? last.size : 0) + size;
      if (table > kMaxTapeTableBytes) {
        *kind = FormatErrorKind::kTooLarge;
        return "the latest results of the tape's calls exceed " + Str(kMaxTapeTableBytes) +
               " bytes (the limit)" + where();
      }
      batch_latest[key] = Latest{o.index(), size};
      continue;
    }
    // "same_as names the last earlier observation of the same call, and the
    // observation holds no result of its own."
    if (o.same_as() > o.index()) {
      return "'same as' " + Str(o.same_as()) + " observations back, before the first" + where();
    }
    const std::uint64_t k = o.index() - o.same_as();
    if (!known || last.index != k) {
      return "'same as' observation " + Str(k) +
             ", which is not the last earlier observation of the same call" + where();
    }
    if (HoldsResult(o)) return "a 'same as' reference beside a result of its own" + where();
    copies += last.size;
    if (copies > kMaxSameAsCopyBytes) {
      *kind = FormatErrorKind::kTooLarge;
      return "'same as' references copy more than " + Str(kMaxSameAsCopyBytes) +
             " bytes (the limit)" + where();
    }
    batch_latest[key] = Latest{o.index(), last.size};
  }
  return {};
}

// "A resolution's span lies within the observations before it."
std::string SnapshotStream::CheckResolution(const v1::Resolution& r) const {
  const std::uint64_t seen = counts_.observations;
  if (r.first_observation() <= seen && r.observation_count() <= seen - r.first_observation()) {
    return {};
  }
  return "the resolution's span (first_observation " + Str(r.first_observation()) +
         ", observation_count " + Str(r.observation_count()) + ") runs past the " +
         Plural(seen, "observation", "observations") + " before it";
}

// "No footer while a frame is open; the footer's counts are the file's."
std::string SnapshotStream::CheckFooter(const v1::Footer& footer) const {
  if (counts_.frame_open)
    return "the footer comes while frame " + Str(counts_.open_frame) + " is open";
  // A chunk removed or repeated whole leaves every checksum intact.
  if (footer.chunks() != counts_.chunks) {
    return "the footer counts " + Plural(footer.chunks(), "chunk", "chunks") +
           " before it, the file holds " + Str(counts_.chunks);
  }
  const struct {
    const char* name;
    std::uint64_t says, holds;
  } counts[] = {
      {"frames", footer.frames(), counts_.frames},
      {"observations", footer.observations(), counts_.observations},
      {"resolutions", footer.resolutions(), counts_.resolutions},
      {"processes", footer.processes(), counts_.processes},
      {"reads_truncated", footer.reads_truncated(), counts_.reads_truncated},
      {"frames_cut_by_bounds", footer.frames_cut_by_bounds(), counts_.frames_cut_by_bounds},
  };
  for (const auto& c : counts) {
    if (c.says != c.holds) {
      return "the footer counts " + Str(c.says) + " " + c.name + ", the file holds " + Str(c.holds);
    }
  }
  return {};
}

}  // namespace proctape
