#include "format/reader.h"

#include <unordered_set>

#include "core/proc_parse.h"
#include "format/file_format.h"
#include "proto/convert.h"

namespace proctape {
namespace {

std::string Str(std::uint64_t v) { return std::to_string(v); }

// The structure of docs/format.md (sections 2-5), chunk by chunk in file
// order. Each chunk is checked whole before anything of it is kept: a
// damaged chunk contributes nothing to the snapshot (section 8).
class Assembler {
 public:
  Assembler(Snapshot* out, std::uint32_t version) : out_(out), version_(version) {}

  // Checks `chunk` (the out_->chunks-th) and adds it. Returns an empty
  // string, or what is wrong with it and *kind.
  std::string Add(v1::Chunk& chunk, FormatErrorKind* kind) {
    *kind = FormatErrorKind::kCorrupt;
    std::string wrong = Check(chunk, kind);
    if (!wrong.empty()) return wrong;
    Keep(chunk);
    return {};
  }

 private:
  bool FrameOpen() const { return !out_->frames.empty() && !out_->frames.back().complete(); }

  std::string Check(const v1::Chunk& chunk, FormatErrorKind* kind) const {
    // "The header is chunk 0, and only chunk 0."
    const bool first = out_->chunks == 0;
    if (first != chunk.has_header())
      return first ? "the first chunk is not a header" : "a second header";
    switch (chunk.body_case()) {
      case v1::Chunk::kHeader: return CheckHeader(chunk.header());
      case v1::Chunk::kFrame: return CheckFrame(chunk.frame(), kind);
      case v1::Chunk::kObservations: return CheckObservations(chunk.observations());
      case v1::Chunk::kResolution: return CheckResolution(chunk.resolution());
      case v1::Chunk::kFingerprint:
        // "A file holds at most one fingerprint chunk."
        return out_->fingerprints.empty() ? std::string() : "a second fingerprint";
      case v1::Chunk::kFooter: return CheckFooter(chunk.footer());
      case v1::Chunk::BODY_NOT_SET: break;
    }
    return chunk.GetReflection()->GetUnknownFields(chunk).empty()
               ? "an empty chunk"
               : "a chunk of a kind this reader does not know";
  }

  // "Header.format_version equals the preamble's version."
  std::string CheckHeader(const v1::Header& header) const {
    if (header.format_version() == version_) return {};
    if (header.format_version() == 0) {
      return "the header has no format version (the preamble's is " + Str(version_) + ")";
    }
    return "the header's format version " + Str(header.format_version()) +
           " differs from the preamble's " + Str(version_);
  }

