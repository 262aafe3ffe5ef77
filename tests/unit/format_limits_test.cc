// SPDX-License-Identifier: Apache-2.0
// The count and copy limits of docs/format.md section 7 (a 10 KB file cannot
// make a reader allocate gigabytes). The hostile files of
// that section are built here byte by byte and kept in tests/data/hostile/ (the
// live test runs every command on them under RLIMIT_AS; the fuzzers use them
// as seeds); PROCTAPE_UPDATE_GOLDEN=1 rewrites them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "format/chunk_counts.h"
#include "format/file_format.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/source_dir.h"

namespace proctape::test {
namespace {

std::filesystem::path HostileDir() { return test::SourceDir() / "tests" / "data" / "hostile"; }

std::string Varint(std::uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
  return s;
}

// 200 process records whose cmdline refers to one 15 MiB blob: 3 GB if each
// reference were copied (before these limits: verify 3 GB, show 4.5 GB,
// export json wrote an empty document and exited 0).
std::string BlobReferences() { return FileOfBlobReferences(200); }

// One frame part of 8,000,000 empty process records (2 bytes each on the
// wire: 16 MB of content), open: a frame of more records than the file
// may hold (before these limits: verify 854 MB, show 5 GB).
std::string EmptyRecords() {
  std::string frame;
  frame.reserve(16'000'000);
  for (int i = 0; i < 8'000'000; ++i) {
    frame.push_back('\x22');  // processes = {}
    frame.push_back('\x00');
  }
  std::string content(1, '\x12');  // Chunk.frame
  content += Varint(frame.size());
  content += frame;
  return Preamble() + ChunkOf(HeaderBody()) + Compressed(content) + ChunkOf(FooterBody(2));
}

void ExpectKept(const std::string& name, const std::string& bytes) {
  const std::filesystem::path path = HostileDir() / name;
  const char* update = std::getenv("PROCTAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    Spit(path.string(), bytes);
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << name << ": PROCTAPE_UPDATE_GOLDEN=1 writes it";
  EXPECT_EQ(Slurp(path.string()), bytes) << "tests/data/hostile/" << name << " differs";
}

TEST(FormatLimits, TheHostileFilesAreKeptSmall) {
  const std::string refs = BlobReferences();
  const std::string records = EmptyRecords();
  EXPECT_LT(refs.size(), 10'000u);
  EXPECT_LT(records.size(), 10'000u);
  ExpectKept("blob-references.ptape", refs);
  ExpectKept("empty-records.ptape", records);
}

TEST(FormatLimits, BlobReferencesCopyingMoreThanTheLimitAreTooLarge) {
  const std::filesystem::path path = HostileDir() / "blob-references.ptape";
  Snapshot s;
  FormatError e = ReadSnapshot(path.string(), &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTooLarge) << e.message;
  EXPECT_EQ(e.message, "chunk 1 at byte 47: blob references copy more than " +
                           std::to_string(kMaxBlobCopyBytes) + " bytes (the limit)");
  EXPECT_TRUE(s.frames.empty());
}

TEST(FormatLimits, MoreProcessRecordsThanTheLimitAreTooLargeBeforeParsing) {
  const std::filesystem::path path = HostileDir() / "empty-records.ptape";
  Snapshot s;
  FormatError e = ReadSnapshot(path.string(), &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTooLarge) << e.message;
  EXPECT_EQ(e.message, "chunk 1 at byte 47: more than " + std::to_string(kMaxProcessRecords) +
                           " process records in the file (the limit)");
}

// The wire counts are those of the parsed message, at and past each limit.
TEST(FormatLimits, ChunkCountsMatchTheParsedMessage) {
  v1::Chunk c;
  for (int i = 0; i < 3; ++i) c.mutable_frame()->add_processes()->set_pid(i + 2);
  c.mutable_frame()->add_blobs()->set_id(1);
  ChunkCounts n;
  ASSERT_TRUE(CountChunk(c.SerializeAsString(), &n));
  EXPECT_EQ(n.processes, 3u);
  EXPECT_EQ(n.blobs, 1u);
  v1::Chunk o;
  for (int i = 0; i < 5; ++i) o.mutable_observations()->add_observations()->set_index(i);
  ASSERT_TRUE(CountChunk(o.SerializeAsString(), &n));
  EXPECT_EQ(n.observations, 5u);
  EXPECT_EQ(n.processes, 0u);
}

// docs/format.md section 7, "How the wire bytes are counted": every
// occurrence of a counted field counts, also one the parser merges or drops;
// a field of another wire type does not; a frame that runs past the content
// counts what it holds; other bytes that are not wire data give counting up
// (and the parse refuses all of them).
TEST(FormatLimits, WireCountsCountEveryOccurrenceAndNoOtherWireType) {
  // A length-delimited field (one-byte tag and length).
  const auto field = [](int number, const std::string& bytes) {
    return std::string(1, static_cast<char>(number << 3 | 2)) +
           std::string(1, static_cast<char>(bytes.size())) + bytes;
  };
  const std::string record = field(4, "");  // Frame.processes: an empty record
  ChunkCounts n;
  v1::Chunk parsed;

  // Two frame fields: protobuf merges them (their records appended).
  const std::string twice = field(2, record + record) + field(2, record);
  ASSERT_TRUE(CountChunk(twice, &n));
  EXPECT_EQ(n.processes, 3u);
  ASSERT_TRUE(parsed.ParseFromString(twice));
  EXPECT_EQ(parsed.frame().processes_size(), 3);

  // A frame, then observations: the parser keeps the last member of the
  // oneof; the frame's records were counted all the same.
  const std::string dropped = field(2, record + record) + field(3, field(1, ""));
  ASSERT_TRUE(CountChunk(dropped, &n));
  EXPECT_EQ(n.processes, 2u);
  EXPECT_EQ(n.observations, 1u);
  ASSERT_TRUE(parsed.ParseFromString(dropped));
  EXPECT_TRUE(parsed.has_observations());

  // Two resolution fields count two.
  ASSERT_TRUE(CountChunk(field(4, "") + field(4, ""), &n));
  EXPECT_EQ(n.resolutions, 2u);

  // Field 4 of a frame as a varint: an unknown field, no record.
  const std::string varint = field(2, std::string("\x20\x01", 2));
  ASSERT_TRUE(CountChunk(varint, &n));
  EXPECT_EQ(n.processes, 0u);
  ASSERT_TRUE(parsed.ParseFromString(varint));
  EXPECT_EQ(parsed.frame().processes_size(), 0);

  // A frame whose length runs past the content: its fields up to the end
  // are counted; the parse refuses the chunk.
  const std::string past = std::string("\x12\x05", 2) + record;
  ASSERT_TRUE(CountChunk(past, &n));
  EXPECT_EQ(n.processes, 1u);
  EXPECT_FALSE(parsed.ParseFromString(past));

  // A tag 0 inside a frame stops the frame's walk, which goes on at the top
  // level from there: the record after it reads as a resolution (field 4).
  const std::string stopped = field(2, record + std::string(1, '\0') + record);
  ASSERT_TRUE(CountChunk(stopped, &n));
  EXPECT_EQ(n.processes, 1u);
  EXPECT_EQ(n.resolutions, 1u);
  EXPECT_FALSE(parsed.ParseFromString(stopped));

  // A skipped field (a fingerprint) that runs past the content, a length
  // that cannot be read, a wire type protobuf lacks: counting gives up.
  for (const std::string& bad :
       {field(2, record) + std::string("\x2a\x05", 2) + record,
        field(2, record) + std::string("\x12\xff", 2), field(2, record) + "\x16"}) {
    EXPECT_FALSE(CountChunk(bad, &n));
    EXPECT_FALSE(parsed.ParseFromString(bad));
  }
}

}  // namespace
}  // namespace proctape::test
