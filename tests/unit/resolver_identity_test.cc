// SPDX-License-Identifier: Apache-2.0
// A failure names the process it is about by its identity, and NO_MATCH
// names its near misses (docs/resolver.md, "The verdict names processes by
// their identity", "Near misses"), against the in-memory host of
// fake_host.h.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "core/resolver.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/resolver_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// ---------------------------------------------------------------------------
// The subject's start tick

// Every verdict that names a process gives the start tick the resolver read
// for it: never a real pid beside no (or a zero) start tick.
TEST(ResolverSubjectIdentity, EveryFailureNamingAProcessGivesItsStartTick) {
  FakeHost multiple;
  AddSecondSandbox(multiple, kToken);
  Verdict m = Resolve(multiple, FakeHost::TypicalRequest());
  ASSERT_EQ(m.status, Status::kMultipleMatches) << m.detail;
  EXPECT_EQ(m.subject_pid, kSleep);
  EXPECT_EQ(m.subject_start_ticks, kSleepStart);

  FakeHost impostor;
  impostor.Find(kSleep)->exe = kOtherExe;
  Verdict e = Resolve(impostor, FakeHost::TypicalRequest());
  ASSERT_EQ(e.status, Status::kExeMismatch) << e.detail;
  EXPECT_EQ(e.subject_start_ticks, kSleepStart);

  FakeHost stale;
  stale.AddSleep(kSleep, kSandboxShell, kSleepStart, kOldToken);
  Verdict t = Resolve(stale, FakeHost::TypicalRequest());
  ASSERT_EQ(t.status, Status::kTokenMismatch) << t.detail;
  EXPECT_EQ(t.subject_pid, kSleep);
  EXPECT_EQ(t.subject_start_ticks, kSleepStart);

  FakeHost denied;
  denied.SetFileError(kSleep, ProcFile::kEnviron, EACCES);
  Verdict u = Resolve(denied, FakeHost::TypicalRequest());
  ASSERT_EQ(u.status, Status::kUnreadable) << u.detail;
  EXPECT_EQ(u.subject_start_ticks, kSleepStart);

  FakeHost reparented;
  reparented.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "exe" && c.pid == kSleep) {
      h.SetFile(kSleep, ProcFile::kStat,
                MemoryEvidence::StatLine(kSleep, "sleep", 'S', 1, kSleepStart));
    }
  };
  Verdict a = Resolve(reparented, FakeHost::TypicalRequest());
  ASSERT_EQ(a.status, Status::kAncestryChanged) << a.detail;
  EXPECT_EQ(a.subject_start_ticks, kSleepStart);
}

// A subject whose stat was never read or did not parse has no start tick:
// absent, not 0.
TEST(ResolverSubjectIdentity, ASubjectWithoutAStatReadHasNoStartTick) {
  FakeHost denied;
  denied.SetFileError(kHostPid3, ProcFile::kStat, EACCES);
  Verdict u = Resolve(denied, FakeHost::TypicalRequest());
  ASSERT_EQ(u.status, Status::kUnreadable) << u.detail;
  EXPECT_EQ(u.subject_pid, kHostPid3);
  EXPECT_FALSE(u.subject_start_ticks.has_value());

  FakeHost missing;
  missing.Remove(kAppServer);
  Verdict r = Resolve(missing, FakeHost::TypicalRequest());
  ASSERT_EQ(r.status, Status::kMissingRoot) << r.detail;
  EXPECT_FALSE(r.subject_start_ticks.has_value());
  EXPECT_FALSE(r.expected_ticks.has_value());
}

// ---------------------------------------------------------------------------
// Near misses

// NO_MATCH tells "wrong argv" from "not started yet": each process beneath
// the root is named with the first rule it did not pass, its cmdline quoted.
TEST(ResolverNearMisses, NoMatchNamesEachProcessBeneathTheRootWithItsFirstFailedRule) {
  FakeHost host;
  host.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "60"},
                  SleepEnviron(kToken), kSleepExe);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kNoMatch) << v.detail;
  ASSERT_EQ(v.near_misses.size(), 5u);  // 4001, 4100, 4101, 4102, 4103
  EXPECT_EQ(v.near_misses_omitted, 0u);
  for (const NearMiss& m : v.near_misses) EXPECT_EQ(m.rule, NearMiss::Rule::kArgv) << m.pid;
  const NearMiss& sleep = v.near_misses.back();
  EXPECT_EQ(sleep.pid, kSleep);
  EXPECT_EQ(sleep.start_ticks, kSleepStart);
  EXPECT_EQ(sleep.argv, std::string("/bin/sleep\0"
                                    "60\0",
                                    14));
  EXPECT_FALSE(sleep.argv_cut);
}

