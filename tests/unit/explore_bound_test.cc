// SPDX-License-Identifier: Apache-2.0
// The bound of a whole explore or minimize run (explore/bound.h;
// docs/explore.md, "Bounds of a whole run"): runs and steps counted across
// checks, the time read from a clock the test gives, each reached bound
// named; a search or a reduction it ends says so and keeps what it found.
#include <gtest/gtest.h>

#include "explore/bound.h"
#include "explore/minimize.h"
#include "explore/search.h"
#include "tests/unit/explore_recording.h"

namespace proctape::explore {
namespace {

using test::ExploreHost;
using test::ExploreRecording;

TEST(ExploreBound, EachBoundIsReachedByItsOwnCountAndStaysReached) {
  RunLimits limits;
  limits.runs = 3;
  limits.steps = 100;
  limits.time_s = 0;
  RunBound runs(limits);
  runs.Run();
  runs.Run();
  EXPECT_FALSE(runs.Spent());
  runs.Run();
  EXPECT_TRUE(runs.Spent());
  EXPECT_EQ(runs.stop(), Stop::kRuns);
  EXPECT_EQ(StopText(runs.stop(), limits), "the total budget of 3 runs");
  EXPECT_EQ(StopWord(runs.stop(), limits), "total budget");

  RunBound steps(limits);
  steps.Steps(99);
  EXPECT_FALSE(steps.Spent());
  steps.Steps(1);
  EXPECT_TRUE(steps.Spent());
  steps.Run();
  steps.Run();
  steps.Run();
  EXPECT_EQ(steps.stop(), Stop::kSteps);  // the first bound reached is the one named
  EXPECT_EQ(StopText(steps.stop(), limits), "the work budget of 100 steps");
}

// A budget of one is said in the singular: counts are said right
// (docs/cli.md, "4. Help and text that fit a person").
TEST(ExploreBound, ABudgetOfOneIsSaidInTheSingular) {
  RunLimits one;
  one.runs = 1;
  one.steps = 1;
  EXPECT_EQ(StopText(Stop::kRuns, one), "the total budget of 1 run");
  EXPECT_EQ(StopText(Stop::kSteps, one), "the work budget of 1 step");
}

TEST(ExploreBound, TheTimeLimitIsReadFromTheClockAndZeroMeansNone) {
  RunLimits limits;
  limits.time_s = 2;
  std::uint64_t ms = 0;
  RunBound timed(limits, [&] { return ms; });
  EXPECT_FALSE(timed.Spent());
  ms = 2000;
  // Read every 64th question: the first after it is the 64th.
  int asked = 1;
  while (!timed.Spent()) ++asked;
  EXPECT_EQ(asked, 64);
  EXPECT_EQ(timed.stop(), Stop::kTime);
  EXPECT_EQ(StopText(timed.stop(), limits), "the time limit of 2 s");

  limits.time_s = 0;
  RunBound untimed(limits, [] { return std::uint64_t{1} << 40; });
  for (int i = 0; i < 200; ++i) EXPECT_FALSE(untimed.Spent());
}

TEST(ExploreBound, TheWholeRunsBoundEndsASearchAsItsBudgetDoesAndTheNextCheckBeginsNothing) {
  ExploreHost h;
  ExploreRecording rec(h);
  Failure error;
  auto setup = explore::SetUp(rec.snapshot, 0, &error);
  ASSERT_TRUE(setup) << error.message;
  RunLimits limits;
  limits.runs = 40;
  limits.time_s = 0;
  RunBound bound(limits);
  SearchOptions o;
  o.bound = &bound;
  SearchReport first = Search(*setup, o);
  EXPECT_EQ(first.stopped, Stop::kRuns);
  EXPECT_EQ(first.budget_used, 40u);
  EXPECT_GT(first.left + first.unextended, 0u);
  EXPECT_EQ(bound.runs(), 40u);
  EXPECT_GT(bound.steps(), 40u);

  // The same search with its own budget of 40 and no bound: the same numbers,
  // but nothing says a bound of the whole run ended it.
  SearchOptions alone;
  alone.budget = 40;
  SearchReport budget = Search(*setup, alone);
  EXPECT_EQ(budget.stopped, Stop::kNone);
  EXPECT_EQ(budget.run, first.run);
  EXPECT_EQ(budget.left, first.left);
  EXPECT_EQ(budget.unextended, first.unextended);

  // A second check on the spent bound: its baseline, and every history left.
  SearchReport second = Search(*setup, o);
  EXPECT_EQ(second.stopped, Stop::kRuns);
  EXPECT_EQ(second.budget_used, 0u);
  EXPECT_EQ(second.run, 0u);
  EXPECT_GT(second.left, 0u);
  EXPECT_TRUE(second.baseline.verdict.resolved());
}

TEST(ExploreBound, AReductionEndedByTheBoundKeepsAHostThatHoldsTheVerdict) {
  ExploreHost h;
  ExploreRecording rec(h);
  Failure why;
  auto setup = explore::SetUp(rec.snapshot, 0, &why);
  ASSERT_TRUE(setup) << why.message;
  auto whole = Minimize(*setup, {}, {}, &why);
  ASSERT_TRUE(whole) << why.message;
  ASSERT_EQ(whole->stopped, Stop::kNone);

  RunLimits limits;
  limits.runs = 2;
  limits.time_s = 0;
  RunBound bound(limits);
  auto cut = Minimize(*setup, {}, {}, &why, &bound);
  ASSERT_TRUE(cut) << why.message;
  EXPECT_EQ(cut->stopped, Stop::kRuns);
  EXPECT_EQ(cut->runs, 2u);
  EXPECT_GT(cut->processes_after, whole->processes_after);
  // What it kept still gives the verdict: minimizing it again keeps it.
  auto again = Minimize(*cut->reduced, {}, {}, &why);
  ASSERT_TRUE(again) << why.message;
  EXPECT_EQ(again->target.verdict.pid, ExploreHost::kSleep);
  EXPECT_EQ(again->processes_after, whole->processes_after);
}

}  // namespace
}  // namespace proctape::explore
