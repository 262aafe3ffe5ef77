// SPDX-License-Identifier: Apache-2.0
// The churn judge (tests/churn/churn_log.h) on hand-written logs: it must be
// able to say WRONG, or the churn test would assert nothing.
#include "tests/churn/churn_log.h"

#include <gtest/gtest.h>

#include <string>

namespace proctape::churn {
namespace {

// A churner (host pid 500) that made a sleeper 7 (host pid 612, start tick
// 9000, token churn-7, reaped at 5e9 ns), an exit child 8 at the same pid a
// tick later, and a sleeper 9 whose token entry is doubled.
const char kLog[] =
    "I pid_max 400 host_pid 500 start 8000\n"
    "P 7 s 0 300 612 9000 61 churn-7 2f62696e2f736c656570003100 0 1000000000\n"
    "R 7 0 5000000000\n"
    "P 8 x 1 300 612 9001 = - - 0 5000000100\n"
    "R 8 256 5000000200\n"
    "P 9 s 0 301 613 9002 0a churn-9 2f62696e2f736c656570003100 1 5000000300\n";

ChurnLog Parsed(const std::string& text) {
  ChurnLog log;
  std::size_t offset = 0;
  std::string error;
  EXPECT_TRUE(ParseLog(text, &offset, &log, &error)) << error;
  EXPECT_EQ(offset, text.size());
  return log;
}

TEST(ChurnLog, PartialLastLineWaitsForTheRest) {
  const std::string text = std::string(kLog) + "R 9 0 60";
  ChurnLog log;
  std::size_t offset = 0;
  std::string error;
  ASSERT_TRUE(ParseLog(text, &offset, &log, &error)) << error;
  EXPECT_EQ(offset, sizeof kLog - 1);
  EXPECT_EQ(log.created.at(9).reap_ns, -1);
  EXPECT_EQ(log.churner_host_pid, 500);
  EXPECT_EQ(log.created.at(9).comm, "\n");
}

TEST(ChurnLog, UnparsableLineIsAnError) {
  ChurnLog log;
  std::size_t offset = 0;
  std::string error;
  EXPECT_FALSE(ParseLog("P 7 s zz\n", &offset, &log, &error));
  EXPECT_NE(error.find("P 7 s zz"), std::string::npos);
}

TEST(ChurnJudge, ResolvedToThePlantedProcessAliveIsCorrect) {
  std::string why;
  EXPECT_EQ(JudgeResolved(Parsed(kLog), "churn-7", 612, 9000, 2'000'000'000, &why),
            Judgement::kCorrect);
}

TEST(ChurnJudge, ResolvedWithAnotherStartTickIsWrong) {
  std::string why;
  EXPECT_EQ(JudgeResolved(Parsed(kLog), "churn-7", 612, 9001, 2'000'000'000, &why),
            Judgement::kWrong);
  EXPECT_NE(why.find("another token"), std::string::npos) << why;
}

TEST(ChurnJudge, ResolvedForATokenNeverPlantedIsWrong) {
  std::string why;
  EXPECT_EQ(JudgeResolved(Parsed(kLog), "", 612, 9000, 2'000'000'000, &why), Judgement::kWrong);
}

TEST(ChurnJudge, ResolvedToAProcessReapedBeforeTheCommandIsWrong) {
  std::string why;
  EXPECT_EQ(JudgeResolved(Parsed(kLog), "churn-7", 612, 9000, 6'000'000'000, &why),
            Judgement::kWrong);
  EXPECT_NE(why.find("reaped before"), std::string::npos) << why;
}

TEST(ChurnJudge, ResolvedToADoubledTokenEntryIsWrong) {
  std::string why;
  EXPECT_EQ(JudgeResolved(Parsed(kLog), "churn-9", 613, 9002, 6'000'000'000, &why),
            Judgement::kWrong);
}

TEST(ChurnJudge, AliveForAReapedProcessIsWrong) {
  std::string why;
  EXPECT_EQ(JudgeAlive(Parsed(kLog), 612, 9000, 6'000'000'000, &why), Judgement::kWrong);
  EXPECT_EQ(JudgeAlive(Parsed(kLog), 613, 9002, 6'000'000'000, &why), Judgement::kCorrect);
}

TEST(ChurnJudge, AnIdentityCreatedTwiceIsAmbiguousNotCorrect) {
  const std::string twice =
      std::string(kLog) +
      "P 10 s 1 301 613 9002 = churn-10 2f62696e2f736c656570003100 0 6000000000\n";
  std::string why;
  EXPECT_EQ(JudgeResolved(Parsed(twice), "churn-10", 613, 9002, 6'000'000'000, &why),
            Judgement::kAmbiguous);
  EXPECT_EQ(CountReuse(Parsed(twice)).identity_collisions, 1u);
  EXPECT_EQ(CountReuse(Parsed(twice)).host_pids_reused, 2u);
}

}  // namespace
}  // namespace proctape::churn
