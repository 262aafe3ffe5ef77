// SPDX-License-Identifier: Apache-2.0
// explore/explore_recording.h and explore/explore_report.h on the fixture
// host's recording: the checks explored, the files --out would write, the
// text and JSON said, and the refusal of a check with no frame to model.
#include <gtest/gtest.h>

#include <string>

#include "explore/explore_recording.h"
#include "explore/explore_report.h"
#include "tests/unit/explore_recording.h"

namespace proctape::explore {
namespace {

using test::ExploreHost;

ExploreRequest SmallRequest() {
  ExploreRequest request;
  request.file = "dir/rec.ptape";
  request.depth = 1;
  request.budget = 50;
  return request;
}

TEST(ExploreRecordingRun, ExploresTheRecordedCheckAndSaysIt) {
  ExploreHost h;
  test::ExploreRecording rec(h);
  std::vector<std::string> lines;
  Failure failure;
  std::optional<ExploreRun> run = ExploreRecording(
      rec.snapshot, SmallRequest(), [&](const std::string& line) { lines.push_back(line); },
      &failure);
  ASSERT_TRUE(run) << failure.message;
  ASSERT_EQ(run->checks.size(), 1u);
  const ExploredCheck& c = run->checks[0];
  EXPECT_EQ(c.setup->index, 0u);
  EXPECT_FALSE(c.setup->liveness);
  EXPECT_GT(c.report.run, 0u);
  EXPECT_EQ(c.report.violation_count, 0u);  // the real resolver
  EXPECT_EQ(run->source_name, "rec.ptape");
  EXPECT_EQ(run->end.unexplored, 0u);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("check 0 (1 of 1): ", 0), 0u) << lines[0];
  EXPECT_TRUE(FoundFiles(*run).empty());  // no --out

  const std::string text = ExploreText(*run);
  EXPECT_EQ(text.rfind("explore dir/rec.ptape: depth 1, budget 50 runs per check\n", 0), 0u)
      << text;
  EXPECT_NE(text.find("check 0 (resolve) on frame 1: baseline RESOLVED host pid 102"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\ntotal: "), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
  const std::string json = ExploreJson(*run);
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '\n');
  EXPECT_NE(json.find("rec.ptape"), std::string::npos) << json;
  EXPECT_EQ(Totals(run->checks).run, c.report.run);
}

TEST(ExploreRecordingRun, NamesTheExamplesItWouldWriteUnderOut) {
  ExploreHost h;
  test::ExploreRecording rec(h);
  ExploreRequest request = SmallRequest();
  request.out = "found";
  request.examples = 1;
  Failure failure;
  std::optional<ExploreRun> run = ExploreRecording(rec.snapshot, request, {}, &failure);
  ASSERT_TRUE(run) << failure.message;
  const std::vector<FoundFile> found = FoundFiles(*run);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].path.rfind("found/rec-check0-", 0), 0u) << found[0].path;
  EXPECT_EQ(found[0].setup, run->checks[0].setup.get());
  EXPECT_EQ(Totals(run->checks).written, 1u);
  EXPECT_NE(ExploreText(*run).find("; 1 written to found\n"), std::string::npos);
}

TEST(ExploreRecordingRun, ACheckWithoutAFrameIsAUsageFailure) {
  ExploreHost h;
  test::ExploreRecording rec(h);
  rec.snapshot.frames.clear();
  Failure failure;
  EXPECT_FALSE(ExploreRecording(rec.snapshot, SmallRequest(), {}, &failure));
  EXPECT_EQ(failure.kind, FailureKind::kUsage);
  EXPECT_EQ(failure.message.rfind("dir/rec.ptape: check 0: ", 0), 0u) << failure.message;
}

TEST(ExploreRecordingRun, TheRunBoundLeavesChecksUnexplored) {
  ExploreHost h;
  test::ExploreRecording rec(h);
  rec.snapshot.resolutions.push_back(rec.snapshot.resolutions[0]);
  ExploreRequest request = SmallRequest();
  request.limits.runs = 1;
  Failure failure;
  std::optional<ExploreRun> run = ExploreRecording(rec.snapshot, request, {}, &failure);
  ASSERT_TRUE(run) << failure.message;
  EXPECT_EQ(run->checks.size(), 1u);
  EXPECT_EQ(run->end.unexplored, 1u);
  EXPECT_EQ(run->end.first_unexplored, 1u);
  EXPECT_EQ(run->end.stop, Stop::kRuns);
  EXPECT_NE(ExploreText(*run).find("unexplored: 1 check (check 1), not begun: the total budget "
                                   "of 1 run was reached\n"),
            std::string::npos);
}

}  // namespace
}  // namespace proctape::explore
