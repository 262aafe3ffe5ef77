#include "format/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd_errors.h>

#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "format/file_format.h"
#include "proto/convert.h"

namespace proctape {
namespace {

std::uint32_t GetLe32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

std::uint64_t MaxChunkFrame() { return ZSTD_compressBound(kMaxChunkContent); }

const char* FormatErrorName(FormatErrorKind kind) {
  switch (kind) {
    case FormatErrorKind::kNone: return "ok";
    case FormatErrorKind::kIo: return "io";
    case FormatErrorKind::kBadMagic: return "bad-magic";
    case FormatErrorKind::kNewerVersion: return "newer-version";
    case FormatErrorKind::kTruncated: return "truncated";
    case FormatErrorKind::kChecksum: return "checksum";
    case FormatErrorKind::kCorrupt: return "corrupt";
    case FormatErrorKind::kTooLarge: return "too-large";
  }
  return "unknown";
}

std::unique_ptr<ChunkReader> ChunkReader::Open(const std::string& path, FormatError* error) {
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = FormatError{FormatErrorKind::kIo, 0, 0, std::string("cannot open: ") + std::strerror(errno)};
    return nullptr;
  }
  std::optional<std::uint64_t> size;
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) size = static_cast<std::uint64_t>(st.st_size);
  std::unique_ptr<ChunkReader> reader(new ChunkReader(fd, path != "-", size));
  char preamble[kPreambleBytes];
  std::size_t got = reader->ReadUpTo(preamble, sizeof preamble);
  if (!reader->error_.ok()) {
    *error = reader->error_;
    return nullptr;
  }
  // Every proper prefix of a file is truncated, the empty file included (a
  // capture killed between creating NAME.partial and writing the preamble).
  if (got == 0) {
    *error = FormatError{FormatErrorKind::kTruncated, 0, 0,
                         "truncated at byte 0: the file is empty"};
    return nullptr;
  }
  std::size_t magic_got = got < sizeof kMagic ? got : sizeof kMagic;
  if (std::memcmp(preamble, kMagic, magic_got) != 0) {
    *error = FormatError{FormatErrorKind::kBadMagic, 0, 0,
                         "byte 0: not a proctape snapshot (wrong magic number)"};
    return nullptr;
  }
  if (got < sizeof preamble) {
    *error = FormatError{FormatErrorKind::kTruncated, 0, got,
                         "truncated at byte " + std::to_string(got) + ", inside the preamble"};
    return nullptr;
  }
  std::uint32_t version = GetLe32(preamble + sizeof kMagic);
  if (version > kFormatVersion) {
    *error = FormatError{FormatErrorKind::kNewerVersion, 0, sizeof kMagic,
                         "byte 8: format version " + std::to_string(version) +
                             " is newer than this proctape reads (" +
                             std::to_string(kFormatVersion) + ")"};
    return nullptr;
  }
  if (version == 0) {
    *error = FormatError{FormatErrorKind::kCorrupt, 0, sizeof kMagic, "byte 8: format version 0"};
    return nullptr;
  }
  return reader;
}

ChunkReader::ChunkReader(int fd, bool owned, std::optional<std::uint64_t> size)
    : fd_(fd), owned_(owned), size_(size), dctx_(ZSTD_createDCtx()) {}

ChunkReader::~ChunkReader() {
  ZSTD_freeDCtx(dctx_);
  if (owned_) ::close(fd_);
}

std::size_t ChunkReader::ReadUpTo(char* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd_, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      Fail(FormatErrorKind::kIo, std::string("read failed at byte ") +
                                     std::to_string(offset_ + got) + ": " + std::strerror(errno));
      break;
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  offset_ += got;
  return got;
}

ChunkReader::Result ChunkReader::Fail(FormatErrorKind kind, const std::string& message) {
  if (error_.ok()) error_ = FormatError{kind, chunks_, offset_, message};
  return Result::kError;
}

