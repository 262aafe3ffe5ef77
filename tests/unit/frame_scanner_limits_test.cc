// SPDX-License-Identifier: Apache-2.0
// The frame scanner (`docs/format.md` section 3) on the in-memory /proc, what
// cuts or narrows a frame: --max-processes and --max-bytes (records kept whole,
// never a byte read past the budget) and root mode (only the root's subtree).
#include "capture/frame_scanner.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_evidence.h"
#include "core/proc_parse.h"
#include "tests/unit/frame_scanner_fixture.h"

namespace proctape {
namespace {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs
using namespace test;                  // TestHost, Scan, Capture, SmallTree

TEST(FrameScanner, MaxProcessesCutsTheFrameAfterThatManyRecords) {
  TestHost host;
  for (std::int64_t pid = 100; pid < 110; ++pid) {
    host.AddProcess(pid, 1, 1, "p", {"/p"}, {}, kShExe);
  }
  ScanOptions options;
  options.max_processes = 4;
  Capture c = Scan(host, options);
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{100, 101, 102, 103}));
  EXPECT_EQ(c.stats.processes, 4u);
  EXPECT_EQ(c.stats.cut_reason, "max-processes");
  // Never read beyond the bound.
  EXPECT_EQ(host.ReadsOf(104, ProcFile::kStat), 0);

  // Exactly at the bound is whole, not cut.
  options.max_processes = 10;
  Capture whole = Scan(host, options);
  EXPECT_EQ(whole.records.size(), 10u);
  EXPECT_EQ(whole.stats.cut_reason, "");
}

TEST(FrameScanner, MaxBytesNeverReadsMoreAndKeepsRecordsWhole) {
  TestHost host;
  for (std::int64_t pid = 100; pid < 200; ++pid) {
    host.AddProcess(pid, 1, 1, "p", {"/bin/p", std::string(50, 'x')}, {"K=" + std::string(40, 'v')},
                    kShExe);
    host.SetFile(pid, ProcFile::kCgroup, "0::/\n");
  }
  ScanOptions options;
  options.stat_bytes = options.cmdline_bytes = options.environ_bytes = options.status_bytes =
      options.cgroup_bytes = 100;
  options.max_bytes = 2000;  // worst case per process: 500
  Capture c = Scan(host, options);
  EXPECT_EQ(c.stats.cut_reason, "max-bytes");
  EXPECT_LE(c.stats.bytes_read, options.max_bytes);
  // Another process would have fitted only if its worst case did.
  EXPECT_GT(c.stats.bytes_read + options.WorstCaseProcessBytes(), options.max_bytes);
  ASSERT_GT(c.records.size(), 0u);
  ASSERT_LT(c.records.size(), 100u);
  std::uint64_t sum = 0;
  for (const auto& r : c.records) {
    sum += DataBytes(r);
    EXPECT_TRUE(r.has_stat() && r.has_cmdline() && r.has_environ() && r.has_status() &&
                r.has_cgroup() && r.has_exe());
  }
  EXPECT_EQ(sum, c.stats.bytes_read);
  // Nothing of the first process not recorded was read.
  EXPECT_EQ(host.ReadsOf(100 + static_cast<std::int64_t>(c.records.size()), ProcFile::kStat), 0);

  // A budget that fits them all cuts nothing.
  options.max_bytes = 1u << 20;
  Capture whole = Scan(host, options);
  EXPECT_EQ(whole.records.size(), 100u);
  EXPECT_EQ(whole.stats.cut_reason, "");
}

