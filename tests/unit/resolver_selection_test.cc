// SPDX-License-Identifier: Apache-2.0
// The resolver (`docs/resolver.md`, "The eight steps"),
// against the in-memory host of fake_host.h: which process it selects, that
// it reads no environment it need not (secrets), that it is deterministic, and
// the root's fingerprint. Each test names the rule it proves and the section
// of docs/resolver.md that states it.
#include "core/resolver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <string>
#include <vector>

#include "tests/unit/fake_host.h"
#include "tests/unit/resolver_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

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

// `docs/resolver.md`, "The eight steps": the unique exact sleep beneath the
// app-server's host pid is selected; unrelated host processes, host pid 3
// included, are ignored.
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

// `docs/resolver.md`, "The eight steps", step 4: the sleep is looked for only
// beneath the root. An exact sleep carrying the token outside the tree (here
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

// `docs/resolver.md`, "The eight steps", step 5: an older exact sleep beneath
// the same app-server cannot answer for a new invocation's token.
TEST(ResolverSelection, OlderSleepWithAnotherTokenCannotMatch) {
  FakeHost host;
  AddSecondSandbox(host, kOldToken);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  ASSERT_EQ(v.status, Status::kResolved) << v.detail;
  EXPECT_EQ(v.pid, kSleep);
  EXPECT_TRUE(v.matches.empty());
}

// `docs/resolver.md`, "The eight steps", step 5: exactly one environment
// entry carrying this invocation's token, so an older exact sleep beneath
// the same root cannot answer for a new command. Alone, the older
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

// `docs/resolver.md`, "The eight steps", step 5: exactly one environment entry
// carrying this invocation's token. Two entries named by the token variable are
// ambiguous.
TEST(ResolverSelection, TwoTokenEntriesFailImmediately) {
  FakeHost host;
  std::vector<std::string> env = SleepEnviron(kToken);
  env.push_back("PROCTAPE_TOKEN=" + kOldToken);
  host.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, env,
                  kSleepExe);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kTokenMismatch) << v.detail;
  EXPECT_EQ(v.subject_pid, kSleep);
  EXPECT_EQ(v.subject_start_ticks, kSleepStart);  // named by its identity
  EXPECT_EQ(v.file, static_cast<int>(ProcFile::kEnviron));
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 5: argv exactly
// ["/bin/sleep", "120"], with no trimming and no normalisation.
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

// `docs/resolver.md`, "The eight steps": zero and multiple matches fail closed.
// Zero matches retry every 100 ms for at most 5 s: attempts at 0, 0.1, ...,
// 5.0 s.
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

// `docs/resolver.md`, "The eight steps": ambiguity fails at once.
TEST(ResolverSelection, MultipleMatchesFailClosedImmediately) {
  FakeHost host;
  AddSecondSandbox(host, kToken);
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kMultipleMatches) << v.detail;
  EXPECT_EQ(v.matches, (std::vector<std::int64_t>{kSleep, kSecondSleep}));
  EXPECT_EQ(v.attempts, 1u);
}

// `docs/resolver.md`, "The eight steps", step 5: a match has argv exactly
// ["/bin/sleep", "120"] and exactly one environment entry carrying this
// invocation's token. The token alone, carried by the sandbox's shell, is not
// enough.
TEST(ResolverSelection, TokenWithoutExactArgvIsNoMatch) {
  FakeHost host;
  host.Remove(kSleep);  // the sh at 4102 still exports the token
  Verdict v = Resolve(host, FakeHost::TypicalRequest());
  EXPECT_EQ(v.status, Status::kNoMatch) << v.detail;
}

// ---------------------------------------------------------------------------
// Secrets minimisation and determinism

// `docs/resolver.md`, "One attempt", step 3: the environment is read only for
// an exact argv match, so no other process's environment (secrets included) is
// ever read.
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

// `docs/resolver.md`, "The eight steps", step 1: the root's host pid and its
// /proc/<pid>/stat start time are recorded.
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
