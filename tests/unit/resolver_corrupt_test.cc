// SPDX-License-Identifier: Apache-2.0
// Corrupt evidence gets its own status (docs/resolver.md, "One attempt"):
// a pid the listing names twice is DUPLICATE_RECORD whatever its reads
// answer, and parent links that loop are CYCLE however deep the loop lies.
// Against the in-memory host of fake_host.h.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "core/resolver.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// The typical host's listing with kMcpServer named twice.
std::vector<std::string> ListingWithMcpServerTwice() {
  return {"1", "2", "3", "3900", "4000", "4001", "4001", "4100", "4101", "4102", "4103"};
}

// `docs/resolver.md`, "The eight steps", step 3: a duplicate record stops
// the resolution. The second name of
// a pid listed twice is decided at once: its read may fail (vanished or
// denied) and the listing still named it twice.
TEST(ResolverCorruptListing, APidListedTwiceWhoseSecondReadFailsIsDuplicateRecord) {
  for (int err : {ENOENT, ESRCH, EACCES}) {
    FakeHost host;
    host.listing = ListingWithMcpServerTwice();
    host.after_call = [err](FakeHost& h, const Call& c) {
      if (c.kind == "read" && c.pid == kMcpServer && c.file == ProcFile::kStat) {
        h.SetFileError(kMcpServer, ProcFile::kStat, err);
      }
    };
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kDuplicateRecord) << err << ": " << v.detail;
    EXPECT_EQ(v.subject_pid, kMcpServer);
    EXPECT_EQ(v.subject_start_ticks, 500100u);  // its first read's
    EXPECT_EQ(v.attempts, 1u);
    EXPECT_EQ(host.Reads(kMcpServer, ProcFile::kStat), 1);
  }
}

// The first of the two names vanished before its stat was read (omitted from
// the snapshot), the second reads well: still listed twice.
TEST(ResolverCorruptListing, APidListedTwiceWhoseFirstReadVanishedIsDuplicateRecord) {
  FakeHost host;
  host.listing = ListingWithMcpServerTwice();
  host.SetFileError(kMcpServer, ProcFile::kStat, ENOENT);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kDuplicateRecord) << v.detail;
  EXPECT_EQ(v.subject_pid, kMcpServer);
  EXPECT_FALSE(v.subject_start_ticks.has_value());  // no stat of it was read
  EXPECT_EQ(v.evidence, "4001");
}

// `docs/resolver.md`, "The eight steps", step 3: a parent cycle stops the
// resolution. Parent links that loop are a
// cycle however many links lead to the loop or form it: more than the depth
// bound is still CYCLE, never DEPTH_BOUND (a chain that ends is DEPTH_BOUND).
TEST(ResolverCorruptListing, AParentLoopLongerThanTheDepthBoundIsCycle) {
  FakeHost ring;  // 7000 -> 7001 -> ... -> 7299 -> 7000: 300 links around
  for (std::int64_t pid = 7000; pid < 7300; ++pid) {
    ring.AddProcess(pid, pid == 7000 ? 7299 : pid - 1, 1, "r", {"r"}, {}, kOtherExe);
  }
  Verdict v = Resolve(ring, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kCycle) << v.detail;
  EXPECT_GE(v.subject_pid, 7000);
  EXPECT_LT(v.subject_pid, 7300);
  EXPECT_EQ(v.subject_start_ticks, 1u);

  FakeHost tail;  // 8000 <- 8001 <- ... <- 8299, and 8000's parent loops with 8300
  tail.AddProcess(8300, 8000, 1, "a", {"a"}, {}, kOtherExe);
  tail.AddProcess(8000, 8300, 1, "b", {"b"}, {}, kOtherExe);
  for (std::int64_t pid = 8001; pid < 8300; ++pid) {
    tail.AddProcess(pid, pid - 1, 1, "t", {"t"}, {}, kOtherExe);
  }
  tail.listing = std::vector<std::string>{"8299"};  // the deepest first
  for (std::int64_t pid = 8000; pid <= 8300; ++pid) {
    if (pid != 8299) tail.listing->push_back(std::to_string(pid));
  }
  Verdict t = Resolve(tail, FakeHost::TypicalRequest());
  EXPECT_EQ(t.status, Status::kCycle) << t.detail;

  FakeHost chain;  // the same tail ending at init: a deep chain, not a loop
  chain.AddProcess(8000, 1, 1, "b", {"b"}, {}, kOtherExe);
  for (std::int64_t pid = 8001; pid < 8300; ++pid) {
    chain.AddProcess(pid, pid - 1, 1, "t", {"t"}, {}, kOtherExe);
  }
  chain.listing = std::vector<std::string>{"8299"};
  for (std::int64_t pid = 8000; pid < 8299; ++pid) chain.listing->push_back(std::to_string(pid));
  Verdict d = Resolve(chain, FakeHost::TypicalRequest());
  EXPECT_EQ(d.status, Status::kDepthBound) << d.detail;
  EXPECT_EQ(d.subject_pid, 8299);
}

}  // namespace
}  // namespace proctape
