// SPDX-License-Identifier: Apache-2.0
// `proctape explain` (`docs/explain.md`, "The text"): how the attempts of a
// recorded resolution are told: the tree beneath the root and the ancestry
// re-read, candidates that vanish or exit during inspection, a dead or missing
// root, the retry loop and how attempts that read alike are folded, and the
// deadline and bounds that end a search.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "analyze/explain.h"
#include "tests/unit/analyze_explain_fixture.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/resolver_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

TEST(ExplainAttempts, TheTreeBeneathTheRootAndTheAncestryReRead) {
  FakeHost host;
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ExpectFaithful(x);
  ASSERT_EQ(x.check.attempts_size(), 1);
  const v1::ExplainAttempt& a = x.check.attempts(0);
  EXPECT_TRUE(a.scan_complete());
  EXPECT_TRUE(a.root_seen());
  EXPECT_EQ(a.root().start_ticks(), kAppServerStart);
  EXPECT_EQ(a.root().comm(), "codex");
  const std::vector<std::int64_t> beneath = {kMcpServer, kBwrap, kSandboxInit, kSandboxShell,
                                             kSleep};
  EXPECT_EQ(std::vector<std::int64_t>(a.beneath_root().begin(), a.beneath_root().end()), beneath);
  EXPECT_TRUE(a.not_inspected().empty());
  const v1::ExplainCandidate* sleep = FindCandidate(a, kSleep);
  ASSERT_NE(sleep, nullptr);
  EXPECT_TRUE(sleep->argv_exact());
  EXPECT_EQ(sleep->token_entries(), 1u);
  EXPECT_EQ(sleep->token_carrying(), 1u);
  EXPECT_TRUE(sleep->exe_read());
  EXPECT_EQ(sleep->exe().ino(), kSleepExe.ino);
  // Re-read from the sleep up through its ancestors to the root.
  std::vector<std::int64_t> chain;
  for (const auto& link : sleep->ancestry()) {
    chain.push_back(link.pid());
    EXPECT_TRUE(link.unchanged()) << link.detail();
  }
  EXPECT_EQ(chain,
            (std::vector<std::int64_t>{kSleep, kSandboxShell, kSandboxInit, kBwrap, kAppServer}));
  const v1::ExplainCandidate* mcp = FindCandidate(a, kMcpServer);
  ASSERT_NE(mcp, nullptr);
  EXPECT_FALSE(mcp->argv_exact());
  EXPECT_FALSE(mcp->environ_read());
  EXPECT_EQ(mcp->detail(), "argv \"node\" \"mcp-server.js\": not the expected argv");
}

// `docs/resolver.md`, "One attempt", step 3: the argv is exact only when the
// cmdline is its elements NUL-terminated, byte for byte. The same elements
// without the final NUL are told as not the expected argv, and why, though they
// split alike.
TEST(ExplainAttempts, CmdlineWithoutItsFinalNulIsToldAsNotTheExpectedArgv) {
  FakeHost host;
  host.SetFile(kSleep, ProcFile::kCmdline,
               std::string("/bin/sleep\0"
                           "120",
                           14));
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ASSERT_EQ(x.recorded.verdict.status, Status::kNoMatch) << x.recorded.verdict.detail;
  ExpectFaithful(x);
  const v1::ExplainCandidate* sleep = FindCandidate(x.check.attempts(0), kSleep);
  ASSERT_NE(sleep, nullptr);
  EXPECT_TRUE(sleep->cmdline_unterminated());
  EXPECT_EQ(sleep->why(), v1::ExplainCandidate::ARGV_DIFFERS);
  EXPECT_EQ(sleep->detail(),
            "argv \"/bin/sleep\" \"120\" without the final NUL: not the expected argv");
  const v1::ExplainCandidate* shell = FindCandidate(x.check.attempts(0), kSandboxShell);
  ASSERT_NE(shell, nullptr);
  EXPECT_FALSE(shell->cmdline_unterminated());
}

