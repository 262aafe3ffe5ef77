// SPDX-License-Identifier: Apache-2.0
// format/reader.h on damaged files, one named damage each: a checksum
// mismatch, an empty file, a wrong magic, a newer version, no footer, a chunk
// or garbage after the footer, a removed chunk and unreadable paths each give
// the documented error, naming the chunk and byte offset, and every complete
// chunk before the damage is still returned.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "format/reader.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/format_damage_fixture.h"

namespace proctape {
namespace {

using namespace test;  // FormatDamageTest, WriteSmallCapture, ChunkEnds, Slurp, Spit

TEST_F(FormatDamageTest, ChecksumMismatchIsNamed) {
  const std::string path = Path("small.ptape");
  WriteSmallCapture(path);
  std::string bytes = Slurp(path);
  const std::vector<std::uint64_t> ends = ChunkEnds(path);
  // The last byte of chunk 1 is the last byte of its content checksum.
  bytes[ends[1] - 1] = static_cast<char>(bytes[ends[1] - 1] ^ 0x40);
  Spit(path, bytes);
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kChecksum) << e.message;
  EXPECT_EQ(e.message, "chunk 1 at byte " + std::to_string(ends[0]) + ": checksum mismatch");
  EXPECT_EQ(s.chunks, 1u);
}

TEST_F(FormatDamageTest, EmptyFileIsTruncated) {
  const std::string path = Path("empty.ptape");
  Spit(path, "");
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
  EXPECT_EQ(e.offset, 0u);
  EXPECT_NE(e.message.find("empty"), std::string::npos) << e.message;
}

TEST_F(FormatDamageTest, WrongMagicIsBadMagic) {
  const std::string path = Path("other.ptape");
  for (const std::string& content :
       {"\x1f\x8b\x08\0\0\0\0\0\0\x03hello world"s, "PTAPE\r\n\x01\0\0\0"s,
        "\x89PTAPE\n\r\x01\0\0\0"s, "x"s, "#!/bin/sh\n"s}) {
    Spit(path, content);
    Snapshot s;
    FormatError e = ReadSnapshot(path, &s);
    EXPECT_EQ(e.kind, FormatErrorKind::kBadMagic) << e.message;
    EXPECT_EQ(e.offset, 0u);
    EXPECT_NE(e.message.find("magic"), std::string::npos) << e.message;
  }
}

// A directory named as a snapshot is said as what it is (io), not as the
// read that would fail on it.
TEST_F(FormatDamageTest, ADirectoryIsSaidToBeADirectory) {
  const std::string path = Path("a-directory");
  ASSERT_EQ(::mkdir(path.c_str(), 0755), 0);
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kIo) << e.message;
  EXPECT_EQ(e.message, "is a directory, not a .ptape file");
  ::rmdir(path.c_str());
}

TEST_F(FormatDamageTest, NewerVersionIsRefused) {
  const std::string path = Path("v2.ptape");
  WriteSmallCapture(path);
  std::string bytes = Slurp(path);
  bytes[8] = static_cast<char>(kFormatVersion + 1);
  Spit(path, bytes);
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kNewerVersion) << e.message;
  EXPECT_EQ(e.offset, 8u);
  EXPECT_NE(e.message.find("format version " + std::to_string(kFormatVersion + 1)),
            std::string::npos)
      << e.message;
  EXPECT_EQ(s.chunks, 0u);

  bytes[8] = 0;
  Spit(path, bytes);
  e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
}

TEST_F(FormatDamageTest, NoFooterIsTruncatedWithEveryChunk) {
  const std::string path = Path("killed.ptape");
  std::string partial;
  const std::uint64_t chunks = WriteSmallCapture(path, false, &partial);
  ASSERT_FALSE(std::filesystem::exists(path));
  const auto size = std::filesystem::file_size(partial);
  Snapshot s;
  FormatError e = ReadSnapshot(partial, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
  EXPECT_EQ(e.message, "truncated after chunk " + std::to_string(chunks - 1) + " at byte " +
                           std::to_string(size) + ": no footer (the capture did not finish)");
  EXPECT_EQ(s.chunks, chunks);
  EXPECT_EQ(s.frames.size(), 2u);
  EXPECT_EQ(s.observations.size(), 3u);
  EXPECT_EQ(s.resolutions.size(), 1u);
  EXPECT_FALSE(s.footer);
}

TEST_F(FormatDamageTest, ChunkAfterTheFooterIsCorrupt) {
  const std::string path = Path("after.ptape");
  WriteSmallCapture(path);
  std::string bytes = Slurp(path);
  const std::vector<std::uint64_t> ends = ChunkEnds(path);
  // Append a copy of chunk 1 (a valid frame part): not read as a chunk.
  const std::uint64_t copy = ends[1] - ends[0];
  bytes += bytes.substr(ends[0], copy);
  Spit(path, bytes);
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
  EXPECT_EQ(e.chunk, ends.size());
  EXPECT_EQ(e.message, "chunk " + std::to_string(ends.size()) + " at byte " +
                           std::to_string(ends.back()) + ": " + std::to_string(copy) +
                           " bytes after the footer");
  EXPECT_TRUE(s.footer);
}

TEST_F(FormatDamageTest, GarbageAfterTheFooterIsAnError) {
  const std::string path = Path("tail.ptape");
  WriteSmallCapture(path);
  const std::vector<std::uint64_t> ends = ChunkEnds(path);
  for (const std::string& tail : {"\0"s, "\0\0\0"s, "junk"s, "\x05\0\0\0abcde"s}) {
    Spit(path, Slurp(path).substr(0, ends.back()) + tail);
    Snapshot s;
    FormatError e = ReadSnapshot(path, &s);
    EXPECT_FALSE(e.ok());
    EXPECT_EQ(e.chunk, ends.size()) << e.message;
  }
}

// A whole chunk removed (or repeated) leaves every checksum intact; the
// footer's count of chunks shows it.
TEST_F(FormatDamageTest, RemovedChunkIsCaughtByTheFooter) {
  const std::string path = Path("holes.ptape");
  WriteSmallCapture(path);
  const std::string bytes = Slurp(path);
  const std::vector<std::uint64_t> ends = ChunkEnds(path);
  const std::size_t footer = ends.size() - 1;
  // Remove the resolution chunk (the one before the last frame).
  std::size_t k = 0;
  {
    FormatError error;
    auto reader = ChunkReader::Open(path, &error);
    ASSERT_TRUE(reader);
    v1::Chunk c;
    for (std::size_t i = 0; reader->Next(&c) == ChunkReader::Result::kChunk; ++i) {
      if (c.has_resolution()) k = i;
    }
  }
  ASSERT_GT(k, 0u);
  const std::string removed = bytes.substr(0, ends[k - 1]) + bytes.substr(ends[k]);
  Spit(path, removed);
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
  EXPECT_EQ(e.chunk, footer - 1);
  EXPECT_NE(e.message.find("footer"), std::string::npos) << e.message;

  const std::string repeated = bytes.substr(0, ends[k]) + bytes.substr(ends[k - 1]);
  Spit(path, repeated);
  e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
  EXPECT_EQ(e.chunk, footer + 1);
}

TEST_F(FormatDamageTest, UnreadablePathsAreIoErrors) {
  Snapshot s;
  FormatError e = ReadSnapshot(Path("missing.ptape"), &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kIo) << e.message;
  e = ReadSnapshot(dir_, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kIo) << e.message;
}

}  // namespace
}  // namespace proctape
