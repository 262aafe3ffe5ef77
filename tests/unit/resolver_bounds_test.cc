// SPDX-License-Identifier: Apache-2.0
// The resolver (`docs/resolver.md`), against the in-memory host of fake_host.h:
// every bound (bytes per file, processes, nodes, depth, the byte budget, the
// deadline, the request's timing), at exactly the bound and one past it. Each
// test names the rule it proves and the section of docs/resolver.md that states
// it.
#include "core/resolver.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "tests/unit/fake_host.h"
#include "tests/unit/resolver_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// `docs/resolver.md`, "The eight steps", step 3: at most 4,096 bytes of each
// /proc/<pid>/stat.
TEST(ResolverBounds, StatFileBoundAtExactly4096Bytes) {
  FakeHost host;
  std::string at =
      MemoryEvidence::StatLine(kHostPid3, CommForStatSize(3, 1, 900, 4096), 'S', 1, 900);
  ASSERT_EQ(at.size(), 4096u);
  host.SetFile(kHostPid3, ProcFile::kStat, at);
  Verdict ok = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(ok.status, Status::kResolved) << ok.detail;

  std::string past =
      MemoryEvidence::StatLine(kHostPid3, CommForStatSize(3, 1, 900, 4097), 'S', 1, 900);
  ASSERT_EQ(past.size(), 4097u);
  host.SetFile(kHostPid3, ProcFile::kStat, past);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kFileBound) << v.detail;
  EXPECT_EQ(v.subject_pid, kHostPid3);
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kStat));
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 5: at most 65,536 bytes of
// /proc/<pid>/environ. A candidate's environ past the bound cannot prove the
// token.
TEST(ResolverBounds, CandidateEnvironBoundAtExactly65536Bytes) {
  auto env_of_size = [](std::size_t size) {
    std::vector<std::string> env = SleepEnviron(kToken);
    std::size_t base = JoinNul(env).size() + std::string("PAD=").size() + 1;
    env.push_back("PAD=" + std::string(size - base, 'p'));
    return env;
  };
  FakeHost host;
  ASSERT_EQ(JoinNul(env_of_size(65536)).size(), 65536u);
  host.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"},
                  env_of_size(65536), kSleepExe);
  Verdict ok = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(ok.status, Status::kResolved) << ok.detail;

  host.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"},
                  env_of_size(65537), kSleepExe);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kFileBound) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kEnviron));
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 5: at most 65,536 bytes of the
// NUL-delimited /proc/<pid>/cmdline. A cmdline past the bound is not a match,
// even when its first 65,536 bytes are exactly the expected argv.
TEST(ResolverBounds, CmdlineOverTheBoundIsNotAMatch) {
  Request r = FakeHost::TypicalRequest();
  r.argv = {"/bin/sleep", std::string(65536 - 11 - 1, '9')};
  std::string exact = JoinNul(r.argv);
  ASSERT_EQ(exact.size(), 65536u);

  FakeHost host;
  host.SetFile(kSleep, ProcFile::kCmdline, exact);
  Verdict ok = Resolve(host, r);
  EXPECT_EQ(ok.status, Status::kResolved) << ok.detail;

  host.SetFile(kSleep, ProcFile::kCmdline, exact + "9");
  Verdict v = Resolve(host, r);
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
  EXPECT_EQ(host.Reads(kSleep, ProcFile::kEnviron), 1);  // only in the first run
}

// `docs/resolver.md`, "The eight steps", step 2: at most 65,536 numeric /proc
// entries.
TEST(ResolverBounds, ProcessCountBoundAtExactly65536Entries) {
  FakeHost host;
  host.logging = false;
  std::int64_t pid = 10000;
  for (std::size_t n = 10; n < 65536; ++n, ++pid) {
    host.AddProcess(pid, kKthreadd, 3, "kworker/0:1", {}, {}, Identity{ENOENT, 0, 0});
  }
  ASSERT_EQ(host.ListPids(UINT64_MAX).names.size(), 65536u);
  Verdict ok = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(ok.status, Status::kResolved) << ok.detail;
  EXPECT_EQ(ok.pid, kSleep);

  host.AddProcess(pid, kKthreadd, 3, "kworker/0:1", {}, {}, Identity{ENOENT, 0, 0});
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kEntryBound) << v.detail;
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 3: more than 65,536 records
// stop the resolution. With a
// small node bound: the typical host has 9 records (pid 1 is not scanned).
TEST(ResolverBounds, NodeBoundAtExactlyTheBound) {
  Request r = FakeHost::TypicalRequest();
  r.bounds.max_entries = 1000;
  r.bounds.max_nodes = 9;
  FakeHost host;
  Verdict ok = Resolve(host, r);
  EXPECT_EQ(ok.status, Status::kResolved) << ok.detail;

  host.AddProcess(5000, kKthreadd, 3, "kworker", {}, {}, Identity{ENOENT, 0, 0});
  Verdict v = Resolve(host, r);
  EXPECT_EQ(v.status, Status::kNodeBound) << v.detail;
  EXPECT_EQ(v.subject_pid, 5000);
  EXPECT_EQ(v.attempts, 1u);

  // An entry gone before its initial stat is no record and no node.
  host.SetFileError(5000, ProcFile::kStat, ENOENT);
  EXPECT_EQ(Resolve(host, r).status, Status::kResolved);
}