// A process with the exact argv but another token passed more rules: it is
// listed first, as a token miss, with the entries named the variable.
TEST(ResolverNearMisses, AnExactArgvWithAnotherTokenIsListedFirstAsATokenMiss) {
  FakeHost host;
  host.AddSleep(kSleep, kSandboxShell, kSleepStart, kOldToken);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kTokenMismatch) << v.detail;
  ASSERT_FALSE(v.near_misses.empty());
  EXPECT_EQ(v.near_misses[0].pid, kSleep);
  EXPECT_EQ(v.near_misses[0].rule, NearMiss::Rule::kToken);
  EXPECT_EQ(v.near_misses[0].token_entries, 1u);
  EXPECT_TRUE(v.near_misses[0].argv.empty());
}

// Bounded: at most kMaxNearMisses are listed, by pid among equals, the rest
// counted; a long cmdline is cut at kNearMissArgvBytes.
TEST(ResolverNearMisses, AtMostSixteenAreListedAndTheRestCounted) {
  FakeHost host;
  host.Remove(kSleep);
  for (std::int64_t pid = 6000; pid < 6040; ++pid) {
    host.AddProcess(pid, kAppServer, 520000, "worker", {"worker", std::string(300, 'w')}, {},
                    kOtherExe);
  }
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kNoMatch) << v.detail;
  ASSERT_EQ(v.near_misses.size(), kMaxNearMisses);
  EXPECT_EQ(v.near_misses_omitted, 44u - kMaxNearMisses);  // 4 of the host's, 40 workers
  EXPECT_EQ(v.near_misses[0].pid, kMcpServer);
  const NearMiss& worker = v.near_misses.back();
  EXPECT_EQ(worker.argv.size(), kNearMissArgvBytes);
  EXPECT_TRUE(worker.argv_cut);
}

// A verdict that is not a failure to find names no near miss.
TEST(ResolverNearMisses, OnlyTheNoMatchDiagnosisNamesNearMisses) {
  FakeHost plain;
  EXPECT_TRUE(Resolve(plain, FakeHost::TypicalRequest()).near_misses.empty());
  FakeHost multiple;
  AddSecondSandbox(multiple, kToken);
  EXPECT_TRUE(Resolve(multiple, FakeHost::TypicalRequest()).near_misses.empty());
}

// ---------------------------------------------------------------------------
// The deadline during a confirmation

// The deadline passes while attempt N+1 re-reads the ancestry of its only
// match (the sleep appeared after N attempts found nothing): the verdict
// says what was found — the match, by identity, and the rule it had not yet
// passed — never "no process beneath the root matches".
TEST(ResolverDeadlineDiagnosis, DeadlineWhileConfirmingTheOnlyMatchSaysWhatWasFound) {
  FakeHost host;
  DeadlineWhileConfirmingAfter(host, 3);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
  EXPECT_EQ(v.attempts, 4u);
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.subject_start_ticks, kSleepStart);
  EXPECT_EQ(v.detail.find("no process beneath the root matches"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("while confirming pid 4103"), std::string::npos) << v.detail;
  ASSERT_FALSE(v.near_misses.empty());
  EXPECT_EQ(v.near_misses[0].pid, kSleep);
  EXPECT_EQ(v.near_misses[0].rule, NearMiss::Rule::kExecutable);
}

// In the first attempt the verdict is DEADLINE, naming the match the same way.
TEST(ResolverDeadlineDiagnosis, DeadlineWhileConfirmingInTheFirstAttemptNamesTheMatch) {
  FakeHost host;
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "read" && c.pid == kSandboxShell && c.file == ProcFile::kStat &&
        h.Reads(kSandboxShell, ProcFile::kStat) == 2) {
      h.now_ns += 6'000'000'000;  // during the ancestry re-read
    }
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kDeadline) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.subject_start_ticks, kSleepStart);
  ASSERT_FALSE(v.near_misses.empty());
  EXPECT_EQ(v.near_misses[0].rule, NearMiss::Rule::kAncestry);
}

}  // namespace
}  // namespace proctape
