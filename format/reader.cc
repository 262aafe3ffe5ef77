#include "format/reader.h"

#include "format/file_format.h"
#include "proto/convert.h"

namespace proctape {

namespace {

// Joins frame parts, resolves blobs, checks the order of chunks.
class Assembler {
 public:
  explicit Assembler(Snapshot* out) : out_(out) {}

  // Returns an empty string, or what is wrong with this chunk.
  std::string Add(v1::Chunk& chunk, FormatErrorKind* kind) {
    *kind = FormatErrorKind::kCorrupt;
    bool first = out_->chunks == 0;
    if (out_->footer) return "a chunk follows the footer";
    if (first != chunk.has_header()) return first ? "the first chunk is not a header" : "a second header";
    switch (chunk.body_case()) {
      case v1::Chunk::kHeader:
        if (chunk.header().format_version() > 1) {
          *kind = FormatErrorKind::kNewerVersion;
          return "header format version " + std::to_string(chunk.header().format_version()) + " is newer than this proctape reads";
        }
        out_->header = std::move(*chunk.mutable_header());
        return {};
      case v1::Chunk::kFrame: return AddFrame(*chunk.mutable_frame(), kind);
      case v1::Chunk::kObservations:
        for (auto& o : *chunk.mutable_observations()->mutable_observations()) {
          if (o.index() != out_->observations.size()) return "observation index out of order";
          out_->observations.push_back(std::move(o));
        }
        return {};
      case v1::Chunk::kResolution:
        if (chunk.resolution().has_verdict()) {
          UpgradeVerdict(chunk.mutable_resolution()->mutable_verdict());
        }
        out_->resolutions.push_back(std::move(*chunk.mutable_resolution()));
        return {};
      case v1::Chunk::kFingerprint:
        out_->fingerprints.push_back(std::move(*chunk.mutable_fingerprint()));
        return {};
      case v1::Chunk::kFooter:
        // A chunk removed or repeated whole leaves every checksum intact.
        if (chunk.footer().chunks() != out_->chunks) {
          return "the footer counts " + std::to_string(chunk.footer().chunks()) +
                 " chunks before it, the file holds " + std::to_string(out_->chunks);
        }
        out_->footer = std::move(*chunk.mutable_footer());
        return {};
      case v1::Chunk::BODY_NOT_SET: return "an empty chunk";
    }
    return "an unknown chunk";
  }

 private:
  std::string AddFrame(v1::Frame& part, FormatErrorKind* kind) {
    for (const v1::Blob& blob : part.blobs()) {
      if (blob.id() != blobs_.size() + 1) return "blob ids out of order";
      blob_bytes_ += blob.data().size();
      if (blob_bytes_ > kMaxBlobBytes) {
        *kind = FormatErrorKind::kTooLarge;
        return "blobs exceed " + std::to_string(kMaxBlobBytes) + " bytes";
      }
      blobs_.push_back(blob.data());
    }
    part.clear_blobs();
    for (v1::ProcessRecord& p : *part.mutable_processes()) {
      // Only reads that are present: mutable_*() would add absent ones.
      for (v1::FileRead* r : {p.has_cmdline() ? p.mutable_cmdline() : nullptr,
                              p.has_environ() ? p.mutable_environ() : nullptr}) {
        if (r == nullptr || r->blob() == 0) continue;
        if (r->blob() > blobs_.size()) return "a reference to an undefined blob";
        r->set_data(blobs_[r->blob() - 1]);
        r->set_blob(0);
      }
    }
    bool continues = !out_->frames.empty() && !out_->frames.back().complete();
    if (continues) {
      v1::Frame& open = out_->frames.back();
      if (open.index() != part.index()) return "a frame part of another frame before the last part";
      for (auto& p : *part.mutable_processes()) *open.add_processes() = std::move(p);
      open.set_complete(part.complete());
      open.set_scan_end_mono_ns(part.scan_end_mono_ns());
      open.set_cut_by_bounds(part.cut_by_bounds());
      open.set_cut_reason(part.cut_reason());
      open.set_bytes_read(part.bytes_read());
    } else {
      out_->frames.push_back(std::move(part));
    }
    return {};
  }

  Snapshot* out_;
  std::vector<std::string> blobs_;
  std::uint64_t blob_bytes_ = 0;
};

}  // namespace

FormatError ReadSnapshot(const std::string& path, Snapshot* out) {
  *out = Snapshot{};
  FormatError error;
  std::unique_ptr<ChunkReader> reader = ChunkReader::Open(path, &error);
  if (!reader) return error;
  Assembler assembler(out);
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
    std::string where = out->chunks == 0 ? "truncated before the first chunk"
                                         : "truncated after chunk " + std::to_string(out->chunks - 1);
    return FormatError{FormatErrorKind::kTruncated, out->chunks, out->bytes,
                       where + " at byte " + std::to_string(out->bytes) + ": no footer (the capture did not finish)"};
  }
  return error;
}

}  // namespace proctape
