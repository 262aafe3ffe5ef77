// SPDX-License-Identifier: Apache-2.0
// `proctape explain` (`docs/explain.md`, "Why a candidate is or is not the
// process"): each rejection reason the resolver
// has, staged on the in-memory host, recorded and explained; each candidate of
// the first attempt carries the reason the resolver acted on, and the attempt
// that decided is summed up by the resolver's own verdict.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "analyze/explain.h"
#include "tests/unit/analyze_explain_fixture.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/resolver_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

using Why = v1::ExplainCandidate::Why;
using Outcome = v1::ExplainAttempt::Outcome;

// Once, after the resolver first took the sleep's executable identity: `change`.
void AfterExe(FakeHost& host, std::function<void(FakeHost&)> change) {
  host.after_call = [change = std::move(change), done = false](FakeHost& h, const Call& c) mutable {
    if (done || c.kind != "exe" || c.pid != kSleep) return;
    done = true;
    change(h);
  };
}

struct WhyScenario {
  const char* name;
  std::function<void(FakeHost&, Request&)> setup;
  Status status;                                            // the verdict
  Outcome first_outcome;                                    // of attempt 1
  std::vector<std::pair<std::int64_t, Why>> first_attempt;  // pid -> why, in attempt 1
};

std::vector<WhyScenario> WhyScenarios() {
  using C = v1::ExplainCandidate;
  using A = v1::ExplainAttempt;
  return {
      {"Resolved",
       [](FakeHost&, Request&) {},
       Status::kResolved,
       A::FINAL,
       {{kMcpServer, C::ARGV_DIFFERS},
        {kBwrap, C::ARGV_DIFFERS},
        {kSandboxInit, C::ARGV_DIFFERS},
        {kSandboxShell, C::ARGV_DIFFERS},
        {kSleep, C::RESOLVED}}},
      {"NoToken",
       [](FakeHost& h, Request&) {
         h.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"},
                      {"HOME=/root"}, kSleepExe);
       },
       // The resolver's verdict once the retries run out: an exact argv
       // without the token is another invocation's.
       Status::kTokenMismatch,
       A::RETRY,
       {{kSleep, C::NO_TOKEN}}},
      {"TokenTwice",
       [](FakeHost& h, Request&) {
         std::vector<std::string> env = SleepEnviron(kToken);
         env.push_back("PROCTAPE_TOKEN=" + kOldToken);
         h.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, env,
                      kSleepExe);
       },
       Status::kTokenMismatch,
       A::FINAL,
       {{kSleep, C::TOKEN_TWICE}}},
      {"OtherTokenAlone",
       [](FakeHost& h, Request&) {
         h.Remove(kSleep);
         AddSecondSandbox(h, kOldToken);
       },
       Status::kTokenMismatch,
       A::RETRY,
       {{kSecondSleep, C::OTHER_TOKEN}}},
      {"OtherTokenBesideTheMatch",
       [](FakeHost& h, Request&) { AddSecondSandbox(h, kOldToken); },
       Status::kResolved,
       A::FINAL,
       {{kSleep, C::RESOLVED}, {kSecondSleep, C::OTHER_TOKEN}}},
      {"MultipleMatches",
       [](FakeHost& h, Request&) { AddSecondSandbox(h, kToken); },
       Status::kMultipleMatches,
       A::FINAL,
       {{kSleep, C::MATCH}, {kSecondSleep, C::MATCH}}},
      {"ExeMismatch",
       [](FakeHost& h, Request&) { h.Find(kSleep)->exe = kOtherExe; },
       Status::kExeMismatch,
       A::FINAL,
       {{kSleep, C::EXE_MISMATCH}}},
      {"ExeVanished",
       [](FakeHost& h, Request&) {
         h.Find(kSleep)->exe = Identity{ENOENT, 0, 0};
       },
       Status::kNoMatch,
       A::RETRY,
       {{kSleep, C::VANISHED}}},
      {"ExeUnreadable",
       [](FakeHost& h, Request&) {
         h.Find(kSleep)->exe = Identity{EACCES, 0, 0};
       },
       Status::kUnreadable,
       A::FINAL,
       {{kSleep, C::UNREADABLE}}},
      {"AncestryChanged",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.Remove(kSandboxShell);
           host.AddSleep(kSleep, kSandboxInit, kSleepStart, kToken);
         });
       },
       Status::kAncestryChanged,
       A::FINAL,
       {{kSleep, C::ANCESTRY_CHANGED}}},
      {"PidReusedAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) { host.AddSleep(kSleep, kSandboxShell, 777777, kToken); });
       },
       Status::kPidReused,
       A::FINAL,
       {{kSleep, C::PID_REUSED}}},
      {"AncestorPidReusedAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.AddProcess(kSandboxInit, kBwrap, 777777, "bwrap", {"bwrap"}, {},
                           Identity{0, 0x803, 600});
         });
       },
       Status::kPidReused,
       A::FINAL,
       {{kSleep, C::PID_REUSED}}},
      {"RootRestartedAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.AddProcess(kAppServer, kUserShell, kAppServerStart + 1, "codex", {"codex"}, {},
                           Identity{0, 1, 1});
         });
       },
       Status::kRootRestarted,
       A::FINAL,
       {{kSleep, C::ROOT_RESTARTED}}},
      // `docs/resolver.md`, step 7: every pid, parent pid and start time must
      // be those of the snapshot — the root's parent too: reparented to init at
      // its re-read.
      {"RootReparentedAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.AddProcess(kAppServer, 1, kAppServerStart, "codex", {"codex", "app-server"}, {},
                           Identity{0, 0x803, 500});
         });
       },
       Status::kAncestryChanged,
       A::FINAL,
       {{kSleep, C::ANCESTRY_CHANGED}}},
      {"RootGoneAtReRead",
       [](FakeHost& h, Request&) { AfterExe(h, [](FakeHost& host) { host.Remove(kAppServer); }); },
       Status::kMissingRoot,
       A::FINAL,
       {{kSleep, C::ROOT_VANISHED}}},
      {"AncestorGoneAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) { host.Remove(kSandboxShell); });
         h.on_sleep = [](MemoryEvidence& ev) {
           ev.AddProcess(kSandboxShell, kSandboxInit, kSandboxShellStart, "sh", {"/bin/sh"}, {},
                         kShExe);
         };
       },
       Status::kResolved,
       A::RETRY,
       {{kSleep, C::VANISHED}}},
      {"DeadAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, 'Z');
         });
       },
       Status::kNoMatch,
       A::RETRY,
       {{kSleep, C::DEAD}}},
      // The sleep exits between its cmdline and its environ read: environ
      // reads empty, and the stat re-read that tells why finds it gone or a
      // zombie (an owned process vanishing during inspection retries:
      // docs/resolver.md, "Retries, deadline and budget"); in every
      // attempt, so the verdict is NO_MATCH.
      {"EnvironEmptyThenGone",
       [](FakeHost& h, Request&) { ExitAtEnviron(h, [](FakeHost& host) { host.Remove(kSleep); }); },
       Status::kNoMatch,
       A::RETRY,
       {{kSleep, C::VANISHED}}},
      {"EnvironEmptyThenZombie",
       [](FakeHost& h, Request&) {
         ExitAtEnviron(h, [](FakeHost& host) {
           host.SetFile(kSleep, ProcFile::kStat,
                        MemoryEvidence::StatLine(kSleep, "sleep", 'Z', kSandboxShell, kSleepStart));
         });
       },
       Status::kNoMatch,
       A::RETRY,
       {{kSleep, C::VANISHED}}},
      // A live sleep with a really empty environ (env -i): its stat is re-read,
      // unchanged, and it carries no token.
      {"EnvironEmptyAndAlive",
       [](FakeHost& h, Request&) {
         h.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, {},
                      kSleepExe);
       },
       Status::kTokenMismatch,
       A::RETRY,
       {{kSleep, C::NO_TOKEN}}},
      // Vanished during inspection: the sandbox's init is gone when its
      // cmdline is read, in the first attempt only.
      {"VanishedDuringInspection",
       [](FakeHost& h, Request&) {
         h.SetFileError(kSandboxInit, ProcFile::kCmdline, ENOENT);
         h.on_sleep = [](MemoryEvidence& ev) {
           ev.SetFile(kSandboxInit, ProcFile::kCmdline, JoinNul({"bwrap"}));
         };
       },
       Status::kResolved,
       A::RETRY,
       {{kMcpServer, C::ARGV_DIFFERS}, {kSandboxInit, C::VANISHED}}},
      {"UnreadableCmdline",
       [](FakeHost& h, Request&) { h.SetFileError(kMcpServer, ProcFile::kCmdline, EACCES); },
       Status::kUnreadable,
       A::FINAL,
       {{kMcpServer, C::UNREADABLE}}},
      {"CmdlineTooLong",
       [](FakeHost&, Request& r) { r.bounds.cmdline_bytes = 16; },
       Status::kResolved,
       A::FINAL,
       {{kMcpServer, C::CMDLINE_TOO_LONG}, {kSleep, C::RESOLVED}}},
      {"EnvironTooLarge",
       [](FakeHost&, Request& r) { r.bounds.environ_bytes = 40; },
       Status::kFileBound,
       A::FINAL,
       {{kSleep, C::ENVIRON_TOO_LARGE}}},
      // The last read of the resolution goes one byte over the budget: the
      // root's re-read.
      {"ByteBudget",
       [](FakeHost&, Request& r) {
         FakeHost probe;
         r.bounds.byte_budget = Resolve(probe, FakeHost::TypicalRequest()).bytes_read - 1;
       },
       Status::kByteBudget,
       A::FINAL,
       {{kSleep, C::STOPPED}}},
      // 1 us a call; the deadline passes at the sleep's environ read.
      {"DeadlineDuringInspection",
       [](FakeHost& h, Request& r) {
         h.call_cost_ns = 1000;
         r.bounds.deadline_ns = 30'500;
       },
       Status::kDeadline,
       A::FINAL,
       {{kSleep, C::STOPPED}}},
  };
}

