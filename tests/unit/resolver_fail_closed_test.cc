// SPDX-License-Identifier: Apache-2.0
// The resolver (`docs/resolver.md`), against the in-memory host of fake_host.h:
// it fails closed on evidence that changes while it reads (a reused pid, a
// restarted root, a zombie, changed ancestry, another exe) or that is invalid
// (a malformed stat, an unreadable required file). Each test names the rule it
// proves and the section of docs/resolver.md that states it.
#include "core/resolver.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/resolver_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// `docs/resolver.md`, "The eight steps": a reused pid fails closed (step 7:
// every pid, parent pid and start time must be those of the snapshot). The
// sleep's pid is reused between the snapshot and the re-read.
TEST(ResolverFailClosed, PidReusedBetweenSnapshotAndReReadIsPidReused) {
  FakeHost host;
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "exe" && c.pid == kSleep) h.AddSleep(kSleep, kSandboxShell, 777777, kToken);
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kPidReused) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.subject_start_ticks, 777777u);
  EXPECT_EQ(v.expected_ticks, kSleepStart);
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kStat));
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 7: stat is re-read for the match
// and every ancestor up to the root. An ancestor's pid reused is PID reuse too.
TEST(ResolverFailClosed, AncestorPidReusedIsPidReused) {
  FakeHost host;
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "exe" && c.pid == kSleep) {
      h.AddProcess(kSandboxInit, kBwrap, 600000, "bwrap", {"bwrap"}, {}, Identity{0, 1, 1});
    }
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kPidReused) << v.detail;
  EXPECT_EQ(v.subject_pid, kSandboxInit);
  EXPECT_EQ(v.subject_start_ticks, 600000u);
}

// `docs/resolver.md`, "The eight steps", step 4: the root's start time must
// be unchanged — also at the
// re-read after inspection.
TEST(ResolverFailClosed, RootRestartedDuringInspectionIsRootRestarted) {
  FakeHost host;
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "exe" && c.pid == kSleep) {
      h.AddProcess(kAppServer, kUserShell, kAppServerStart + 1, "codex", {"codex"}, {},
                   Identity{0, 1, 1});
    }
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kRootRestarted) << v.detail;
  EXPECT_EQ(v.subject_pid, kAppServer);
  EXPECT_EQ(v.expected_ticks, kAppServerStart);
}

// `docs/resolver.md`, "The eight steps": a reused pid or a zombie fails
// closed. A zombie candidate
// is never resolved, in any of the dead states of step 8.
TEST(ResolverFailClosed, ZombieOrDeadCandidateIsNeverResolved) {
  for (char state : {'Z', 'X', 'x'}) {
    FakeHost host;
    host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, state);
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kNoMatch) << state << ": " << v.detail;
    EXPECT_EQ(v.subject_pid, kSleep) << state;
    EXPECT_EQ(v.attempts, kAttemptsIn5s) << state;
  }
}

// `docs/resolver.md`, "The eight steps": a changed ancestry fails closed:
// the sleep is reparented (its
// shell died) between the snapshot and the re-read.
TEST(ResolverFailClosed, ChangedAncestryIsAncestryChanged) {
  FakeHost host;
  host.after_call = [](FakeHost& h, const Call& c) {
    if (c.kind == "exe" && c.pid == kSleep) {
      h.Remove(kSandboxShell);
      h.AddSleep(kSleep, kSandboxInit, kSleepStart, kToken);
    }
  };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kAncestryChanged) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kStat));
}

// `docs/resolver.md`, "The eight steps", step 6: the match's /proc/<pid>/exe
// must have the device and inode of the attested /bin/sleep.
TEST(ResolverFailClosed, ExeMismatchIsExeMismatch) {
  FakeHost host;
  host.Find(kSleep)->exe = kOtherExe;
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kExeMismatch) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kExe));
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 3: stat is split at the final
// ") ". A comm holding
// ") ", a newline or non-UTF-8 bytes still yields the true fields: the sleep
// stays beneath the root and resolves.
TEST(ResolverFailClosed, HostileCommStillParsesAsTheTrueFields) {
  for (const std::string& comm : {std::string("x) Z 1 1 1"), std::string("sl\neep"),
                                  std::string("\xff\xfe\x80)"), std::string(") ) ")}) {
    FakeHost host;
    host.SetFile(kSleep, ProcFile::kStat,
                 MemoryEvidence::StatLine(kSleep, comm, 'S', kSandboxShell, kSleepStart));
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kResolved) << EscapeBytes(comm) << ": " << v.detail;
    EXPECT_EQ(v.pid, kSleep);
    EXPECT_EQ(v.start_ticks, kSleepStart);
  }
}

