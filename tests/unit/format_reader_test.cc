// SPDX-License-Identifier: Apache-2.0
// format/reader.h on hand-made files: the limits of format/file_format.h are
// enforced by writer and reader alike, exactly at the limit and one byte
// over, and no length read from a file makes the reader allocate memory the
// file does not hold.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <zstd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "format/file_format.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"

namespace proctape {
namespace {

using namespace std::string_literals;

class FormatReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "proctape-fmt-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

void Spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string Le32(std::uint64_t v) {
  std::string s;
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

std::string Preamble(std::uint32_t version = kFormatVersion) {
  return std::string(reinterpret_cast<const char*>(kMagic), sizeof kMagic) + Le32(version);
}

// One zstd frame of `content`, with or without the content size and checksum
// the format requires.
std::string ZstdFrame(const std::string& content, bool content_size = true, bool checksum = true) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, checksum ? 1 : 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, content_size ? 1 : 0);
  std::string out(ZSTD_compressBound(content.size()), '\0');
  std::size_t n = ZSTD_compress2(cctx, out.data(), out.size(), content.data(), content.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

std::string Chunk(const std::string& frame) { return Le32(frame.size()) + frame; }

std::string HeaderChunk() {
  v1::Chunk c;
  c.mutable_header()->set_format_version(kFormatVersion);
  c.mutable_header()->set_tool_version("test");
  return Chunk(ZstdFrame(c.SerializeAsString()));
}

std::string FooterChunk(std::uint64_t chunks) {
  v1::Chunk c;
  c.mutable_footer()->set_chunks(chunks);
  return Chunk(ZstdFrame(c.SerializeAsString()));
}

std::string RandomBytes(std::size_t n, std::uint32_t seed) {
  std::mt19937_64 gen(seed);
  std::string s(n, '\0');
  for (std::size_t i = 0; i + 8 <= n; i += 8) {
    std::uint64_t v = gen();
    std::memcpy(&s[i], &v, 8);
  }
  return s;
}

// A chunk whose serialized size is exactly `size`: a resolution whose
// verdict carries `size - overhead` bytes of incompressible evidence.
v1::Chunk ChunkOfSize(std::uint64_t size) {
  v1::Chunk c;
  std::string* evidence = c.mutable_resolution()->mutable_verdict()->mutable_evidence();
  *evidence = RandomBytes(size, 7);
  for (int i = 0; i < 8; ++i) {
    std::uint64_t got = c.ByteSizeLong();
    if (got == size) break;
    evidence->resize(evidence->size() + size - got);
  }
  EXPECT_EQ(c.ByteSizeLong(), size);
  return c;
}

// Peak resident memory, resettable (Linux >= 4.0): how we see that a length
// read from a file was not allocated.
bool ResetPeakRss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}

long PeakRssKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// ---------------------------------------------------------------------------
// The chunk content limit, writer and reader alike

TEST_F(FormatReaderTest, ChunkExactlyAtTheContentLimitRoundTrips) {
  const std::string path = Path("limit.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(v1::Header()));
  v1::Chunk big = ChunkOfSize(kMaxChunkContent);
  ASSERT_TRUE(w->WriteChunk(big)) << w->error();
  ASSERT_TRUE(w->Finish({})) << w->error();
  w.reset();
  // Incompressible: the frame is near the largest a chunk may take.
  EXPECT_GT(std::filesystem::file_size(path), kMaxChunkContent);
  EXPECT_LE(std::filesystem::file_size(path),
            kPreambleBytes + 3 * kLengthBytes + MaxChunkFrame() + 256);

  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.resolutions.size(), 1u);
  EXPECT_EQ(s.resolutions[0].verdict().evidence(), big.resolution().verdict().evidence());
}

TEST_F(FormatReaderTest, WriterRefusesAChunkOneByteOverTheLimit) {
  const std::string path = Path("over.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(v1::Header()));
  const std::uint64_t before = w->bytes_written();
  EXPECT_FALSE(w->WriteChunk(ChunkOfSize(kMaxChunkContent + 1)));
  EXPECT_NE(w->error().find("chunk 1"), std::string::npos) << w->error();
  EXPECT_NE(w->error().find(std::to_string(kMaxChunkContent + 1)), std::string::npos) << w->error();
  EXPECT_NE(w->error().find("over the limit of " + std::to_string(kMaxChunkContent)),
            std::string::npos)
      << w->error();
  EXPECT_EQ(w->bytes_written(), before);
  EXPECT_EQ(std::filesystem::file_size(w->temporary()), before);
  // The writer stays failed.
  EXPECT_FALSE(w->Finish({}));
}

TEST_F(FormatReaderTest, ReaderRefusesADeclaredSizeOneByteOverTheLimit) {
  const std::string path = Path("declared.ptape");
  const std::string header = HeaderChunk();
  // Zeros: a tiny frame declaring kMaxChunkContent + 1 bytes of content.
  const std::string frame = ZstdFrame(std::string(kMaxChunkContent + 1, '\0'));
  ASSERT_LT(frame.size(), 4096u);
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), kMaxChunkContent + 1);
  Spit(path, Preamble() + header + Chunk(frame) + FooterChunk(2));

  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  const std::uint64_t at = kPreambleBytes + header.size();
  EXPECT_EQ(e.kind, FormatErrorKind::kTooLarge) << e.message;
  EXPECT_EQ(e.chunk, 1u);
  EXPECT_EQ(e.offset, at);
  EXPECT_EQ(s.chunks, 1u);  // the header before it is still returned
  EXPECT_EQ(s.header.tool_version(), "test");
  EXPECT_NE(e.message.find("chunk 1 at byte " + std::to_string(at)), std::string::npos)
      << e.message;
  EXPECT_NE(e.message.find(std::to_string(kMaxChunkContent + 1)), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find('\n'), std::string::npos);