void PrintTo(const WhyScenario& s, std::ostream* os) { *os << s.name; }

class ExplainWhy : public ::testing::TestWithParam<WhyScenario> {};

TEST_P(ExplainWhy, EachCandidateHasTheReasonTheResolverActedOn) {
  const WhyScenario& s = GetParam();
  FakeHost host;
  Request request = FakeHost::TypicalRequest();
  s.setup(host, request);
  Explained x = RecordAndExplain(host, request);
  ASSERT_EQ(x.recorded.verdict.status, s.status) << x.recorded.verdict.detail;
  ExpectFaithful(x);
  ASSERT_GE(x.check.attempts_size(), 1);
  const v1::ExplainAttempt& first = x.check.attempts(0);
  EXPECT_EQ(first.outcome(), s.first_outcome) << Text(x.check);
  for (const auto& [pid, why] : s.first_attempt) {
    const v1::ExplainCandidate* k = FindCandidate(first, pid);
    ASSERT_NE(k, nullptr) << "pid " << pid << " not inspected\n" << Text(x.check);
    EXPECT_EQ(v1::ExplainCandidate::Why_Name(k->why()), v1::ExplainCandidate::Why_Name(why))
        << "pid " << pid << ": " << k->detail();
  }
  // The attempt that decided is summed up by the resolver's own verdict.
  const v1::ExplainAttempt& last = x.check.attempts(x.check.attempts_size() - 1);
  if (last.outcome() == v1::ExplainAttempt::FINAL) {
    EXPECT_EQ(last.summary().rfind(
                  std::string(StatusName(s.status)) + ": " + x.recorded.verdict.detail, 0),
              0u)
        << last.summary();
  }
}

INSTANTIATE_TEST_SUITE_P(Reasons, ExplainWhy, ::testing::ValuesIn(WhyScenarios()),
                         [](const ::testing::TestParamInfo<WhyScenario>& p) {
                           return std::string(p.param.name);
                         });

}  // namespace
}  // namespace proctape
