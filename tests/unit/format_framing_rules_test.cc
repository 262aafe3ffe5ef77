// SPDX-License-Identifier: Apache-2.0
// docs/format.md, the framing (sections 1 and 8), one test per rule, each
// both ways: a file obeying the rule reads, a file breaking it is refused
// with the documented kind, chunk and byte offset, and returns every chunk
// before the damage and nothing of it. Files are built chunk by chunk here
// (tests/unit/format_bytes.h), so that one rule at a time can be broken.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "core/proc_parse.h"
#include "format/file_format.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"

namespace proctape {
namespace {

using namespace std::string_literals;
using namespace proctape::test;

class FormatFramingRulesTest : public TempDirTest {
 protected:
  FormatError Read(const std::string& bytes, Snapshot* s) {
    Spit(Path("f.ptape"), bytes);
    return ReadSnapshot(Path("f.ptape"), s);
  }
};

// The error is the documented one: kind, chunk, offset, one line that starts
// with "chunk K at byte B" and says what broke.
::testing::AssertionResult Refused(const FormatError& e, FormatErrorKind kind, std::uint64_t chunk,
                                   std::uint64_t offset, const std::string& says) {
  const std::string at =
      "chunk " + std::to_string(chunk) + " at byte " + std::to_string(offset) + ": ";
  if (e.kind != kind || e.chunk != chunk || e.offset != offset || e.message.rfind(at, 0) != 0 ||
      e.message.find(says) == std::string::npos || e.message.find('\n') != std::string::npos) {
    return ::testing::AssertionFailure()
           << "got " << FormatErrorName(e.kind) << " chunk " << e.chunk << " offset " << e.offset
           << " \"" << e.message << "\"; want " << FormatErrorName(kind) << " \"" << at << "..."
           << says << "...\"";
  }
  return ::testing::AssertionSuccess();
}

const std::string kHeader = ChunkOf(HeaderBody());
const std::uint64_t kChunk1 = kPreambleBytes + kHeader.size();  // where chunk 1 starts

// A whole file: header, `chunk1` (a resolution), footer.
std::string WithChunk1(const std::string& chunk1) {
  v1::Chunk footer = FooterBody(2);
  footer.mutable_footer()->set_resolutions(1);
  return Preamble() + kHeader + chunk1 + ChunkOf(footer);
}

v1::Chunk ResolutionBody() {
  v1::Chunk c;
  c.mutable_resolution()->mutable_liveness()->set_pid(7);
  return c;
}

// ---------------------------------------------------------------------------
// The preamble

TEST_F(FormatFramingRulesTest, FileOf1To11BytesOfAPreambleIsTruncatedAtItsEnd) {
  const std::string whole = Preamble() + kHeader + ChunkOf(FooterBody(1));
  for (std::size_t n = 1; n < kPreambleBytes; ++n) {
    SCOPED_TRACE(n);
    Snapshot s;
    FormatError e = Read(whole.substr(0, n), &s);
    EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
    EXPECT_EQ(e.chunk, 0u);
    EXPECT_EQ(e.offset, n);
    EXPECT_EQ(e.message, "truncated at byte " + std::to_string(n) + ", inside the preamble");
    EXPECT_EQ(s.chunks, 0u);
  }
  // Whatever the version bytes present: an incomplete version is not judged.
  for (std::size_t n = 9; n < kPreambleBytes; ++n) {
    Snapshot s;
    FormatError e = Read(Preamble().substr(0, 8) + std::string(n - 8, '\xff'), &s);
    EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << n << ": " << e.message;
  }
  Snapshot s;
  EXPECT_TRUE(Read(whole, &s).ok());
}

TEST_F(FormatFramingRulesTest, FileOf1To11BytesLeavingTheMagicIsBadMagicAtByte0) {
  for (std::size_t n = 1; n < kPreambleBytes; ++n) {
    for (std::size_t wrong = 0; wrong < std::min(n, sizeof kMagic); ++wrong) {
      SCOPED_TRACE(std::to_string(n) + " bytes, byte " + std::to_string(wrong) + " wrong");
      std::string bytes = Preamble().substr(0, n);
      bytes[wrong] = static_cast<char>(bytes[wrong] ^ 0x20);
      Snapshot s;
      FormatError e = Read(bytes, &s);
      EXPECT_EQ(e.kind, FormatErrorKind::kBadMagic) << e.message;
      EXPECT_EQ(e.chunk, 0u);
      EXPECT_EQ(e.offset, 0u);
      EXPECT_EQ(e.message, "byte 0: not a proctape snapshot (wrong magic number)");
    }
  }
}

TEST_F(FormatFramingRulesTest, PreambleErrorsNameChunk0AndTheFieldsOffset) {
  const std::string rest = kHeader + ChunkOf(FooterBody(1));
  struct Case {
    std::string bytes;
    FormatErrorKind kind;
    std::uint64_t offset;
    std::string message;
  } cases[] = {
      {"", FormatErrorKind::kTruncated, 0, "truncated at byte 0: the file is empty"},
      {"\x89PTAPE\n\r"s + Le32(1) + rest, FormatErrorKind::kBadMagic, 0,
       "byte 0: not a proctape snapshot (wrong magic number)"},
      // The magic is checked before the version.
      {"\x89PTAPE\n\r"s + Le32(0), FormatErrorKind::kBadMagic, 0,
       "byte 0: not a proctape snapshot (wrong magic number)"},
      {Preamble(kFormatVersion + 1) + rest, FormatErrorKind::kNewerVersion, 8,
       "byte 8: format version " + std::to_string(kFormatVersion + 1) +
           " is newer than this proctape reads (" + std::to_string(kFormatVersion) + ")"},
      {Preamble(0) + rest, FormatErrorKind::kCorrupt, 8, "byte 8: format version 0"},
      {Preamble() + rest, FormatErrorKind::kNone, 0, ""},
  };
  for (const Case& c : cases) {
    Snapshot s;
    FormatError e = Read(c.bytes, &s);
    EXPECT_EQ(e.kind, c.kind) << e.message;
    EXPECT_EQ(e.chunk, 0u) << e.message;
    EXPECT_EQ(e.offset, c.offset) << e.message;
    EXPECT_EQ(e.message, c.message);
    EXPECT_EQ(s.chunks, c.kind == FormatErrorKind::kNone ? 2u : 0u);
  }
}

// ---------------------------------------------------------------------------
// The zstd frame of a chunk

TEST_F(FormatFramingRulesTest, LengthRunningPastTheEndIsTruncatedWhateverItsBytes) {
  Snapshot s;
  const std::string garbage(50, 'x');
  FormatError e = Read(Preamble() + kHeader + Le32(100) + garbage, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
  EXPECT_EQ(e.chunk, 1u);
  EXPECT_EQ(e.offset, kChunk1);
  EXPECT_EQ(e.message, "truncated after chunk 0 at byte " + std::to_string(kChunk1));
  EXPECT_EQ(s.chunks, 1u);
  // The same bytes, the length honest: corrupt, for they are no zstd frame.
  e = Read(Preamble() + kHeader + Le32(50) + garbage, &s);
  EXPECT_TRUE(Refused(e, FormatErrorKind::kCorrupt, 1, kChunk1, "not a zstd frame"));
}

TEST_F(FormatFramingRulesTest, NotAZstdFrameIsCorrupt) {
  const std::string frame = ZstdRawFrame(ResolutionBody().SerializeAsString());
  FrameSpec reserved;
  reserved.reserved_bit = true;
  const std::string cases[] = {
      "PK\x03\x04" + frame.substr(4),       // another magic number
      Le32(0x184D2A50) + Le32(4) + "abcd",  // a skippable frame
      Le32(0x184D2A5F) + Le32(0),           // the last skippable magic
      frame.substr(0, 3),                   // shorter than the magic
      frame.substr(0, 4),                   // the magic alone
      frame.substr(0, 12),                  // the header cut (8-byte content size)
      ZstdRawFrame(ResolutionBody().SerializeAsString(), reserved),  // reserved bit set
  };
  for (const std::string& bad : cases) {
    Snapshot s;
    FormatError e = Read(WithChunk1(ChunkOf(bad)), &s);
    EXPECT_TRUE(Refused(e, FormatErrorKind::kCorrupt, 1, kChunk1, "not a zstd frame"));
    EXPECT_EQ(s.chunks, 1u);
  }
  // The frame itself, and with the header's unused bit set (RFC 8878: a
  // decoder does not interpret it), reads.
  FrameSpec unused;
  unused.unused_bit = true;
  for (const std::string& good :
       {frame, ZstdRawFrame(ResolutionBody().SerializeAsString(), unused)}) {
    Snapshot s;
    FormatError e = Read(WithChunk1(ChunkOf(good)), &s);
    EXPECT_TRUE(e.ok()) << e.message;
    EXPECT_EQ(s.resolutions.size(), 1u);
  }
}

TEST_F(FormatFramingRulesTest, FrameNamingADictionaryIsCorrupt) {
  const std::string content = ResolutionBody().SerializeAsString();
  for (int bytes : {1, 2, 4}) {
    FrameSpec named;
    named.dictionary_bytes = bytes;
    named.dictionary_id = 7;
    Snapshot s;
    FormatError e = Read(WithChunk1(ChunkOf(ZstdRawFrame(content, named))), &s);
    EXPECT_TRUE(Refused(e, FormatErrorKind::kCorrupt, 1, kChunk1, "names dictionary 7"));
    // A Dictionary_ID field holding 0 names none (RFC 8878), and reads.
    named.dictionary_id = 0;
    e = Read(WithChunk1(ChunkOf(ZstdRawFrame(content, named))), &s);
    EXPECT_TRUE(e.ok()) << bytes << ": " << e.message;
  }
}

TEST_F(FormatFramingRulesTest, FrameWindowOverTheContentLimitIsTooLarge) {
  const std::string content = ResolutionBody().SerializeAsString();
  FrameSpec spec;
  spec.single_segment = false;
  // Window_Descriptor: exponent 14 = 2^24 bytes (16 MiB), the limit; then
  // mantissa 1 = 2^24 + 2^21, over it.
  spec.window_byte = 14 << 3;
  Snapshot s;
  FormatError e = Read(WithChunk1(ChunkOf(ZstdRawFrame(content, spec))), &s);
  EXPECT_TRUE(e.ok()) << e.message;
  spec.window_byte = (14 << 3) | 1;
  e = Read(WithChunk1(ChunkOf(ZstdRawFrame(content, spec))), &s);
  EXPECT_TRUE(Refused(e, FormatErrorKind::kTooLarge, 1, kChunk1,
                      "window of " + std::to_string((16u << 20) + (2u << 20)) +
                          " bytes is over the limit of " + std::to_string(kMaxChunkContent)));
  EXPECT_EQ(s.chunks, 1u);
  spec.window_byte = 31 << 3;  // 2 TiB
  e = Read(WithChunk1(ChunkOf(ZstdRawFrame(content, spec))), &s);
  EXPECT_TRUE(Refused(e, FormatErrorKind::kTooLarge, 1, kChunk1, "window"));
}

TEST_F(FormatFramingRulesTest, ChecksumIsTheLow32BitsOfXxh64WithSeed0) {
  const std::string content = ResolutionBody().SerializeAsString();
  Snapshot s;
  FormatError e = Read(WithChunk1(ChunkOf(ZstdRawFrame(content))), &s);
  EXPECT_TRUE(e.ok()) << e.message;
  FrameSpec seeded;
  seeded.checksum_seed = 1;
  e = Read(WithChunk1(ChunkOf(ZstdRawFrame(content, seeded))), &s);
  EXPECT_TRUE(Refused(e, FormatErrorKind::kChecksum, 1, kChunk1, "checksum mismatch"));
  EXPECT_EQ(s.chunks, 1u);
  // The high 32 bits are not the checksum.
  std::string high = ZstdRawFrame(content);
  high.replace(high.size() - 4, 4, Le32(Xxh64(content, 0) >> 32));
  e = Read(WithChunk1(ChunkOf(high)), &s);
  EXPECT_TRUE(Refused(e, FormatErrorKind::kChecksum, 1, kChunk1, "checksum mismatch"));
}

// docs/format.md section 8: the checks of a chunk, in order. Each case breaks
// two consecutive checks; the first of them is the one reported.
TEST_F(FormatFramingRulesTest, ChecksOfAChunkComeInTheDocumentedOrder) {
  const std::string content = ResolutionBody().SerializeAsString();
  auto frame = [&](auto edit) {
    FrameSpec spec;
    edit(spec);
    return ZstdRawFrame(content, spec);
  };
  const std::string no_size_no_sum = frame([](FrameSpec& f) {
    f.single_segment = false;
    f.window_byte = 0;
    f.content_size = false;
    f.checksum = false;
  });
  const std::string no_sum_dictionary = frame([](FrameSpec& f) {
    f.checksum = false;
    f.dictionary_bytes = 1;
    f.dictionary_id = 9;
  });
  const std::string dictionary_over = frame([](FrameSpec& f) {
    f.dictionary_bytes = 1;
    f.dictionary_id = 9;
    f.declared_size = kMaxChunkContent + 1;
  });
  const std::string over_window = frame([](FrameSpec& f) {
    f.single_segment = false;
    f.window_byte = 31 << 3;
    f.declared_size = kMaxChunkContent + 1;
  });
  const std::string window_long = frame([](FrameSpec& f) {
                                    f.single_segment = false;
                                    f.window_byte = 31 << 3;
                                  }) +
                                  "x";
  const std::string long_sum = frame([](FrameSpec& f) { f.checksum_seed = 1; }) + "x";
  const std::string garbage(40, '\x07');
  std::string sum_garbage = ZstdRawFrame(garbage);
  sum_garbage.replace(sum_garbage.size() - 4, 4, "\0\0\0\0"s);
  struct Case {
    const char* breaks;
    std::string bytes;  // after the header
    FormatErrorKind kind;
    std::string says;
  } cases[] = {
      {"length 0, then past the end", Le32(0) + "x", FormatErrorKind::kCorrupt, "length 0"},
      {"length over the limit, then past the end", Le32(MaxChunkFrame() + 1) + garbage,
       FormatErrorKind::kTooLarge, "is over the limit"},
      {"no content size, then no checksum", ChunkOf(no_size_no_sum), FormatErrorKind::kCorrupt,
       "declares no content size"},
      {"no checksum, then a dictionary", ChunkOf(no_sum_dictionary), FormatErrorKind::kCorrupt,
       "has no content checksum"},
      {"a dictionary, then a declared size over the limit", ChunkOf(dictionary_over),
       FormatErrorKind::kCorrupt, "names dictionary 9"},
      {"a declared size over the limit, then a window over it", ChunkOf(over_window),
       FormatErrorKind::kTooLarge, "declared size"},
      {"a window over the limit, then a byte after the frame", ChunkOf(window_long),
       FormatErrorKind::kTooLarge, "window"},
      {"a byte after the frame, then a wrong checksum", ChunkOf(long_sum),
       FormatErrorKind::kCorrupt, "does not match the zstd frame"},
      {"a wrong checksum, then content that is not a Chunk", ChunkOf(sum_garbage),
       FormatErrorKind::kChecksum, "checksum mismatch"},
      {"content that is not a Chunk", ChunkOf(ZstdRawFrame(garbage)), FormatErrorKind::kCorrupt,
       "content is not a Chunk message"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.breaks);
    Snapshot s;
    FormatError e = Read(Preamble() + kHeader + c.bytes + ChunkOf(FooterBody(2)), &s);
    EXPECT_TRUE(Refused(e, c.kind, 1, kChunk1, c.says));
    EXPECT_EQ(s.chunks, 1u);
  }
}

// ---------------------------------------------------------------------------
// After the footer

TEST_F(FormatFramingRulesTest, BytesAfterTheFooterAreCorruptWhereTheFooterEnds) {
  const std::string whole = WithChunk1(ChunkOf(ResolutionBody()));
  Snapshot s;
  ASSERT_TRUE(Read(whole, &s).ok());
  // `cat a.ptape a.ptape`: the second preamble is not read as a length.
  for (const std::string& tail :
       {whole, "\0"s, "\0\0\0\0"s, Le32(5) + "abcde", ChunkOf(ResolutionBody())}) {
    FormatError e = Read(whole + tail, &s);
    EXPECT_TRUE(Refused(e, FormatErrorKind::kCorrupt, 3, whole.size(),
                        Plural(tail.size(), "byte", "bytes") + " after the footer"));
    EXPECT_EQ(s.chunks, 3u);  // the whole file before them, footer included
    EXPECT_TRUE(s.footer);
    EXPECT_EQ(s.resolutions.size(), 1u);
  }
}

TEST_F(FormatFramingRulesTest, BytesAfterTheFooterOnAPipeAreCorruptWhereTheFooterEnds) {
  const std::string whole = WithChunk1(ChunkOf(ResolutionBody()));
  for (const std::string& tail : {""s, "\0"s, whole}) {
    int in[2];
    ASSERT_EQ(::pipe(in), 0);
    const std::string bytes = whole + tail;
    ASSERT_EQ(::write(in[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    ::close(in[1]);
    const int saved = ::dup(STDIN_FILENO);
    ASSERT_GE(saved, 0);
    ASSERT_EQ(::dup2(in[0], STDIN_FILENO), STDIN_FILENO);
    Snapshot s;
    FormatError e = ReadSnapshot("-", &s);
    ::dup2(saved, STDIN_FILENO);
    ::close(saved);
    ::close(in[0]);
    if (tail.empty()) {
      EXPECT_TRUE(e.ok()) << e.message;
    } else {
      EXPECT_TRUE(Refused(e, FormatErrorKind::kCorrupt, 3, whole.size(), "data after the footer"));
    }
    EXPECT_EQ(s.chunks, 3u);
  }
}

}  // namespace
}  // namespace proctape