// `docs/resolver.md`, "The eight steps", step 3: an ancestry deeper than 256
// stops the resolution. A chain from
// the root down to the sleep with `links` parent links, listed top-down or
// bottom-up.
void BuildChain(FakeHost& host, int links, bool bottom_up) {
  for (int i = 0; i < links; ++i) {
    std::int64_t pid = 100 + i;
    host.AddProcess(pid, i == 0 ? 1 : pid - 1, 7000 + static_cast<std::uint64_t>(i), "sh",
                    {"/bin/sh"}, {}, kShExe);
  }
  host.AddSleep(100 + links, 100 + links - 1, 9999, kToken);
  if (bottom_up) {
    host.listing = std::vector<std::string>{};
    for (int i = links; i >= 0; --i) host.listing->push_back(std::to_string(100 + i));
  }
}

TEST(ResolverBounds, DepthBoundAtExactly256ParentLinks) {
  Request r = FakeHost::TypicalRequest();
  r.root_pid = 100;
  r.root_start_ticks = 7000;
  for (bool bottom_up : {false, true}) {
    FakeHost ok_host(FakeHost::Shape::kEmpty);
    BuildChain(ok_host, 256, bottom_up);
    Verdict ok = Resolve(ok_host, r);
    EXPECT_EQ(ok.status, Status::kResolved) << bottom_up << ": " << ok.detail;
    EXPECT_EQ(ok.pid, 356);

    FakeHost deep(FakeHost::Shape::kEmpty);
    BuildChain(deep, 257, bottom_up);
    Verdict v = Resolve(deep, r);
    EXPECT_EQ(v.status, Status::kDepthBound) << bottom_up << ": " << v.detail;
    EXPECT_EQ(v.attempts, 1u);
  }
}

// `docs/resolver.md`, "Retries, deadline and budget": one cumulative byte
// budget, checked while the listing is read, after it and after every read.
TEST(ResolverBounds, ByteBudgetAtExactlyTheBytesNeeded) {
  FakeHost host;
  Verdict first = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(first.status, Status::kResolved) << first.detail;

  Request r = FakeHost::TypicalRequest();
  r.bounds.byte_budget = first.bytes_read;
  Verdict ok = Resolve(host, r);
  EXPECT_EQ(ok.status, Status::kResolved) << ok.detail;
  EXPECT_EQ(ok.bytes_read, first.bytes_read);

  r.bounds.byte_budget = first.bytes_read - 1;
  Verdict v = Resolve(host, r);
  EXPECT_EQ(v.status, Status::kByteBudget) << v.detail;
  EXPECT_EQ(v.bytes_read, first.bytes_read);
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "Retries, deadline and budget": the budget is
// cumulative over all attempts, not per attempt.
TEST(ResolverBounds, ByteBudgetIsCumulativeAcrossAttempts) {
  FakeHost host;
  host.Remove(kSleep);
  Verdict one = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(one.status, Status::kNoMatch);
  std::uint64_t per_attempt = one.bytes_read / one.attempts;

  Request r = FakeHost::TypicalRequest();
  r.bounds.byte_budget = per_attempt * 3;
  Verdict v = Resolve(host, r);
  EXPECT_EQ(v.status, Status::kByteBudget) << v.detail;
  EXPECT_EQ(v.attempts, 4u);
}

// `docs/resolver.md`, "Retries, deadline and budget": one absolute monotonic
// deadline serves all attempts;
// exceeding it during a scan fails at once.
TEST(ResolverBounds, ScanCrossingTheDeadlineIsDeadline) {
  FakeHost host;
  host.call_cost_ns = 1'000'000;  // 1 ms a call: 3,000 records take > 5 s
  for (std::int64_t pid = 10000; pid < 13000; ++pid) {
    host.AddProcess(pid, kKthreadd, 3, "kworker", {}, {}, Identity{ENOENT, 0, 0});
  }
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kDeadline) << v.detail;
  EXPECT_EQ(v.attempts, 1u);
  EXPECT_LT(host.ReadsOf(ProcFile::kStat), 3000);  // stopped mid-scan
}

