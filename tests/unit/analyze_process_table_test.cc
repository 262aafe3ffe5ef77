// SPDX-License-Identifier: Apache-2.0
// The process table the views share (analyze/process_table.h): each record
// parsed once, raw bytes kept, identity (pid, start tick) only from a stat
// that parses and names its own pid.
#include "analyze/process_table.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "views_fixture.h"

namespace proctape {
namespace {

using test::MakeFrame;
using test::MakeRecord;
using test::Proc;

TEST(ProcessTableTest, HostileCommIsSplitAtTheFinalParenSpaceAndKeptRaw) {
  // The lab's hostile-comm name: a first-')' parser sees a zombie whose parent is 1.
  Proc p = Proc(283).Comm("x) Z 1 1 1\nx").Ppid(282).Start(1310682);
  std::vector<ProcessView> table = ProcessTable(MakeFrame(0, {p}));
  ASSERT_EQ(table.size(), 1u);
  ASSERT_TRUE(table[0].has_identity()) << table[0].stat_problem;
  EXPECT_EQ(table[0].stat->comm, "x) Z 1 1 1\nx");
  EXPECT_EQ(table[0].stat->state, 'S');
  EXPECT_EQ(table[0].ppid(), 282);
  EXPECT_EQ(table[0].start_ticks(), 1310682u);
  EXPECT_FALSE(table[0].kernel_thread);
}

TEST(ProcessTableTest, KernelThreadFlagComesFromStatFlagsNotTheName) {
  Proc kthread = Proc(2).Comm("kthreadd").Ppid(0).Argv({}).Flags(test::kKthreadFlags);
  // A user process named like a kernel thread, whose comm also holds a fake flags field.
  Proc impostor = Proc(9).Comm("kworker/0:1) S 0 0 0 0 -1 2129984").Ppid(1);
  std::vector<ProcessView> table = ProcessTable(MakeFrame(0, {kthread, impostor}));
  ASSERT_EQ(table.size(), 2u);
  EXPECT_TRUE(table[0].kernel_thread);
  EXPECT_FALSE(table[1].kernel_thread);
  EXPECT_TRUE(table[0].argv.empty());
  EXPECT_TRUE(table[0].cmdline_ok);
}

// A "Uid:" value past 2^32-1 (only a hand-made file holds one) is no uid:
// the line is malformed and the uid unknown, never wrapped to uid 0 (root),
// which a view or the ownership planner would take for the process's owner.
// An NSpid past what a pid holds is unknown the same way.
TEST(ProcessTableTest, AUidPastTwoToThe32IsMalformedNeverUidZero) {
  for (const char* line : {"Uid:\t4294967296\t0\t0\t0\n", "Uid:\t0\t0\t0\t4294967296\n",
                           "Uid:\t18446744073709551616\t0\t0\t0\n"}) {
    v1::ProcessRecord r = MakeRecord(Proc(7).Uid(1000));
    r.mutable_status()->set_data(std::string("Name:\tx\n") + line +
                                 "NSpid:\t18446744073709551615\n");
    v1::Frame f;
    *f.add_processes() = r;
    std::vector<ProcessView> table = ProcessTable(f);
    ASSERT_EQ(table.size(), 1u);
    EXPECT_TRUE(table[0].uids.empty()) << line;
    EXPECT_FALSE(table[0].real_uid().has_value()) << line;
    EXPECT_TRUE(table[0].nspid.empty()) << line;
  }
  v1::ProcessRecord top = MakeRecord(Proc(7));
  top.mutable_status()->set_data("Uid:\t4294967295\t0\t0\t0\n");
  v1::Frame f;
  *f.add_processes() = top;
  EXPECT_EQ(ProcessTable(f)[0].real_uid(), 4294967295u);
}

TEST(ProcessTableTest, MissingStatusLeavesUidsAndNspidUnknownNotZero) {
  v1::ProcessRecord r = MakeRecord(Proc(7).Uid(0));
  r.mutable_status()->Clear();
  r.mutable_status()->set_err(EACCES);
  v1::Frame f;
  *f.add_processes() = r;
  std::vector<ProcessView> table = ProcessTable(f);
  ASSERT_EQ(table.size(), 1u);
  EXPECT_TRUE(table[0].has_identity());
  EXPECT_TRUE(table[0].uids.empty());
  EXPECT_FALSE(table[0].real_uid().has_value());
  EXPECT_TRUE(table[0].nspid.empty());
}

TEST(ProcessTableTest, StatusLinesAreParsedOutermostFirst) {
  std::vector<ProcessView> table =
      ProcessTable(MakeFrame(0, {Proc(215).Nspid({215, 1}).Uid(1000)}));
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].nspid, (std::vector<std::int64_t>{215, 1}));
  EXPECT_EQ(table[0].uids, (std::vector<std::uint32_t>{1000, 1000, 1000, 1000}));
  EXPECT_EQ(table[0].exe.ino, 11u);
}

