// SPDX-License-Identifier: Apache-2.0
// Liveness of a resolved identity (`docs/resolver.md`, "Liveness"; "The eight
// steps", step 8): every later liveness check re-reads stat. A missing process
// or state Z, X, or x is dead; a matching non-dead start time is alive; pid
// reuse, malformed data, or unreadable required evidence is an error.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "core/resolver.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// `docs/resolver.md`, "Liveness": death is detected by the selected host pid
// and its start time. The identity the resolver selected is alive; the marker's
// namespace pid, taken as a host pid, names another process.
TEST(Liveness, UsesTheSelectedHostPidAndStartTime) {
  FakeHost host;
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;

  LivenessVerdict alive = CheckLiveness(host, v.pid, v.start_ticks);
  EXPECT_EQ(alive.status, LivenessStatus::kAlive) << alive.detail;
  EXPECT_EQ(alive.state, "S");

  LivenessVerdict marker = CheckLiveness(host, kHostPid3, v.start_ticks);
  EXPECT_EQ(marker.status, LivenessStatus::kError) << marker.detail;
  EXPECT_EQ(marker.reason, Status::kPidReused);
}

// `docs/resolver.md`, "Liveness": every later liveness check re-reads stat —
// and nothing else: one bounded stat read, no signal, no other file.
TEST(Liveness, ReadsOnlyTheStatOfThePid) {
  FakeHost host;
  CheckLiveness(host, kSleep, kSleepStart);
  ASSERT_EQ(host.log.size(), 1u);
  EXPECT_EQ(host.log[0].rfind("read 4103 stat 4096 -> 0 ", 0), 0u) << host.log[0];
}

// `docs/resolver.md`, "Liveness": a missing process is dead. Gone from /proc
// (ENOENT) or exiting mid-read (ESRCH).
TEST(Liveness, MissingProcessIsDead) {
  FakeHost host;
  host.Remove(kSleep);
  LivenessVerdict gone = CheckLiveness(host, kSleep, kSleepStart);
  EXPECT_EQ(gone.status, LivenessStatus::kDead) << gone.detail;
  EXPECT_EQ(gone.err, ENOENT);

  host.SetFileError(kSleep, ProcFile::kStat, ESRCH);
  EXPECT_EQ(CheckLiveness(host, kSleep, kSleepStart).status, LivenessStatus::kDead);
}

// `docs/resolver.md`, "Liveness": state Z, X or x is dead.
TEST(Liveness, StatesZXxAreDead) {
  for (char state : {'Z', 'X', 'x'}) {
    FakeHost host;
    host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, state);
    LivenessVerdict l = CheckLiveness(host, kSleep, kSleepStart);
    EXPECT_EQ(l.status, LivenessStatus::kDead) << state << ": " << l.detail;
    EXPECT_EQ(l.state, std::string(1, state));
  }
}

// `docs/resolver.md`, "Liveness": a matching non-dead start time is alive — in
// every other state the kernel shows.
TEST(Liveness, MatchingStartInAnyOtherStateIsAlive) {
  for (char state : {'R', 'S', 'D', 'T', 't', 'I', 'W', 'P'}) {
    FakeHost host;
    host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, state);
    LivenessVerdict l = CheckLiveness(host, kSleep, kSleepStart);
    EXPECT_EQ(l.status, LivenessStatus::kAlive) << state << ": " << l.detail;
  }
}

// `docs/resolver.md`, "Liveness": pid reuse is an error — also when the new
// process at the pid is itself a zombie: the tracked process is not the one
// observed.
TEST(Liveness, DifferentStartTimeIsPidReusedError) {
  for (char state : {'S', 'Z'}) {
    FakeHost host;
    host.AddSleep(kSleep, 1, kSleepStart + 50, "other", state);
    LivenessVerdict l = CheckLiveness(host, kSleep, kSleepStart);
    EXPECT_EQ(l.status, LivenessStatus::kError) << state << ": " << l.detail;
    EXPECT_EQ(l.reason, Status::kPidReused) << state;
  }
}

