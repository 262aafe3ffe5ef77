// SPDX-License-Identifier: Apache-2.0
// `proctape explain` (`docs/explain.md`, "The text") tells a resolution as the
// replay runs it: an attempt that ended in the retry wait is told when the next
// begins and its calls are let go, so a long retry loop holds one attempt's
// calls, not the whole tape's, and is told as if it had been held whole.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "analyze/explain_resolve.h"
#include "analyze/explain_watch.h"
#include "core/resolver.h"
#include "explain.pb.h"
#include "replay/token_mask.h"

namespace proctape::explain {
namespace {

constexpr std::int64_t kMs = 1'000'000;

Seen Call(Seen::Op op, std::int64_t ns = 0) {
  Seen s;
  s.op = op;
  s.ns = ns;
  return s;
}

// A stat read of `pid`, a child of `ppid` started at tick `start`.
Seen Stat(std::int64_t pid, std::int64_t ppid, std::uint64_t start) {
  Seen s = Call(Seen::Op::kRead);
  s.pid = pid;
  s.file = ProcFile::kStat;
  const std::string stat = std::to_string(pid) + " (w) S " + std::to_string(ppid) +
                           " 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 " + std::to_string(start) + " 0 0";
  s.read = StoredRead(0, stat, false);
  return s;
}

TEST(ExplainTeller, ARetryLoopIsToldAttemptByAttemptHoldingOneAttemptsCalls) {
  Request request;
  request.root_pid = 10;
  request.root_start_ticks = 5;
  const TokenMask mask;
  v1::ExplainCheck out;
  ResolveTeller teller(request, mask, &out);
  constexpr int kAttempts = 40;
  constexpr int kProcs = 25;  // the root and its children, read each attempt
  std::int64_t now = 0;
  std::uint64_t index = 0;
  auto take = [&](Seen s) {
    s.index = index++;
    teller.Take(std::move(s));
  };
  take(Call(Seen::Op::kNow, now));  // the resolution's start
  std::size_t most_held = 0;
  for (int a = 0; a < kAttempts; ++a) {
    take(Call(Seen::Op::kNow, now));
    Seen list = Call(Seen::Op::kList);
    list.list.listed = kProcs;
    take(std::move(list));
    most_held = std::max(most_held, teller.held());
    take(Stat(10, 1, 5));
    for (int p = 1; p < kProcs; ++p) take(Stat(10 + p, 10, 100));
    now += 100 * kMs;
    take(Call(Seen::Op::kSleep, now));
  }
  // One attempt is 2 + kProcs + 1 calls; with the one before it told at the
  // next listing, no more than two attempts' calls are ever held.
  EXPECT_LE(most_held, 2u * (kProcs + 3));
  v1::Verdict verdict;
  verdict.set_status(v1::Verdict::NO_MATCH);
  teller.Finish(verdict, nullptr);
  ASSERT_EQ(out.attempts_size(), kAttempts);
  for (int a = 0; a < kAttempts; ++a) {
    const v1::ExplainAttempt& attempt = out.attempts(a);
    EXPECT_EQ(attempt.index(), static_cast<std::uint32_t>(a + 1));
    EXPECT_EQ(attempt.listed(), static_cast<std::uint32_t>(kProcs));
    EXPECT_EQ(attempt.records(), static_cast<std::uint32_t>(kProcs));
    EXPECT_EQ(attempt.beneath_root_size(), kProcs - 1);
    EXPECT_EQ(attempt.first_observation(), static_cast<std::uint32_t>(1 + a * (kProcs + 3)));
    EXPECT_EQ(attempt.observation_count(), static_cast<std::uint32_t>(kProcs + 3));
    EXPECT_EQ(attempt.outcome(), v1::ExplainAttempt::RETRY) << attempt.summary();
  }
  EXPECT_EQ(out.attempts(1).start_offset_ns(), 100.0 * kMs);
  EXPECT_FALSE(out.ended_by().empty());
}

// Without the resolution's clock reading first nothing is told, as when the
// whole resolution was held.
TEST(ExplainTeller, WithoutTheClockReadingFirstNoAttemptIsTold) {
  Request request;
  const TokenMask mask;
  v1::ExplainCheck out;
  ResolveTeller teller(request, mask, &out);
  teller.Take(Call(Seen::Op::kList));
  teller.Take(Stat(10, 1, 5));
  EXPECT_EQ(teller.held(), 0u);
  teller.Finish(v1::Verdict(), nullptr);
  EXPECT_EQ(out.attempts_size(), 0);
  EXPECT_EQ(out.ended_by(), "the resolver made no call the tape answered");
}

}  // namespace
}  // namespace proctape::explain
