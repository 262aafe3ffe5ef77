// SPDX-License-Identifier: Apache-2.0
// The in-memory host's stat column (core/memory_evidence.h, "Layout"): every
// way a test changes the table shows in the next read, reads in any order find
// their own process, and a read's view outlives a change made before the next
// read (core/evidence.h: views stay valid until the next call of the kind).
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_evidence.h"

namespace proctape {
namespace {

std::string StatOf(MemoryEvidence& host, std::int64_t pid) {
  ReadResult r = host.ReadFile(pid, ProcFile::kStat, 4096);
  return r.ok() ? std::string(r.data) : "errno " + std::to_string(r.err);
}

void AddTwo(MemoryEvidence& host) {
  host.AddProcess(10, 1, 100, "ten", {"ten"}, {}, Identity{0, 1, 10});
  host.AddProcess(20, 1, 200, "twenty", {"twenty"}, {}, Identity{0, 1, 20});
}

TEST(MemoryEvidenceColumn, EveryChangeShowsInTheNextRead) {
  MemoryEvidence host;
  AddTwo(host);
  EXPECT_EQ(StatOf(host, 10), MemoryEvidence::StatLine(10, "ten", 'S', 1, 100));

  host.SetFile(10, ProcFile::kStat, "set\n");
  EXPECT_EQ(StatOf(host, 10), "set\n");

  host.Find(10)->files[ProcFile::kStat].data = "through Find\n";
  EXPECT_EQ(StatOf(host, 10), "through Find\n");

  MemoryEvidence::Process& added = host.AddProcess(30, 1, 300, "thirty", {}, {}, Identity{});
  EXPECT_EQ(StatOf(host, 30), MemoryEvidence::StatLine(30, "thirty", 'S', 1, 300));
  added.files[ProcFile::kStat] = StoredRead{0, "through the reference\n", false};
  EXPECT_EQ(StatOf(host, 30), "through the reference\n");

  host.SetFileError(20, ProcFile::kStat, EACCES);
  EXPECT_EQ(StatOf(host, 20), "errno " + std::to_string(EACCES));

  host.AddProcess(20, 1, 201, "again", {}, {}, Identity{});  // replaced whole
  EXPECT_EQ(StatOf(host, 20), MemoryEvidence::StatLine(20, "again", 'S', 1, 201));

  host.Remove(10);
  EXPECT_EQ(StatOf(host, 10), "errno " + std::to_string(ENOENT));
  host.SetFile(40, ProcFile::kCmdline, std::string("x\0", 2));  // a process without a stat
  EXPECT_EQ(StatOf(host, 40), "errno " + std::to_string(ENOENT));
}

TEST(MemoryEvidenceColumn, ReadsInAnyOrderFindTheirOwnProcess) {
  MemoryEvidence host;
  std::vector<std::int64_t> pids;
  for (std::int64_t pid = 1000; pid > 2; pid -= 7) {  // added in descending order
    host.AddProcess(pid, 1, static_cast<std::uint64_t>(pid) * 3, "p", {}, {}, Identity{});
    pids.push_back(pid);
  }
  // Ascending (a scan), descending, and strided across the table.
  std::vector<std::int64_t> order(pids.rbegin(), pids.rend());
  order.insert(order.end(), pids.begin(), pids.end());
  for (std::size_t i = 0; i < pids.size(); i += 5) order.push_back(pids[(i * 31) % pids.size()]);
  for (std::int64_t pid : order) {
    EXPECT_EQ(StatOf(host, pid),
              MemoryEvidence::StatLine(pid, "p", 'S', 1, static_cast<std::uint64_t>(pid) * 3))
        << pid;
  }
  EXPECT_EQ(StatOf(host, 1001), "errno " + std::to_string(ENOENT));  // between and past rows
  EXPECT_EQ(StatOf(host, 999), "errno " + std::to_string(ENOENT));
  EXPECT_EQ(StatOf(host, 1), "errno " + std::to_string(ENOENT));
}

TEST(MemoryEvidenceColumn, AViewOutlivesAChangeUntilTheNextRead) {
  MemoryEvidence host;
  AddTwo(host);
  ReadResult r = host.ReadFile(10, ProcFile::kStat, 4096);
  host.Remove(10);  // as a hook may, within the very call
  host.SetFile(20, ProcFile::kStat, "changed\n");
  host.NowNs();
  EXPECT_EQ(r.data, MemoryEvidence::StatLine(10, "ten", 'S', 1, 100));
  EXPECT_EQ(StatOf(host, 20), "changed\n");
}

TEST(MemoryEvidenceColumn, ACopyAndItsOriginalEachReadTheirOwnTable) {
  MemoryEvidence host;
  AddTwo(host);
  EXPECT_EQ(StatOf(host, 10), MemoryEvidence::StatLine(10, "ten", 'S', 1, 100));
  MemoryEvidence copy(host);
  copy.Find(10)->files[ProcFile::kStat].data = "the copy's\n";
  host.SetFile(20, ProcFile::kStat, "the original's\n");
  EXPECT_EQ(StatOf(copy, 10), "the copy's\n");
  EXPECT_EQ(StatOf(copy, 20), MemoryEvidence::StatLine(20, "twenty", 'S', 1, 200));
  EXPECT_EQ(StatOf(host, 10), MemoryEvidence::StatLine(10, "ten", 'S', 1, 100));
  EXPECT_EQ(StatOf(host, 20), "the original's\n");
}

TEST(MemoryEvidenceColumn, BoundTruncatesAndErrorsPassThrough) {
  MemoryEvidence host;
  AddTwo(host);
  ReadResult r = host.ReadFile(20, ProcFile::kStat, 5);
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.truncated);
  EXPECT_EQ(r.data, "20 (t");
  host.Find(10)->files[ProcFile::kStat] = StoredRead{ESRCH, "", false};
  r = host.ReadFile(10, ProcFile::kStat, 5);
  EXPECT_EQ(r.err, ESRCH);
  EXPECT_FALSE(r.truncated);
  host.Find(20)->files[ProcFile::kStat] = StoredRead{0, "12345", true};  // stored truncated
  r = host.ReadFile(20, ProcFile::kStat, 4096);
  EXPECT_EQ(r.data, "12345");
  EXPECT_TRUE(r.truncated);
}

}  // namespace
}  // namespace proctape
