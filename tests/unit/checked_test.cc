// SPDX-License-Identifier: Apache-2.0
// Checked arithmetic on integers taken from a file or a request
// (`docs/format.md`, "The frame model's work": every sum or difference of
// recorded times saturates; signed overflow would be UB). The
// helpers of core/checked.h at the ends of the range, then every site that
// does arithmetic on a recorded time, fed INT64_MIN and INT64_MAX: each gives
// the documented saturated value (and UBSan, in a -DPROCTAPE_SANITIZE=ON
// build, stays silent).
#include "core/checked.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "analyze/explain.h"
#include "analyze/show.h"
#include "core/resolver.h"
#include "replay/frame_evidence.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(Checked, AddSubMulAtTheEndsOfTheRange) {
  EXPECT_EQ(CheckedAdd(kMax, std::int64_t{0}), kMax);
  EXPECT_EQ(CheckedAdd(kMax, std::int64_t{1}), std::nullopt);
  EXPECT_EQ(CheckedAdd(kMin, std::int64_t{-1}), std::nullopt);
  EXPECT_EQ(CheckedSub(std::int64_t{0}, kMin), std::nullopt);
  EXPECT_EQ(CheckedSub(kMax, kMin), std::nullopt);
  EXPECT_EQ(CheckedSub(kMin, kMin), 0);
  EXPECT_EQ(CheckedMul(kMin, std::int64_t{-1}), std::nullopt);
  EXPECT_EQ(CheckedMul(kMax, std::int64_t{1}), kMax);
  EXPECT_EQ(CheckedAdd(UINT64_MAX, std::uint64_t{1}), std::nullopt);
}

TEST(Checked, SaturatingResultsAreTheNearestEnd) {
  EXPECT_EQ(SaturatingAdd(kMax, kMax), kMax);
  EXPECT_EQ(SaturatingAdd(kMin, kMin), kMin);
  EXPECT_EQ(SaturatingAdd(kMin, kMax), -1);
  EXPECT_EQ(SaturatingSub(std::int64_t{0}, kMin), kMax);
  EXPECT_EQ(SaturatingSub(kMin, kMax), kMin);
  EXPECT_EQ(SaturatingSub(kMax, kMin), kMax);
  EXPECT_EQ(SaturatingMul(kMin, std::int64_t{-1}), kMax);
  EXPECT_EQ(SaturatingMul(kMax, std::int64_t{-2}), kMin);
  EXPECT_EQ(SaturatingMul(std::int64_t{1'000'000}, std::int64_t{1'000'000}), 1'000'000'000'000);
}

TEST(Checked, ElapsedIsNeverNegativeAndSaturates) {
  EXPECT_EQ(ElapsedNs(kMin, kMax), kMax);
  EXPECT_EQ(ElapsedNs(kMax, kMin), 0);
  EXPECT_EQ(ElapsedNs(-5, 5), 10);
  EXPECT_EQ(ElapsedNs(kMin, kMin), 0);
}

// show (and its JSON): a capture or a frame whose recorded start is INT64_MIN
// and end INT64_MAX lasted the longest time an int64 holds, not 0 or -1.
TEST(CheckedSites, ShowSpanOfTheWholeRangeSaturates) {
  EXPECT_EQ(Span(kMin, kMax), kMax);
  EXPECT_EQ(Span(kMax, kMin), 0);
  EXPECT_EQ(Span(0, kMin), 0);
  EXPECT_EQ(Span(-1, kMax), kMax);
}

// The frame model's clock advances by a frame's scan duration: with a scan
// from INT64_MIN to INT64_MAX it saturates at INT64_MAX (never wraps back).
TEST(CheckedSites, FrameModelClockSaturatesOnAnAbsurdScanDuration) {
  std::vector<v1::Frame> frames(1);
  frames[0].set_complete(true);
  frames[0].set_scan_start_mono_ns(kMin);
  frames[0].set_scan_end_mono_ns(kMax);
  FrameEvidence ev(frames, 0);
  ev.ListPids(10);
  EXPECT_EQ(ev.NowNs(), kMax);
  ev.ListPids(10);
  EXPECT_EQ(ev.NowNs(), kMax);
}

// The resolver's deadline check: a clock starting at INT64_MIN and jumping to
// INT64_MAX (a tape says so) is past the deadline by the most an int64 holds.
TEST(CheckedSites, ResolverDeadlineFromTheEndsOfTheClock) {
  test::FakeHost host;
  host.Remove(test::kSleep);
  host.now_ns = kMin;
  host.on_sleep = [](MemoryEvidence& ev) { ev.now_ns = kMax; };
  Verdict v = Resolve(host, test::FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
  EXPECT_NE(v.detail.find("the deadline passed"), std::string::npos) << v.detail;
  EXPECT_EQ(v.detail.find("passed -"), std::string::npos) << v.detail;
}

// explain's attempt offsets: a check whose clock starts at INT64_MIN and whose
// second attempt starts at INT64_MAX is told at a positive, saturated offset.
TEST(CheckedSites, ExplainAttemptOffsetsSaturate) {
  test::FakeHost host;
  host.Remove(test::kSleep);
  host.now_ns = kMin;
  host.on_sleep = [](MemoryEvidence& ev) { ev.now_ns = kMax - 1; };
  test::ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("check.ptape");
  test::Recorded recorded = test::RecordResolution(host, test::FakeHost::TypicalRequest(), path);
  ASSERT_TRUE(recorded.ok) << recorded.error;
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(path, &snap).ok());
  ASSERT_EQ(snap.resolutions.size(), 1u);
  v1::ExplainCheck check = ExplainRecordedCheck(snap, 0);
  ASSERT_EQ(check.attempts_size(), 2);
  EXPECT_EQ(check.attempts(0).start_offset_ns(), 0);
  EXPECT_EQ(check.attempts(1).start_offset_ns(), static_cast<double>(kMax));
  EXPECT_GT(check.attempts(0).next_offset_ns(), 0);
}

}  // namespace
}  // namespace proctape
