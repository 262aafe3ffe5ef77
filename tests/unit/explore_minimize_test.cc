// SPDX-License-Identifier: Apache-2.0
// explore/minimize.h on the fixture host: what it keeps and drops, a
// derived recording's events kept at their calls, the output that replay
// reproduces, and the refusal of a verdict the frame does not explain. Also
// events' lines read back (ParseDescribed), which minimize relies on.
#include <gtest/gtest.h>

#include "explore/counterexample.h"
#include "explore/minimize.h"
#include "explore/search.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proto/convert.h"
#include "replay/replay.h"
#include "tests/unit/explore_recording.h"

namespace proctape::explore {
namespace {

using test::ExploreHost;
using test::ExploreRecording;

TEST(ExploreEvents, EveryDescribedEventReadsBack) {
  for (int k = 0; k < kEventKinds; ++k) {
    const auto kind = static_cast<EventKind>(k);
    const bool clock = kind == EventKind::kTimeRetry || kind == EventKind::kTimeDeadline;
    const Scheduled s{17, {kind, clock ? 0 : 4103}};
    std::optional<Scheduled> back = ParseDescribed(Describe(s));
    ASSERT_TRUE(back) << Describe(s);
    EXPECT_EQ(back->point, s.point);
    EXPECT_EQ(back->event, s.event) << Describe(s);
  }
  EXPECT_FALSE(ParseDescribed("at call 3: pid 9 sings"));
  EXPECT_FALSE(ParseDescribed("no event (the baseline)"));
}

// Only what the verdict needs stays: the root, the shell between it and the
// sleep, the sleep; no outsider; no environ entry but the token's; every
// file of a process kept, with the bound it was read with.
TEST(ExploreMinimize, KeepsTheChainToTheMatchAndNothingElse) {
  ExploreHost h;
  ExploreRecording rec(h);
  Failure why;
  auto setup = explore::SetUp(rec.snapshot, 0, &why);
  ASSERT_TRUE(setup) << why.message;
  auto done = Minimize(*setup, {}, {}, &why);
  ASSERT_TRUE(done) << why.message;
  ASSERT_TRUE(done->target.verdict.resolved());
  EXPECT_EQ(done->target.verdict.pid, ExploreHost::kSleep);
  EXPECT_EQ(done->processes_before, 4u);
  EXPECT_EQ(done->processes_after, 3u);
  const HostModel& m = done->reduced->initial;
  EXPECT_EQ(m.Find(ExploreHost::kOutsider), nullptr);
  for (std::int64_t pid : {ExploreHost::kRoot, ExploreHost::kShell, ExploreHost::kSleep}) {
    ASSERT_NE(m.Find(pid), nullptr) << pid;
    EXPECT_TRUE(m.Find(pid)->stat) << pid;
    EXPECT_EQ(m.Find(pid)->bounds, setup->initial.Find(pid)->bounds) << pid;
  }
  EXPECT_EQ(m.Find(ExploreHost::kSleep)->environ->data,
            std::string("PROCTAPE_TOKEN=tok-123\0", 23));
  EXPECT_LT(done->calls_after, done->calls_before);
  EXPECT_GT(done->runs, 0u);
}

// A counterexample's events are read back from its header and kept at the
// same calls of the reduced run; the output replays as recorded.
TEST(ExploreMinimize, ADerivedRecordingKeepsItsEventsAndReplays) {
  ExploreHost h;
  ExploreRecording rec(h);
  Failure why;
  auto setup = explore::SetUp(rec.snapshot, 0, &why);
  ASSERT_TRUE(setup) << why.message;
  const History history{{6, {EventKind::kReuseToken, ExploreHost::kSleep}}};
  const std::string derived = rec.dir.File("derived.ptape");
  ASSERT_EQ(WriteCounterexample(derived, rec.snapshot, "rec.ptape", *setup, history, Checker{}),
            "");
  Snapshot d;
  ASSERT_TRUE(ReadSnapshot(derived, &d).ok());
  std::optional<History> back = DerivedHistory(d, &why);
  ASSERT_TRUE(back) << why.message;
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].event, history[0].event);

  auto from = explore::SetUp(d, 0, &why);
  ASSERT_TRUE(from) << why.message;
  auto done = Minimize(*from, *back, {}, &why);
  ASSERT_TRUE(done) << why.message;
  EXPECT_EQ(ToProto(done->target.verdict).status(), d.resolutions[0].verdict().status());
  EXPECT_LE(done->processes_after, 3u);
  ASSERT_EQ(done->history.size(), 1u);
  EXPECT_EQ(done->history[0].event, history[0].event);

  const std::string small = rec.dir.File("small.ptape");
  Failure failure;
  auto writer = SnapshotWriter::Create(small, {}, &failure);
  ASSERT_TRUE(writer) << failure.message;
  ASSERT_EQ(WriteDerived(*writer, "minimize", d, "derived.ptape", *done->reduced, done->history,
                         Checker{}),
            "");
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(small, &s).ok());
  EXPECT_EQ(s.header.command_line(1), "minimize");
  EXPECT_EQ(ReplayResolution(s, 0, {}).outcome(), v1::ReplayResult::REPRODUCED);
  EXPECT_EQ(s.resolutions[0].verdict().status(), d.resolutions[0].verdict().status());
  std::optional<History> kept = DerivedHistory(s, &why);
  ASSERT_TRUE(kept) << why.message;
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ((*kept)[0].point, done->history[0].point);
  EXPECT_EQ((*kept)[0].event, done->history[0].event);
}

TEST(ExploreMinimize, AVerdictTheFrameDoesNotGiveIsRefused) {
  ExploreHost h;
  ExploreRecording rec(h);
  rec.snapshot.resolutions[0].mutable_verdict()->set_status(v1::Verdict::NO_MATCH);
  Failure why;
  auto setup = explore::SetUp(rec.snapshot, 0, &why);
  ASSERT_TRUE(setup) << why.message;
  EXPECT_FALSE(Minimize(*setup, {}, {}, &why));
  EXPECT_NE(why.message.find("gives RESOLVED, not the recorded NO_MATCH"), std::string::npos)
      << why.message;
  EXPECT_EQ(why.kind, FailureKind::kVerdictChanged);
}

}  // namespace
}  // namespace proctape::explore
