// SPDX-License-Identifier: Apache-2.0
// The chunk layer of SnapshotWriter: the writer's life (create, fail,
// refuse, abandon), compressing and writing each chunk, and the counts the
// footer states. The structured calls are format/writer.cc.
#include <cstring>

#include "format/file_holds.h"
#include "format/writer.h"

namespace proctape {
namespace {

void PutLe32(std::string* out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

std::unique_ptr<SnapshotWriter> SnapshotWriter::Create(std::unique_ptr<OutputFile> output,
                                                       const Options& options) {
  return std::unique_ptr<SnapshotWriter>(new SnapshotWriter(std::move(output), options));
}

std::unique_ptr<SnapshotWriter> SnapshotWriter::Create(const std::string& path,
                                                       const Options& options, Failure* failure) {
  OutputRequest request;
  request.path = path;
  request.force = options.force;
  request.stdout_allowed = true;
  request.binary = true;
  std::unique_ptr<OutputFile> output = OutputFile::Open(request, failure);
  if (!output) return nullptr;
  return Create(std::move(output), options);
}

SnapshotWriter::SnapshotWriter(std::unique_ptr<OutputFile> output, const Options& options)
    : output_(std::move(output)), options_(options), cctx_(ZSTD_createCCtx()) {
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_compressionLevel, options_.level);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(cctx_, ZSTD_c_contentSizeFlag, 1);
  std::string preamble(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  PutLe32(&preamble, kFormatVersion);
  WriteAll(preamble.data(), preamble.size());
}

// An unfinished file's temporary is removed with the OutputFile.
SnapshotWriter::~SnapshotWriter() { ZSTD_freeCCtx(cctx_); }

std::string SnapshotWriter::Abandon() {
  if (error_.empty()) error_ = "abandoned";
  return output_->Abandon();
}

bool SnapshotWriter::Fail(const std::string& message) {
  if (error_.empty()) error_ = message;
  return false;
}

bool SnapshotWriter::Refuse(const std::string& message) {
  refused_ = message;
  return false;
}

std::uint64_t SnapshotWriter::Committed() const {
  return chunks_ + 1 + (frame_open_ ? 1 : 0) + (observations_.has_observations() ? 1 : 0);
}

bool SnapshotWriter::ChunkRoom(const char* what) {
  if (Committed() + 1 <= options_.limits.chunks) return true;
  return Refuse(std::string(what) + ": the file would pass the limit of " +
                std::to_string(options_.limits.chunks) + " chunks");
}

bool SnapshotWriter::WriteAll(const void* data, std::size_t size) {
  if (!error_.empty()) return false;
  if (MaybeFailure failed =
          output_->Write(std::string_view(static_cast<const char*>(data), size))) {
    return Fail(failed->message);
  }
  bytes_written_ += size;
  return true;
}

bool SnapshotWriter::WriteChunk(const v1::Chunk& chunk) { return WriteCounted(chunk, nullptr); }

bool SnapshotWriter::WriteCounted(const v1::Chunk& chunk, const std::uint64_t* reads_truncated) {
  if (!error_.empty()) return false;
  std::size_t size = chunk.ByteSizeLong();
  if (size > kMaxChunkContent) {
    return Fail("chunk " + std::to_string(chunks_) + " would hold " + std::to_string(size) +
                " bytes, over the limit of " + std::to_string(kMaxChunkContent));
  }
  serialized_.clear();
  if (!chunk.SerializeToString(&serialized_)) return Fail("cannot serialize chunk");
  compressed_.resize(kLengthBytes + ZSTD_compressBound(serialized_.size()));
  ZSTD_CCtx_setPledgedSrcSize(cctx_, serialized_.size());
  std::size_t n =
      ZSTD_compress2(cctx_, compressed_.data() + kLengthBytes, compressed_.size() - kLengthBytes,
                     serialized_.data(), serialized_.size());
  if (ZSTD_isError(n)) return Fail(std::string("zstd: ") + ZSTD_getErrorName(n));
  std::string length;
  PutLe32(&length, static_cast<std::uint32_t>(n));
  std::memcpy(compressed_.data(), length.data(), kLengthBytes);
  if (!WriteAll(compressed_.data(), kLengthBytes + n)) return false;
  ++chunks_;
  Count(chunk, reads_truncated);
  return true;
}

// The footer's counts are those of the chunks written, whichever call wrote
// them (docs/format.md section 2).
// A part written by AddProcess counts the truncated reads of its records as
// given (`reads_truncated`): a read taken from the previous frame holds no
// flag of its own on disk.
void SnapshotWriter::Count(const v1::Chunk& chunk, const std::uint64_t* reads_truncated) {
  switch (chunk.body_case()) {
    case v1::Chunk::kFrame: {
      const v1::Frame& part = chunk.frame();
      counts_.set_processes(counts_.processes() +
                            static_cast<std::uint64_t>(part.processes_size()));
      if (reads_truncated != nullptr) {
        counts_.set_reads_truncated(counts_.reads_truncated() + *reads_truncated);
      }
      for (const v1::ProcessRecord& p : part.processes()) {
        if (reads_truncated != nullptr) break;
        for (const v1::FileRead* r :
             {&p.stat(), &p.cmdline(), &p.environ(), &p.status(), &p.cgroup()}) {
          if (r->truncated()) counts_.set_reads_truncated(counts_.reads_truncated() + 1);
        }
      }
      if (part.complete()) {
        counts_.set_frames(counts_.frames() + 1);
        if (part.cut_by_bounds()) {
          counts_.set_frames_cut_by_bounds(counts_.frames_cut_by_bounds() + 1);
        }
      }
      break;
    }
    case v1::Chunk::kObservations:
      counts_.set_observations(
          counts_.observations() +
          static_cast<std::uint64_t>(chunk.observations().observations_size()));
      break;
    case v1::Chunk::kResolution: counts_.set_resolutions(counts_.resolutions() + 1); break;
    case v1::Chunk::kFingerprint: ++fingerprints_; break;
    default: break;
  }
}

}  // namespace proctape
