// SPDX-License-Identifier: Apache-2.0
#include "format/chunk_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd_errors.h>

#include <cerrno>
#include <cstring>

#include "core/proc_parse.h"
#include "format/chunk_counts.h"
#include "format/file_format.h"

namespace proctape {
namespace {

std::uint32_t GetLe32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

// The header of a zstd frame (RFC 8878, 3.1.1), as far as the format's
// requirements go (docs/format.md section 1).
struct FrameHeader {
  bool has_content_size = false;
  std::uint64_t content_size = 0;  // Frame_Content_Size
  bool checksum = false;           // Content_Checksum_flag
  std::uint32_t dictionary_id = 0;
  std::uint64_t window_size = 0;  // from the Window_Descriptor; 0 when single segment
};

// Returns nullptr, or why `frame` does not begin with a zstd frame header:
// the zstd magic number 28 B5 2F FD (a skippable frame's is not), a
// Frame_Header_Descriptor whose reserved bit (3) is 0, and every header field
// the descriptor announces within the frame's bytes. The unused bit (4) is
// not interpreted, as RFC 8878 says.
const char* ParseFrameHeader(const std::string& frame, FrameHeader* h) {
  const auto byte = [&frame](std::size_t i) { return static_cast<unsigned char>(frame[i]); };
  const auto le = [&](std::size_t at, int n) {
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | byte(at + static_cast<std::size_t>(i));
    return v;
  };
  if (frame.size() < 4) return "shorter than a magic number";
  const std::uint32_t magic = static_cast<std::uint32_t>(le(0, 4));
  if ((magic & 0xFFFFFFF0u) == ZSTD_MAGIC_SKIPPABLE_START) return "a skippable frame";
  if (magic != ZSTD_MAGICNUMBER) return "no zstd magic number";
  if (frame.size() < 5) return "its header is cut short";
  const unsigned fhd = byte(4);
  const unsigned fcs_flag = fhd >> 6;
  const bool single_segment = (fhd >> 5) & 1;
  if ((fhd >> 3) & 1) return "the reserved bit of its header is set";
  h->checksum = (fhd >> 2) & 1;
  static constexpr int kDictionaryBytes[4] = {0, 1, 2, 4};
  static constexpr int kContentSizeBytes[4] = {0, 2, 4, 8};
  const int dictionary_bytes = kDictionaryBytes[fhd & 3];
  const int content_size_bytes = fcs_flag == 0 && single_segment ? 1 : kContentSizeBytes[fcs_flag];
  std::size_t at = 5;
  if (frame.size() < at + (single_segment ? 0 : 1) + static_cast<std::size_t>(dictionary_bytes) +
                         static_cast<std::size_t>(content_size_bytes)) {
    return "its header is cut short";
  }
  if (!single_segment) {
    const unsigned descriptor = byte(at++);
    const std::uint64_t base = std::uint64_t{1} << (10 + (descriptor >> 3));
    h->window_size = base + (base / 8) * (descriptor & 7);
  }
  h->dictionary_id = static_cast<std::uint32_t>(le(at, dictionary_bytes));
  at += static_cast<std::size_t>(dictionary_bytes);
  h->has_content_size = content_size_bytes > 0;
  h->content_size = le(at, content_size_bytes) + (content_size_bytes == 2 ? 256 : 0);
  return nullptr;
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

std::optional<FailureKind> FailureKindOf(FormatErrorKind kind) {
  switch (kind) {
    case FormatErrorKind::kNone: return std::nullopt;
    case FormatErrorKind::kIo: return FailureKind::kIo;
    case FormatErrorKind::kBadMagic: return FailureKind::kBadMagic;
    case FormatErrorKind::kNewerVersion: return FailureKind::kNewerVersion;
    case FormatErrorKind::kTruncated: return FailureKind::kTruncated;
    case FormatErrorKind::kChecksum: return FailureKind::kChecksum;
    case FormatErrorKind::kCorrupt: return FailureKind::kCorrupt;
    case FormatErrorKind::kTooLarge: return FailureKind::kTooLarge;
  }
  return FailureKind::kInternal;
}

MaybeFailure ToFailure(const FormatError& error) {
  std::optional<FailureKind> kind = FailureKindOf(error.kind);
  if (!kind) return std::nullopt;
  return Failure(*kind, error.message);
}

std::unique_ptr<ChunkReader> ChunkReader::Open(const std::string& path, FormatError* error) {
  int fd = path == "-" ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = FormatError{FormatErrorKind::kIo, 0, 0,
                         std::string("cannot open: ") + std::strerror(errno)};
    return nullptr;
  }
  return Start(fd, path != "-", error);
}

std::unique_ptr<ChunkReader> ChunkReader::OpenFd(int fd, FormatError* error) {
  return Start(fd, true, error);
}

std::unique_ptr<ChunkReader> ChunkReader::Start(int fd, bool owned, FormatError* error) {
  std::optional<std::uint64_t> size;
  struct stat st;
  const bool known = ::fstat(fd, &st) == 0;
  if (known && S_ISDIR(st.st_mode)) {
    // Said as what it is, by every reader (and corpus add's hash), not as
    // the read(2) that would fail on it.
    if (owned) ::close(fd);
    *error = FormatError{FormatErrorKind::kIo, 0, 0, "is a directory, not a .ptape file"};
    return nullptr;
  }
  if (known && S_ISREG(st.st_mode)) {
    // From where the descriptor stands: what is left of the file.
    const off_t at = ::lseek(fd, 0, SEEK_CUR);
    size = static_cast<std::uint64_t>(st.st_size) -
           (at > 0 && at <= st.st_size ? static_cast<std::uint64_t>(at) : 0);
  }
  std::unique_ptr<ChunkReader> reader(new ChunkReader(fd, owned, size));
  char preamble[kPreambleBytes];
  std::size_t got = reader->ReadUpTo(preamble, sizeof preamble);
  if (!reader->error_.ok()) {
    *error = reader->error_;
    return nullptr;
  }
  // The preamble's checks 1-5 of docs/format.md section 8, in order; each
  // error has chunk 0 and the offset of its field. Every proper prefix of a
  // file is truncated, the empty file included (a capture killed between
  // creating NAME.partial and writing the preamble).
  if (got == 0) {
    *error =
        FormatError{FormatErrorKind::kTruncated, 0, 0, "truncated at byte 0: the file is empty"};
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
  if (version < kOldestFormatVersion) {  // 0: no proctape ever wrote it
    *error = FormatError{FormatErrorKind::kCorrupt, 0, sizeof kMagic,
                         "byte 8: format version " + std::to_string(version)};
    return nullptr;
  }
  reader->version_ = version;
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
  // The checks of docs/format.md section 8, in its order: a chunk's first
  // failing check is the error. Step 1: the file ends with its footer; a
  // byte after it is damage, never read as a length (`cat a.ptape a.ptape`).
  if (after_footer_) {
    if (size_) {
      if (*size_ <= offset_) return Result::kEnd;
      return damaged(FormatErrorKind::kCorrupt,
                     here + ": " + Plural(*size_ - offset_, "byte", "bytes") + " after the footer");
    }
    char byte;
    if (ReadUpTo(&byte, 1) == 0) return error_.ok() ? Result::kEnd : Result::kError;
    return damaged(FormatErrorKind::kCorrupt, here + ": data after the footer");
  }
  // Steps 2-5: the length prefix, its limits, and the bytes it names.
  char length_bytes[kLengthBytes];
  std::size_t got = ReadUpTo(length_bytes, sizeof length_bytes);
  if (!error_.ok()) return Result::kError;
  if (got == 0) return Result::kEnd;
  if (got < sizeof length_bytes) return Truncated(start);
  std::uint32_t length = GetLe32(length_bytes);
  if (length == 0) return damaged(FormatErrorKind::kCorrupt, here + ": length 0");
  if (length > MaxChunkFrame()) {
    return damaged(FormatErrorKind::kTooLarge, here + ": length " + std::to_string(length) +
                                                   " is over the limit of " +
                                                   std::to_string(MaxChunkFrame()));
  }
  // Allocate only what the file is known to hold.
  if (size_ && *size_ - offset_ < length) return Truncated(start);
  frame_.resize(length);
  if (ReadUpTo(frame_.data(), length) < length) {
    return error_.ok() ? Truncated(start) : Result::kError;
  }
  // Steps 6-12: the zstd frame header (section 1), then the frame's extent.
  FrameHeader h;
  const char* not_zstd = ParseFrameHeader(frame_, &h);
  if (not_zstd != nullptr) {
    return damaged(FormatErrorKind::kCorrupt, here + ": not a zstd frame (" + not_zstd + ")");
  }
  if (!h.has_content_size) {
    return damaged(FormatErrorKind::kCorrupt, here + ": zstd frame declares no content size");
  }
  if (!h.checksum) {
    return damaged(FormatErrorKind::kCorrupt, here + ": zstd frame has no content checksum");
  }
  if (h.dictionary_id != 0) {
    return damaged(FormatErrorKind::kCorrupt,
                   here + ": zstd frame names dictionary " + std::to_string(h.dictionary_id));
  }
  const std::uint64_t declared = h.content_size;
  if (declared > kMaxChunkContent) {
    return damaged(FormatErrorKind::kTooLarge,
                   here + ": declared size " + std::to_string(declared) + " is over the limit of " +
                       std::to_string(kMaxChunkContent));
  }
  if (h.window_size > kMaxChunkContent) {
    return damaged(FormatErrorKind::kTooLarge,
                   here + ": zstd frame window of " + std::to_string(h.window_size) +
                       " bytes is over the limit of " + std::to_string(kMaxChunkContent));
  }
  const std::size_t extent = ZSTD_findFrameCompressedSize(frame_.data(), frame_.size());
  if (ZSTD_isError(extent) || extent != frame_.size()) {
    const std::string frame_bytes = ZSTD_isError(extent)
                                        ? std::string("zstd: ") + ZSTD_getErrorName(extent)
                                        : std::to_string(extent) + " bytes";
    return damaged(FormatErrorKind::kCorrupt, here + ": length " + std::to_string(length) +
                                                  " does not match the zstd frame (" + frame_bytes +
                                                  ")");
  }
  // Steps 13, 14 and 16: decoding, the checksum (XXH64, seed 0, of the content),
  // the Chunk message.
  content_.resize(declared);
  std::size_t n =
      ZSTD_decompressDCtx(dctx_, content_.data(), content_.size(), frame_.data(), frame_.size());
  if (ZSTD_isError(n)) {
    bool checksum = ZSTD_getErrorCode(n) == ZSTD_error_checksum_wrong;
    return damaged(
        checksum ? FormatErrorKind::kChecksum : FormatErrorKind::kCorrupt,
        here + (checksum ? ": checksum mismatch" : std::string(": zstd: ") + ZSTD_getErrorName(n)));
  }
  if (n != declared) {
    return damaged(FormatErrorKind::kCorrupt, here + ": content shorter than declared");
  }
  // Step 15: the file's count limits, on the wire counts, before parsing.
  ChunkCounts counts;
  if (CountChunk(content_, &counts)) {
    const struct {
      const char* what;
      std::uint64_t* total;
      std::uint64_t adds, limit;
    } caps[] = {
        {"chunks", &totals_.chunks, 1, kMaxChunks},
        {"process records", &totals_.processes, counts.processes, kMaxProcessRecords},
        {"observations", &totals_.observations, counts.observations, kMaxObservations},
        {"resolutions", &totals_.resolutions, counts.resolutions, kMaxResolutions},
    };
    for (const auto& c : caps) {
      if (c.adds > c.limit - *c.total) {
        return damaged(FormatErrorKind::kTooLarge, here + ": more than " + std::to_string(c.limit) +
                                                       " " + c.what + " in the file (the limit)");
      }
    }
    for (const auto& c : caps) *c.total += c.adds;
  }
  // The message as parsed, against the reader's budget (section 7).
  const std::uint64_t cost = ParseCost(content_, v1::Chunk::descriptor());
  budget_.BeginChunk();
  if (!budget_.Charge(cost, offset_)) {
    return damaged(FormatErrorKind::kTooLarge,
                   here + ": " + budget_.Refusal("its message as parsed", cost, offset_));
  }
  chunk->Clear();
  if (!chunk->ParseFromString(content_)) {
    return damaged(FormatErrorKind::kCorrupt, here + ": content is not a Chunk message");
  }
  after_footer_ = chunk->has_footer();
  ++chunks_;
  return Result::kChunk;
}

}  // namespace proctape
