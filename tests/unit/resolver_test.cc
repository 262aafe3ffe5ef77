// The resolver of seed 000 ("Linux tracked-terminal host PID resolution"),
// against the in-memory host of fake_host.h. Each test names the rule it
// proves and quotes it from the seed.
#include "core/resolver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include "core/proc_parse.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

constexpr std::int64_t kT0 = 1'000'000'000;  // MemoryEvidence's initial clock
constexpr std::uint32_t kAttemptsIn5s = 51;  // attempts at t = 0, 0.1 s, ..., 5.0 s

// A second sandbox beneath the same app-server, its sleep carrying `token`:
//   4000 -> 4200 bwrap -> 4201 bwrap [1] -> 4202 sh [2] -> 4203 sleep [3]
constexpr std::int64_t kSecondSleep = 4203;
void AddSecondSandbox(FakeHost& host, const std::string& token) {
  host.AddProcess(4200, kAppServer, 520000, "bwrap", {"bwrap", "--unshare-pid"}, {},
                  Identity{0, 0x803, 600});
  host.AddProcess(4201, 4200, 520001, "bwrap", {"bwrap"}, {}, Identity{0, 0x803, 600});
  host.AddProcess(4202, 4201, 520002, "sh", {"/bin/sh", "-c", "..."}, {}, kShExe);
  host.AddSleep(kSecondSleep, 4202, 520003, token);
}

// The pids whose environ the resolver read.
std::set<std::int64_t> EnvironReaders(const FakeHost& host) {
  std::set<std::int64_t> pids;
  for (const auto& line : host.log) {
    if (line.rfind("read ", 0) != 0) continue;
    std::size_t space = line.find(' ', 5);  // "read PID environ BOUND -> ..."
    if (line.compare(space, 9, " environ ") == 0) {
      pids.insert(std::stoll(line.substr(5, space - 5)));
    }
  }
  return pids;
}

// ---------------------------------------------------------------------------
// Selection

// Seed: "Linux selects the unique exact sleep beneath the app-server host PID
// and ignores unrelated host processes, including host PID 3."
TEST(ResolverSelection, SelectsUniqueExactSleepBeneathAppServerNotHostPid3) {
  FakeHost host;
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.pid, kSleep);
  EXPECT_NE(v.pid, kHostPid3);
  EXPECT_EQ(v.start_ticks, kSleepStart);
  EXPECT_EQ(v.attempts, 1u);
  EXPECT_GT(v.bytes_read, 0u);
}

// Seed: "The tracked sleep must be identified only inside that process's
// descendant tree." An exact sleep carrying the token outside the tree (here
// at host PID 3) is neither selected nor even inspected.
TEST(ResolverSelection, IgnoresExactSleepWithTokenOutsideRootTree) {
  FakeHost host;
  host.AddSleep(kHostPid3, 1, 900, kToken);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.pid, kSleep);
  EXPECT_EQ(host.Reads(kHostPid3, ProcFile::kCmdline), 0);
  EXPECT_EQ(host.Reads(kHostPid3, ProcFile::kEnviron), 0);

  FakeHost only_outside;
  only_outside.AddSleep(kHostPid3, 1, 900, kToken);
  only_outside.Remove(kSleep);
  Verdict none = Resolve(only_outside, FakeHost::TypicalRequest());
  EXPECT_EQ(none.status, Status::kNoMatch) << none.detail;
}

// Seed: "An older exact sleep beneath the same app-server cannot match a new
// invocation's token."
TEST(ResolverSelection, OlderSleepWithAnotherTokenCannotMatch) {
  FakeHost host;
  AddSecondSandbox(host, kOldToken);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.pid, kSleep);
  EXPECT_TRUE(v.matches.empty());
}

