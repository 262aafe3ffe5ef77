// SPDX-License-Identifier: Apache-2.0
// `proctape explain` (`docs/explain.md`, "The text"): a recorded liveness check
// is told as its one stat re-read and its verdict.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "analyze/explain.h"
#include "tests/unit/analyze_explain_fixture.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

struct LivenessScenario {
  const char* name;
  std::function<void(FakeHost&)> setup;
  LivenessStatus status;
  std::string read_line;  // the line telling the stat re-read
};

class ExplainLiveness : public ::testing::TestWithParam<LivenessScenario> {};

TEST_P(ExplainLiveness, TheOneStatReReadAndTheVerdict) {
  const LivenessScenario& s = GetParam();
  FakeHost host;
  s.setup(host);
  Explained x = LivenessExplained(host, kSleep, kSleepStart);
  ASSERT_EQ(x.recorded.liveness.status, s.status);
  EXPECT_EQ(x.check.kind(), v1::ExplainCheck::LIVENESS);
  EXPECT_EQ(x.check.replay(), v1::ReplayResult::REPRODUCED);
  EXPECT_EQ(x.check.liveness_read().pid(), kSleep);
  EXPECT_EQ(static_cast<int>(x.check.liveness_verdict().status()), static_cast<int>(s.status));
  const std::string text = Text(x.check);
  EXPECT_NE(text.find("\n" + s.read_line + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  verdict: " + std::string(LivenessName(s.status))), std::string::npos)
      << text;
  EXPECT_NE(text.find(x.recorded.liveness.detail + "\n"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Liveness, ExplainLiveness,
    ::testing::Values(
        LivenessScenario{"Alive", [](FakeHost&) {}, LivenessStatus::kAlive,
                         "  re-read /proc/4103/stat: \"sleep\" S, parent 4102, start tick 510003: "
                         "the expected start tick"},
        LivenessScenario{"Gone", [](FakeHost& h) { h.Remove(kSleep); }, LivenessStatus::kDead,
                         "  re-read /proc/4103/stat: gone (errno 2)"},
        LivenessScenario{
            "Zombie",
            [](FakeHost& h) { h.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, 'Z'); },
            LivenessStatus::kDead,
            "  re-read /proc/4103/stat: \"sleep\" Z, parent 4102, start tick 510003: "
            "the expected start tick"},
        LivenessScenario{"PidReused",
                         [](FakeHost& h) { h.AddSleep(kSleep, kSandboxShell, 777777, kToken); },
                         LivenessStatus::kError,
                         "  re-read /proc/4103/stat: \"sleep\" S, parent 4102, start tick 777777: "
                         "not the expected 510003"}),
    [](const ::testing::TestParamInfo<LivenessScenario>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace proctape