  // Exactly at the limit is accepted by the reader too (then found not to
  // be a Chunk message: zeros are not one).
  Spit(path, Preamble() + header + Chunk(ZstdFrame(std::string(kMaxChunkContent, '\0'))));
  e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
  EXPECT_NE(e.message.find("not a Chunk message"), std::string::npos) << e.message;
}

TEST_F(FormatReaderTest, LengthPrefixOverTheFrameLimitIsTooLarge) {
  const std::string path = Path("length.ptape");
  const std::string garbage(10 << 10, 'x');
  for (std::uint64_t length :
       {MaxChunkFrame() + 1, std::uint64_t{100} << 20, std::uint64_t{0xffffffff}}) {
    Spit(path, Preamble() + Le32(length) + garbage);
    Snapshot s;
    FormatError e = ReadSnapshot(path, &s);
    EXPECT_EQ(e.kind, FormatErrorKind::kTooLarge) << e.message;
    EXPECT_EQ(e.chunk, 0u);
    EXPECT_EQ(e.offset, kPreambleBytes);  // the chunk, where its message points
    EXPECT_NE(e.message.find("chunk 0 at byte 12: length " + std::to_string(length)),
              std::string::npos)
        << e.message;
    EXPECT_NE(e.message.find(std::to_string(MaxChunkFrame())), std::string::npos) << e.message;
  }
}

// A 10 KB file whose length prefix claims the largest frame allowed: the
// file does not hold it, so it is truncated, and nothing near that size is
// allocated.
TEST_F(FormatReaderTest, LengthTheFileDoesNotHoldIsNotAllocated) {
  const std::string path = Path("claims.ptape");
  const std::string header = HeaderChunk();
  std::string bytes = Preamble() + header + Le32(MaxChunkFrame());
  bytes.resize(10 << 10, 'x');
  Spit(path, bytes);

  const bool measured = ResetPeakRss();
  const long before = PeakRssKb();
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  const long after = PeakRssKb();
  EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
  EXPECT_NE(e.message.find("truncated after chunk 0 at byte " +
                           std::to_string(kPreambleBytes + header.size())),
            std::string::npos)
      << e.message;
  EXPECT_EQ(s.chunks, 1u);
  if (measured && before > 0) {
    EXPECT_LT(after - before, 4 << 10) << "peak RSS grew by " << (after - before) << " kB";
  }
}

TEST_F(FormatReaderTest, ZeroLengthIsCorrupt) {
  const std::string path = Path("zero.ptape");
  Spit(path, Preamble() + HeaderChunk() + Le32(0) + "x");
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
  EXPECT_EQ(e.chunk, 1u);
}

// ---------------------------------------------------------------------------
// zstd frame requirements

TEST_F(FormatReaderTest, FrameWithoutContentSizeIsCorrupt) {
  const std::string path = Path("nosize.ptape");
  v1::Chunk c;
  c.mutable_header()->set_format_version(1);
  Spit(path, Preamble() + Chunk(ZstdFrame(c.SerializeAsString(), false, true)));
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
  EXPECT_NE(e.message.find("content size"), std::string::npos) << e.message;
}

TEST_F(FormatReaderTest, FrameWithoutChecksumIsCorrupt) {
  const std::string path = Path("nosum.ptape");
  v1::Chunk c;
  c.mutable_header()->set_format_version(1);
  Spit(path, Preamble() + Chunk(ZstdFrame(c.SerializeAsString(), true, false)));
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
  EXPECT_NE(e.message.find("checksum"), std::string::npos) << e.message;
}

TEST_F(FormatReaderTest, SkippableFrameIsCorrupt) {
  const std::string path = Path("skip.ptape");
  std::string skippable = Le32(0x184D2A50) + Le32(4) + "abcd";
  Spit(path, Preamble() + HeaderChunk() + Chunk(skippable));
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
  EXPECT_EQ(e.chunk, 1u);
}

TEST_F(FormatReaderTest, TwoFramesInOneChunkAreCorrupt) {
  const std::string path = Path("two.ptape");
  v1::Chunk c;
  c.mutable_header()->set_format_version(1);
  const std::string frame = ZstdFrame(c.SerializeAsString());
  Spit(path, Preamble() + Chunk(frame + frame));
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kCorrupt) << e.message;
  EXPECT_NE(e.message.find("does not match the zstd frame"), std::string::npos) << e.message;
}

