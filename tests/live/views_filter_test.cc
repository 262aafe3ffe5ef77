// SPDX-License-Identifier: Apache-2.0
// `show`, `tree` and `diff` with --pid, --uid and --comm (`docs/cli/views.md`,
// "show, tree, diff: --pid, --uid, --comm"), from the built binary on a
// hand-made file: the filters select by the process's pid (tree: its subtree),
// its real uid and its exact comm, byte for byte; they combine with AND; an
// empty selection says so and exits 5 (not found), with --json too.
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"
#include "tests/unit/views_fixture.h"
#include "views.pb.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::Has;
using live::Proctape;
using live::TempDir;
using test::Proc;

// Frame 0:                                Frame 1:
//   1 init (uid 0)                          the same, but
//   |- 40 app-server (uid 1000)               42 exited,
//   |  |- 41 sleep (uid 1000)                 41 exec'd another argv,
//   |  `- 42 sleep (uid 2000)                 52 sleep (uid 1000) appeared under 50
//   `- 50 bash (uid 1000)
//      |- 51 sleep (uid 0)
//      `- 53 "x) Z 1\nx" (uid 1000)
Snapshot Host() {
  std::vector<Proc> before = {
      Proc(1).Comm("init").Ppid(0).Start(1).Argv({"/sbin/init"}).Uid(0),
      Proc(40).Comm("app-server").Start(400).Argv({"app-server"}),
      Proc(41).Ppid(40).Start(410),
      Proc(42).Ppid(40).Start(420).Uid(2000),
      Proc(50).Comm("bash").Start(500).Argv({"bash"}),
      Proc(51).Ppid(50).Start(510).Uid(0),
      Proc(53).Comm("x) Z 1\nx").Ppid(50).Start(530),
  };
  std::vector<Proc> after = before;
  after.erase(after.begin() + 3);  // 42 exited
  after[2].argv = {"/bin/sleep", "240"};
  after.push_back(Proc(52).Ppid(50).Start(520));
  return test::MakeSnapshot(
      {test::MakeFrame(0, before, 1'000'000'000), test::MakeFrame(1, after, 3'000'000'000)});
}

class ViewsFilter : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string error;
    ASSERT_TRUE(live::WriteSnapshotFile(file_, Host(), &error)) << error;
  }
  TempDir dir_{"filter"};
  const std::string file_ = dir_.File("host.ptape");
};

// A line of a view that starts (after the tree's connectors) with this pid.
bool HasPid(const std::string& text, const std::string& pid) {
  for (const char* lead :
       {"\n", "\n|-", "\n`-", "\n  `-", "\n  |-", "\n| |-", "\n| `-", "\n    ", "\n      "}) {
    if (Has(text, std::string(lead) + pid + " ")) return true;
  }
  return false;
}

TEST_F(ViewsFilter, ShowListsTheProcessesAFilterSelectsInEachFrame) {
  CommandResult r = Proctape({"show", file_, "--comm", "sleep", "--uid", "1000"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  // Frame 0: 41 only (42 is uid 2000, 51 uid 0); frame 1: 41 and 52.
  EXPECT_TRUE(Has(r.out, "  frame 0: 7 processes, ")) << r.out;
  EXPECT_TRUE(Has(r.out, "\n    41 \"sleep\" S ppid=40 ")) << r.out;
  EXPECT_TRUE(Has(r.out, "\n    52 \"sleep\" S ppid=50 ")) << r.out;
  EXPECT_FALSE(Has(r.out, "\n    42 ")) << r.out;
  EXPECT_FALSE(Has(r.out, "\n    51 ")) << r.out;
  // 41 is one process in both frames: counted once, each frame's own count after.
  EXPECT_TRUE(Has(r.out,
                  "selected: 2 processes (--uid 1000 --comm \"sleep\") in 2 frames: 1, 2 "
                  "a frame\n"))
      << r.out;

  CommandResult json = Proctape({"show", file_, "--comm", "sleep", "--uid", "1000", "--json"});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  v1::ShowReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.out, &report).ok()) << json.out;
  EXPECT_EQ(report.selected(), 2u);
  EXPECT_EQ(report.filter().uid(), 1000u);
  EXPECT_EQ(report.filter().comm(), "sleep");
  ASSERT_EQ(report.frames(1).selected().processes_size(), 2);
  EXPECT_EQ(report.frames(1).selected().processes(1).pid(), 52);
}