TEST(ProcessTableTest, TruncatedStatHasNoIdentityAndSaysWhy) {
  v1::ProcessRecord r = MakeRecord(Proc(8).Start(5555));
  // Cut before field 22: the start time was never read.
  r.mutable_stat()->set_data(r.stat().data().substr(0, 30));
  r.mutable_stat()->set_truncated(true);
  v1::Frame f;
  *f.add_processes() = r;
  std::vector<ProcessView> table = ProcessTable(f);
  ASSERT_EQ(table.size(), 1u);
  EXPECT_FALSE(table[0].has_identity());
  EXPECT_NE(table[0].stat_problem.find("stat malformed"), std::string::npos)
      << table[0].stat_problem;
  EXPECT_EQ(table[0].start_ticks(), 0u);
}

TEST(ProcessTableTest, TruncatedCmdlineKeepsWhatWasReadUntrimmed) {
  v1::ProcessRecord r = MakeRecord(Proc(8));
  r.mutable_cmdline()->set_data(std::string("/bin/sh\0-c\0echo ", 16));
  r.mutable_cmdline()->set_truncated(true);
  v1::Frame f;
  *f.add_processes() = r;
  std::vector<ProcessView> table = ProcessTable(f);
  ASSERT_EQ(table.size(), 1u);
  EXPECT_TRUE(table[0].cmdline_ok);
  EXPECT_EQ(table[0].argv, (std::vector<std::string>{"/bin/sh", "-c", "echo "}));
}

TEST(ProcessTableTest, UnreadableStatAndCmdlineSayWhy) {
  v1::ProcessRecord r = MakeRecord(Proc(8));
  r.mutable_stat()->Clear();
  r.mutable_stat()->set_err(ESRCH);
  r.mutable_cmdline()->Clear();
  r.mutable_cmdline()->set_err(ESRCH);
  v1::Frame f;
  *f.add_processes() = r;
  std::vector<ProcessView> table = ProcessTable(f);
  ASSERT_EQ(table.size(), 1u);
  EXPECT_FALSE(table[0].has_identity());
  EXPECT_EQ(table[0].stat_problem, std::string("stat unreadable: ") + std::strerror(ESRCH));
  EXPECT_FALSE(table[0].cmdline_ok);
}

TEST(ProcessTableTest, StatNamingAnotherPidHasNoIdentity) {
  v1::ProcessRecord r = MakeRecord(Proc(8));
  r.mutable_stat()->set_data(test::StatLine(Proc(9)));
  v1::Frame f;
  *f.add_processes() = r;
  std::vector<ProcessView> table = ProcessTable(f);
  ASSERT_EQ(table.size(), 1u);
  EXPECT_FALSE(table[0].has_identity());
  EXPECT_EQ(table[0].stat_problem, "stat names pid 9");
}

TEST(ProcessTableTest, DuplicatePidKeepsTheFirstRecordAndSortsByPid) {
  v1::Frame f =
      MakeFrame(0, {Proc(30).Start(3), Proc(5).Start(111), Proc(5).Start(222), Proc(12).Start(4)});
  std::vector<ProcessView> table = ProcessTable(f);
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0].pid, 5);
  EXPECT_EQ(table[0].start_ticks(), 111u);
  EXPECT_EQ(table[0].record, &f.processes(1));
  EXPECT_EQ(table[1].pid, 12);
  EXPECT_EQ(table[2].pid, 30);
  std::map<std::int64_t, std::size_t> index = IndexByPid(table);
  EXPECT_EQ(index.at(12), 1u);
  EXPECT_EQ(index.count(7), 0u);
}

// docs/format.md section 7, "What the views hold".
TEST(ProcessTableTest, AFramePastTheViewsLimitIsRefusedNamingTheLimit) {
  v1::Frame f = MakeFrame(3, {Proc(5), Proc(6), Proc(7)});
  const std::uint64_t three =
      ViewCost(f.processes(0)) + ViewCost(f.processes(1)) + ViewCost(f.processes(2));
  EXPECT_EQ(ProcessTable(f, three).size(), 3u);  // at the limit: built
  try {
    ProcessTable(f, three - 1);
    FAIL() << "a table past its limit was built";
  } catch (const ViewTooLarge& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("frame 3: its 3 processes' views (" + std::to_string(three) + " bytes)"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("past " + std::to_string(three - 1) + " bytes (the views' limit"),
              std::string::npos)
        << what;
  }
}

TEST(ProcessTableTest, RecordsOfOnePidAreChargedOnceNotPerRecord) {
  // A million empty records of one pid make one view: charged as one.
  v1::Frame f;
  for (int i = 0; i < 1000; ++i) f.add_processes()->set_pid(0);
  const std::uint64_t one = ViewCost(f.processes(0));
  std::vector<ProcessView> table = ProcessTable(f, one);
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].record, &f.processes(0));
}

TEST(ProcessTableTest, ACmdlineOfNulsIsChargedAStringPerArgvElement) {
  // 100,000 NULs on the wire are 100,001 empty strings in a view.
  v1::ProcessRecord r = MakeRecord(Proc(9));
  r.mutable_cmdline()->set_data(std::string(100000, '\0'));
  EXPECT_GE(ViewCost(r), 100001 * sizeof(std::string));
  v1::Frame f;
  *f.add_processes() = r;
  EXPECT_THROW(ProcessTable(f, 100001 * sizeof(std::string)), ViewTooLarge);
}

}  // namespace
}  // namespace proctape
