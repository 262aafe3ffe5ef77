// SPDX-License-Identifier: Apache-2.0
// The frame model's bound on real work (replay/frame_evidence.h, "Work";
// docs/format.md section 7, "The frame model's work"): a valid request's hour
// of retries on frames built by hand costs a bounded number of calls and
// reaches the decision every attempt would have reached; what the bound
// cannot answer faithfully is said as no decision. Counts are asserted,
// never times.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_evidence.h"
#include "core/resolver.h"
#include "proto/convert.h"
#include "replay/frame_evidence.h"

namespace proctape {
namespace {

constexpr std::int64_t kRoot = 1000;
constexpr std::uint64_t kRootStart = 500;
constexpr std::int64_t kSecond = 1'000'000'000;

// A frame at `start` of the root and `children` shells beneath it, none
// the requested sleep: every attempt is a NO_MATCH that retries.
v1::Frame ShellsFrame(std::uint64_t index, std::int64_t start, int children) {
  v1::Frame f;
  f.set_index(index);
  f.set_scan_start_mono_ns(start);
  f.set_scan_end_mono_ns(start + 1'000'000);  // a listing takes 1 ms
  f.set_complete(true);
  auto add = [&](std::int64_t pid, std::int64_t ppid, std::uint64_t tick, const std::string& comm) {
    v1::ProcessRecord* r = f.add_processes();
    r->set_pid(pid);
    r->mutable_stat()->set_data(MemoryEvidence::StatLine(pid, comm, 'S', ppid, tick));
    r->mutable_cmdline()->set_data(JoinNul({"/bin/sh", "-c", "true"}));
    r->mutable_environ()->set_data("HOME=/");
    r->mutable_exe()->set_dev(0x803);
    r->mutable_exe()->set_ino(7);
  };
  add(kRoot, 1, kRootStart, "server");
  for (int k = 1; k <= children; ++k) add(kRoot + k, kRoot, kRootStart + k, "sh");
  return f;
}

Request HourRequest() {
  Request r;
  r.root_pid = kRoot;
  r.root_start_ticks = kRootStart;
  r.token = "tok-9";
  r.exe = Identity{0, 0x803, 99};
  r.bounds.deadline_ns = kMaxDeadlineNs;          // a valid hour
  r.bounds.byte_budget = std::uint64_t{1} << 40;  // the most resolve takes
  return r;
}

// A snapshot of `frames` that records `request`, started at `start`, as
// NO_MATCH.
Snapshot Recording(std::vector<v1::Frame> frames, const Request& request, std::int64_t start) {
  Snapshot s;
  s.frames = std::move(frames);
  v1::Resolution r;
  r.set_start_mono_ns(start);
  *r.mutable_resolve() = ToProto(request);
  r.mutable_verdict()->set_status(v1::Verdict::NO_MATCH);
  s.resolutions.push_back(r);
  return s;
}

// The resolver on the frames with every attempt made (no bound), as
// RunOnFrames ran it before the bound: its verdict, the bytes the model
// counted, its clock at the end.
struct EveryAttempt {
  Verdict verdict;
  std::uint64_t bytes = 0;
  std::int64_t end = 0;
};
EveryAttempt Unbounded(const Snapshot& s, const Request& request, std::int64_t start) {
  FrameEvidence ev(s.frames, start);
  EveryAttempt out;
  out.verdict = Resolve(ev, request);
  out.bytes = ev.bytes_charged();
  out.end = ev.now();
  return out;
}

TEST(FrameModelWork, AnHourOfRetriesOnOneFrameAnswersAFewAttemptsAndTheSameDecision) {
  const Request request = HourRequest();
  Snapshot s = Recording({ShellsFrame(0, 10 * kSecond, 300)}, request, 10 * kSecond);
  FrameRun run = RerunOnFrames(s, 0, RequestOverrides{});
  EXPECT_EQ(run.verdict.status, Status::kNoMatch);
  EXPECT_TRUE(run.cut.empty()) << run.cut;
  EXPECT_TRUE(run.same_decision);
  // Every attempt the hour holds: made, or not made as a repeat.
  EXPECT_EQ(run.verdict.attempts + run.attempts_skipped, kMaxAttempts);
  // The first kFrameExactCalls calls, then a few attempts of ~600 calls.
  EXPECT_LT(run.calls, kFrameExactCalls + 10 * 700u);
  EXPECT_NE(DescribeFrameRun(run).find(std::to_string(run.attempts_skipped) + " repeats not made"),
            std::string::npos)
      << DescribeFrameRun(run);
}

TEST(FrameModelWork, AttemptsNotMadeGiveTheVerdictAndBytesOfEveryAttemptMade) {
  // A minute of retries over three frames (the middle one holds one more
  // shell): with no call answered exactly, the verdict of the bounded run is
  // the unbounded one's, its attempts and bytes those made plus those not.
  Request request = HourRequest();
  request.bounds.deadline_ns = 60 * kSecond;
  const std::int64_t start = 10 * kSecond;
  Snapshot s = Recording({ShellsFrame(0, start, 5), ShellsFrame(1, start + 20 * kSecond, 6),
                          ShellsFrame(2, start + 41 * kSecond, 5)},
                         request, start);
  const EveryAttempt all = Unbounded(s, request, start);
  const Verdict& every = all.verdict;
  ASSERT_EQ(every.status, Status::kNoMatch);
  EXPECT_EQ(all.bytes, every.bytes_read);  // the model counts what the meter does

  FrameWork now;
  now.exact_calls = 0;
  now.calls_per_record = 1'000'000;  // no cap here
  FrameEvidence ev(s.frames, start);
  ev.BoundWork(start + request.bounds.deadline_ns, now);
  const Verdict bounded = Resolve(ev, request);
  EXPECT_GT(ev.attempts_skipped(), 500u);
  EXPECT_EQ(bounded.status, every.status) << bounded.detail << " / " << every.detail;
  EXPECT_EQ(bounded.subject_pid, every.subject_pid);
  EXPECT_EQ(bounded.attempts + ev.attempts_skipped(), every.attempts);
  EXPECT_EQ(ev.bytes_charged(), every.bytes_read);
  EXPECT_EQ(ev.now(), all.end);  // the same virtual minute
}

TEST(FrameModelWork, RepeatsThatWouldPassTheByteBudgetLeaveNoDecision) {
  // Every attempt made, the budget ends the run (BYTE_BUDGET); attempts not
  // made would hide that: the bounded run says it has no decision.
  Request request = HourRequest();
  request.bounds.deadline_ns = 60 * kSecond;
  const std::int64_t start = 10 * kSecond;
  Snapshot s = Recording({ShellsFrame(0, start, 5)}, request, start);
  const std::uint64_t per_attempt = [&] {
    Request one = request;
    one.bounds.deadline_ns = 0;
    return Unbounded(s, one, start).verdict.bytes_read;
  }();
  request.bounds.byte_budget = per_attempt * 100;
  *s.resolutions[0].mutable_resolve() = ToProto(request);
  ASSERT_EQ(Unbounded(s, request, start).verdict.status, Status::kByteBudget);

  FrameWork now;
  now.exact_calls = 0;
  now.calls_per_record = 1'000'000;
  FrameRun run = RerunOnFrames(s, 0, RequestOverrides{}, now);
  EXPECT_GT(run.attempts_skipped, 0u);
  EXPECT_NE(run.cut.find("past the byte budget"), std::string::npos) << run.cut;
  EXPECT_FALSE(run.same_decision);
  EXPECT_NE(DescribeFrameRun(run).find("no decision: "), std::string::npos)
      << DescribeFrameRun(run);
}

TEST(FrameModelWork, TheCapOnCallsEndsARunWithNoDecision) {
  Request request = HourRequest();
  const std::int64_t start = 10 * kSecond;
  Snapshot s = Recording({ShellsFrame(0, start, 5)}, request, start);
  FrameWork tiny;
  tiny.exact_calls = 40;
  tiny.calls_per_record = 1;
  FrameRun run = RerunOnFrames(s, 0, RequestOverrides{}, tiny);
  // The cap (40 + 6 records), the call refused, the resolver's last clock readings.
  EXPECT_GE(run.calls, 47u);
  EXPECT_LE(run.calls, 49u);
  EXPECT_NE(run.cut.find("at most 40 + 1 calls per process record"), std::string::npos) << run.cut;
  EXPECT_FALSE(run.same_decision);
}

TEST(FrameModelWork, BelowTheExactCallsEveryAttemptIsMade) {
  // The corpus's runs: a 5 s NO_MATCH on one frame makes its fifty attempts.
  Request request = HourRequest();
  request.bounds.deadline_ns = 5 * kSecond;
  const std::int64_t start = 10 * kSecond;
  Snapshot s = Recording({ShellsFrame(0, start, 5)}, request, start);
  FrameRun run = RerunOnFrames(s, 0, RequestOverrides{});
  EXPECT_EQ(run.attempts_skipped, 0u);
  EXPECT_EQ(run.verdict.attempts, Unbounded(s, request, start).verdict.attempts);
  EXPECT_EQ(DescribeFrameRun(run).find("repeats not made"), std::string::npos);
}

}  // namespace
}  // namespace proctape
