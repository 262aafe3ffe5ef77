// SPDX-License-Identifier: Apache-2.0
// Root mode walked through a children source (`docs/architecture.md`,
// "Layers": capture/procfs_children.cc): the subtree's files alone are read,
// and the frame is the one the stat pass over every listed entry gives, byte
// for byte and in the same order.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <map>
#include <vector>

#include "capture/frame_scanner.h"
#include "core/memory_evidence.h"
#include "tests/unit/frame_scanner_fixture.h"

namespace proctape {
namespace {

using namespace test;  // TestHost, Capture, CollectInto, SmallTree, Pids

using Children = std::map<std::int64_t, std::vector<std::int64_t>>;

// SmallTree's children, as /proc/PID/task/*/children would list them.
Children SmallTreeChildren() { return {{1, {10, 20}}, {10, {12, 11}}, {12, {13}}, {20, {21}}}; }

ChildrenFn From(const Children& tree, int* calls = nullptr) {
  return [tree, calls](std::int64_t pid, std::uint64_t bound, std::vector<std::int64_t>* out,
                       bool* truncated) {
    if (calls) ++*calls;
    auto it = tree.find(pid);
    if (it == tree.end()) return 0;
    for (std::int64_t child : it->second) {
      if (out->size() >= bound) {
        *truncated = true;
        break;
      }
      out->push_back(child);
    }
    return 0;
  };
}

Capture Walk(Evidence& host, const ScanOptions& options, const ChildrenFn& children) {
  Capture c;
  FrameCallbacks cb = CollectInto(c);
  cb.children = children;
  c.stats = ScanFrame(host, options, FakePidNs, cb);
  return c;
}

TEST(FrameScannerWalk, ReadsOnlyTheSubtreeAndRecordsWhatTheStatPassRecords) {
  TestHost walked_host, listed_host;
  SmallTree(walked_host);
  SmallTree(listed_host);
  ScanOptions options;
  options.root_pid = 10;
  Capture walked = Walk(walked_host, options, From(SmallTreeChildren()));
  Capture listed = Scan(listed_host, options);
  EXPECT_TRUE(walked.stats.walked);
  EXPECT_FALSE(listed.stats.walked);
  EXPECT_TRUE(walked.stats.root_found);
  EXPECT_EQ(walked.stats.listed, 0u);
  EXPECT_EQ(Pids(walked), (std::vector<std::int64_t>{10, 11, 12, 13}));  // pid order
  ASSERT_EQ(walked.records.size(), listed.records.size());
  for (std::size_t i = 0; i < walked.records.size(); ++i) {
    EXPECT_EQ(walked.records[i].SerializeAsString(), listed.records[i].SerializeAsString()) << i;
  }
  // Nothing outside the subtree is read; inside, each stat once.
  for (std::int64_t pid : {1, 20, 21}) {
    EXPECT_EQ(walked_host.ReadsOf(pid, ProcFile::kStat), 0) << pid;
  }
  for (std::int64_t pid : {10, 11, 12, 13}) {
    EXPECT_EQ(walked_host.ReadsOf(pid, ProcFile::kStat), 1) << pid;
  }
  std::uint64_t bytes = 0;
  for (const auto& r : walked.records) bytes += DataBytes(r);
  EXPECT_EQ(walked.stats.bytes_read, bytes);
}

TEST(FrameScannerWalk, AChildWhoseStatNamesAnotherParentIsNotFollowed) {
  TestHost host;
  SmallTree(host);
  // 12's list still names 13, but 13 is now another process, child of 20
  // (the pid was reused): neither it nor its children are recorded.
  host.AddProcess(13, 20, 999, "other", {"/other"}, {}, kShExe);
  Children tree = SmallTreeChildren();
  tree[13] = {14};
  host.AddProcess(14, 13, 1000, "grandchild", {"/g"}, {}, kShExe);
  int calls = 0;
  ScanOptions options;
  options.root_pid = 10;
  Capture c = Walk(host, options, From(tree, &calls));
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{10, 11, 12}));
  EXPECT_EQ(calls, 3);  // 10, 11 and 12; never 13
  // A child that ended since the list was read: skipped.
  host.Remove(11);
  EXPECT_EQ(Pids(Walk(host, options, From(tree))), (std::vector<std::int64_t>{10, 12}));
}

TEST(FrameScannerWalk, ARootThatIsGoneRecordsNothingAndOneThatCannotBeReadIsKept) {
  TestHost host;
  SmallTree(host);
  ScanOptions options;
  options.root_pid = 99;
  Capture gone = Walk(host, options, From(SmallTreeChildren()));
  EXPECT_TRUE(gone.records.empty());
  EXPECT_FALSE(gone.stats.root_found);
  host.SetFileError(12, ProcFile::kStat, EACCES);
  options.root_pid = 12;
  Capture unreadable = Walk(host, options, From(SmallTreeChildren()));
  EXPECT_TRUE(unreadable.stats.root_found);
  EXPECT_EQ(Pids(unreadable), (std::vector<std::int64_t>{12, 13}));
  EXPECT_EQ(unreadable.records[0].stat().err(), EACCES);
}

TEST(FrameScannerWalk, WithoutChildrenFilesTheStatPassRuns) {
  TestHost host, listed_host;
  SmallTree(host);
  SmallTree(listed_host);
  ScanOptions options;
  options.root_pid = 10;
  ChildrenFn none = [](std::int64_t, std::uint64_t, std::vector<std::int64_t>*, bool*) {
    return ENOTSUP;
  };
  Capture c = Walk(host, options, none);
  Capture listed = Scan(listed_host, options);
  EXPECT_FALSE(c.stats.walked);
  EXPECT_EQ(Pids(c), Pids(listed));
  EXPECT_EQ(c.stats.bytes_read,
            listed.stats.bytes_read + host.Find(10)->files[ProcFile::kStat].data.size())
      << "the walk's one stat read counts, once";
  EXPECT_EQ(c.stats.listed, listed.stats.listed);
}

TEST(FrameScannerWalk, MaxEntriesBoundsThePidsTheListsName) {
  TestHost host;
  SmallTree(host);
  ScanOptions options;
  options.root_pid = 10;
  options.max_entries = 3;  // the root and two more
  Capture c = Walk(host, options, From(SmallTreeChildren()));
  EXPECT_EQ(Pids(c), (std::vector<std::int64_t>{10, 11, 12}));
  EXPECT_EQ(c.stats.cut_reason, "max-entries");
}

}  // namespace
}  // namespace proctape
