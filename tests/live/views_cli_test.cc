// SPDX-License-Identifier: Apache-2.0
// `proctape show`, `tree` and `diff` with the built binary (`docs/views.md`):
// on every corpus recording and on damaged copies. Hand-made hostile
// files and the errors are in views_hostile_cli_test.cc, fresh captures of
// this host in views_live_cli_test.cc; the golden files are described in
// views_cli_fixture.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/live/files.h"
#include "tests/live/views_cli_fixture.h"
#include "views.pb.h"

namespace proctape::live::views {
namespace {

// ---- The corpus: every recording ------------------------------------------

TEST(ViewsCorpusTest, ShowEveryRecording) {
  std::vector<Entry> entries = CorpusEntries();
  ASSERT_FALSE(entries.empty());
  for (const Entry& e : entries) {
    CommandResult r = Proctape({"show", e.file});
    EXPECT_EQ(r.exit_code, 0) << e.name << "\n" << Describe(r);
    ExpectPlainAscii(r.out);
    ExpectGolden("show/" + e.name + ".txt", r);
  }
}

TEST(ViewsCorpusTest, TreeOfTheFirstFrameOfEveryRecording) {
  for (const Entry& e : CorpusEntries()) {
    CommandResult r = Proctape({"tree", e.file});
    EXPECT_EQ(r.exit_code, 0) << e.name << "\n" << Describe(r);
    ExpectPlainAscii(r.out);
    ExpectGolden("tree/" + e.name + ".txt", r);
  }
}

TEST(ViewsCorpusTest, DiffFirstAndLastFrameOfEveryRecording) {
  for (const Entry& e : CorpusEntries()) {
    CommandResult r = Proctape({"diff", e.file});
    EXPECT_EQ(r.exit_code, 0) << e.name << "\n" << Describe(r);
    ExpectPlainAscii(r.out);
    ExpectGolden("diff/" + e.name + ".txt", r);
  }
}

TEST(ViewsCorpusTest, HostileCommTreeMarksTheResolvedSleepOnOneLine) {
  CommandResult r = Proctape({"tree", CorpusFile("hostile-comm-bwrap")});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  // The sleep exec'd through a link named "x) Z 1 1 1\nx": one line, escaped, resolved.
  EXPECT_NE(r.out.find("283 \"x) Z 1 1 1\\x0ax\" S ppid=282 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("<= resolved by resolution 0"), std::string::npos) << r.out;
  r = Proctape({"tree", CorpusFile("hostile-comm-bwrap"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("tree/hostile-comm-bwrap.json", r);
  auto report = ParseJson<v1::TreeReport>(r.out);
  bool found = false;
  for (const auto& node : report.nodes()) {
    if (node.process().comm() == "x) Z 1 1 1\\x0ax") {
      found = true;
      EXPECT_EQ(node.process().state(), "S");
      EXPECT_EQ(node.process().ppid(), 282);
    }
  }
  EXPECT_TRUE(found) << r.out;
}

TEST(ViewsCorpusTest, TreeOptions) {
  const std::string reuse = CorpusFile("pid-reuse-unshare");
  ExpectGolden("tree/pid-reuse-unshare-frame2.txt", Proctape({"tree", reuse, "--frame", "2"}));
  ExpectGolden("tree/plain-bwrap-root-marker.txt",
               Proctape({"tree", CorpusFile("plain-bwrap"), "--root", "16", "--marker", "1"}));
}

TEST(ViewsCorpusTest, PidReuseShowsInTheDiffOfFramesZeroAndOne) {
  const std::string reuse = CorpusFile("pid-reuse-unshare");
  CommandResult r = Proctape({"diff", reuse, "--frames", "0", "1"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("\nreused       215: 215@1310656 ended, 215@1310660 took its pid\n"),
            std::string::npos)
      << r.out;
  ExpectGolden("diff/pid-reuse-unshare-0-1.txt", r);
  ExpectGolden("diff/pid-reuse-unshare-1-2.txt", Proctape({"diff", reuse, "--frames", "1", "2"}));
  r = Proctape({"diff", reuse, "--frames", "0", "1", "--json"});
  ExpectGolden("diff/pid-reuse-unshare-0-1.json", r);
  auto report = ParseJson<v1::DiffReport>(r.out);
  EXPECT_EQ(report.reused(), 1u);
  ASSERT_GT(report.changes_size(), 0);
  EXPECT_EQ(report.changes(0).kind(), v1::DiffReport::Change::REUSED);
}

// diff says what changed from A to B: when A's frame was captured after
// B's, one line on standard error says the order looks reversed; the output
// is the diff as asked. Two frames of one file, and two files (one of the
// two orders is reversed).
TEST(ViewsCorpusTest, DiffWarnsWhenTheOrderLooksReversed) {
  const std::string reuse = CorpusFile("pid-reuse-unshare");
  CommandResult forward = Proctape({"diff", reuse, "--frames", "0", "1"});
  EXPECT_EQ(forward.err, "") << Describe(forward);
  CommandResult backward = Proctape({"diff", reuse, "--frames", "1", "0"});
  EXPECT_EQ(backward.exit_code, 0) << Describe(backward);
  EXPECT_TRUE(OneLine(backward.err)) << Describe(backward);
  EXPECT_TRUE(StartsWith(backward.err, "proctape: warning: the order looks reversed: " + reuse +
                                           " frame 1 was captured "))
      << Describe(backward);
  EXPECT_NE(backward.out.find("reused"), std::string::npos) << Describe(backward);
  const std::string x = CorpusFile("plain-unshare"), y = CorpusFile("plain-bwrap");
  int reversed = 0;
  for (const auto& [a, b] : {std::pair{x, y}, std::pair{y, x}}) {
    CommandResult r = Proctape({"diff", a, b, "--force"});
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    reversed += r.err.find("the order looks reversed: " + a) != std::string::npos;
  }
  EXPECT_EQ(reversed, 1);
}

TEST(ViewsCorpusTest, DiffOfTwoFiles) {
  ExpectGolden("diff/plain-unshare-vs-plain-bwrap.txt",
               Proctape({"diff", CorpusFile("plain-unshare"), CorpusFile("plain-bwrap")}));
}

TEST(ViewsCorpusTest, ShowJsonParsesAsAShowReport) {
  CommandResult r = Proctape({"show", CorpusFile("pid-reuse-unshare"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ASSERT_TRUE(OneLine(r.out)) << r.out;
  ExpectGolden("show/pid-reuse-unshare.json", r);
  auto report = ParseJson<v1::ShowReport>(r.out);
  EXPECT_TRUE(report.intact());
  EXPECT_EQ(report.frames_size(), 3);
  ASSERT_EQ(report.resolutions_size(), 2);
  EXPECT_EQ(report.resolutions(0).verdict().pid(), 215);
  EXPECT_EQ(report.resolutions(1).liveness_verdict().reason(), v1::Verdict::PID_REUSED);
  // The token is the kept entry: its value is not shown.
  EXPECT_EQ(r.out.find("128515759c1987ff604c2ff47ac5d0d8"), std::string::npos);
}

// ---- Damaged files ---------------------------------------------------------

TEST(ViewsDamageTest, ATruncatedFileIsShownUpToTheDamage) {
  TempDir dir("views");
  const std::string bytes = FileBytes(kSource + "/" + CorpusFile("pid-reuse-unshare"));
  ASSERT_GT(bytes.size(), 4144u);
  WriteFile(dir.File("cut.ptape"), bytes.substr(0, 4144));  // inside chunk 3 (the third frame)
  CommandResult r = ProctapeIn(dir.path(), {"show", "cut.ptape"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  ExpectGolden("show/truncated.txt", r);
  r = ProctapeIn(dir.path(), {"tree", "cut.ptape", "--frame", "1"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  ExpectGolden("tree/truncated-frame1.txt", r);
  r = ProctapeIn(dir.path(), {"tree", "cut.ptape", "--frame", "2"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  EXPECT_EQ(r.out, "");
  r = ProctapeIn(dir.path(), {"diff", "cut.ptape"});
  EXPECT_EQ(r.exit_code, 13) << Describe(r);
  ExpectGolden("diff/truncated.txt", r);
}

// A frame past those before the damage is one line, the damage's, naming
// both the damage and the frame asked for, with the damage's status: as text
// and under --json (one object), for tree and diff alike.
TEST(ViewsDamageTest, AFramePastTheDamageIsOneLineWithTheDamagesStatus) {
  TempDir dir("views");
  const std::string bytes = FileBytes(kSource + "/" + CorpusFile("pid-reuse-unshare"));
  ASSERT_GT(bytes.size(), 4144u);
  WriteFile(dir.File("cut.ptape"), bytes.substr(0, 4144));  // inside chunk 3 (the third frame)
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"tree", "cut.ptape", "--frame", "2"},
           {"diff", "cut.ptape", "--frames", "0", "2"},
           {"tree", "cut.ptape", "--frame", "2", "--json"},
           {"diff", "cut.ptape", "--frames", "0", "2", "--json"}}) {
    CommandResult r = ProctapeIn(dir.path(), args);
    EXPECT_EQ(r.exit_code, 13) << Describe(r);
    EXPECT_EQ(r.out, "") << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find("cut.ptape: truncated"), std::string::npos) << Describe(r);
    EXPECT_NE(r.err.find(" 2: cut.ptape has 2 frames (0..1)"), std::string::npos) << Describe(r);
  }
}

TEST(ViewsDamageTest, AFlippedBitIsShownUpToTheDamagedChunk) {
  TempDir dir("views");
  std::string bytes = FileBytes(kSource + "/" + CorpusFile("pid-reuse-unshare"));
  ASSERT_GT(bytes.size(), 6000u);
  bytes[6000] = static_cast<char>(bytes[6000] ^ 0x10);  // inside chunk 4 (observations)
  WriteFile(dir.File("flipped.ptape"), bytes);
  CommandResult r = ProctapeIn(dir.path(), {"show", "flipped.ptape"});
  EXPECT_GE(r.exit_code, 13) << Describe(r);
  EXPECT_LE(r.exit_code, 16) << Describe(r);
  ExpectGolden("show/flipped.txt", r);
}

}  // namespace
}  // namespace proctape::live::views