// `docs/resolver.md`, "Liveness": malformed stat is an error: garbage, another
// pid's record, a non-canonical start time, a stat larger than its bound.
TEST(Liveness, MalformedStatIsMalformedRecordError) {
  for (const std::string& stat :
       {std::string("\xff garbage"), MemoryEvidence::StatLine(4104, "sleep", 'S', 1, kSleepStart),
        RawStat("4103", "sleep", "S", "4102", "0510003"),
        MemoryEvidence::StatLine(kSleep, CommForStatSize(kSleep, 4102, kSleepStart, 4097), 'S',
                                 4102, kSleepStart)}) {
    FakeHost host;
    host.SetFile(kSleep, ProcFile::kStat, stat);
    LivenessVerdict l = CheckLiveness(host, kSleep, kSleepStart);
    EXPECT_EQ(l.status, LivenessStatus::kError) << l.detail;
    EXPECT_EQ(l.reason, Status::kMalformedRecord) << l.detail;
  }
}

// `docs/resolver.md`, "The eight steps", step 3: at most 4,096 bytes of stat: a
// record of exactly the bound is read whole.
TEST(Liveness, StatOfExactly4096BytesIsRead) {
  FakeHost host;
  host.SetFile(kSleep, ProcFile::kStat,
               MemoryEvidence::StatLine(kSleep, CommForStatSize(kSleep, 4102, kSleepStart, 4096),
                                        'S', 4102, kSleepStart));
  EXPECT_EQ(CheckLiveness(host, kSleep, kSleepStart).status, LivenessStatus::kAlive);
}

// `docs/resolver.md`, "Liveness": unreadable stat is an error — EACCES is not
// death.
TEST(Liveness, UnreadableStatIsUnreadableError) {
  FakeHost host;
  host.SetFileError(kSleep, ProcFile::kStat, EACCES);
  LivenessVerdict l = CheckLiveness(host, kSleep, kSleepStart);
  EXPECT_EQ(l.status, LivenessStatus::kError) << l.detail;
  EXPECT_EQ(l.reason, Status::kUnreadable);
  EXPECT_EQ(l.err, EACCES);
}

// `docs/resolver.md`, "The eight steps", step 3: stat is split at the final
// ") ": a comm that
// spells a zombie's fields does not make a sleeping process dead.
TEST(Liveness, HostileCommDoesNotChangeTheState) {
  FakeHost host;
  host.SetFile(kSleep, ProcFile::kStat,
               MemoryEvidence::StatLine(kSleep, "x) Z 1 1 1", 'S', kSandboxShell, kSleepStart));
  LivenessVerdict l = CheckLiveness(host, kSleep, kSleepStart);
  EXPECT_EQ(l.status, LivenessStatus::kAlive) << l.detail;
  EXPECT_EQ(l.state, "S");
}

// Liveness validates its request as resolve does (`docs/resolver.md`,
// "Liveness"): a pid outside step 2's range (2 through 2,147,483,647)
// names no process the resolver can have selected, and a start tick of 0 no
// process started after boot; either is an error of the request, decided
// before anything is read, never DEAD (a false claim about pid 0) or ALIVE
// (init, pid 1).
TEST(Liveness, InvalidPidOrStartTickIsAnInvalidRequestWithoutReading) {
  struct Case {
    std::int64_t pid;
    std::uint64_t start;
  };
  for (Case c : {Case{0, kSleepStart}, Case{1, 1}, Case{-4103, kSleepStart},
                 Case{2147483648, kSleepStart}, Case{kSleep, 0}}) {
    FakeHost host;
    LivenessVerdict l = CheckLiveness(host, c.pid, c.start);
    EXPECT_EQ(l.status, LivenessStatus::kError) << c.pid << "@" << c.start << ": " << l.detail;
    EXPECT_EQ(l.reason, Status::kInvalidRequest) << c.pid << "@" << c.start;
    EXPECT_EQ(host.calls, 0u) << c.pid << "@" << c.start;
  }
  // The ends of the range are valid requests.
  FakeHost host;
  host.AddSleep(2147483647, kSandboxShell, 1, kToken);
  EXPECT_EQ(CheckLiveness(host, 2147483647, 1).status, LivenessStatus::kAlive);
  EXPECT_EQ(CheckLiveness(host, kKthreadd, 2).status, LivenessStatus::kAlive);
}

}  // namespace
}  // namespace proctape
