// SPDX-License-Identifier: Apache-2.0
// `proctape verify FILE [--json]` with the built binary (`docs/format.md`
// section 8): a fresh recording is intact (exit 0); damaged copies of it give
// one line on standard error naming the chunk and byte offset, and the distinct
// exit status of their kind (cli/exit_codes.h): 10 cannot open, 11 wrong magic,
// 12 newer version, 13 truncated, 14 checksum, 15 corrupt, 16 over a limit.
// Every process a test starts is ended by its pid (sandbox.h).
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "proctape.pb.h"
#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::DecompressedChunks;
using live::Describe;
using live::FileBytes;
using live::FindRecord;
using live::OneLine;
using live::StartsWith;
using live::TempDir;
using live::WriteFile;

using live::Proctape;

std::uint32_t GetLe32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<std::size_t>(i)]);
  return v;
}

void PutLe32(std::string* s, std::size_t at, std::uint32_t v) {
  for (std::size_t i = 0; i < 4; ++i) (*s)[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// Where each chunk lies: its length prefix at `start`, its zstd frame of
// `length` bytes right after.
struct ChunkSpan {
  std::size_t start = 0;
  std::size_t length = 0;
  std::size_t frame() const { return start + kLengthBytes; }
  std::size_t end() const { return frame() + length; }
};

// Walks the length prefixes of a whole file (docs/format.md), independently
// of the reader.
std::vector<ChunkSpan> Chunks(const std::string& bytes) {
  std::vector<ChunkSpan> out;
  std::size_t at = kPreambleBytes;
  while (at + kLengthBytes <= bytes.size()) {
    ChunkSpan c{at, GetLe32(bytes, at)};
    if (c.end() > bytes.size()) break;
    out.push_back(c);
    at = c.end();
  }
  EXPECT_EQ(at, bytes.size()) << "the file does not end at a chunk boundary";
  return out;
}

// One fresh recording per test: `proctape resolve --record` of a sleep that
// is our own child (root = this test process), so the file has every kind of
// chunk: header, frame, observations, frame, resolution, footer.
class VerifyCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    const std::string token = live::RandomHex(16);
    std::string error;
    sleep_ = live::Child::Start({"/usr/bin/env", "PROCTAPE_TOKEN=" + token, "/bin/sleep", "120"},
                                &error);
    ASSERT_NE(sleep_, nullptr) << error;
    ASSERT_TRUE(sleep_->WaitForCmdline(std::string("/bin/sleep\0"
                                                   "120\0",
                                                   15),
                                       5000))
        << "the sleep did not exec within 5 s";
    file_ = dir_.File("fresh.ptape");
    CommandResult r = Proctape(
        {"resolve", "--root", std::to_string(::getpid()), "--token", token, "--record", file_});
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
    bytes_ = FileBytes(file_);
    ASSERT_GT(bytes_.size(), kPreambleBytes);
    chunks_ = Chunks(bytes_);
    ASSERT_GE(chunks_.size(), 6u);
  }

  // A damaged copy of the fresh file.
  std::string Damaged(const std::string& name, const std::string& bytes) {
    std::string path = dir_.File(name);
    WriteFile(path, bytes);
    return path;
  }

  // Runs verify on `path`, expects `status` and one line on standard error
  // beginning with "proctape: PATH: " + `message`, and nothing on standard
  // output. Returns the line.
  std::string ExpectDamage(const std::string& path, int status, const std::string& message) {
    CommandResult r = Proctape({"verify", path});
    EXPECT_TRUE(r.started) << r.error;
    EXPECT_EQ(r.exit_code, status) << message << "\n" << Describe(r);
    EXPECT_TRUE(r.out.empty()) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << "not one line: " << r.err;
    EXPECT_TRUE(StartsWith(r.err, "proctape: " + path + ": " + message))
        << "expected: " << message << "\n"
        << Describe(r);
    return r.err;
  }

  TempDir dir_;
  std::unique_ptr<live::Child> sleep_;
  std::string file_;
  std::string bytes_;
  std::vector<ChunkSpan> chunks_;
};

std::string At(std::size_t k, const ChunkSpan& c) {
  return "chunk " + std::to_string(k) + " at byte " + std::to_string(c.start);
}

