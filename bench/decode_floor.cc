// SPDX-License-Identifier: Apache-2.0
// decode_floor: the least any reader of a .ptape file must do (BENCHMARKS.md,
// "Readers against the decode floor").
//
//   decode_floor FILE
//
// Reads the preamble, then chunk by chunk (format/file_format.h: a 4-byte
// little-endian length, one zstd frame of that length) decompresses each
// chunk's frame and parses its content, one proctape.v1.Chunk, into a
// google::protobuf::Arena reset after every chunk. Nothing else: none of the
// reader's checks (format/chunk_reader.cc: the frame header's fields, the
// limits, the count caps, the budget; zstd's content checksum is not
// verified either), no blob or "same as" reference resolved, no frame parts
// joined, no copy of a message. Buffers are reused, so its peak RSS is one
// chunk's frame, content and parsed message: the memory floor too.
//
// Prints one line on standard output, so that a caller can see it did the
// work (tests/bench/decode_floor_test.sh compares it with the real reader):
//   decode_floor: chunks=C messages=M records=P blobs=B observations=O
//       resolutions=R decoded_bytes=D file_bytes=F
// (one line; M = C + P + B + O: every message parsed that a reader walks).
// Exit 1 when the file cannot be read as framed (it says where), 2 on usage.
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_d_forceIgnoreChecksum
#include <fcntl.h>
#include <google/protobuf/arena.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "format/file_format.h"
#include "proctape.pb.h"

namespace {

// Reads n bytes; how many were there (fewer only at the end of the file).
std::size_t ReadFully(int fd, char* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    ssize_t r = ::read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

int Fail(const char* path, const std::string& what) {
  std::fprintf(stderr, "decode_floor: %s: %s\n", path, what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: decode_floor FILE\n");
    return 2;
  }
  const char* path = argv[1];
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Fail(path, std::strerror(errno));

  char preamble[proctape::kPreambleBytes];
  if (ReadFully(fd, preamble, sizeof preamble) != sizeof preamble ||
      std::memcmp(preamble, proctape::kMagic, sizeof proctape::kMagic) != 0) {
    return Fail(path, "not a .ptape file (no magic)");
  }
  std::uint64_t file_bytes = sizeof preamble;

  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  ZSTD_DCtx_setParameter(dctx, ZSTD_d_forceIgnoreChecksum, ZSTD_d_ignoreChecksum);
  std::string frame, content;
  google::protobuf::Arena arena;
  std::uint64_t chunks = 0, records = 0, blobs = 0, observations = 0, resolutions = 0;
  std::uint64_t decoded = 0;
  for (;;) {
    unsigned char length_bytes[proctape::kLengthBytes];
    const std::size_t got =
        ReadFully(fd, reinterpret_cast<char*>(length_bytes), sizeof length_bytes);
    if (got == 0) break;
    if (got < sizeof length_bytes)
      return Fail(path, "truncated length at byte " + std::to_string(file_bytes));
    std::uint32_t length = 0;
    for (std::size_t i = 0; i < sizeof length_bytes; ++i)
      length |= std::uint32_t{length_bytes[i]} << (8 * i);
    frame.resize(length);
    if (ReadFully(fd, frame.data(), length) != length) {
      return Fail(path, "truncated chunk at byte " + std::to_string(file_bytes));
    }
    file_bytes += sizeof length_bytes + length;
    const unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
      return Fail(path, "chunk " + std::to_string(chunks) + ": no zstd content size");
    }
    content.resize(size);
    const std::size_t n =
        ZSTD_decompressDCtx(dctx, content.data(), content.size(), frame.data(), frame.size());
    if (ZSTD_isError(n)) {
      return Fail(path, "chunk " + std::to_string(chunks) + ": zstd: " + ZSTD_getErrorName(n));
    }
    decoded += n;
    auto* chunk = google::protobuf::Arena::CreateMessage<proctape::v1::Chunk>(&arena);
    if (!chunk->ParseFromArray(content.data(), static_cast<int>(n))) {
      return Fail(path, "chunk " + std::to_string(chunks) + ": not a Chunk message");
    }
    ++chunks;
    switch (chunk->body_case()) {
      case proctape::v1::Chunk::kFrame:
        records += static_cast<std::uint64_t>(chunk->frame().processes_size());
        blobs += static_cast<std::uint64_t>(chunk->frame().blobs_size());
        break;
      case proctape::v1::Chunk::kObservations:
        observations += static_cast<std::uint64_t>(chunk->observations().observations_size());
        break;
      case proctape::v1::Chunk::kResolution: ++resolutions; break;
      default: break;
    }
    arena.Reset();
  }
  ZSTD_freeDCtx(dctx);
  ::close(fd);
  std::printf("decode_floor: chunks=%" PRIu64 " messages=%" PRIu64 " records=%" PRIu64
              " blobs=%" PRIu64 " observations=%" PRIu64 " resolutions=%" PRIu64
              " decoded_bytes=%" PRIu64 " file_bytes=%" PRIu64 "\n",
              chunks, chunks + records + blobs + observations, records, blobs, observations,
              resolutions, decoded, file_bytes);
  return 0;
}