  std::string CheckFrame(const v1::Frame& part, FormatErrorKind* kind) const {
    // "Frame k of the file (from 0) has index k; the parts of an open frame
    // carry its index, and no other frame's part comes while it is open."
    if (FrameOpen()) {
      const std::uint64_t open = out_->frames.back().index();
      if (part.index() != open) {
        return "a part of frame " + Str(part.index()) + " while frame " + Str(open) + " is open";
      }
    } else if (part.index() != out_->frames.size()) {
      return "frame index " + Str(part.index()) + ", expected " + Str(out_->frames.size());
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
          return "blob references copy more than " + Str(kMaxBlobCopyBytes) +
                 " bytes (the limit)";
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

  std::string CheckObservations(const v1::ObservationBatch& batch) const {
    std::uint64_t next = out_->observations.size();
    for (const v1::Observation& o : batch.observations()) {
      // "Observation indexes run 0, 1, 2, ... across the whole file."
      if (o.index() != next)
        return "observation index " + Str(o.index()) + ", expected " + Str(next);
      if (o.read_file().result().blob() != 0) {
        return "a blob reference outside a process record's cmdline or environ (observation " +
               Str(o.index()) + ")";
      }
      ++next;
    }
    return {};
  }

  // "A resolution's span lies within the observations before it."
  std::string CheckResolution(const v1::Resolution& r) const {
    const std::uint64_t seen = out_->observations.size();
    if (r.first_observation() <= seen && r.observation_count() <= seen - r.first_observation()) {
      return {};
    }
    return "the resolution's span (first_observation " + Str(r.first_observation()) +
           ", observation_count " + Str(r.observation_count()) + ") runs past the " +
           Plural(seen, "observation", "observations") + " before it";
  }

  // "No footer while a frame is open; the footer's counts are the file's."
  std::string CheckFooter(const v1::Footer& footer) const {
    if (FrameOpen()) {
      return "the footer comes while frame " + Str(out_->frames.back().index()) + " is open";
    }
    // A chunk removed or repeated whole leaves every checksum intact.
    if (footer.chunks() != out_->chunks) {
      return "the footer counts " + Plural(footer.chunks(), "chunk", "chunks") +
             " before it, the file holds " + Str(out_->chunks);
    }
    const struct {
      const char* name;
      std::uint64_t says, holds;
    } counts[] = {
        {"frames", footer.frames(), out_->frames.size()},
        {"observations", footer.observations(), out_->observations.size()},
        {"resolutions", footer.resolutions(), out_->resolutions.size()},
        {"processes", footer.processes(), processes_},
        {"reads_truncated", footer.reads_truncated(), reads_truncated_},
        {"frames_cut_by_bounds", footer.frames_cut_by_bounds(), frames_cut_},
    };
    for (const auto& c : counts) {
      if (c.says != c.holds) {
        return "the footer counts " + Str(c.says) + " " + c.name + ", the file holds " +
               Str(c.holds);
      }
    }
    return {};
  }

  // Adds a checked chunk.
  void Keep(v1::Chunk& chunk) {
    switch (chunk.body_case()) {
      case v1::Chunk::kHeader: out_->header = std::move(*chunk.mutable_header()); break;
      case v1::Chunk::kFrame: KeepFrame(*chunk.mutable_frame()); break;
      case v1::Chunk::kObservations:
        for (auto& o : *chunk.mutable_observations()->mutable_observations()) {
          out_->observations.push_back(std::move(o));
        }
        break;
      case v1::Chunk::kResolution:
        // Verdicts of files written before subject_pid existed are moved to it.
        if (chunk.resolution().has_verdict())
          UpgradeVerdict(chunk.mutable_resolution()->mutable_verdict());
        out_->resolutions.push_back(std::move(*chunk.mutable_resolution()));
        break;
      case v1::Chunk::kFingerprint:
        out_->fingerprints.push_back(std::move(*chunk.mutable_fingerprint()));
        break;
      case v1::Chunk::kFooter: out_->footer = std::move(*chunk.mutable_footer()); break;
      case v1::Chunk::BODY_NOT_SET: break;
    }
  }

  // Resolves the part's blob references and joins it to the open frame, or
  // starts a new one.
  void KeepFrame(v1::Frame& part) {
    for (const v1::Blob& blob : part.blobs()) {
      blob_bytes_ += blob.data().size();
      blobs_.push_back(blob.data());
    }
    part.clear_blobs();
    for (v1::ProcessRecord& p : *part.mutable_processes()) {
      ++processes_;
      for (const v1::FileRead* r :
           {&p.stat(), &p.cmdline(), &p.environ(), &p.status(), &p.cgroup()}) {
        reads_truncated_ += r->truncated() ? 1 : 0;
      }
      // Only reads that are present: mutable_*() would add absent ones.
      for (v1::FileRead* r : {p.has_cmdline() ? p.mutable_cmdline() : nullptr,
                              p.has_environ() ? p.mutable_environ() : nullptr}) {
        if (r == nullptr || r->blob() == 0) continue;
        blob_copy_bytes_ += blobs_[r->blob() - 1].size();
        r->set_data(blobs_[r->blob() - 1]);
        r->set_blob(0);
      }
    }
    if (part.complete() && part.cut_by_bounds()) ++frames_cut_;
    if (FrameOpen()) {
      v1::Frame& open = out_->frames.back();
      for (auto& p : *part.mutable_processes()) *open.add_processes() = std::move(p);
      open.set_complete(part.complete());
      open.set_scan_end_mono_ns(part.scan_end_mono_ns());
      open.set_cut_by_bounds(part.cut_by_bounds());
      open.set_cut_reason(part.cut_reason());
      open.set_bytes_read(part.bytes_read());
    } else {
      out_->frames.push_back(std::move(part));
    }
  }

  Snapshot* out_;
  const std::uint32_t version_;  // the preamble's
  std::vector<std::string> blobs_;
  std::uint64_t blob_bytes_ = 0;
  std::uint64_t blob_copy_bytes_ = 0;  // bytes copied out of blobs into records
  // What the footer counts, beyond what out_ holds.
  std::uint64_t processes_ = 0;
  std::uint64_t reads_truncated_ = 0;
  std::uint64_t frames_cut_ = 0;
};

}  // namespace

FormatError ReadSnapshot(const std::string& path, Snapshot* out) {
  *out = Snapshot{};
  FormatError error;
  std::unique_ptr<ChunkReader> reader = ChunkReader::Open(path, &error);
  if (!reader) return error;
  Assembler assembler(out, reader->version());
  v1::Chunk chunk;
  for (;;) {
    std::uint64_t start = reader->offset();
    ChunkReader::Result r = reader->Next(&chunk);
    out->bytes = reader->offset();
    if (r == ChunkReader::Result::kError) return reader->error();
    if (r == ChunkReader::Result::kEnd) break;
    FormatErrorKind kind;
    std::string wrong = assembler.Add(chunk, &kind);
    if (!wrong.empty()) {
      return FormatError{kind, out->chunks, start,
                         "chunk " + std::to_string(out->chunks) + " at byte " +
                             std::to_string(start) + ": " + wrong};
    }
    ++out->chunks;
  }
  if (!out->footer) {
    std::string where = out->chunks == 0
                            ? "truncated before the first chunk"
                            : "truncated after chunk " + std::to_string(out->chunks - 1);
    return FormatError{FormatErrorKind::kTruncated, out->chunks, out->bytes,
                       where + " at byte " + std::to_string(out->bytes) +
                           ": no footer (the capture did not finish)"};
  }
  return error;
}

}  // namespace proctape
