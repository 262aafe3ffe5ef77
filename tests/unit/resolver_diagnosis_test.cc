// SPDX-License-Identifier: Apache-2.0
// The resolver's diagnosis (`docs/resolver.md`, "One attempt" and "Retries,
// deadline and budget"),
// against the in-memory host of fake_host.h: a candidate whose environ reads
// empty because it exited is vanished, not another token, and the diagnosis
// a deadline keeps. Each test quotes the rule it proves.
#include <gtest/gtest.h>

#include <cerrno>
#include <functional>
#include <string>
#include <vector>

#include "core/resolver.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// ---------------------------------------------------------------------------
// A candidate whose environ reads empty because it exited

// The sleep of `host` exits right after its environ is read as empty (what
// the kernel answers for a process whose memory is gone), in every attempt:
// `exit` leaves it gone or a zombie; the host brings a fresh one back before
// the next attempt.
void SleepExitsWhileItsEnvironIsRead(FakeHost& host, std::function<void(FakeHost&)> exit) {
  host.SetFile(kSleep, ProcFile::kEnviron, "");
  host.after_call = [exit](FakeHost& h, const Call& c) {
    if (c.kind == "read" && c.pid == kSleep && c.file == ProcFile::kEnviron) exit(h);
  };
  host.on_sleep = [](MemoryEvidence& ev) {
    ev.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, {},
                  kSleepExe);
  };
}

// `docs/resolver.md`, "Retries, deadline and budget": zero matches, or an
// owned process vanishing during inspection, retry from a fresh snapshot;
// only a token mismatch of a
// process that carries another token is TOKEN_MISMATCH. An exact argv whose
// environ reads back empty because the process exited (gone, a zombie, or
// its pid already reused) is a vanished process — its stat is re-read to
// tell — and the verdict at the deadline is NO_MATCH, never TOKEN_MISMATCH.
TEST(ResolverVanishedEnviron, EmptyEnvironOfAnExitedCandidateIsVanishedNotAnotherToken) {
  struct Case {
    const char* name;
    std::function<void(FakeHost&)> exit;
  };
  const std::vector<Case> cases = {
      {"gone", [](FakeHost& h) { h.Remove(kSleep); }},
      {"zombie",
       [](FakeHost& h) {
         h.SetFile(kSleep, ProcFile::kStat,
                   MemoryEvidence::StatLine(kSleep, "sleep", 'Z', kSandboxShell, kSleepStart));
       }},
      {"dead",
       [](FakeHost& h) {
         h.SetFile(kSleep, ProcFile::kStat,
                   MemoryEvidence::StatLine(kSleep, "sleep", 'X', kSandboxShell, kSleepStart));
       }},
      {"stat ESRCH", [](FakeHost& h) { h.SetFileError(kSleep, ProcFile::kStat, ESRCH); }},
      {"pid reused",
       [](FakeHost& h) {
         h.SetFile(kSleep, ProcFile::kStat,
                   MemoryEvidence::StatLine(kSleep, "sh", 'S', 1, kSleepStart + 7));
       }},
  };
  for (const Case& c : cases) {
    FakeHost host;
    SleepExitsWhileItsEnvironIsRead(host, c.exit);
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kNoMatch) << c.name << ": " << v.detail;
    EXPECT_EQ(v.subject_pid, kSleep) << c.name;
    EXPECT_NE(v.detail.find("vanished"), std::string::npos) << c.name << ": " << v.detail;
    EXPECT_EQ(v.attempts, 51u) << c.name;
  }
}

// Vanished means retried: the sleep that exited mid-inspection is replaced
// by the real one before the next attempt, which resolves it.
TEST(ResolverVanishedEnviron, CandidateExitingMidInspectionIsRetriedAndTheNextAttemptResolves) {
  FakeHost host;
  host.SetFile(kSleep, ProcFile::kEnviron, "");
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "read" && c.pid == kSleep && c.file == ProcFile::kEnviron &&
        h.Find(kSleep)->files[ProcFile::kEnviron].data.empty()) {
      h.Remove(kSleep);
    }
  };
  host.on_sleep = [](MemoryEvidence& ev) {
    ev.AddProcess(kSleep, kSandboxShell, kSleepStart + 1, "sleep", {"/bin/sleep", "120"},
                  SleepEnviron(kToken), kSleepExe);
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.start_ticks, kSleepStart + 1);
  EXPECT_EQ(v.attempts, 2u);
}

// The other side of the rule: a live process (its stat unchanged and not
// dead) whose environ is really empty (`env -i /bin/sleep 120`) carries no
// token; as before, that is another invocation's process and ends in
// TOKEN_MISMATCH at the deadline. The stat re-read is made only for an empty
// environ: a non-empty one adds no call.
TEST(ResolverVanishedEnviron, LiveCandidateWithAnEmptyEnvironCarriesNoToken) {
  FakeHost host;
  host.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, {},
                  kSleepExe);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kTokenMismatch) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(host.Reads(kSleep, ProcFile::kStat), 2 * 51);  // the scan's and the re-read

  FakeHost other_token;
  other_token.AddSleep(kSleep, kSandboxShell, kSleepStart, kOldToken);
  Verdict w = Resolve(other_token, FakeHost::TypicalRequest());
  EXPECT_EQ(w.status, Status::kTokenMismatch) << w.detail;
  EXPECT_EQ(other_token.Reads(kSleep, ProcFile::kStat), 51);  // the scan's only
}

