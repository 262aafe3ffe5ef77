// SPDX-License-Identifier: Apache-2.0
// The framing of a .ptape file, chunk by chunk: the preamble, each chunk's
// length prefix, its zstd frame and its Chunk message (docs/format.md,
// sections 1 and 8). Safe on untrusted input: every length and every declared
// decompressed size is checked against the limits of format/file_format.h,
// and a chunk's bytes are only allocated once the file is known to hold them
// (a 10 KB file cannot make it allocate gigabytes).
#pragma once

#include <zstd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "format/format_error.h"
#include "format/read_budget.h"
#include "proctape.pb.h"

namespace proctape {

// Chunk by chunk, as stored (blobs not resolved, frame parts not joined).
class ChunkReader {
 public:
  // Opens `path` ("-" for standard input) and checks magic and version.
  static std::unique_ptr<ChunkReader> Open(const std::string& path, FormatError* error);
  // The same of `fd`, read from where it stands (a file read more than once:
  // a copy of standard input); the reader owns it and closes it.
  static std::unique_ptr<ChunkReader> OpenFd(int fd, FormatError* error);
  ~ChunkReader();
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  enum class Result { kChunk, kEnd, kError };
  // The next chunk, checked in the order of docs/format.md section 8 (its
  // framing, zstd frame, checksum and Chunk message; not the structure).
  // kEnd: the file ends at a chunk boundary; after a footer chunk it must end
  // there, and a byte after it is kError. kError: error() says what.
  Result Next(v1::Chunk* chunk);
  const FormatError& error() const { return error_; }
  std::uint64_t chunks() const { return chunks_; }    // complete chunks read
  std::uint64_t offset() const { return offset_; }    // bytes consumed
  std::uint32_t version() const { return version_; }  // the preamble's format version
  // The reader's budget (format/read_budget.h): each chunk's message is
  // charged its ParseCost before it is parsed (too-large past it); a reader
  // of references charges its copies here too.
  ReadBudget& budget() { return budget_; }
  const ReadBudget& budget() const { return budget_; }

 private:
  ChunkReader(int fd, bool owned, std::optional<std::uint64_t> size);
  static std::unique_ptr<ChunkReader> Start(int fd, bool owned, FormatError* error);
  Result Fail(FormatErrorKind kind, const std::string& message);
  Result Truncated(std::uint64_t at);
  // Reads exactly n bytes into buf; returns how many were available.
  std::size_t ReadUpTo(char* buf, std::size_t n);

  int fd_;
  bool owned_;
  std::optional<std::uint64_t> size_;  // known for regular files
  std::uint64_t offset_ = 0;
  std::uint64_t chunks_ = 0;
  std::uint32_t version_ = 0;
  bool after_footer_ = false;  // the last chunk read was the footer
  ZSTD_DCtx* dctx_;
  std::string frame_;
  std::string content_;
  FormatError error_;
  // What the chunks read so far hold, against the count limits.
  struct Totals {
    std::uint64_t chunks = 0, processes = 0, observations = 0, resolutions = 0;
  } totals_;
  ReadBudget budget_;
};

}  // namespace proctape