// Seed (step 5): "exactly one environment entry carrying the current
// invocation token. This prevents an older matching sleep in the same
// app-server tree from satisfying the new command's gate." Alone, the older
// sleep never matches: TOKEN_MISMATCH once the retries run out.
TEST(ResolverSelection, OlderSleepAloneEndsInTokenMismatchAtDeadline) {
  FakeHost host;
  host.Remove(kSleep);
  AddSecondSandbox(host, kOldToken);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kTokenMismatch) << v.detail;
  EXPECT_EQ(v.subject_pid, kSecondSleep);
  EXPECT_EQ(v.attempts, kAttemptsIn5s);
}

// Seed (step 5): "exactly one environment entry carrying the current
// invocation token". Two entries named by the token variable are ambiguous.
TEST(ResolverSelection, TwoTokenEntriesFailImmediately) {
  FakeHost host;
  std::vector<std::string> env = SleepEnviron(kToken);
  env.push_back("PROCTAPE_TOKEN=" + kOldToken);
  host.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, env,
                  kSleepExe);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kTokenMismatch) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kEnviron));
  EXPECT_EQ(v.attempts, 1u);
}

// Seed (step 5): "argv exactly equal to ["/bin/sleep", "120"]", "without
// trimming or text normalization".
TEST(ResolverSelection, ArgvMustMatchExactlyWithoutNormalisation) {
  for (const std::vector<std::string>& argv :
       std::vector<std::vector<std::string>>{{"/bin/sleep", "120 "},
                                             {"/bin/sleep", "120", ""},
                                             {"sleep", "120"},
                                             {"/bin/sleep", "0120"},
                                             {"/bin/sleep"}}) {
    FakeHost host;
    host.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", argv, SleepEnviron(kToken),
                    kSleepExe);
    Verdict v = Resolve(host, FakeHost::TypicalRequest());
    EXPECT_EQ(v.status, Status::kNoMatch) << EscapeBytes(JoinNul(argv)) << ": " << v.detail;
  }
}

// Seed: "Zero and multiple matches fail closed." Zero matches retry "every
// 100 ms for at most 5 seconds": attempts at 0, 0.1, ..., 5.0 s.
TEST(ResolverSelection, ZeroMatchesFailClosedAfterRetriesFor5Seconds) {
  FakeHost host;
  host.Remove(kSleep);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
  EXPECT_EQ(v.attempts, kAttemptsIn5s);
  EXPECT_EQ(host.now_ns, kT0 + 5'000'000'000);
  EXPECT_EQ(std::count_if(host.log.begin(), host.log.end(),
                          [](const std::string& l) { return l.rfind("sleep ", 0) == 0; }),
            50);
  EXPECT_TRUE(std::find(host.log.begin(), host.log.end(), "sleep 1100000000") != host.log.end());
}

// Seed: "Ambiguity ... fails immediately."
TEST(ResolverSelection, MultipleMatchesFailClosedImmediately) {
  FakeHost host;
  AddSecondSandbox(host, kToken);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kMultipleMatches) << v.detail;
  EXPECT_EQ(v.matches, (std::vector<std::int64_t>{kSleep, kSecondSleep}));
  EXPECT_EQ(v.attempts, 1u);
}

// Seed (step 5): "A candidate must have argv exactly equal to ["/bin/sleep",
// "120"] and exactly one environment entry carrying the current invocation
// token." The token alone, carried by the sandbox's shell, is not enough.
TEST(ResolverSelection, TokenWithoutExactArgvIsNoMatch) {
  FakeHost host;
  host.Remove(kSleep);  // the sh at 4102 still exports the token
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
}

// ---------------------------------------------------------------------------
// Fail closed on changing or invalid evidence

// Seed: "A reused PID ... fail[s] closed" (step 7: "Every PID, parent PID, and
// start time must match the snapshot"). The sleep's pid is reused between the
// snapshot and the re-read.
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

// Seed (step 7): "Re-reads stat for the candidate and every ancestor through
// the app-server root". An ancestor's pid reused is PID reuse too.
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

// Seed (step 4): the root's "start time must remain unchanged" — also at the
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

// Seed: "A reused PID, zombie state, ... fail[s] closed." A zombie candidate
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

// Seed: "changed ancestry ... fail[s] closed": the sleep is reparented (its
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