// The deadline is inclusive: a check at exactly the deadline passes, one
// nanosecond later fails.
TEST(ResolverBounds, ReadAtExactlyTheDeadlinePasses) {
  FakeHost probe;
  probe.call_cost_ns = 1000;
  ASSERT_EQ(Resolve(probe, FakeHost::TypicalRequest()).status, Status::kResolved);
  auto is_now = [](const std::string& l) { return l.rfind("now -> ", 0) == 0; };
  // The first call reads the start of the deadline, the last is the final
  // deadline check (after the root's re-read).
  ASSERT_TRUE(is_now(probe.log.front()));
  ASSERT_TRUE(is_now(probe.log.back()));
  std::int64_t needed =
      std::stoll(probe.log.back().substr(7)) - std::stoll(probe.log.front().substr(7));

  Request r = FakeHost::TypicalRequest();
  r.bounds.deadline_ns = needed;
  FakeHost at;
  at.call_cost_ns = 1000;
  Verdict ok = Resolve(at, r);
  EXPECT_EQ(ok.status, Status::kResolved) << ok.detail;

  r.bounds.deadline_ns = needed - 1;
  FakeHost past;
  past.call_cost_ns = 1000;
  Verdict v = Resolve(past, r);
  EXPECT_EQ(v.status, Status::kDeadline) << v.detail;
}

// A request that cannot be used is refused before any evidence is read.
TEST(ResolverBounds, InvalidRequestIsRefusedWithoutReading) {
  std::vector<Request> bad(17, FakeHost::TypicalRequest());
  bad[0].root_pid = 0;
  bad[1].root_pid = 1;
  bad[2].root_pid = 2147483648;
  bad[3].root_pid = -4000;
  bad[4].token = "";
  bad[5].token_var = "";
  bad[6].token_var = "PROCTAPE=TOKEN";
  bad[7].token_var = std::string("PROCTAPE\0TOKEN", 14);
  bad[8].argv = {};
  bad[9].bounds.cmdline_bytes = 14;  // "/bin/sleep\0120\0" is 15 bytes
  bad[10].exe = Identity{ENOENT, 0, 0};
  bad[11].bounds.retry_ns = 0;  // would retry without ever advancing
  bad[12].bounds.deadline_ns = -1;
  // The timing limits of core/resolver.h (a recorded deadline of years and a
  // retry interval of a nanosecond once made replay run forever).
  bad[13].bounds.retry_ns = 1;
  bad[14].bounds.retry_ns = kMinRetryNs - 1;
  bad[15].bounds.deadline_ns = kMaxDeadlineNs + 1;
  bad[16].bounds.deadline_ns = INT64_MAX;
  for (std::size_t i = 0; i < bad.size(); ++i) {
    FakeHost host;
    Verdict v = Resolve(host, bad[i]);
    EXPECT_EQ(v.status, Status::kInvalidRequest) << "case " << i << ": " << v.detail;
    EXPECT_EQ(host.calls, 0u) << "case " << i;
  }
}

// The longest deadline and the shortest retry interval are requests like any
// other.
TEST(ResolverBounds, TimingAtItsLimitsIsAccepted) {
  Request r = FakeHost::TypicalRequest();
  r.bounds.deadline_ns = kMaxDeadlineNs;
  r.bounds.retry_ns = kMinRetryNs;
  FakeHost far;
  Verdict ok = Resolve(far, r);
  EXPECT_EQ(ok.status, Status::kResolved) << ok.detail;
}

// An Evidence whose clock never advances (a sleep that does not sleep) still
// ends: at kMaxAttempts attempts, NO_MATCH.
TEST(ResolverBounds, AClockThatStandsStillEndsAtTheAttemptCap) {
  FakeHost stuck;
  stuck.Remove(kSleep);
  const std::int64_t start = stuck.now_ns;
  stuck.on_sleep = [start](MemoryEvidence& ev) { ev.now_ns = start; };
  Verdict v = Resolve(stuck, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
  EXPECT_EQ(v.attempts, kMaxAttempts);
}

// A retry interval as large as a request (or a tape) can hold: the resolver
// saturates instead of overflowing, and still ends.
TEST(ResolverBounds, HugeRetryIntervalDoesNotOverflow) {
  Request r = FakeHost::TypicalRequest();
  r.bounds.deadline_ns = 5'000'000'000;
  r.bounds.retry_ns = INT64_MAX;
  FakeHost empty;
  empty.Remove(kSleep);
  int sleeps = 0;
  empty.on_sleep = [&](MemoryEvidence&) {
    if (++sleeps == 100) empty.Remove(kAppServer);  // ends a runaway retry loop
  };
  Verdict v = Resolve(empty, r);
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
  EXPECT_EQ(v.attempts, 1u);
}

}  // namespace
}  // namespace proctape
