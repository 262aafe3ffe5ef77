// SPDX-License-Identifier: Apache-2.0
// Watching with capture (`docs/architecture.md`, "Layers"): the absolute frame
// schedule (slots at start + k·interval, missed ones skipped and counted) and
// --until-exit's test of the root (cli/capture_watch.h).
#include "capture/capture_watch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/memory_evidence.h"

namespace proctape {
namespace {

constexpr std::int64_t kMs = 1'000'000;

TEST(FrameSchedule, FramesKeepTheirSlotsWhenOnTime) {
  FrameSchedule s(1000 * kMs, 10 * kMs);
  // Frame 1, asked for 2 ms after the start: slot 1.
  EXPECT_EQ(s.Next(1002 * kMs), 1010 * kMs);
  // Frame 2 asked for 3 ms late into slot 1 (a frame of 3 ms): slot 2, not
  // 3 ms after frame 1 began (no drift).
  EXPECT_EQ(s.Next(1013 * kMs), 1020 * kMs);
  // Asked a little after slot 3 began: slot 3, at once (its time has passed).
  EXPECT_EQ(s.Next(1031 * kMs), 1030 * kMs);
  EXPECT_EQ(s.missed(), 0u);
  EXPECT_EQ(s.slot(), 3u);
}

TEST(FrameSchedule, ASlotWhoseSuccessorHasBegunIsSkippedAndCounted) {
  FrameSchedule s(0, 10 * kMs);
  // Frame 0 took 35 ms: slots 1 and 2 are gone, slot 3 has begun.
  EXPECT_EQ(s.Next(35 * kMs), 30 * kMs);
  EXPECT_EQ(s.missed(), 2u);
  EXPECT_EQ(s.slot(), 3u);
  EXPECT_EQ(s.Next(36 * kMs), 40 * kMs);
  EXPECT_EQ(s.missed(), 2u);
}

TEST(FrameSchedule, IntervalZeroStartsEachFrameAtOnce) {
  FrameSchedule s(0, 0);
  EXPECT_EQ(s.Next(5), 5);
  EXPECT_EQ(s.Next(500 * kMs), 500 * kMs);
  EXPECT_EQ(s.missed(), 0u);
}

TEST(FrameSchedule, FarSlotsSaturate) {
  FrameSchedule s(INT64_MAX - 10, 86'400'000 * kMs);
  EXPECT_EQ(s.Next(0), INT64_MAX);
}

v1::ProcessRecord Record(std::int64_t pid, char state, std::uint64_t start_ticks) {
  v1::ProcessRecord r;
  r.set_pid(pid);
  r.mutable_stat()->set_data(MemoryEvidence::StatLine(pid, "sh", state, 1, start_ticks));
  return r;
}

TEST(RootWatch, RunningThenGoneZombieOrReused) {
  RootWatch w(42);
  w.BeginFrame();
  w.Observe(Record(7, 'S', 1));
  w.Observe(Record(42, 'S', 100));
  EXPECT_FALSE(w.Exited(true));
  // Missing from a frame: gone.
  w.BeginFrame();
  w.Observe(Record(7, 'S', 1));
  EXPECT_TRUE(w.Exited(false));
  // Found by the scan but its record not handed over (a bound cut the frame
  // first): nothing is known, it has not exited.
  w.BeginFrame();
  EXPECT_FALSE(w.Exited(true));
  // A zombie has exited (its parent has not reaped it yet).
  RootWatch zombie(42);
  zombie.BeginFrame();
  zombie.Observe(Record(42, 'R', 100));
  EXPECT_FALSE(zombie.Exited(true));
  zombie.BeginFrame();
  zombie.Observe(Record(42, 'Z', 100));
  EXPECT_TRUE(zombie.Exited(true));
  // The pid with another start tick is another process.
  RootWatch reused(42);
  reused.BeginFrame();
  reused.Observe(Record(42, 'S', 100));
  EXPECT_FALSE(reused.Exited(true));
  reused.BeginFrame();
  reused.Observe(Record(42, 'S', 101));
  EXPECT_TRUE(reused.Exited(true));
}

TEST(RootWatch, AnUnreadableStatDoesNotSayItExited) {
  RootWatch w(42);
  v1::ProcessRecord r;
  r.set_pid(42);
  r.mutable_stat()->set_err(13);
  w.BeginFrame();
  w.Observe(r);
  EXPECT_FALSE(w.Exited(true));
  r.mutable_stat()->set_err(0);
  r.mutable_stat()->set_data("42 (x");
  w.BeginFrame();
  w.Observe(r);
  EXPECT_FALSE(w.Exited(true));
}

}  // namespace
}  // namespace proctape