// A dead root (a zombie app-server) is a missing root: told on the root's
// line, and the check ends at once with MISSING_ROOT.
TEST(ExplainAttempts, ADeadRootIsToldAsDeadAndEndsTheCheck) {
  FakeHost host;
  host.AddProcess(kAppServer, kUserShell, kAppServerStart, "codex", {}, {}, Identity{ENOENT, 0, 0},
                  'Z');
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ASSERT_EQ(x.recorded.verdict.status, Status::kMissingRoot) << x.recorded.verdict.detail;
  ExpectFaithful(x);
  const std::string text = Text(x.check);
  EXPECT_NE(text.find("start tick " + std::to_string(kAppServerStart) +
                      ": as expected, but dead (state Z)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("verdict: MISSING_ROOT"), std::string::npos) << text;
}

// The stat re-read after an empty environ is told with the candidate: what
// it found, and so why the attempt was retried.
TEST(ExplainAttempts, EmptyEnvironOfAnExitedCandidateIsToldWithItsStatReRead) {
  FakeHost host;
  ExitAtEnviron(host, [](FakeHost& h) {
    h.SetFile(kSleep, ProcFile::kStat,
              MemoryEvidence::StatLine(kSleep, "sleep", 'Z', kSandboxShell, kSleepStart));
  });
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ASSERT_EQ(x.recorded.verdict.status, Status::kNoMatch) << x.recorded.verdict.detail;
  ExpectFaithful(x);
  const v1::ExplainAttempt& first = x.check.attempts(0);
  const v1::ExplainCandidate* sleep = FindCandidate(first, kSleep);
  ASSERT_NE(sleep, nullptr);
  ASSERT_TRUE(sleep->has_environ_recheck());
  EXPECT_EQ(sleep->environ_recheck().state(), "Z");
  EXPECT_EQ(sleep->detail(),
            "argv exact; environ empty, and its stat re-read shows it dead (state Z): "
            "it exited during inspection");
  EXPECT_EQ(first.summary(), "pid 4103 vanished during inspection: retried");
}

// On a busy host the deadline passes during an attempt after earlier ones
// completed without a match: the verdict keeps their diagnosis (NO_MATCH),
// and explain tells the cut attempt as cut by the deadline, not as one that
// ran out of time before starting, nor as the one that decided.
TEST(ExplainAttempts, DeadlinePassingDuringAnAttemptIsToldAsTheCutThatEndedTheSearch) {
  FakeHost host;
  host.Remove(kSleep);
  host.call_cost_ns = 1'000'000;  // 1 ms a call: an attempt takes ~0.3 s
  for (std::int64_t pid = 10000; pid < 10300; ++pid) {
    host.AddProcess(pid, kKthreadd, 3, "kworker", {}, {}, Identity{ENOENT, 0, 0});
  }
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ASSERT_EQ(x.recorded.verdict.status, Status::kNoMatch) << x.recorded.verdict.detail;
  ExpectFaithful(x);
  const int n = x.check.attempts_size();
  ASSERT_GT(n, 1);
  const v1::ExplainAttempt& cut = x.check.attempts(n - 1);
  EXPECT_EQ(cut.outcome(), v1::ExplainAttempt::CUT) << Text(x.check);
  EXPECT_EQ(cut.summary(),
            "the deadline at +5000.0 ms passed during this attempt: the verdict "
            "keeps the diagnosis of attempt " +
                std::to_string(n - 1));
  EXPECT_EQ(x.check.ended_by(),
            "the deadline at +5000.0 ms passed during attempt " + std::to_string(n) + ", after " +
                std::to_string(n - 1) +
                " completed attempts without a match (no process beneath the root matches): "
                "NO_MATCH");
  EXPECT_EQ(x.check.attempts(n - 2).summary(), "no process beneath the root matches: retried");
}

// The deadline cuts the attempt that found the only match, while its
// executable was checked: the verdict names the match (docs/resolver.md,
// "Retries, deadline and budget"), and explain says so instead of "the
// verdict keeps the diagnosis of attempt K".
TEST(ExplainAttempts, DeadlineWhileConfirmingTheOnlyMatchIsToldAsSuch) {
  FakeHost host;
  DeadlineWhileConfirmingAfter(host, 2);
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ASSERT_EQ(x.recorded.verdict.status, Status::kNoMatch) << x.recorded.verdict.detail;
  ExpectFaithful(x);
  ASSERT_EQ(x.check.attempts_size(), 3);
  const v1::ExplainAttempt& cut = x.check.attempts(2);
  EXPECT_EQ(cut.outcome(), v1::ExplainAttempt::CUT) << Text(x.check);
  EXPECT_EQ(cut.summary(),
            "the deadline at +5000.0 ms passed during this attempt, while "
            "confirming pid 4103, its only match: the verdict names it");
  EXPECT_EQ(x.check.ended_by(),
            "the deadline at +5000.0 ms passed during attempt 3 while confirming pid 4103, its "
            "only match, after 2 completed attempts without a match: NO_MATCH");
  EXPECT_NE(Text(x.check).find("    subject: pid 4103, start tick 510003\n"), std::string::npos)
      << Text(x.check);
}

TEST(ExplainAttempts, VanishedCandidateLeavesTheRestUninspectedAndIsRetried) {
  FakeHost host;
  host.SetFileError(kSandboxInit, ProcFile::kCmdline, ENOENT);
  host.on_sleep = [](MemoryEvidence& ev) {
    ev.SetFile(kSandboxInit, ProcFile::kCmdline, JoinNul({"bwrap"}));
  };
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ExpectFaithful(x);
  ASSERT_EQ(x.check.attempts_size(), 2);
  const v1::ExplainAttempt& first = x.check.attempts(0);
  EXPECT_EQ(std::vector<std::int64_t>(first.not_inspected().begin(), first.not_inspected().end()),
            (std::vector<std::int64_t>{kSandboxShell, kSleep}));
  EXPECT_EQ(first.summary(), "pid 4101 vanished during inspection: retried");
  EXPECT_EQ(first.next_offset_ns(), Bounds{}.retry_ns);
  EXPECT_EQ(x.check.attempts(1).outcome(), v1::ExplainAttempt::FINAL);
}

TEST(ExplainAttempts, RetryLoopRunsOutAtTheDeadline) {
  FakeHost host;
  host.Remove(kSleep);
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ExpectFaithful(x);
  const Bounds bounds;
  const int n = x.check.attempts_size();
  ASSERT_GT(n, 2);
  for (int i = 0; i < n; ++i) {
    const auto& a = x.check.attempts(i);
    // The clock of the in-memory host moves only when the resolver sleeps.
    EXPECT_EQ(a.start_offset_ns(), i * bounds.retry_ns);
    if (i + 1 < n) {
      EXPECT_EQ(a.next_offset_ns(), (i + 1) * bounds.retry_ns);
    }
    EXPECT_EQ(a.summary().rfind("no process beneath the root matches: ", 0), 0u) << a.summary();
  }
  EXPECT_EQ(x.check.attempts(n - 1).outcome(), v1::ExplainAttempt::LAST);
  EXPECT_EQ(x.check.ended_by(), "no match by the deadline: the next attempt would start at " +
                                    FormatOffset(n * bounds.retry_ns) + ", after the deadline at " +
                                    FormatOffset(bounds.deadline_ns));

  // By default the attempts that read alike are told once.
  v1::Explanation e;
  e.set_file("loop.ptape");
  e.set_recorded_checks(1);
  *e.add_checks() = x.check;
  const std::string shown = RenderExplanation(e, false);
  const std::string all = RenderExplanation(e, true);
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t k = 0;
    for (std::size_t at = 0; (at = text.find(what, at)) != std::string::npos; ++at) ++k;
    return k;
  };
  EXPECT_EQ(count(all, "\n  attempt "), static_cast<std::size_t>(n)) << all;
  EXPECT_EQ(count(shown, "\n  attempt "), 2u) << shown;  // the first, and the last (LAST)
  EXPECT_NE(
      shown.find("\n  attempts 2-" + std::to_string(n - 1) + " at " +
                 FormatOffset(bounds.retry_ns) + " to " + FormatOffset((n - 2) * bounds.retry_ns) +
                 ": each the same as attempt 1 (" + x.check.attempts(0).summary() + ")\n"),
      std::string::npos)
      << shown;
}

// Processes that have nothing to do with the resolution (not beneath the
// root, never a candidate) come and go between attempts: one starts for an
// attempt and ends before the next, one is listed and gone before its stat.
// The attempts still read alike where it matters, and are told once; the
// folded line says what differed.
TEST(ExplainAttempts, UnrelatedProcessesComingAndGoingDoNotUnfoldTheAttempts) {
  FakeHost host;
  host.Remove(kSleep);
  constexpr std::int64_t kUnrelated = 7000;
  int sleeps = 0;
  host.after_call = [&sleeps](FakeHost& h, const Call& call) {
    if (call.kind == "sleep") {
      ++sleeps;
      if (sleeps % 2 == 1) {
        h.AddProcess(kUnrelated, 1, 800000 + static_cast<std::uint64_t>(sleeps), "cron", {"cron"},
                     {}, Identity{0, 0x803, 90});
      } else {
        h.Remove(kUnrelated);
      }
    } else if (call.kind == "list" && sleeps == 4) {
      h.Remove(kUnrelated + 1);  // listed, gone before its stat is read
    }
    if (call.kind == "sleep" && sleeps == 3) {
      h.AddProcess(kUnrelated + 1, 1, 900000, "sh", {"sh"}, {}, Identity{0, 0x803, 91});
    }
  };
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ExpectFaithful(x);
  const int n = x.check.attempts_size();
  ASSERT_GT(n, 5);
  EXPECT_NE(x.check.attempts(1).listed(), x.check.attempts(2).listed());
  EXPECT_EQ(x.check.attempts(4).vanished_before_stat_size(), 1);
  std::uint32_t fewest = UINT32_MAX, most = 0;
  for (int i = 1; i + 1 < n; ++i) {
    fewest = std::min(fewest, x.check.attempts(i).listed());
    most = std::max(most, x.check.attempts(i).listed());
  }
  const std::string shown = Text(x.check);
  EXPECT_NE(
      shown.find(
          "\n  attempts 2-" + std::to_string(n - 1) + " at " + FormatOffset(Bounds{}.retry_ns) +
          " to " + FormatOffset((n - 2) * Bounds{}.retry_ns) + ": each the same as attempt 1 (" +
          x.check.attempts(0).summary() + "), but for unrelated processes coming and going (" +
          std::to_string(fewest) + " to " + std::to_string(most) + " /proc entries listed)\n"),
      std::string::npos)
      << shown;
  // --all tells each, with what it listed and what vanished.
  v1::Explanation e;
  e.set_file("check.ptape");
  e.set_recorded_checks(1);
  *e.add_checks() = x.check;
  const std::string all = RenderExplanation(e, true);
  EXPECT_NE(all.find("    gone before their stat was read: 7001\n"), std::string::npos) << all;
}

TEST(ExplainAttempts, RootMissingOrRestartedInTheScan) {
  {
    FakeHost host;
    host.Remove(kAppServer);
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
    ExpectFaithful(x);
    ASSERT_EQ(x.check.attempts_size(), 1);
    EXPECT_FALSE(x.check.attempts(0).root_seen());
    EXPECT_TRUE(x.check.attempts(0).candidates().empty());
    EXPECT_NE(Text(x.check).find("    root 4000: not in this scan\n"), std::string::npos)
        << Text(x.check);
  }
  {
    FakeHost host;
    Request request = FakeHost::TypicalRequest();
    request.root_start_ticks = kAppServerStart - 1;
    Explained x = RecordAndExplain(host, request);
    ExpectFaithful(x);
    ASSERT_EQ(x.check.attempts_size(), 1);
    EXPECT_TRUE(x.check.attempts(0).root_seen());
    EXPECT_TRUE(x.check.attempts(0).beneath_root().empty());
    EXPECT_NE(Text(x.check).find(": not the expected " + std::to_string(kAppServerStart - 1)),
              std::string::npos)
        << Text(x.check);
  }
}

TEST(ExplainAttempts, BoundsThatEndTheScan) {
  {
    FakeHost host;
    Request request = FakeHost::TypicalRequest();
    request.bounds.max_entries = 5;
    Explained x = RecordAndExplain(host, request);
    ExpectFaithful(x);
    ASSERT_EQ(x.check.attempts_size(), 1);
    EXPECT_TRUE(x.check.attempts(0).list_truncated());
    EXPECT_EQ(x.check.ended_by(), "a bound ended attempt 1: ENTRY_BOUND");
  }
  {
    FakeHost host;
    Request request = FakeHost::TypicalRequest();
    request.bounds.byte_budget = 1;
    Explained x = RecordAndExplain(host, request);
    ExpectFaithful(x);
    ASSERT_EQ(x.check.attempts_size(), 1);
    EXPECT_FALSE(x.check.attempts(0).scan_complete());
    EXPECT_EQ(x.check.ended_by(), "the byte budget of 1 byte ran out during attempt 1");
  }
  {
    FakeHost host;
    host.call_cost_ns = 1000;
    Request request = FakeHost::TypicalRequest();
    request.bounds.deadline_ns = 10'000;  // ten calls: during the scan
    Explained x = RecordAndExplain(host, request);
    ExpectFaithful(x);
    ASSERT_EQ(x.check.attempts_size(), 1);
    EXPECT_FALSE(x.check.attempts(0).scan_complete()) << Text(x.check);
    EXPECT_EQ(x.check.ended_by(),
              "the deadline at " + FormatOffset(10'000) + " passed during attempt 1");
  }
}

}  // namespace
}  // namespace proctape
