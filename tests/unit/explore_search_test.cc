// SPDX-License-Identifier: Apache-2.0
// explore/oracle.h on hand-made histories (a right and a wrong verdict),
// explore/search.h with the real resolver and with a test-only wrong one,
// and a counterexample written by explore/counterexample.h that replay
// reproduces and `corpus add` accepts.
#include <gtest/gtest.h>

#include "corpus/corpus.h"
#include "explore/counterexample.h"
#include "explore/oracle.h"
#include "explore/search.h"
#include "format/reader.h"
#include "replay/replay.h"
#include "tests/unit/explore_recording.h"

namespace proctape::explore {
namespace {

using test::ExploreHost;
using test::ExploreRecording;

Verdict ResolvedSleep() {
  Verdict v;
  v.status = Status::kResolved;
  v.pid = ExploreHost::kSleep;
  v.start_ticks = ExploreHost::kSleepStart;
  return v;
}

TEST(ExploreOracle, ResolvedIsRightOnTheIntactHost) {
  ExploreHost h;
  Judgement j = JudgeResolution(TruthAt(h.Context(), {}, 5), h.request, ExploreHost::kRootStart,
                                ResolvedSleep(), true);
  EXPECT_FALSE(j.violation) << j.why;
}

TEST(ExploreOracle, ResolvedAfterTheSleepsPidWasReusedIsAViolation) {
  ExploreHost h;
  History reused{{3, {EventKind::kReuseArgv, ExploreHost::kSleep}}};
  // At a final re-read after the reuse: another process holds the pid.
  Judgement j = JudgeResolution(TruthAt(h.Context(), reused, 4), h.request, ExploreHost::kRootStart,
                                ResolvedSleep(), true);
  EXPECT_TRUE(j.violation);
  EXPECT_NE(j.why.find("started at tick"), std::string::npos) << j.why;
  // Before it (the resolver decided first): right.
  j = JudgeResolution(TruthAt(h.Context(), reused, 2), h.request, ExploreHost::kRootStart,
                      ResolvedSleep(), true);
  EXPECT_FALSE(j.violation) << j.why;
}

TEST(ExploreOracle, EveryFailClosedVerdictIsRight) {
  ExploreHost h;
  History gone{{0, {EventKind::kGone, ExploreHost::kRoot}}};
  Verdict v;
  v.status = Status::kNoMatch;
  EXPECT_FALSE(
      JudgeResolution(TruthAt(h.Context(), gone, 0), h.request, ExploreHost::kRootStart, v, false)
          .violation);
  History restarted{{0, {EventKind::kRootRestart, ExploreHost::kRoot}}};
  EXPECT_TRUE(JudgeResolution(TruthAt(h.Context(), restarted, 0), h.request,
                              ExploreHost::kRootStart, ResolvedSleep(), true)
                  .violation);
}

// Every read of the resolved pid since the listing was of that process: a
// resolver that never re-read its stat read another process's cmdline.
TEST(ExploreOracle, ResolvedOnAReadOfAnotherProcessIsAViolation) {
  ExploreHost h;
  History reused{{3, {EventKind::kReuseToken, ExploreHost::kSleep}}};
  PidReads reads;
  reads.listing = 0;
  reads.points = {1, 4};  // its stat in the scan, then its cmdline
  reads.last_stat = 1;
  Judgement j = JudgeResolutionRun(h.Context(), reused, h.request, ExploreHost::kRootStart,
                                   ResolvedSleep(), reads);
  EXPECT_TRUE(j.violation);
  EXPECT_NE(j.why.find("at call 4"), std::string::npos) << j.why;
  reads.points = {1, 2};  // every read before the reuse
  j = JudgeResolutionRun(h.Context(), reused, h.request, ExploreHost::kRootStart, ResolvedSleep(),
                         reads);
  EXPECT_FALSE(j.violation) << j.why;
}

// `docs/resolver.md`, "The eight steps", step 6, "Exactly one match": a second
// match present at the listing and still matching at the final re-read makes
// RESOLVED wrong; one that appeared after the listing, or died before the
// re-read, does not.
TEST(ExploreOracle, ResolvedWhenASecondMatchWasListedIsAViolation) {
  ExploreHost h;
  PidReads reads;
  reads.listing = 1;
  reads.points = {2, 9};
  reads.last_stat = 9;
  const Event second{EventKind::kSecondMatch, ExploreHost::kSleep};
  Judgement j = JudgeResolutionRun(h.Context(), {{0, second}}, h.request, ExploreHost::kRootStart,
                                   ResolvedSleep(), reads);
  EXPECT_TRUE(j.violation);
  EXPECT_NE(j.why.find("matched as well"), std::string::npos) << j.why;
  j = JudgeResolutionRun(h.Context(), {{5, second}}, h.request, ExploreHost::kRootStart,
                         ResolvedSleep(), reads);
  EXPECT_FALSE(j.violation) << j.why;
  const std::int64_t added = ExploreHost::kSleep + 1;  // the next pid
  j = JudgeResolutionRun(h.Context(), {{0, second}, {4, {EventKind::kExit, added}}}, h.request,
                         ExploreHost::kRootStart, ResolvedSleep(), reads);
  EXPECT_FALSE(j.violation) << j.why;
}

TEST(ExploreOracle, AliveOnlyForTheLiveProcessOfThatStartTick) {
  ExploreHost h;
  LivenessVerdict alive;
  alive.status = LivenessStatus::kAlive;
  EXPECT_FALSE(
      JudgeLiveness(h.model, ExploreHost::kSleep, ExploreHost::kSleepStart, alive).violation);
  History exited{{0, {EventKind::kExit, ExploreHost::kSleep}}};
  EXPECT_TRUE(JudgeLiveness(TruthAt(h.Context(), exited, 0), ExploreHost::kSleep,
                            ExploreHost::kSleepStart, alive)
                  .violation);
  LivenessVerdict dead;
  dead.status = LivenessStatus::kDead;
  EXPECT_FALSE(JudgeLiveness(TruthAt(h.Context(), exited, 0), ExploreHost::kSleep,
                             ExploreHost::kSleepStart, dead)
                   .violation);
}

// Test-only wrong resolver: the real one, but any failure becomes RESOLVED
// of the pid it read last (what a resolver that skipped its checks says).
Verdict Overconfident(Evidence& ev, const Request& r) {
  Verdict v = Resolve(ev, r);
  if (v.resolved()) return v;
  return ResolvedSleep();
}

TEST(ExploreSearch, TheRealResolverHasNoViolationInFiveThousandHistories) {
  ExploreHost h;
  ExploreRecording rec(h);
  Failure error;
  auto setup = explore::SetUp(rec.snapshot, 0, &error);
  ASSERT_TRUE(setup) << error.message;
  SearchOptions o;
  o.budget = 5000;  // every single event and the first pairs
  SearchReport r = Search(*setup, o);
  EXPECT_TRUE(r.baseline.verdict.resolved());
  EXPECT_GT(r.points, 10u);
  EXPECT_GT(r.run, 100u);
  EXPECT_GT(r.pruned, 0u);
  EXPECT_EQ(r.violation_count, 0u) << (r.violations.empty() ? "" : r.violations[0].why);
  // Deterministic: the same numbers again.
  SearchReport again = Search(*setup, o);
  EXPECT_EQ(again.run, r.run);
  EXPECT_EQ(again.pruned, r.pruned);
  EXPECT_EQ(again.by_kind, r.by_kind);
}

TEST(ExploreSearch, AWrongResolverIsCaughtAndItsCounterexampleReplays) {
  ExploreHost h;
  ExploreRecording rec(h);
  Failure error;
  auto setup = explore::SetUp(rec.snapshot, 0, &error);
  ASSERT_TRUE(setup) << error.message;
  SearchOptions o;
  o.depth = 1;
  o.checker.resolve = Overconfident;
  SearchReport r = Search(*setup, o);
  ASSERT_GT(r.violation_count, 0u);
  const Violation& v = r.violations.front();
  ASSERT_EQ(v.history.size(), 1u);

  // Written with the wrong resolver, the file holds its RESOLVED; the real
  // resolver replaying the same tape fails closed (a changed verdict).
  const std::string wrong = rec.dir.File("wrong.ptape");
  ASSERT_EQ(WriteCounterexample(wrong, rec.snapshot, "rec.ptape", *setup, v.history,
                                Checker{Overconfident, {}}),
            "");
  Snapshot w;
  ASSERT_TRUE(ReadSnapshot(wrong, &w).ok());
  v1::ReplayResult replayed = ReplayResolution(w, 0, {});
  EXPECT_NE(replayed.replayed().status(), v1::Verdict::RESOLVED);

  // Written with the real resolver, replay reproduces it, and the corpus takes it.
  const std::string right = rec.dir.File("right.ptape");
  ASSERT_EQ(WriteCounterexample(right, rec.snapshot, "rec.ptape", *setup, v.history, {}), "");
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(right, &s).ok());
  EXPECT_EQ(s.header.command_line(1), "explore");
  EXPECT_EQ(s.header.command_line(s.header.command_line_size() - 1), Describe(v.history[0]));
  EXPECT_EQ(ReplayResolution(s, 0, {}).outcome(), v1::ReplayResult::REPRODUCED);
  AddRequest add;
  add.file = right;
  add.dir = rec.dir.File("corpus");
  add.name = "explored";
  add.note = "derived by explore";
  AddOutcome added = AddToCorpus(add);
  EXPECT_EQ(added.kind, AddOutcome::Kind::kAdded) << added.message;
}

TEST(ExploreSearch, TheBudgetCapsRunsAndASeedOnlyReorders) {
  ExploreHost h;
  ExploreRecording rec(h);
  Failure error;
  auto setup = explore::SetUp(rec.snapshot, 0, &error);
  ASSERT_TRUE(setup);
  SearchOptions o;
  o.depth = 2;
  o.budget = 50;
  SearchReport r = Search(*setup, o);
  // Started: run, stopped as pruned at a key, or not applicable (histories
  // pruned without a run are not started).
  EXPECT_LE(r.run + r.not_applicable, 50u);
  EXPECT_GT(r.left, 0u);
  SearchOptions all;
  all.depth = 1;
  SearchOptions seeded = all;
  seeded.seed = 7;
  SearchReport a = Search(*setup, all);
  SearchReport b = Search(*setup, seeded);
  EXPECT_EQ(a.run + a.pruned + a.not_applicable, b.run + b.pruned + b.not_applicable);
}

}  // namespace
}  // namespace proctape::explore