// Seed (step 6): "Requires /proc/<pid>/exe for that candidate to have the
// same device and inode as the pre-attested /bin/sleep."
TEST(ResolverFailClosed, ExeMismatchIsExeMismatch) {
  FakeHost host;
  host.Find(kSleep)->exe = kOtherExe;
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kExeMismatch) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kExe));
  EXPECT_EQ(v.attempts, 1u);
}

// Seed (step 3): "parsing around the final ") " delimiter". A comm holding
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

// Seed: "malformed stat ... fail[s] closed"; "The directory PID must equal
// stat field 1; parent PID and start time must be canonical decimal strings";
// "malformed records fail immediately". Host pid 3 carries the bad record.
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

// Seed: "unreadable required stat, command-line, environment, or executable
// evidence" stops the checker; "permission errors ... fail immediately". The
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

// Seed (step 5): cmdline and environ are read beneath the root only; the
// same errors outside the tree are not required evidence.
TEST(ResolverFailClosed, UnreadableFilesOutsideRootTreeAreNotRequired) {
  FakeHost host;
  host.SetFileError(kHostPid3, ProcFile::kCmdline, EACCES);
  host.SetFileError(kHostPid3, ProcFile::kEnviron, EACCES);
  host.SetFileError(kSandboxShell, ProcFile::kEnviron, EACCES);  // argv is not the sleep's
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kResolved) << v.detail;
}

// ---------------------------------------------------------------------------
// Retry rules

// Seed: "Zero matches ... retries from a fresh snapshot every 100 ms for at
// most 5 seconds." The sleep execs just after the marker write.
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

// Seed: "retries ... for at most 5 seconds": the attempt that starts exactly
// at the deadline still runs.
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

// Seed: "an owned process disappearing during inspection retries from a
// fresh snapshot". ENOENT (gone) and ESRCH (exited mid-read) both count.
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

// Seed: "an owned process disappearing during inspection retries" — the
// candidate itself vanishing before its executable is checked.
TEST(ResolverRetry, CandidateVanishingBeforeExeCheckRetries) {
  FakeHost host;
  host.Find(kSleep)->exe = Identity{ENOENT, 0, 0};
  host.on_sleep = [](MemoryEvidence& ev) { ev.Find(kSleep)->exe = kSleepExe; };
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.attempts, 2u);
}

// Seed: "A numeric proc entry that disappears before its initial stat can be
// omitted from that point-in-time snapshot".
TEST(ResolverRetry, EntryVanishingBeforeInitialStatIsOmitted) {
  FakeHost host;
  host.SetFileError(kHostPid3, ProcFile::kStat, ENOENT);  // listed, then gone
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.attempts, 1u);
}

// Seed: "The checker stops on a missing app-server root"; "the known root ...
// remain[s] mandatory".
TEST(ResolverRetry, MissingRootFailsImmediately) {
  FakeHost host;
  host.Remove(kAppServer);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kMissingRoot) << v.detail;
  EXPECT_EQ(v.subject_pid, kAppServer);
  EXPECT_EQ(v.attempts, 1u);
}

// Seed (step 4): "rooted at the fingerprinted app-server PID, whose start
// time must remain unchanged."
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

// Seed (step 3): "Duplicate records ... stop the checker."
TEST(ResolverRetry, DuplicateListingEntryIsDuplicateRecord) {
  FakeHost host;
  host.listing = std::vector<std::string>{"1", "2",    "3",    "3900", "4000", "4001",
                                          "3", "4100", "4101", "4102", "4103"};
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kDuplicateRecord) << v.detail;
  EXPECT_EQ(v.subject_pid, kHostPid3);
  EXPECT_EQ(v.attempts, 1u);
}

// Seed (step 3): "cycles ... stop the checker."
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

// Seed (step 2): "PIDs are canonical decimal values from 2 through
// 2,147,483,647."
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

// ---------------------------------------------------------------------------
// Bounds, at exactly the bound and one past it

// Seed (step 3): "Reads at most 4,096 bytes from each /proc/<pid>/stat".
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

