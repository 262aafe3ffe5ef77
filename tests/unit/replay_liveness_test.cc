// SPDX-License-Identifier: Apache-2.0
// Replay (`docs/replay.md`) of the liveness check: ALIVE, DEAD and ERROR,
// recorded on the in-memory host of fake_host.h (tests/unit/replay_fixture.h)
// and reproduced from the tape, twice alike; an altered answer is another
// verdict.
#include "replay/replay.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "proto/convert.h"
#include "proto/summary.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens
using google::protobuf::util::MessageDifferencer;

// ---------------------------------------------------------------------------
// Liveness: ALIVE, DEAD, ERROR

struct LivenessScenario {
  const char* name;
  LivenessStatus status;
  Status reason;  // for kError
  std::int64_t pid;
  std::uint64_t start;
  std::function<void(FakeHost&)> setup;
};

std::vector<LivenessScenario> LivenessScenarios() {
  return {
      {"Alive", LivenessStatus::kAlive, Status::kUnreadable, kSleep, kSleepStart, [](FakeHost&) {}},
      {"DeadGone", LivenessStatus::kDead, Status::kUnreadable, kSleep, kSleepStart,
       [](FakeHost& h) { h.Remove(kSleep); }},
      {"DeadExitedMidRead", LivenessStatus::kDead, Status::kUnreadable, kSleep, kSleepStart,
       [](FakeHost& h) { h.SetFileError(kSleep, ProcFile::kStat, ESRCH); }},
      {"DeadZombie", LivenessStatus::kDead, Status::kUnreadable, kSleep, kSleepStart,
       [](FakeHost& h) { h.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, 'Z'); }},
      {"ErrorPidReused", LivenessStatus::kError, Status::kPidReused, kSleep, kSleepStart + 1,
       [](FakeHost&) {}},
      {"ErrorMalformed", LivenessStatus::kError, Status::kMalformedRecord, kSleep, kSleepStart,
       [](FakeHost& h) { h.SetFile(kSleep, ProcFile::kStat, "4103 (sleep S 4102\n"); }},
      {"ErrorUnreadable", LivenessStatus::kError, Status::kUnreadable, kSleep, kSleepStart,
       [](FakeHost& h) { h.SetFileError(kSleep, ProcFile::kStat, EACCES); }},
  };
}

void PrintTo(const LivenessScenario& s, std::ostream* os) { *os << s.name; }

class ReplayEveryLiveness : public ::testing::TestWithParam<LivenessScenario> {};

TEST_P(ReplayEveryLiveness, RecordedFileReproducesItsVerdict) {
  const LivenessScenario& s = GetParam();
  ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  FakeHost host;
  s.setup(host);
  std::string path = dir.File(std::string(s.name) + ".ptape");
  RecordOptions options;
  options.frames = true;
  Recorded rec = RecordLivenessCheck(host, s.pid, s.start, path, options);
  ASSERT_TRUE(rec.ok) << rec.error;
  ASSERT_EQ(rec.liveness.status, s.status) << rec.liveness.detail;
  if (s.status == LivenessStatus::kError) {
    ASSERT_EQ(rec.liveness.reason, s.reason);
  }
  EXPECT_EQ(rec.observations, 1u);  // one stat read, nothing else

  Snapshot snap = ReadBack(path);
  ASSERT_EQ(snap.resolutions.size(), 1u);
  EXPECT_EQ(snap.frames.size(), 2u);
  v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_TRUE(r.has_replayed_liveness());
  EXPECT_FALSE(r.has_replayed());
  EXPECT_EQ(static_cast<int>(r.replayed_liveness().status()), static_cast<int>(s.status));
  EXPECT_TRUE(MessageDifferencer::Equals(r.replayed_liveness(), ToProto(rec.liveness))) << Why(r);
  EXPECT_EQ(r.consumed(), 1u);
  EXPECT_EQ(r.recorded_count(), 1u);

  // Its boot said once (none was given), then the verdict and what it found.
  std::string head = "resolution 0 (liveness, boot not checked): REPRODUCED ";
  head.append(LivenessName(s.status));
  if (s.status == LivenessStatus::kError) head.append(" ").append(StatusName(s.reason));
  head += ": " + r.replayed_liveness().detail();
  ASSERT_FALSE(r.replayed_liveness().detail().empty());
  EXPECT_EQ(DescribeReplay(r), head + " (1 of 1 observation)\n");

  Snapshot again = ReadBack(path);
  v1::ReplayResult r2 = ReplayResolution(again, 0, RequestOverrides{});
  EXPECT_EQ(DescribeReplay(r2), DescribeReplay(r));
  EXPECT_EQ(ToJson(r2), ToJson(r));
}