TEST(FrameScanner, RootModeRecordsOnlyTheSubtreeReusingTheStatPass) {
  TestHost host;
  SmallTree(host);
  ScanOptions options;
  options.root_pid = 10;
  Capture c = Scan(host, options);
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{10, 11, 12, 13}));
  EXPECT_TRUE(c.stats.root_found);
  EXPECT_EQ(c.stats.cut_reason, "");
  // Every listed process's stat read once, never twice; nothing else outside.
  for (std::int64_t pid : {1, 10, 11, 12, 13, 20, 21}) {
    EXPECT_EQ(host.ReadsOf(pid, ProcFile::kStat), 1) << pid;
  }
  for (std::int64_t pid : {1, 20, 21}) {
    EXPECT_EQ(host.ReadsOf(pid, ProcFile::kCmdline), 0) << pid;
    EXPECT_EQ(host.ReadsOf(pid, ProcFile::kEnviron), 0) << pid;
  }
  EXPECT_EQ(c.records[3].stat().data(), MemoryEvidence::StatLine(13, "sleep", 'S', 12, 130));
  EXPECT_EQ(c.records[3].cmdline().data(),
            "/bin/sleep\0"
            "13\0"s);
  EXPECT_EQ(c.records[3].stat().bound(), 4096u);
  // The stat pass counts: every stat byte of the host was read.
  std::uint64_t stat_bytes = 0;
  for (std::int64_t pid : {1, 10, 11, 12, 13, 20, 21}) {
    stat_bytes += host.Find(pid)->files[ProcFile::kStat].data.size();
  }
  std::uint64_t record_bytes = 0;
  for (const auto& r : c.records) record_bytes += DataBytes(r) - r.stat().data().size();
  EXPECT_EQ(c.stats.bytes_read, stat_bytes + record_bytes);

  // A leaf as root: only itself.
  options.root_pid = 21;
  EXPECT_EQ(Pids(Scan(host, options)), (std::vector<std::int64_t>{21}));
}

TEST(FrameScanner, RootModeWithAnAbsentRootRecordsNothing) {
  TestHost host;
  SmallTree(host);
  ScanOptions options;
  options.root_pid = 99;
  Capture c = Scan(host, options);
  EXPECT_TRUE(c.records.empty());
  EXPECT_FALSE(c.stats.root_found);
  EXPECT_EQ(c.stats.cut_reason, "");
}

TEST(FrameScanner, RootModeSurvivesCyclesAndUnparsableStats) {
  TestHost host;
  SmallTree(host);
  // 30 and 31 name each other as parent: never reached, never looping.
  host.AddProcess(30, 31, 1, "c1", {"/c1"}, {}, kShExe);
  host.AddProcess(31, 30, 1, "c2", {"/c2"}, {}, kShExe);
  // A stat that names itself as parent, and one that does not parse: their
  // parent is unknown, so they are not in the subtree.
  host.AddProcess(14, 14, 1, "self", {"/s"}, {}, kShExe);
  host.AddProcess(15, 10, 1, "junk", {"/j"}, {}, kShExe);
  host.SetFile(15, ProcFile::kStat, "15 (junk");
  // The root's own stat failed: it is still recorded, as observed.
  host.SetFileError(12, ProcFile::kStat, EACCES);
  ScanOptions options;
  options.root_pid = 10;
  Capture c = Scan(host, options);
  // Without 12's stat nothing says 12 is a child of 10, so neither 12 nor its
  // child 13 is in 10's subtree.
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{10, 11}));

  options.root_pid = 12;
  Capture root_unreadable = Scan(host, options);
  EXPECT_EQ(Pids(root_unreadable), (std::vector<std::int64_t>{12, 13}));
  EXPECT_EQ(root_unreadable.records[0].stat().err(), EACCES);

  options.root_pid = 30;
  EXPECT_EQ(Pids(Scan(host, options)), (std::vector<std::int64_t>{30, 31}));
}

TEST(FrameScanner, RootModeAppliesMaxProcessesAndMaxBytes) {
  TestHost host;
  SmallTree(host);
  ScanOptions options;
  options.root_pid = 10;
  options.max_processes = 2;
  Capture c = Scan(host, options);
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{10, 11}));
  EXPECT_EQ(c.stats.cut_reason, "max-processes");

  options.max_processes = 65536;
  options.max_bytes = 100;  // not even the stat pass fits
  Capture bytes = Scan(host, options);
  EXPECT_TRUE(bytes.records.empty());
  EXPECT_EQ(bytes.stats.cut_reason, "max-bytes");
  EXPECT_LE(bytes.stats.bytes_read, 100u);
}

}  // namespace
}  // namespace proctape