// Seed (step 5): "Reads at most 65,536 bytes each of ... /proc/<pid>/environ".
// A candidate's environ past the bound cannot prove the token.
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

// Seed (step 5): "Reads at most 65,536 bytes each of NUL-delimited
// /proc/<pid>/cmdline". A cmdline past the bound is not a match, even when
// its first 65,536 bytes are exactly the expected argv.
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

// Seed (step 2): "Enumerates at most 65,536 numeric /proc entries."
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

// Seed (step 3): "more than 65,536 graph nodes ... stop the checker." With a
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

// Seed (step 3): "ancestry deeper than 256 stop[s] the checker." A chain from
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

// Seed: "a cumulative proc-evidence byte budget; both are checked throughout
// enumeration and after every required read."
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

// Seed: the budget is cumulative over all attempts, not per attempt.
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

// Seed: "Each attempt receives the same absolute monotonic deadline";
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
  // The timing limits of core/resolver.h (issue 13: a recorded deadline of
  // years and a retry interval of a nanosecond made replay run forever).
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

// ---------------------------------------------------------------------------
// Secrets minimisation and determinism

// Seed (step 5): the environment is evidence only for an exact argv match, so
// no other process's environment (secrets included) is ever read.
TEST(ResolverDiscipline, NeverReadsEnvironOfNonMatchingArgv) {
  FakeHost host;
  host.AddSleep(kHostPid3, 1, 900, kToken);  // outside the tree
  host.AddProcess(4104, kSandboxShell, 510004, "sleep", {"/bin/sleep", "1200"},
                  SleepEnviron(kToken), kSleepExe);  // near miss inside the tree
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(EnvironReaders(host), (std::set<std::int64_t>{kSleep}));
  EXPECT_EQ(host.ReadsOf(ProcFile::kStatus), 0);
}

// Replay needs it: "the same resolver code runs in both" — with identical
// evidence, two runs make identical calls in identical order.
TEST(ResolverDiscipline, IdenticalEvidenceGivesIdenticalCallSequences) {
  auto run = [](FakeHost& host) {
    host.Remove(kSleep);
    host.call_cost_ns = 12345;
    AddSecondSandbox(host, kOldToken);
    host.on_sleep = [&host, sleeps = 0](MemoryEvidence&) mutable {
      if (++sleeps == 2) host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken);
    };
    return Resolve(host, FakeHost::TypicalRequest());
  };
  FakeHost a;
  FakeHost b;
  Verdict va = run(a);
  Verdict vb = run(b);
  ASSERT_EQ(va.status, Status::kResolved) << va.detail;
  EXPECT_EQ(va.attempts, 3u);
  EXPECT_GT(a.log.size(), 50u);
  EXPECT_EQ(a.log, b.log);
  EXPECT_EQ(vb.pid, va.pid);
  EXPECT_EQ(vb.bytes_read, va.bytes_read);
  EXPECT_EQ(vb.detail, va.detail);
}

// ---------------------------------------------------------------------------
// Fingerprinting the root before the turn

// Seed (step 1): "records the AppServerConnection child host PID and its
// /proc/<pid>/stat start time".
TEST(FingerprintRoot, RecordsTheRootStartTime) {
  FakeHost host;
  Verdict v = FingerprintRoot(host, kAppServer);
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.start_ticks, kAppServerStart);

  host.Remove(kAppServer);
  EXPECT_EQ(FingerprintRoot(host, kAppServer).status, Status::kMissingRoot);
  host.SetFileError(kAppServer, ProcFile::kStat, EACCES);
  Verdict denied = FingerprintRoot(host, kAppServer);
  EXPECT_EQ(denied.status, Status::kUnreadable);
  EXPECT_EQ(denied.err, EACCES);
  host.SetFile(kAppServer, ProcFile::kStat, MemoryEvidence::StatLine(4, "codex", 'S', 1, 5));
  EXPECT_EQ(FingerprintRoot(host, kAppServer).status, Status::kMalformedRecord);
}

}  // namespace
}  // namespace proctape