TEST_F(VerifyCliTest, FreshRecordingIsIntact) {
  CommandResult r = Proctape({"verify", file_});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(
      StartsWith(r.out, file_ + ": intact: " + std::to_string(chunks_.size()) + " chunks, "))
      << Describe(r);
  EXPECT_TRUE(OneLine(r.out)) << r.out;
  EXPECT_NE(r.out.find(", 1 resolution, environ redacted"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << Describe(r);

  CommandResult json = Proctape({"verify", "--json", file_});
  EXPECT_EQ(json.exit_code, 0) << Describe(json);
  v1::VerifyReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.out, &report).ok()) << json.out;
  EXPECT_TRUE(report.intact());
  EXPECT_EQ(report.error_kind(), "ok");
  EXPECT_EQ(report.file(), file_);
  EXPECT_EQ(report.chunks(), chunks_.size());
  EXPECT_EQ(report.frames(), 2u);
  EXPECT_EQ(report.resolutions(), 1u);
  EXPECT_GT(report.observations(), 0u);
  EXPECT_GT(report.processes(), 0u);
  EXPECT_FALSE(report.environ_kept());
}

TEST_F(VerifyCliTest, TruncatedCopiesExit13NamingTheLastWholeChunkAndTheByte) {
  for (std::size_t k = 1; k < chunks_.size(); ++k) {
    const ChunkSpan& c = chunks_[k];
    const std::string where =
        "truncated after chunk " + std::to_string(k - 1) + " at byte " + std::to_string(c.start);
    // Cut in the middle of chunk k's frame, and inside its length prefix.
    for (std::size_t cut : {c.frame() + c.length / 2, c.start + 2}) {
      SCOPED_TRACE("chunk " + std::to_string(k) + " cut at byte " + std::to_string(cut));
      ExpectDamage(Damaged("cut.ptape", bytes_.substr(0, cut)), 13, where);
    }
    // Cut at the boundary: every chunk before it is whole, but no footer.
    SCOPED_TRACE("chunk " + std::to_string(k) + " cut at its start");
    std::string line = ExpectDamage(Damaged("cut.ptape", bytes_.substr(0, c.start)), 13, where);
    EXPECT_NE(line.find("no footer"), std::string::npos) << line;
  }
  // Inside the first chunk: nothing came before it.
  ExpectDamage(Damaged("cut.ptape", bytes_.substr(0, chunks_[0].frame() + 3)), 13,
               "truncated before the first chunk at byte " + std::to_string(kPreambleBytes));
  // Inside the preamble.
  ExpectDamage(Damaged("cut.ptape", bytes_.substr(0, 10)), 13, "truncated at byte 10");
}

TEST_F(VerifyCliTest, FlippedChecksumByteExits14AndAFlipInThePayload14Or15) {
  for (std::size_t k = 0; k < chunks_.size(); ++k) {
    const ChunkSpan& c = chunks_[k];
    SCOPED_TRACE("chunk " + std::to_string(k));
    // The last 4 bytes of a zstd frame with a content checksum are the
    // checksum (RFC 8878, 3.1.1): the frame still decodes, the check fails.
    std::string flipped = bytes_;
    flipped[c.end() - 1] = static_cast<char>(flipped[c.end() - 1] ^ 0x01);
    ExpectDamage(Damaged("flip.ptape", flipped), 14, At(k, c) + ": checksum mismatch");

    // A bit in the middle of the compressed payload: a checksum mismatch, or
    // a frame that no longer decodes, depending on what the bit was; or, in
    // the few bits zstd's decoder does not interpret (docs/format.md section
    // 8), nothing: then the content reads back the same. (The file is a live
    // host's recording, so which bit sits there differs from run to run.)
    std::string payload = bytes_;
    std::size_t at = c.frame() + c.length / 2;
    payload[at] = static_cast<char>(payload[at] ^ 0x10);
    const std::string damaged = Damaged("payload.ptape", payload);
    CommandResult r = Proctape({"verify", damaged});
    if (r.exit_code == 0) {
      CommandResult b = Proctape({"export", damaged, "--format", "json"});
      EXPECT_EQ(b.exit_code, 0) << Describe(b);
      Damaged("payload.ptape", bytes_);  // the same name, the original bytes
      CommandResult a = Proctape({"export", damaged, "--format", "json"});
      ASSERT_EQ(a.exit_code, 0) << Describe(a);
      EXPECT_EQ(a.out, b.out) << "a flip verify calls harmless changed the content";
      continue;
    }
    EXPECT_TRUE(r.exit_code == 14 || r.exit_code == 15) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << r.err;
    EXPECT_NE(r.err.find(At(k, c) + ": "), std::string::npos) << Describe(r);
  }
}