ChunkReader::Result ChunkReader::Truncated(std::uint64_t at) {
  std::string where = chunks_ == 0 ? "truncated before the first chunk"
                                   : "truncated after chunk " + std::to_string(chunks_ - 1);
  Result r = Fail(FormatErrorKind::kTruncated, where + " at byte " + std::to_string(at));
  error_.offset = at;
  return r;
}

ChunkReader::Result ChunkReader::Next(v1::Chunk* chunk) {
  if (!error_.ok()) return Result::kError;
  const std::uint64_t start = offset_;
  const std::string here = "chunk " + std::to_string(chunks_) + " at byte " + std::to_string(start);
  // Damage inside a chunk is reported at the chunk's first byte, the offset
  // its message names.
  auto damaged = [&](FormatErrorKind kind, const std::string& message) {
    Result r = Fail(kind, message);
    error_.offset = start;
    return r;
  };
  char length_bytes[kLengthBytes];
  std::size_t got = ReadUpTo(length_bytes, sizeof length_bytes);
  if (!error_.ok()) return Result::kError;
  if (got == 0) return Result::kEnd;
  if (got < sizeof length_bytes) return Truncated(start);
  std::uint32_t length = GetLe32(length_bytes);
  if (length == 0) return damaged(FormatErrorKind::kCorrupt, here + ": length 0");
  if (length > MaxChunkFrame()) {
    return damaged(FormatErrorKind::kTooLarge,
                   here + ": length " + std::to_string(length) + " is over the limit of " +
                       std::to_string(MaxChunkFrame()));
  }
  // Allocate only what the file is known to hold.
  if (size_ && *size_ - offset_ < length) return Truncated(start);
  frame_.resize(length);
  if (ReadUpTo(frame_.data(), length) < length) {
    return error_.ok() ? Truncated(start) : Result::kError;
  }
  // RFC 8878: the magic number, then the Frame_Header_Descriptor, whose
  // bit 2 is the Content_Checksum_flag (skippable frames are not chunks).
  unsigned long long declared = ZSTD_getFrameContentSize(frame_.data(), frame_.size());
  if (declared == ZSTD_CONTENTSIZE_ERROR || frame_.size() < 5 ||
      GetLe32(frame_.data()) != ZSTD_MAGICNUMBER) {
    return damaged(FormatErrorKind::kCorrupt, here + ": not a zstd frame");
  }
  if (declared == ZSTD_CONTENTSIZE_UNKNOWN) {
    return damaged(FormatErrorKind::kCorrupt, here + ": zstd frame declares no content size");
  }
  if ((static_cast<unsigned char>(frame_[4]) & 0x04) == 0) {
    return damaged(FormatErrorKind::kCorrupt, here + ": zstd frame has no content checksum");
  }
  if (declared > kMaxChunkContent) {
    return damaged(FormatErrorKind::kTooLarge,
                   here + ": declared size " + std::to_string(declared) + " is over the limit of " +
                       std::to_string(kMaxChunkContent));
  }
  if (ZSTD_findFrameCompressedSize(frame_.data(), frame_.size()) != frame_.size()) {
    return damaged(FormatErrorKind::kCorrupt, here + ": length does not match the zstd frame");
  }
  content_.resize(declared);
  std::size_t n = ZSTD_decompressDCtx(dctx_, content_.data(), content_.size(), frame_.data(),
                                      frame_.size());
  if (ZSTD_isError(n)) {
    bool checksum = ZSTD_getErrorCode(n) == ZSTD_error_checksum_wrong;
    return damaged(checksum ? FormatErrorKind::kChecksum : FormatErrorKind::kCorrupt,
                   here + (checksum ? ": checksum mismatch"
                                    : std::string(": zstd: ") + ZSTD_getErrorName(n)));
  }
  if (n != declared) return damaged(FormatErrorKind::kCorrupt, here + ": content shorter than declared");
  chunk->Clear();
  if (!chunk->ParseFromString(content_)) {
    return damaged(FormatErrorKind::kCorrupt, here + ": content is not a Chunk message");
  }
  ++chunks_;
  return Result::kChunk;
}

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
