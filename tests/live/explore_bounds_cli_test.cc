// SPDX-License-Identifier: Apache-2.0
// The bounds of a whole `explore` and `minimize` run from the command line
// (docs/explore.md, "Bounds of a whole run"): files of hostile shapes
// (tests/shapes/shape_file.h, generated here) end by themselves within 512
// MiB of address space, and what a bound left is reported. Each command has
// a hang guard, not a measure: what is asserted is what the reports count.
// Before the bounds, a file of 65,536 checks explored every one of them and
// a 300-process star ran past a minute with the defaults; before the event
// context was built in one pass, minimize of a 60,000-process star took
// hours (a listing scan per process of every candidate).
#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "explore.pb.h"
#include "tests/live/files.h"
#include "tests/shapes/shape_file.h"

namespace proctape::live {
namespace {

constexpr int kHangGuardMs = 150'000;

template <typename M>
M Parsed(const CommandResult& r) {
  M message;
  auto status = google::protobuf::util::JsonStringToMessage(r.out, &message);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << r.out.substr(0, 2000);
  return message;
}

CommandResult Ended(const std::vector<std::string>& args, int status) {
  CommandResult r = ProctapeWithinAddressLimit(args, kHangGuardMs);
  EXPECT_TRUE(r.started) << r.error;
  EXPECT_FALSE(r.timed_out) << Shown(args);
  EXPECT_EQ(r.term_signal, 0) << Shown(args);
  EXPECT_EQ(r.exit_code, status) << Shown(args) << "\n" << r.err;
  return r;
}

TEST(ExploreBoundsCli, AFileOfManyChecksStopsAtTheTotalBudgetAndSaysWhichChecksWereLeft) {
  if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("explore-bounds");
  const std::string file = dir.path() + "/checks.ptape";
  std::string error;
  ASSERT_TRUE(shapes::WriteShapeFile(file, shapes::Shape::kStar, 3, &error, 65536)) << error;

  CommandResult json =
      Ended({"explore", file, "--depth", "1", "--total-budget", "1000", "--json"}, 0);
  const v1::ExploreReport report = Parsed<v1::ExploreReport>(json);
  ASSERT_GT(report.checks_size(), 0);
  EXPECT_LT(report.checks_size(), 1000);
  EXPECT_EQ(report.stopped_by(), "total budget");
  EXPECT_EQ(report.total_budget(), 1000u);
  EXPECT_EQ(report.runs_used(), 1000u);
  EXPECT_EQ(report.checks_size() + report.unexplored_checks(), 65536u);
  EXPECT_EQ(report.first_unexplored(), static_cast<std::uint32_t>(report.checks_size()));
  // The check under way when it was reached stopped as at its budget.
  const v1::ExploreCheck& last = report.checks(report.checks_size() - 1);
  EXPECT_EQ(last.stopped_by(), "total budget");
  EXPECT_GT(last.left() + last.unextended(), 0u);
  EXPECT_EQ(report.checks(0).stopped_by(), "");

  CommandResult text = Ended({"explore", file, "--depth", "1", "--total-budget", "1000"}, 0);
  const std::string line = "unexplored: " + std::to_string(report.unexplored_checks()) +
                           " checks (" + std::to_string(report.first_unexplored()) +
                           " to 65535), not begun: the total budget of 1000 runs was reached\n";
  EXPECT_TRUE(Has(text.out, line)) << text.out.substr(text.out.size() - 500);
  EXPECT_TRUE(Has(text.out, "(the total budget of 1000 runs was reached); violations: 0\n"));
}

TEST(ExploreBoundsCli, AThreeHundredProcessStarWithTheDefaultsEndsAndSaysWhatItLeft) {
  if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("explore-bounds");
  const std::string file = dir.path() + "/star.ptape";
  std::string error;
  ASSERT_TRUE(shapes::WriteShapeFile(file, shapes::Shape::kStar, 300, &error)) << error;
  CommandResult r = Ended({"explore", file, "--json"}, 0);
  const v1::ExploreReport report = Parsed<v1::ExploreReport>(r);
  ASSERT_EQ(report.checks_size(), 1);
  // The work budget ends it (or, on a machine slower than it assumes, the
  // time limit): either way it says so, and counts what it left.
  EXPECT_TRUE(report.stopped_by() == "work budget" || report.stopped_by() == "time limit")
      << report.stopped_by();
  EXPECT_EQ(report.checks(0).stopped_by(), report.stopped_by());
  EXPECT_GT(report.checks(0).left() + report.checks(0).unextended(), 0u);
  EXPECT_LT(report.checks(0).budget_used(), report.budget());
  if (report.stopped_by() == "work budget") {
    EXPECT_GE(report.work_used(), report.work_budget());
  }
}

TEST(ExploreBoundsCli, MinimizeOfSixtyThousandProcessesEnds) {
  if (const std::string why = AddressLimitUnavailable(); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("explore-bounds");
  for (shapes::Shape shape : {shapes::Shape::kStar, shapes::Shape::kChain}) {
    const std::string file = dir.path() + "/shape.ptape";
    std::string error;
    ASSERT_TRUE(shapes::WriteShapeFile(file, shape, 60'000, &error)) << error;
    CommandResult r =
        Ended({"minimize", file, "-o", dir.path() + "/min.ptape", "--force", "--json"}, 0);
    const v1::MinimizeReport report = Parsed<v1::MinimizeReport>(r);
    EXPECT_EQ(report.processes_before(), 60'002u);
    // The star keeps the root and the sleep; the chain the 256 links the
    // resolver walks before DEPTH_BOUND, its ends and the root.
    EXPECT_EQ(report.processes_after(), shape == shapes::Shape::kStar ? 2u : 258u);
    EXPECT_EQ(report.stopped_by(), "");
  }
}

TEST(ExploreBoundsCli, MinimizeStoppedByItsBudgetWritesWhatHoldsAndSaysSo) {
  TempDir dir("explore-bounds");
  const std::string file = dir.path() + "/star.ptape";
  std::string error;
  ASSERT_TRUE(shapes::WriteShapeFile(file, shapes::Shape::kStar, 300, &error)) << error;
  const std::string out = dir.path() + "/min.ptape";
  CommandResult json = Proctape({"minimize", file, "-o", out, "--budget", "10", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const v1::MinimizeReport report = Parsed<v1::MinimizeReport>(json);
  EXPECT_EQ(report.stopped_by(), "budget");
  EXPECT_EQ(report.runs(), 10u);
  EXPECT_EQ(report.budget(), 10u);
  EXPECT_GT(report.processes_after(), 2u);
  EXPECT_LT(report.processes_after(), report.processes_before());
  CommandResult replay = Proctape({"replay", out});
  EXPECT_EQ(replay.exit_code, 0) << replay.out << replay.err;
  EXPECT_TRUE(Has(replay.out, "REPRODUCED")) << replay.out;

  CommandResult text = Proctape({"minimize", file, "-o", out, "--force", "--budget", "10"});
  EXPECT_TRUE(Has(text.out,
                  "  stopped early: the budget of 10 runs was reached; the host kept "
                  "holds the verdict, a smaller one may too\n"))
      << text.out;
}

}  // namespace
}  // namespace proctape::live