TEST_F(ViewsFilter, ShowPidSelectsThatProcessInEveryFrame) {
  CommandResult r = Proctape({"show", file_, "--pid", "41"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Has(r.out,
                  "\n    41 \"sleep\" S ppid=40 pgrp=41 sid=41 start=410 (4.10s) uid=1000 "
                  "nspid=41 exe=8:11 argv=\"/bin/sleep\" \"120\"\n"))
      << r.out;
  EXPECT_TRUE(Has(r.out, "argv=\"/bin/sleep\" \"240\"\n")) << r.out;
  // The same process (its start tick) after an exec: one process in two frames.
  EXPECT_TRUE(Has(r.out, "selected: 1 process (--pid 41) in 2 frames: 1, 1 a frame\n")) << r.out;
}

TEST_F(ViewsFilter, TreePidDrawsItsSubtreeBeneathItsAncestors) {
  CommandResult r = Proctape({"tree", file_, "--pid", "40"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Has(r.out, "\n1 \"init\" (context)\n")) << r.out;
  EXPECT_TRUE(HasPid(r.out, "40")) << r.out;
  EXPECT_TRUE(HasPid(r.out, "41")) << r.out;
  EXPECT_TRUE(HasPid(r.out, "42")) << r.out;
  EXPECT_FALSE(HasPid(r.out, "50")) << r.out;
  EXPECT_FALSE(HasPid(r.out, "51")) << r.out;
  EXPECT_TRUE(Has(r.out, "selected: 3 processes (--pid 40 and its descendants)\n")) << r.out;
}

TEST_F(ViewsFilter, TreeUidAndCommSelectTogetherAndKeepTheirAncestors) {
  CommandResult r = Proctape({"tree", file_, "--uid", "1000", "--comm", "sleep"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out,
            file_ +
                ": frame 0 of 2, 7 processes\n"
                "1 \"init\" (context)\n"
                "`-40 \"app-server\" (context)\n"
                "  `-41 \"sleep\" S ppid=40 pgrp=41 sid=41 start=410 (4.10s) uid=1000 nspid=41 "
                "exe=8:11 argv=\"/bin/sleep\" \"120\"\n"
                "selected: 1 process (--uid 1000 --comm \"sleep\")\n")
      << r.out;

  CommandResult json = Proctape({"tree", file_, "--uid", "1000", "--comm", "sleep", "--json"});
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  v1::TreeReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.out, &report).ok()) << json.out;
  ASSERT_EQ(report.nodes_size(), 3);
  EXPECT_TRUE(report.nodes(0).context());
  EXPECT_FALSE(report.nodes(2).context());
  EXPECT_EQ(report.selected(), 1u);
}

TEST_F(ViewsFilter, CommMatchesTheRawBytesExactly) {
  CommandResult prefix = Proctape({"tree", file_, "--comm", "slee"});
  EXPECT_EQ(prefix.exit_code, 5) << Describe(prefix);
  CommandResult hostile = Proctape({"tree", file_, "--comm", "x) Z 1\nx"});
  ASSERT_EQ(hostile.exit_code, 0) << Describe(hostile);
  EXPECT_TRUE(Has(hostile.out, "`-53 \"x) Z 1\\x0ax\" S ppid=50 ")) << hostile.out;
  EXPECT_TRUE(Has(hostile.out, "(--comm \"x) Z 1\\x0ax\")")) << hostile.out;
}

TEST_F(ViewsFilter, DiffKeepsTheChangesOfTheSelectedProcesses) {
  CommandResult r = Proctape({"diff", file_, "--comm", "sleep"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Has(r.out, "\nexited       42 ")) << r.out;
  EXPECT_TRUE(Has(r.out, "\nappeared     52 ")) << r.out;
  EXPECT_TRUE(Has(r.out, "\nargv         41@410 \"sleep\": ")) << r.out;
  EXPECT_FALSE(Has(r.out, "\nexited       53")) << r.out;
  EXPECT_TRUE(Has(r.out, "filter --comm \"sleep\": 3 -> 3 processes selected\n")) << r.out;
  EXPECT_TRUE(Has(r.out,
                  "summary: 0 reused, 1 exited, 1 appeared, 0 reparented, 1 argv changed, "
                  "0 exe changed, 0 without identity; 1 unchanged\n"))
      << r.out;

  CommandResult uid = Proctape({"diff", file_, "--uid", "2000", "--json"});
  ASSERT_EQ(uid.exit_code, 0) << Describe(uid);
  v1::DiffReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(uid.out, &report).ok()) << uid.out;
  ASSERT_EQ(report.changes_size(), 1);
  EXPECT_EQ(report.changes(0).kind(), v1::DiffReport::Change::EXITED);
  EXPECT_EQ(report.exited(), 1u);
  EXPECT_EQ(report.unchanged(), 0u);
  EXPECT_EQ(report.filter().uid(), 2000u);
}

TEST_F(ViewsFilter, AnEmptySelectionSaysSoAndExitsNotFound) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"show", file_, "--pid", "999"},
                                             {"tree", file_, "--pid", "999"},
                                             {"diff", file_, "--pid", "999"},
                                             {"tree", file_, "--uid", "1000", "--comm", "init"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 5) << args[0] << "\n" << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
    EXPECT_TRUE(Has(r.err, args[0] == "diff" ? "no process matches" : "selects no process"))
        << Describe(r);
    std::vector<std::string> json = args;
    json.push_back("--json");
    CommandResult j = Proctape(json);
    EXPECT_EQ(j.exit_code, 5) << Describe(j);
    EXPECT_TRUE(Has(j.err, "\"exit_status\":5")) << Describe(j);
  }
}

