// SPDX-License-Identifier: Apache-2.0
// The generator's own test (tests/hostile/README.md): each shape, at the size
// the harness uses, is under 1 MiB and framed whole (docs/format.md section
// 1: every chunk a checked zstd frame, the footer last); at its small size,
// `proctape verify` says what the shape means (intact, or its refusal).
// Whether the readers stay within bounds on the full sizes is the harness's
// measure (run_all.sh), not asserted here: it does not hold yet.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "format/chunk_reader.h"
#include "format/format_error.h"
#include "tests/hostile/file_builder.h"
#include "tests/hostile/shapes.h"
#include "tests/hostile/token_search.h"

namespace proctape::hostile {
namespace {

// A fresh directory, removed with what it holds.
class ScratchDir {
 public:
  ScratchDir() {
    std::string t = (std::filesystem::temp_directory_path() / "proctape-hostile-XXXXXX").string();
    path_ = ::mkdtemp(t.data()) == nullptr ? "" : t;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string Written(const Shape& shape, const std::string& params, const ScratchDir& dir) {
  Params p;
  std::string error;
  EXPECT_TRUE(p.Parse(shape.defaults, params, &error)) << error;
  Built built;
  shape.build(p, &built);
  const std::string path = dir.File(shape.name + ".ptape");
  EXPECT_TRUE(built.file.WriteTo(path, &error)) << error;
  return path;
}

class EveryShape : public ::testing::TestWithParam<Shape> {};

}  // namespace

// A shape as gtest names its parameter (ctest -N): its name.
void PrintTo(const Shape& shape, std::ostream* os) { *os << shape.name; }

namespace {

TEST_P(EveryShape, IsUnderOneMebibyteEveryChunkFramedAndTheFooterLast) {
  const Shape& shape = GetParam();
  ScratchDir dir;
  const std::string path = Written(shape, "", dir);
  EXPECT_LT(std::filesystem::file_size(path), 1u << 20) << shape.name;
  FormatError error;
  std::unique_ptr<ChunkReader> reader = ChunkReader::Open(path, &error);
  ASSERT_NE(reader, nullptr) << error.message;
  // The framing alone: a shape the reader's budget refuses (docs/format.md
  // section 7, "The reader's budget") is still a whole file of framed chunks.
  reader->budget() = ReadBudget(UINT64_MAX, 0, UINT64_MAX);
  v1::Chunk chunk;
  ChunkReader::Result r;
  while ((r = reader->Next(&chunk)) == ChunkReader::Result::kChunk) {
  }
  if (shape.verify_status == 0) {
    EXPECT_EQ(r, ChunkReader::Result::kEnd) << shape.name << ": " << reader->error().message;
  } else {  // a refusal of the content (15 corrupt): the framing held up to it
    EXPECT_EQ(r, ChunkReader::Result::kError) << shape.name;
    EXPECT_EQ(reader->error().kind, FormatErrorKind::kCorrupt) << reader->error().message;
  }
}

TEST_P(EveryShape, AtItsSmallSizeVerifySaysWhatTheShapeMeans) {
  const Shape& shape = GetParam();
  ScratchDir dir;
  const std::string path = Written(shape, shape.small, dir);
  const std::string command =
      std::string(PROCTAPE_BINARY) + " verify '" + path + "' >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  EXPECT_EQ(WEXITSTATUS(status), shape.verify_status) << command;
}

INSTANTIATE_TEST_SUITE_P(Hostile, EveryShape, ::testing::ValuesIn(AllShapes()),
                         [](const ::testing::TestParamInfo<Shape>& p) {
                           std::string n = p.param.name;
                           for (char& c : n) c = c == '-' ? '_' : c;
                           return n;
                         });

// The output of `command` (standard output and error) and its exit status.
std::pair<int, std::string> RunShell(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, ""};
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// What a command that holds every frame may hold (docs/format.md section 7,
// "What a command holds"): prev-frame-chain's frames each refer to the
// previous frame's 16 MB record, padded to 1 MB so that the reader's budget
// lets every frame be read. sql and export csv, which copy every frame,
// refuse it (too-large, exit 16: sql never loads it in part); replay --model
// frames holds the record once and replays (MISSING_ROOT: the chain has no
// pid 2); explore, refused the file whole, says it is no recording.
TEST(HostileHeld, TheCommandsThatCopyEveryFrameRefuseAChainThatReplayHoldsOnce) {
  ScratchDir dir;
  FileBuilder::SetHeaderPad(1'000'000);
  const std::string path = Written(*FindShape("prev-frame-chain"), "", dir);
  FileBuilder::SetHeaderPad(0);
  const std::string bin = std::string(PROCTAPE_BINARY) + " ";
  for (const std::string& command :
       {bin + "sql '" + path + "' -c 'SELECT count(*) FROM processes'",
        bin + "export '" + path + "' --format csv -o '" + dir.File("csv") + "'"}) {
    const auto [status, out] = RunShell(command);
    EXPECT_EQ(status, 16) << command << "\n" << out;
    EXPECT_NE(out.find("what this command holds of the file"), std::string::npos) << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
  }
  const auto [status, out] = RunShell(bin + "replay '" + path +
                                      "' --model frames --root 2 --token abcdefghijkl "
                                      "--exe-identity 1:1");
  EXPECT_EQ(status, 5) << out;
  EXPECT_NE(out.find("MISSING_ROOT"), std::string::npos) << out;
  const auto [e_status, e_out] = RunShell(bin + "explore '" + path + "'");
  EXPECT_EQ(e_status, 2) << e_out;
  EXPECT_NE(e_out.find("holds no recorded resolution"), std::string::npos) << e_out;
}

// One run answers at most kMaxRunCalls (docs/explore.md, "Bounds of a whole
// run"): an hour of retries on a star of 1,200 asks some 10^8 calls, which
// once held gigabytes in explore and made minimize write a recording past
// the file's observation limit. The baseline is cut, said, and no verdict;
// minimize keeps nothing.
TEST(HostileExplore, ARunPastTheCallsOneRunAnswersIsCutAndSaid) {
  ScratchDir dir;
  const std::string path = Written(*FindShape("frames-deadline"), "", dir);
  const auto [status, out] =
      RunShell(std::string(PROCTAPE_BINARY) + " explore '" + path + "' --json");
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("\"baseline\":\"no verdict: its run was cut at 1000000 calls\""),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("\"stopped_by\":\"run calls\""), std::string::npos) << out;
  const auto [m_status, m_out] = RunShell(std::string(PROCTAPE_BINARY) + " minimize '" + path +
                                          "' -o '" + dir.File("m.ptape") + "'");
  EXPECT_EQ(m_status, 20) << m_out;
  EXPECT_NE(m_out.find("answers more than 1000000 calls"), std::string::npos) << m_out;
  EXPECT_FALSE(std::filesystem::exists(dir.File("m.ptape")));
}

TEST(HostileParams, AKeyTheShapeDoesNotTakeIsRefused) {
  Params p;
  std::string error;
  EXPECT_FALSE(p.Parse("n=3", "depth=4", &error));
  EXPECT_NE(error.find("'depth'"), std::string::npos) << error;
  EXPECT_FALSE(p.Parse("n=3", "n", &error));
  ASSERT_TRUE(p.Parse("n=3 kind=a", "n=7", &error)) << error;
  EXPECT_EQ(p.Num("n"), 7u);
  EXPECT_EQ(p.Text("kind"), "a");
}

TEST(HostileTokenSearch, FindsTwelveCharactersAsTextHexOrBase64AndNotEleven) {
  const std::string token = "7c1f0e9a4b3d2c58e6a1f0b9d8c7e6a5";
  EXPECT_EQ(FindTokenPiece("argv=\"x" + token.substr(9, 12) + "y\"", token), "text b3d2c58e6a1f");
  // token.substr(3, 12), "f0e9a4b3d2c5", in hex after an odd digit.
  EXPECT_EQ(FindTokenPiece("x7663065396134623364326335", token), "hex of f0e9a4b3d2c5");
  // "xx" + token.substr(9, 12) and "x" + it + "yz" in base64, within a
  // longer run: the piece begins at a group's third byte, then its second.
  EXPECT_EQ(FindTokenPiece("QUFBeHhiM2QyYzU4ZTZhMWY=", token), "base64 of b3d2c58e6a1f");
  EXPECT_EQ(FindTokenPiece("eGIzZDJjNThlNmExZnl6", token), "base64 of b3d2c58e6a1f");
  // 11 characters are no piece: "xx" + token.substr(9, 11) in base64, and
  // the token with its twelfth character masked.
  EXPECT_EQ(FindTokenPiece("eHhiM2QyYzU4ZTZhMQ==", token), "");
  EXPECT_EQ(FindTokenPiece("argv=" + token.substr(0, 11) + "*" + token.substr(12, 11) + "*", token),
            "");
  EXPECT_EQ(FindTokenPiece("ttt", "t"), "");
}

}  // namespace
}  // namespace proctape::hostile
