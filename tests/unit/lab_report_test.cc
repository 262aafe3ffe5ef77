// SPDX-License-Identifier: Apache-2.0
// What `proctape lab` gives back (lab/report.h): the scenario list, a run's
// report masked, its text, and the failure each outcome is; and a run that
// is refused before any process is started.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "lab/report.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

lab::LabOptions Plain(const std::string& record) {
  lab::LabOptions options;
  options.scenario = "plain";
  options.record = record;
  return options;
}

lab::LabResult Staged(lab::LabOutcome outcome, const std::string& error = "") {
  lab::LabResult r;
  r.outcome = outcome;
  r.error = error;
  r.facts = {"the app-server: host pid 10"};
  r.started = {{10, 100, "app-server"}, {11, 101, "sandbox"}};
  return r;
}

TEST(LabReport, TheListNamesEveryScenarioInOrderWithin80Columns) {
  const v1::LabScenarioList list = lab::ScenarioList();
  ASSERT_EQ(static_cast<std::size_t>(list.scenarios_size()), lab::Scenarios().size());
  for (int i = 0; i < list.scenarios_size(); ++i) {
    EXPECT_EQ(list.scenarios(i).name(), lab::Scenarios()[static_cast<std::size_t>(i)].name);
  }
  const std::string text = lab::ScenarioListText();
  EXPECT_EQ(text.rfind("plain ", 0), 0u) << text;
  std::istringstream lines(text);
  std::size_t expects = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), 80u) << line;
    if (line.rfind(std::string(19, ' ') + "expect: ", 0) == 0) ++expects;
  }
  EXPECT_EQ(expects, lab::Scenarios().size());
}

TEST(LabReport, AShownRunIsNoFailureAndItsTextSaysTheRecordingAndTheCleanup) {
  const lab::LabOptions options = Plain("run.ptape");
  const lab::LabRun run = lab::ReportRun(options, Staged(lab::LabOutcome::kShown), "boot");
  EXPECT_FALSE(run.failure);
  EXPECT_TRUE(run.report.shown());
  EXPECT_EQ(run.report.scenario(), "plain");
  EXPECT_EQ(run.report.sandbox(), "unshare");
  ASSERT_EQ(run.report.started_size(), 2);
  EXPECT_EQ(run.report.started(1).role(), "sandbox");
  EXPECT_EQ(lab::ReportText(options, run),
            "lab plain (unshare sandbox)\n"
            "  the app-server: host pid 10\n"
            "recorded run.ptape: replay it with 'proctape replay run.ptape', see why with "
            "'proctape explain run.ptape'\n"
            "cleanup: ended the 2 processes the lab started (app-server 10, sandbox 11)\n");
}

// The failure of `result` when reported: its kind, message and whether it
// names the --record file.
void ExpectFailure(const lab::LabResult& result, FailureKind kind, const std::string& message,
                   bool about_record) {
  const lab::LabRun run = lab::ReportRun(Plain("run.ptape"), result, "");
  ASSERT_TRUE(run.failure);
  EXPECT_EQ(run.failure->kind, kind);
  EXPECT_EQ(run.failure->message, message);
  EXPECT_EQ(run.about_record, about_record);
}

TEST(LabReport, EachOutcomeIsTheFailureOfItsExitStatus) {
  ExpectFailure(Staged(lab::LabOutcome::kNotShown, "NO_MATCH"), FailureKind::kLabFailed,
                "lab: plain did not show what it says: NO_MATCH", false);
  ExpectFailure(Staged(lab::LabOutcome::kUnavailable, "no unshare"), FailureKind::kLabUnavailable,
                "lab: cannot run here: no unshare", false);
  ExpectFailure(Staged(lab::LabOutcome::kFailed, "no /bin/sleep"), FailureKind::kLabFailed,
                "lab: plain could not be staged: no /bin/sleep", false);
  ExpectFailure(Staged(lab::LabOutcome::kOutputFailed, "disk full"), FailureKind::kIo, "disk full",
                true);
  // A process left running is said first, whatever else happened.
  lab::LabResult left = Staged(lab::LabOutcome::kOutputFailed, "disk full");
  left.left_running = {11};
  ExpectFailure(left, FailureKind::kInternal,
                "lab: 1 started process is still running after cleanup", false);
  // No recording was written: the text does not offer to replay one.
  const lab::LabRun run =
      lab::ReportRun(Plain("run.ptape"), Staged(lab::LabOutcome::kUnavailable, "x"), "");
  EXPECT_EQ(lab::ReportText(Plain("run.ptape"), run).find("recorded "), std::string::npos);
}

TEST(LabReport, ARecordInAMissingDirectoryIsRefusedBeforeAnythingStarts) {
  test::ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  const lab::LabRun run = lab::RunAndReport(Plain(dir.File("missing/run.ptape")));
  EXPECT_EQ(run.result.outcome, lab::LabOutcome::kOutputRefused);
  EXPECT_TRUE(run.result.started.empty());
  ASSERT_TRUE(run.failure);
  EXPECT_EQ(run.failure->kind, FailureKind::kIo);
  EXPECT_TRUE(run.about_record);
  EXPECT_FALSE(run.failure->message.empty());
  // The refusal is the whole story: no report.
  EXPECT_EQ(run.report.scenario(), "");
}

TEST(LabReport, AnUnknownScenarioCouldNotBeStaged) {
  lab::LabOptions options = Plain("never.ptape");
  options.scenario = "no-such";
  const lab::LabRun run = lab::RunAndReport(options);
  ASSERT_TRUE(run.failure);
  EXPECT_EQ(run.failure->kind, FailureKind::kLabFailed);
  EXPECT_EQ(run.failure->message.rfind("lab: no-such could not be staged: unknown scenario", 0), 0u)
      << run.failure->message;
  EXPECT_TRUE(run.result.started.empty());
}

}  // namespace
}  // namespace proctape
