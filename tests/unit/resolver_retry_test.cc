// SPDX-License-Identifier: Apache-2.0
// The resolver (`docs/resolver.md`), against the in-memory host of fake_host.h:
// the retry rules (a fresh snapshot every 100 ms for at most 5 s, processes
// vanishing while read) and what ends a resolution at once. Each test names the
// rule it proves and the section of docs/resolver.md that states it.
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

// `docs/resolver.md`, "Retries, deadline and budget": zero matches retry from a
// fresh snapshot every 100 ms for at most 5 s. The sleep execs just after the
// marker write.
TEST(ResolverRetry, SleepAppearingAtThirdAttemptResolves) {
  FakeHost host;
  host.Remove(kSleep);
  int sleeps = 0;
  host.on_sleep = [&](MemoryEvidence&) {
    if (++sleeps == 2) host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken);
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.pid, kSleep);
  EXPECT_EQ(v.attempts, 3u);
  EXPECT_EQ(host.now_ns, kT0 + 200'000'000);
}

// `docs/resolver.md`, "Retries, deadline and budget" (at most 5 s): the
// attempt that starts exactly at the deadline still runs.
TEST(ResolverRetry, SleepAppearingAtTheAttemptAtTheDeadlineResolves) {
  FakeHost host;
  host.Remove(kSleep);
  int sleeps = 0;
  host.on_sleep = [&](MemoryEvidence&) {
    if (++sleeps == 50) host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken);
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.attempts, kAttemptsIn5s);
}

// `docs/resolver.md`, "Retries, deadline and budget": an owned process that
// vanishes during inspection retries from a fresh snapshot. ENOENT (gone)
// and ESRCH (exited mid-read) both count.
TEST(ResolverRetry, OwnedProcessVanishingDuringInspectionRetries) {
  for (int err : {ENOENT, ESRCH}) {
    FakeHost host;
    host.SetFileError(kMcpServer, ProcFile::kCmdline, err);
    host.on_sleep = [](MemoryEvidence& ev) { ev.Remove(kMcpServer); };
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    ASSERT_EQ(v.status, Status::kResolved) << err << ": " << v.detail;
    EXPECT_EQ(v.pid, kSleep);
    EXPECT_EQ(v.attempts, 2u) << err;
  }
  // Still vanishing at every attempt: no match by the deadline, naming it.
  FakeHost host;
  host.SetFileError(kMcpServer, ProcFile::kCmdline, ENOENT);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
  EXPECT_EQ(v.subject_pid, kMcpServer);
  EXPECT_EQ(v.attempts, kAttemptsIn5s);
}

// `docs/resolver.md`, "Retries, deadline and budget": an owned process
// vanishing during inspection retries — the
// candidate itself vanishing before its executable is checked.
TEST(ResolverRetry, CandidateVanishingBeforeExeCheckRetries) {
  FakeHost host;
  host.Find(kSleep)->exe = Identity{ENOENT, 0, 0};
  host.on_sleep = [](MemoryEvidence& ev) { ev.Find(kSleep)->exe = kSleepExe; };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.attempts, 2u);
}

// `docs/resolver.md`, "The eight steps": a numeric entry that vanishes before
// its first stat read is left out of that snapshot.
TEST(ResolverRetry, EntryVanishingBeforeInitialStatIsOmitted) {
  FakeHost host;
  host.SetFileError(kHostPid3, ProcFile::kStat, ENOENT);  // listed, then gone
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps" and "One attempt", step 2: the root
// stays mandatory; a missing root (MISSING_ROOT) stops the resolution.
TEST(ResolverRetry, MissingRootFailsImmediately) {
  FakeHost host;
  host.Remove(kAppServer);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kMissingRoot) << v.detail;
  EXPECT_EQ(v.subject_pid, kAppServer);
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 4: the tree is rooted at the
// fingerprinted root, whose start time must be unchanged.
TEST(ResolverRetry, RootStartTimeChangedIsRootRestarted) {
  FakeHost host;
  Request r = FakeHost::TypicalRequest();
  r.root_start_ticks = kAppServerStart - 1;
  Verdict v = Resolve(host, r);
  EXPECT_EQ(v.status, Status::kRootRestarted) << v.detail;
  EXPECT_EQ(v.subject_start_ticks, kAppServerStart);
  EXPECT_EQ(v.expected_ticks, kAppServerStart - 1);
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 3: a duplicate record stops the
// resolution.
TEST(ResolverRetry, DuplicateListingEntryIsDuplicateRecord) {
  FakeHost host;
  host.listing = std::vector<std::string>{"1", "2",    "3",    "3900", "4000", "4001",
                                          "3", "4100", "4101", "4102", "4103"};
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kDuplicateRecord) << v.detail;
  EXPECT_EQ(v.subject_pid, kHostPid3);
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 3: a parent cycle stops the
// resolution.
TEST(ResolverRetry, CycleOfParentLinksIsCycle) {
  FakeHost host;
  host.AddProcess(5000, 5001, 1, "a", {"a"}, {}, kOtherExe);
  host.AddProcess(5001, 5000, 1, "b", {"b"}, {}, kOtherExe);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kCycle) << v.detail;
  EXPECT_TRUE(v.subject_pid == 5000 || v.subject_pid == 5001) << v.subject_pid;
  EXPECT_EQ(v.attempts, 1u);

  FakeHost self_parent;
  self_parent.AddProcess(5000, 5000, 1, "a", {"a"}, {}, kOtherExe);
  EXPECT_EQ(Resolve(self_parent, FakeHost::TypicalRequest()).status, Status::kCycle);
}

// `docs/resolver.md`, "The eight steps", step 2: a pid is a canonical
// decimal from 2 to 2,147,483,647.
TEST(ResolverRetry, NonCanonicalProcEntryNameIsMalformedRecord) {
  for (std::string name : {"012", "0", "2147483648", "4x", ""}) {
    FakeHost host;
    host.listing = std::vector<std::string>{"2",    "3",    name,   "3900", "4000",
                                            "4001", "4100", "4101", "4102", "4103"};
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kMalformedRecord) << "'" << name << "': " << v.detail;
    EXPECT_EQ(v.evidence, name);
    EXPECT_EQ(v.attempts, 1u);
  }
}

// Listing /proc is required evidence: a failed listing is unreadable.
TEST(ResolverRetry, FailedListingIsUnreadable) {
  FakeHost host;
  host.list_err = EACCES;
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kUnreadable) << v.detail;
  EXPECT_EQ(v.err, EACCES);
  EXPECT_EQ(v.attempts, 1u);
}

}  // namespace
}  // namespace proctape