TEST_F(VerifyCliTest, WrongMagicExits11) {
  std::string bad = bytes_;
  bad[1] = 'Q';  // "\x89QTAPE\r\n"
  ExpectDamage(Damaged("magic.ptape", bad), 11, "byte 0: not a proctape snapshot");
  ExpectDamage(Damaged("text.ptape", "hello, this is not a capture\n"), 11,
               "byte 0: not a proctape snapshot");
}

TEST_F(VerifyCliTest, NewerVersionExits12) {
  std::string newer = bytes_;
  PutLe32(&newer, sizeof kMagic, kFormatVersion + 1);
  ExpectDamage(Damaged("newer.ptape", newer), 12,
               "byte 8: format version " + std::to_string(kFormatVersion + 1) + " is newer");
}

TEST_F(VerifyCliTest, LengthPrefixOverTheLimitExits16) {
  for (std::size_t k = 0; k < chunks_.size(); ++k) {
    const ChunkSpan& c = chunks_[k];
    SCOPED_TRACE("chunk " + std::to_string(k));
    std::string huge = bytes_;
    PutLe32(&huge, c.start, 0xFFFFFFFFu);
    ExpectDamage(Damaged("huge.ptape", huge), 16,
                 At(k, c) + ": length 4294967295 is over the limit");
  }
}

// `cat a.ptape a.ptape`: the second preamble is data after the footer, not a
// length of over 1 GB (docs/format.md section 8, step 1).
TEST_F(VerifyCliTest, TwoCopiesCatenatedExit15NamingTheBytesAfterTheFooter) {
  const std::string n = std::to_string(bytes_.size());
  ExpectDamage(Damaged("twice.ptape", bytes_ + bytes_), 15,
               "chunk " + std::to_string(chunks_.size()) + " at byte " + n + ": " + n +
                   " bytes after the footer");
}

TEST_F(VerifyCliTest, NonexistentFileExits10) {
  const std::string missing = dir_.File("no-such.ptape");
  ExpectDamage(missing, 10, "cannot open: ");
}

TEST_F(VerifyCliTest, JsonReportsTheKindChunkAndOffsetOfTheDamage) {
  const std::size_t k = chunks_.size() / 2;
  const ChunkSpan& c = chunks_[k];
  const std::string cut = Damaged("cut.ptape", bytes_.substr(0, c.frame() + c.length / 2));
  CommandResult r = Proctape({"verify", "--json", cut});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  ASSERT_TRUE(OneLine(r.out)) << Describe(r);
  EXPECT_NE(r.out.find("\"intact\":false"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"error_kind\":\"truncated\""), std::string::npos) << r.out;
  v1::VerifyReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << r.out;
  EXPECT_FALSE(report.intact());
  EXPECT_EQ(report.error_kind(), "truncated");
  EXPECT_EQ(report.error_offset(), c.start);
  EXPECT_EQ(report.chunks(), k);
  EXPECT_NE(report.error().find("truncated after chunk " + std::to_string(k - 1) + " at byte " +
                                std::to_string(c.start)),
            std::string::npos)
      << report.error();

  // Each kind by its name.
  std::string flipped = bytes_;
  flipped[c.end() - 1] = static_cast<char>(flipped[c.end() - 1] ^ 0x01);
  std::string huge = bytes_;
  PutLe32(&huge, c.start, 0xFFFFFFFFu);
  std::string newer = bytes_;
  PutLe32(&newer, sizeof kMagic, kFormatVersion + 1);
  struct Case {
    std::string path;
    int status;
    const char* kind;
  };
  for (const Case& t : {Case{Damaged("flip.ptape", flipped), 14, "checksum"},
                        Case{Damaged("huge.ptape", huge), 16, "too-large"},
                        Case{Damaged("newer.ptape", newer), 12, "newer-version"},
                        Case{Damaged("magic.ptape", "not a capture"), 11, "bad-magic"},
                        Case{dir_.File("no-such.ptape"), 10, "io"}}) {
    CommandResult j = Proctape({"verify", "--json", t.path});
    EXPECT_EQ(j.exit_code, t.status) << t.kind << ": " << Describe(j);
    v1::VerifyReport rep;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(j.out, &rep).ok()) << j.out;
    EXPECT_FALSE(rep.intact()) << t.kind;
    EXPECT_EQ(rep.error_kind(), t.kind);
    EXPECT_FALSE(rep.error().empty()) << t.kind;
    EXPECT_EQ(rep.error().find('\n'), std::string::npos) << t.kind;
  }
}

}  // namespace
}  // namespace proctape