INSTANTIATE_TEST_SUITE_P(ReplayStatuses, ReplayEveryLiveness,
                         ::testing::ValuesIn(LivenessScenarios()),
                         [](const ::testing::TestParamInfo<LivenessScenario>& p) {
                           return std::string(p.param.name);
                         });

// The typical host's sleep checked ALIVE (no boot given), recorded in `dir`
// and read back.
Snapshot RecordedAlive(const ReplayTempDir& dir) {
  FakeHost host;
  const std::string path = dir.File("alive.ptape");
  EXPECT_TRUE(RecordLivenessCheck(host, kSleep, kSleepStart, path).ok);
  return ReadBack(path);
}

// A liveness tape whose stat answer is altered: the same single call, another
// decision.
TEST(ReplayLiveness, AlteredStatResultIsVerdictChanged) {
  ReplayTempDir dir;
  Snapshot snap = RecordedAlive(dir);
  ASSERT_EQ(snap.observations.size(), 1u);
  snap.observations[0].mutable_read_file()->mutable_result()->set_data(
      MemoryEvidence::StatLine(kSleep, "sleep", 'Z', kSandboxShell, kSleepStart));
  v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(r);
  EXPECT_EQ(r.recorded_liveness().status(), v1::LivenessVerdict::ALIVE);
  EXPECT_EQ(r.replayed_liveness().status(), v1::LivenessVerdict::DEAD);
  EXPECT_EQ(r.consumed(), 1u);
  EXPECT_EQ(DescribeReplay(r),
            "resolution 0 (liveness, boot not checked): VERDICT CHANGED: recorded ALIVE: "
            "pid 4103 in state S started at tick 510003; now DEAD: pid 4103 in state Z "
            "started at tick 510003 (1 of 1 observation)\n");

  // Another pid asked of the tape: DIVERGED at 0.
  snap.resolutions[0].mutable_liveness()->set_pid(kSleep + 1);
  v1::ReplayResult d = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(d.outcome(), v1::ReplayResult::DIVERGED) << Why(d);
  EXPECT_EQ(d.divergence_index(), 0u);
  EXPECT_EQ(d.recorded_call(), "ReadFile(pid 4103, stat, bound 4096)");
  EXPECT_EQ(d.made_call(), "ReadFile(pid 4104, stat, bound 4096)");
}

// docs/resolver.md, "Liveness": boot_unchecked is how the identity's boot
// was known (its request's boot_id), not what was decided. The replay sets
// it from the request and does not compare it: a check recorded with its
// boot, without one, or before the flag existed reproduces, and says which.
TEST(ReplayLiveness, BootUncheckedIsDerivedFromTheRequestAndNotCompared) {
  ReplayTempDir dir;
  Snapshot snap = RecordedAlive(dir);
  ASSERT_TRUE(snap.resolutions[0].liveness().boot_id().empty());
  ASSERT_TRUE(snap.resolutions[0].liveness_verdict().boot_unchecked());
  v1::ReplayResult unchecked = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(unchecked.outcome(), v1::ReplayResult::REPRODUCED) << Why(unchecked);
  EXPECT_TRUE(unchecked.replayed_liveness().boot_unchecked());

  Snapshot checked = snap;
  checked.resolutions[0].mutable_liveness()->set_boot_id(snap.header.host().boot_id());
  checked.resolutions[0].mutable_liveness_verdict()->set_boot_unchecked(false);
  v1::ReplayResult c = ReplayResolution(checked, 0, RequestOverrides{});
  EXPECT_EQ(c.outcome(), v1::ReplayResult::REPRODUCED) << Why(c);
  EXPECT_FALSE(c.replayed_liveness().boot_unchecked());

  Snapshot before_the_flag = snap;
  before_the_flag.resolutions[0].mutable_liveness_verdict()->clear_boot_unchecked();
  v1::ReplayResult old = ReplayResolution(before_the_flag, 0, RequestOverrides{});
  EXPECT_EQ(old.outcome(), v1::ReplayResult::REPRODUCED) << Why(old);
  EXPECT_TRUE(old.replayed_liveness().boot_unchecked());
}

}  // namespace
}  // namespace proctape