// `docs/resolver.md`, "The eight steps", step 3, and "One attempt", step 1: a
// malformed stat fails closed at once; field 1 must be the directory's pid; the
// parent pid and start time must be canonical decimals. Host pid 3 carries the
// bad record.
TEST(ResolverFailClosed, MalformedStatIsMalformedRecordImmediately) {
  const std::vector<std::string> bad = {
      "\xff\xfe garbage\n",
      "",
      MemoryEvidence::StatLine(33, "postgres", 'S', 1, 900),  // field 1 != directory pid
      RawStat("3", "postgres", "S", "012", "900"),            // ppid not canonical
      RawStat("3", "postgres", "S", "1", "0900"),             // start not canonical
      RawStat("3", "postgres", "S", "-1", "900"),
      RawStat("03", "postgres", "S", "1", "900"),
      RawStat("3", "postgres", "SS", "1", "900"),
      "3 (postgres) S 1 1 1 0 -1 4194560\n",  // fewer than 22 fields
      "3 postgres S 1 1 1 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 900\n",
  };
  for (const std::string& stat : bad) {
    FakeHost host;
    host.SetFile(kHostPid3, ProcFile::kStat, stat);
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kMalformedRecord) << EscapeBytes(stat) << ": " << v.detail;
    EXPECT_EQ(v.subject_pid, kHostPid3);
    EXPECT_EQ(v.file, static_cast<int>(ProcFile::kStat));
    EXPECT_EQ(v.evidence, stat.substr(0, kEvidenceExcerpt));
    EXPECT_EQ(v.attempts, 1u);
  }
}

// `docs/resolver.md`, "The eight steps": unreadable evidence (stat, cmdline,
// environ or executable) fails at once, permission errors included. The
// verdict carries the pid, the file and the errno.
TEST(ResolverFailClosed, UnreadableRequiredFileIsUnreadableWithPidFileErrno) {
  struct Case {
    std::int64_t pid;
    ProcFile file;
  };
  for (Case c : {Case{kHostPid3, ProcFile::kStat}, Case{kMcpServer, ProcFile::kCmdline},
                 Case{kSleep, ProcFile::kEnviron}, Case{kSleep, ProcFile::kExe}}) {
    FakeHost host;
    if (c.file == ProcFile::kExe) {
      host.Find(c.pid)->exe = Identity{EACCES, 0, 0};
    } else {
      host.SetFileError(c.pid, c.file, EACCES);
    }
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    std::string what = std::to_string(c.pid) + "/" + std::string(ProcFileName(c.file));
    EXPECT_EQ(v.status, Status::kUnreadable) << what << ": " << v.detail;
    EXPECT_EQ(v.subject_pid, c.pid) << what;
    EXPECT_EQ(v.file, static_cast<int>(c.file)) << what;
    EXPECT_EQ(v.err, EACCES) << what;
    EXPECT_EQ(v.attempts, 1u) << what;
  }
}

// `docs/resolver.md`, "The eight steps", step 5: cmdline and environ are read
// beneath the root only; the same errors outside the tree are not required
// evidence.
TEST(ResolverFailClosed, UnreadableFilesOutsideRootTreeAreNotRequired) {
  FakeHost host;
  host.SetFileError(kHostPid3, ProcFile::kCmdline, EACCES);
  host.SetFileError(kHostPid3, ProcFile::kEnviron, EACCES);
  host.SetFileError(kSandboxShell, ProcFile::kEnviron, EACCES);  // argv is not the sleep's
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kResolved) << v.detail;
}

}  // namespace
}  // namespace proctape
