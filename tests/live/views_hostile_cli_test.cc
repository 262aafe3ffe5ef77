// SPDX-License-Identifier: Apache-2.0
// `proctape show`, `tree` and `diff` with the built binary (`docs/views.md`)
// on hand-made hostile files (every name escaped in every view, frames of
// different boots refused unless forced); their --help and their errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/writer.h"
#include "tests/live/files.h"
#include "tests/live/views_cli_fixture.h"
#include "tests/unit/views_fixture.h"
#include "views.pb.h"

namespace proctape::live::views {
namespace {

// ---- Hand-made hostile files -----------------------------------------------

// Writes `snapshot` with the real writer.
void WriteSnapshot(const std::string& path, const Snapshot& snapshot) {
  std::string error;
  ASSERT_TRUE(live::WriteSnapshotFile(path, snapshot, &error)) << error;
}

// A host whose names attack the display: a comm with a newline, a forged
// stat tail and a terminal escape; argv with quotes, backslashes, a newline
// that forges a tree line, OSC and CSI sequences; a kernel thread; a record
// whose stat does not parse.
Snapshot HostileHost() {
  using test::Proc;
  std::vector<Proc> before = {
      Proc(1).Comm("init").Ppid(0).Start(1).Argv({"/sbin/init"}).Uid(0),
      Proc(2)
          .Comm("kthreadd")
          .Ppid(0)
          .Start(1)
          .Argv({})
          .Uid(0)
          .ExeIno(0)
          .Flags(test::kKthreadFlags),
      Proc(3)
          .Comm("kworker/0:0")
          .Ppid(2)
          .Start(1)
          .Argv({})
          .Uid(0)
          .ExeIno(0)
          .Flags(test::kKthreadFlags),
      Proc(40).Comm("app-server").Start(400).Argv({"app-server"}),
      Proc(41)
          .Comm("x) Z 1 1 1\nx\x1b[2J\x1b]0;owned\x07")
          .Ppid(40)
          .Start(410)
          .Argv({"/bin/sleep\n`-1 \"init\" S", "a\"b\\c",
                 "\x9b"
                 "31m",
                 ""})
          .Nspid({41, 1}),
      Proc(42).Comm("(sd-pam)").Ppid(40).Start(420).Argv({"(sd-pam)"}),
  };
  std::vector<Proc> after = before;
  after[5].start = 425;  // pid 42 reused
  after[4].argv = {"/bin/sleep", "120"};
  Snapshot s = test::MakeSnapshot(
      {test::MakeFrame(0, before, 1'000'000'000), test::MakeFrame(1, after, 3'000'000'000)});
  s.frames[0].mutable_processes(3)->mutable_stat()->set_data("40 (app-server) S 1 40");
  s.header.mutable_host()->set_hostname("ci\n\x1b[31mhost");
  s.resolutions.push_back(test::Resolved(40, 400, 41, 410, 2'000'000'000));
  return s;
}

TEST(ViewsHostileTest, HostileNamesAreEscapedInEveryView) {
  TempDir dir("views");
  ASSERT_NO_FATAL_FAILURE(WriteSnapshot(dir.File("hostile.ptape"), HostileHost()));
  struct Run {
    std::string golden;
    std::vector<std::string> args;
  };
  for (const Run& run : std::vector<Run>{
           {"show/hostile.txt", {"show", "hostile.ptape"}},
           {"tree/hostile.txt", {"tree", "hostile.ptape", "--marker", "1"}},
           {"tree/hostile-frame1-kernel.txt",
            {"tree", "hostile.ptape", "--frame", "1", "--kernel"}},
           {"diff/hostile.txt", {"diff", "hostile.ptape"}},
       }) {
    CommandResult r = ProctapeIn(dir.path(), run.args);
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    ExpectPlainAscii(r.out);
    ExpectGolden(run.golden, r);
  }
  CommandResult r = ProctapeIn(dir.path(), {"tree", "hostile.ptape", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  ASSERT_TRUE(OneLine(r.out)) << r.out;
  ExpectPlainAscii(r.out);
}

TEST(ViewsHostileTest, FramesOfDifferentBootsAreRefusedUnlessForced) {
  TempDir dir("views");
  Snapshot a = HostileHost();
  Snapshot b = HostileHost();
  b.header.mutable_host()->set_boot_id("another-boot\n");
  ASSERT_NO_FATAL_FAILURE(WriteSnapshot(dir.File("a.ptape"), a));
  ASSERT_NO_FATAL_FAILURE(WriteSnapshot(dir.File("b.ptape"), b));
  CommandResult r = ProctapeIn(dir.path(), {"diff", "a.ptape", "b.ptape"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  ExpectGolden("diff/different-boots-refused.txt", r);
  r = ProctapeIn(dir.path(), {"diff", "a.ptape", "b.ptape", "--force"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  ExpectGolden("diff/different-boots-forced.txt", r);
  r = ProctapeIn(dir.path(), {"diff", "a.ptape", "b.ptape", "--force", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  auto report = ParseJson<v1::DiffReport>(r.out);
  EXPECT_TRUE(report.different_boots());
  EXPECT_EQ(report.warnings_size(), 1);
}

// ---- Errors and --help -----------------------------------------------------

TEST(ViewsCliTest, ErrorsAreOneLineWithTheirExitStatus) {
  TempDir dir("views");
  WriteFile(dir.File("text.ptape"), "not a snapshot\n");
  CommandResult r = ProctapeIn(dir.path(), {"show", "text.ptape"});
  EXPECT_EQ(r.exit_code, 11) << Describe(r);
  EXPECT_TRUE(OneLine(r.err) && StartsWith(r.err, "proctape: text.ptape: ")) << r.err;
  EXPECT_EQ(r.out, "");

  ASSERT_NO_FATAL_FAILURE(WriteSnapshot(
      dir.File("one.ptape"), test::MakeSnapshot({test::MakeFrame(0, {test::Proc(1).Ppid(0)})})));
  r = ProctapeIn(dir.path(), {"diff", "one.ptape"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(OneLine(r.err) && StartsWith(r.err,
                                           "proctape: diff: one.ptape holds one frame: give a "
                                           "second file to compare it with"))
      << r.err;

  const std::string plain = CorpusFile("plain-unshare");
  const std::string reuse = CorpusFile("pid-reuse-unshare");
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    std::string prefix;
  };
  for (const Case& c : std::vector<Case>{
           {{"show", "missing.ptape"}, 10, "proctape: missing.ptape: "},
           {{"tree", "missing.ptape"}, 10, "proctape: missing.ptape: "},
           {{"diff", "missing.ptape", plain}, 10, "proctape: missing.ptape: "},
           {{"tree", reuse, "--frame", "3"},
            2,
            "proctape: tree: --frame 3: " + reuse + " has 3 frames"},
           {{"tree", reuse, "--root", "4242"},
            5,
            "proctape: " + reuse + " frame 0: --root 4242: no process has that pid"},
           {{"tree", reuse, "--marker", "0"},
            2,
            "proctape: tree: --marker: '0' is outside 1..2^31-1"},
           {{"diff", plain, reuse, "--frames", "0", "1"},
            2,
            "proctape: diff: --frames I J picks two frames of one file"},
           {{"diff", reuse, "--frames", "0", "1", "--frame-a", "0"},
            2,
            "proctape: diff: give --frames I J"},
           {{"diff", reuse, "--frames", "0", "9"},
            2,
            "proctape: diff: --frames 9: " + reuse + " has 3 frames"},
           {{"diff", reuse, plain, plain}, 2, "proctape: "},
       }) {
    r = Proctape(c.args);
    std::string what;
    for (const std::string& a : c.args) what += a + " ";
    EXPECT_EQ(r.exit_code, c.exit_code) << what << "\n" << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << what << "\n" << r.err;
    EXPECT_TRUE(StartsWith(r.err, c.prefix)) << what << "\n" << r.err;
    EXPECT_EQ(r.out, "") << what;
  }
}

TEST(ViewsCliTest, HelpTeachesEachCommand) {
  for (const std::string command : {"show", "tree", "diff"}) {
    CommandResult r = Proctape({command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << Describe(r);
    EXPECT_NE(r.out.find("Examples:\n  proctape " + command + " "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--json"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("docs/views.md"), std::string::npos) << r.out;
    // The statuses it gives, and where the whole table is.
    EXPECT_NE(r.out.find("\nExit status: 0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("'proctape help exit-codes'"), std::string::npos) << r.out;
  }
  CommandResult r = Proctape({"--help"});
  for (const char* command : {"show", "tree", "diff"}) {
    EXPECT_NE(r.out.find(std::string("\n  ") + command + " "), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace proctape::live::views