// ---------------------------------------------------------------------------
// Chunk order

TEST_F(FormatReaderTest, StructureIsChecked) {
  const std::string path = Path("order.ptape");
  auto chunk = [](const v1::Chunk& c) { return Chunk(ZstdFrame(c.SerializeAsString())); };
  v1::Chunk frame;
  frame.mutable_frame()->set_index(0);
  frame.mutable_frame()->set_complete(true);
  v1::Chunk empty;
  v1::Chunk newer;
  newer.mutable_header()->set_format_version(kFormatVersion + 1);
  v1::Chunk bad_blob;
  bad_blob.mutable_frame()->add_processes()->mutable_environ()->set_blob(1);
  v1::Chunk bad_obs;
  bad_obs.mutable_observations()->add_observations()->set_index(1);

  struct Case {
    std::string bytes;
    FormatErrorKind kind;
    std::uint64_t chunk;
    const char* says;
  } cases[] = {
      {chunk(frame), FormatErrorKind::kCorrupt, 0, "the first chunk is not a header"},
      {HeaderChunk() + HeaderChunk(), FormatErrorKind::kCorrupt, 1, "a second header"},
      {HeaderChunk() + chunk(empty), FormatErrorKind::kCorrupt, 1, "an empty chunk"},
      {chunk(newer), FormatErrorKind::kCorrupt, 0, "differs from the preamble's"},
      {HeaderChunk() + chunk(bad_blob), FormatErrorKind::kCorrupt, 1, "undefined blob"},
      {HeaderChunk() + chunk(bad_obs), FormatErrorKind::kCorrupt, 1, "observation index"},
      {HeaderChunk() + FooterChunk(1) + chunk(frame), FormatErrorKind::kCorrupt, 2,
       "bytes after the footer"},
  };
  for (const Case& c : cases) {
    Spit(path, Preamble() + c.bytes);
    Snapshot s;
    FormatError e = ReadSnapshot(path, &s);
    EXPECT_EQ(e.kind, c.kind) << c.says << ": " << e.message;
    EXPECT_EQ(e.chunk, c.chunk) << c.says;
    EXPECT_EQ(s.chunks, c.chunk) << c.says;
    EXPECT_NE(e.message.find(c.says), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("chunk " + std::to_string(c.chunk) + " at byte "), std::string::npos)
        << e.message;
  }
}

TEST_F(FormatReaderTest, UnknownFieldsOfANewerMinorWriterAreIgnored) {
  // Evolution rule: new fields may be added; readers skip what they do not
  // know. Field 100 of the header, as a newer writer might add.
  const std::string path = Path("unknown.ptape");
  v1::Chunk c;
  c.mutable_header()->set_format_version(kFormatVersion);
  std::string content = c.SerializeAsString();
  std::string header_body =
      c.header().SerializeAsString() + "\xa2\x06\x03xyz"s;  // field 100, bytes
  content = "\x0a"s + static_cast<char>(header_body.size()) + header_body;
  Spit(path, Preamble() + Chunk(ZstdFrame(content)) + FooterChunk(1));
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << e.message;
  EXPECT_EQ(s.header.format_version(), kFormatVersion);
}

}  // namespace
}  // namespace proctape