// The re-read stat is required evidence like any other: unreadable (not
// vanished) or malformed fails closed at once.
TEST(ResolverVanishedEnviron, UnreadableOrMalformedReReadFailsClosed) {
  FakeHost denied;
  SleepExitsWhileItsEnvironIsRead(
      denied, [](FakeHost& h) { h.SetFileError(kSleep, ProcFile::kStat, EACCES); });
  Verdict v = Resolve(denied, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kUnreadable) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kStat));
  EXPECT_EQ(v.attempts, 1u);

  FakeHost garbage;
  SleepExitsWhileItsEnvironIsRead(
      garbage, [](FakeHost& h) { h.SetFile(kSleep, ProcFile::kStat, "\xff garbage\n"); });
  Verdict m = Resolve(garbage, FakeHost::TypicalRequest());
  EXPECT_EQ(m.status, Status::kMalformedRecord) << m.detail;
  EXPECT_EQ(m.attempts, 1u);
}

// ---------------------------------------------------------------------------
// The diagnosis a deadline keeps

// A busy host: the typical one with `extra` kernel workers, every call taking
// `call_cost_ns`, so an attempt takes about (extra + 20) calls.
void MakeBusy(FakeHost& host, int extra, std::int64_t call_cost_ns) {
  host.logging = false;
  host.call_cost_ns = call_cost_ns;
  for (std::int64_t pid = 10000; pid < 10000 + extra; ++pid) {
    host.AddProcess(pid, kKthreadd, 3, "kworker", {}, {}, Identity{ENOENT, 0, 0});
  }
}

// docs/resolver.md: the retries end at the deadline with NO_MATCH (or
// TOKEN_MISMATCH). On a busy host an attempt takes longer than the retry
// interval, and the deadline passes *during* an attempt rather than between
// two: the attempts that completed found no match, and the verdict keeps
// their diagnosis, naming the deadline as what ended the search — the same
// verdict the same host gives when its scans are short.
TEST(ResolverDeadlineDiagnosis, DeadlinePassingMidAttemptAfterCompletedAttemptsKeepsNoMatch) {
  for (std::int64_t cost : {std::int64_t{1'000}, std::int64_t{1'000'000}}) {
    FakeHost host;
    MakeBusy(host, 300, cost);
    host.Remove(kSleep);
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kNoMatch) << cost << ": " << v.detail;
    EXPECT_GT(v.attempts, 1u) << cost;
    EXPECT_EQ(v.subject_pid, 0) << cost;
    if (cost == 1'000'000) {
      // Cut mid-attempt: the detail names the deadline and the attempt it cut.
      EXPECT_NE(v.detail.find("the deadline passed during attempt " + std::to_string(v.attempts)),
                std::string::npos)
          << v.detail;
      EXPECT_NE(v.detail.find("no process beneath the root matches"), std::string::npos)
          << v.detail;
    }
  }
}

// The same with an older sleep carrying another invocation's token: the
// completed attempts' diagnosis is TOKEN_MISMATCH, naming that sleep.
TEST(ResolverDeadlineDiagnosis, DeadlinePassingMidAttemptAfterCompletedAttemptsKeepsTokenMismatch) {
  FakeHost host;
  MakeBusy(host, 300, 1'000'000);
  host.AddSleep(kSleep, kSandboxShell, kSleepStart, kOldToken);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kTokenMismatch) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_GT(v.attempts, 1u);
  EXPECT_NE(v.detail.find("the deadline passed during attempt"), std::string::npos) << v.detail;
}

// DEADLINE alone is for a deadline that passed before any attempt completed:
// nothing was diagnosed yet.
TEST(ResolverDeadlineDiagnosis, DeadlinePassingDuringTheFirstAttemptIsDeadline) {
  FakeHost host;
  MakeBusy(host, 6000, 1'000'000);  // one attempt takes > 5 s
  host.Remove(kSleep);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kDeadline) << v.detail;
  EXPECT_EQ(v.attempts, 1u);
}

// The kept diagnosis is that of the last attempt that completed, not of an
// earlier one: a vanished process in attempt 2 (after a stale token in
// attempt 1) is NO_MATCH.
TEST(ResolverDeadlineDiagnosis, TheLastCompletedAttemptsDiagnosisIsKept) {
  FakeHost host;
  MakeBusy(host, 300, 1'000'000);
  host.AddSleep(kSleep, kSandboxShell, kSleepStart, kOldToken);
  int sleeps = 0;
  host.on_sleep = [&sleeps](MemoryEvidence& ev) {
    if (++sleeps == 1) ev.SetFileError(kSleep, ProcFile::kCmdline, ENOENT);
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_NE(v.detail.find("vanished"), std::string::npos) << v.detail;
}

}  // namespace
}  // namespace proctape