// An empty diff selection names what was looked at: each file and the frame
// of it compared, so a wrong frame or file shows in the message itself.
TEST_F(ViewsFilter, DiffsEmptySelectionNamesTheFilesAndFramesItLookedAt) {
  CommandResult one = Proctape({"diff", file_, "--pid", "999"});
  EXPECT_EQ(one.exit_code, 5) << Describe(one);
  EXPECT_TRUE(live::OneLine(one.err)) << Describe(one);
  EXPECT_TRUE(
      Has(one.err, "proctape: no process matches --pid 999 in " + file_ + " frame 0 or frame 1\n"))
      << Describe(one);

  const std::string other = dir_.File("other.ptape");
  std::string error;
  ASSERT_TRUE(live::WriteSnapshotFile(other, Host(), &error)) << error;
  CommandResult two =
      Proctape({"diff", file_, other, "--frame-a", "0", "--frame-b", "1", "--comm", "nothing"});
  EXPECT_EQ(two.exit_code, 5) << Describe(two);
  EXPECT_TRUE(Has(two.err, "proctape: no process matches --comm \"nothing\" in " + file_ +
                               " frame 0 or " + other + " frame 1\n"))
      << Describe(two);
}

TEST_F(ViewsFilter, AFilterValueOutsideItsDomainIsAUsageError) {
  CommandResult zero = Proctape({"tree", file_, "--pid", "0"});
  EXPECT_EQ(zero.exit_code, 2) << Describe(zero);
  EXPECT_TRUE(Has(zero.err, "--pid: '0' is outside 1..")) << zero.err;
  CommandResult negative = Proctape({"show", file_, "--uid", "-1"});
  EXPECT_EQ(negative.exit_code, 2) << Describe(negative);
  EXPECT_TRUE(Has(negative.err, "--uid: '-1' is outside 0..")) << negative.err;
  CommandResult word = Proctape({"diff", file_, "--pid", "abc"});
  EXPECT_EQ(word.exit_code, 2) << Describe(word);
  EXPECT_TRUE(Has(word.err, "--pid: 'abc' is not a number")) << word.err;
}

}  // namespace
}  // namespace proctape
