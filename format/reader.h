// Reader of .ptape files, safe on untrusted input: every length and every
// declared decompressed size is checked against the limits of
// format/file_format.h, and a chunk's bytes are only allocated once the file
// is known to hold them (a 10 KB file cannot make it allocate gigabytes).
// Damage is reported, never guessed around: the first bad chunk ends the
// read, and every complete chunk before it is still returned.
#pragma once

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "format/format_error.h"
#include "proctape.pb.h"

namespace proctape {

// Chunk by chunk, as stored (blobs not resolved, frame parts not joined).
class ChunkReader {
 public:
  // Opens `path` ("-" for standard input) and checks magic and version.
  static std::unique_ptr<ChunkReader> Open(const std::string& path, FormatError* error);
  ~ChunkReader();
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  enum class Result { kChunk, kEnd, kError };
  // kEnd: clean end of file at a chunk boundary. kError: error() says what.
  Result Next(v1::Chunk* chunk);
  const FormatError& error() const { return error_; }
  std::uint64_t chunks() const { return chunks_; }  // complete chunks read
  std::uint64_t offset() const { return offset_; }  // bytes consumed

 private:
  ChunkReader(int fd, bool owned, std::optional<std::uint64_t> size);
  Result Fail(FormatErrorKind kind, const std::string& message);
  Result Truncated(std::uint64_t at);
  // Reads exactly n bytes into buf; returns how many were available.
  std::size_t ReadUpTo(char* buf, std::size_t n);

  int fd_;
  bool owned_;
  std::optional<std::uint64_t> size_;  // known for regular files
  std::uint64_t offset_ = 0;
  std::uint64_t chunks_ = 0;
  ZSTD_DCtx* dctx_;
  std::string frame_;
  std::string content_;
  FormatError error_;
};

// A whole file, blobs resolved and frame parts joined.
struct Snapshot {
  v1::Header header;
  std::vector<v1::Frame> frames;
  std::vector<v1::Observation> observations;
  std::vector<v1::Resolution> resolutions;
  std::vector<v1::RootFingerprint> fingerprints;  // `proctape fingerprint` files
  std::optional<v1::Footer> footer;
  std::uint64_t chunks = 0;
  std::uint64_t bytes = 0;  // bytes of the file that were read
};

// Reads `path`. Returns kNone when the file is whole; otherwise the first
// damage found, with *out holding everything before it (a capture killed
// mid-way: kTruncated, "truncated after chunk K at byte B").
FormatError ReadSnapshot(const std::string& path, Snapshot* out);

}  // namespace proctape
