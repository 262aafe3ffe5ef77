// SPDX-License-Identifier: Apache-2.0
// Replay (`docs/replay.md`) in time: replay of a file holding a 5 s retry
// loop returns in well under a second of real time: the clock is the
// recorded one, sleeping is virtual (`docs/architecture.md`, "The one idea").
#include "replay/replay.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>

#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"
#include "tests/unit/resolver_fixture.h"  // kAttemptsIn5s

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// Sleeping is virtual: the replay does not wait out the 5 s the loop took
// when recorded. (How fast it is: bench/, BENCHMARKS.md.)
TEST(ReplayTime, FiveSecondRetryLoopReplaysWithoutWaitingItOut) {
  ReplayTempDir dir;
  FakeHost host;
  host.Remove(kSleep);
  std::string path = dir.File("no-match.ptape");
  Recorded rec = RecordResolution(host, FakeHost::TypicalRequest(), path);
  ASSERT_TRUE(rec.ok) << rec.error;
  ASSERT_EQ(rec.verdict.status, Status::kNoMatch);
  ASSERT_EQ(rec.verdict.attempts, kAttemptsIn5s);
  Snapshot snap = ReadBack(path);
  // The tape spans the 5 s of the loop, 50 retry sleeps included.
  const v1::Resolution& res = snap.resolutions[0];
  EXPECT_EQ(res.end_mono_ns() - res.start_mono_ns(), 5'000'000'000);
  EXPECT_EQ(std::count_if(snap.observations.begin(), snap.observations.end(),
                          [](const v1::Observation& o) { return o.has_sleep_until(); }),
            50);

  auto started = std::chrono::steady_clock::now();
  v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_EQ(r.replayed().attempts(), kAttemptsIn5s);
  EXPECT_EQ(r.consumed(), snap.observations.size());
  EXPECT_LT(took, std::chrono::seconds(5))
      << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
}

}  // namespace
}  // namespace proctape
