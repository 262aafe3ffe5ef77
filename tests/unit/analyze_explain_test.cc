// `proctape explain` (issue 6, section 1): a recorded check told step by step
// from a replay of the identical resolver against its tape.
//
// Every recording here is real: a check run on the in-memory host of
// fake_host.h, recorded through the real recorder into a real file and read
// back (replay_fixture.h). Each rejection reason the resolver has is staged
// and its explanation checked against what the resolver decided (the verdict,
// the attempt count, the tape's length); then the text and JSON of every
// corpus entry (corpus/MANIFEST) and of a hand-made hostile recording are
// compared byte for byte with tests/golden/explain/. PROCTAPE_UPDATE_GOLDEN=1
// rewrites the golden files instead.
#include "analyze/explain.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "capture/fingerprint.h"
#include "corpus/manifest.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens
using Why = v1::ExplainCandidate::Why;
using Outcome = v1::ExplainAttempt::Outcome;

std::filesystem::path SourceDir() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path();
}

std::string FileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Compares `actual` with tests/golden/explain/NAME, or rewrites it when
// PROCTAPE_UPDATE_GOLDEN=1.
void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::filesystem::path path = SourceDir() / "tests" / "golden" / "explain" / name;
  const char* update = std::getenv("PROCTAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
  }
  ASSERT_TRUE(std::filesystem::exists(path))
      << name << " is missing: run with PROCTAPE_UPDATE_GOLDEN=1 to write it";
  EXPECT_EQ(actual, FileBytes(path))
      << "explain output differs from tests/golden/explain/" << name
      << " (PROCTAPE_UPDATE_GOLDEN=1 rewrites it after a deliberate change)";
}

// A second sandbox beneath the same app-server, its sleep carrying `token`.
constexpr std::int64_t kSecondSleep = 4203;
void AddSecondSandbox(FakeHost& host, const std::string& token) {
  host.AddProcess(4200, kAppServer, 520000, "bwrap", {"bwrap", "--unshare-pid"}, {},
                  Identity{0, 0x803, 600});
  host.AddProcess(4201, 4200, 520001, "bwrap", {"bwrap"}, {}, Identity{0, 0x803, 600});
  host.AddProcess(4202, 4201, 520002, "sh", {"/bin/sh", "-c", "..."}, {}, kShExe);
  host.AddSleep(kSecondSleep, 4202, 520003, token);
}

// Once, after the resolver first took the sleep's executable identity: `change`.
void AfterExe(FakeHost& host, std::function<void(FakeHost&)> change) {
  host.after_call = [change = std::move(change), done = false](FakeHost& h, const Call& c) mutable {
    if (done || c.kind != "exe" || c.pid != kSleep) return;
    done = true;
    change(h);
  };
}

// In every attempt, the sleep's environ reads empty and `exit` follows it
// (the sleep exited between its cmdline and environ reads); a fresh one is
// back before the next attempt.
void ExitAtEnviron(FakeHost& host, std::function<void(FakeHost&)> exit) {
  host.SetFile(kSleep, ProcFile::kEnviron, "");
  host.after_call = [exit = std::move(exit)](FakeHost& h, const Call& c) {
    if (c.kind == "read" && c.pid == kSleep && c.file == ProcFile::kEnviron) exit(h);
  };
  host.on_sleep = [](MemoryEvidence& ev) {
    ev.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, {},
                  kSleepExe);
  };
}

struct Explained {
  Recorded recorded;
  Snapshot snapshot;
  v1::ExplainCheck check;
};

// Records Resolve(host, request) into a real file, reads it back, explains it.
Explained RecordAndExplain(FakeHost& host, const Request& request,
                           const RecordOptions& options = {}) {
  Explained out;
  ReplayTempDir dir;
  EXPECT_TRUE(dir.ok());
  const std::string path = dir.File("check.ptape");
  out.recorded = RecordResolution(host, request, path, options);
  EXPECT_TRUE(out.recorded.ok) << out.recorded.error;
  EXPECT_TRUE(ReadSnapshot(path, &out.snapshot).ok());
  if (out.snapshot.resolutions.size() == 1) out.check = ExplainRecordedCheck(out.snapshot, 0);
  return out;
}

Explained LivenessExplained(FakeHost& host, std::int64_t pid, std::uint64_t start) {
  Explained out;
  ReplayTempDir dir;
  EXPECT_TRUE(dir.ok());
  const std::string path = dir.File("liveness.ptape");
  out.recorded = RecordLivenessCheck(host, pid, start, path);
  EXPECT_TRUE(out.recorded.ok) << out.recorded.error;
  EXPECT_TRUE(ReadSnapshot(path, &out.snapshot).ok());
  if (out.snapshot.resolutions.size() == 1) out.check = ExplainRecordedCheck(out.snapshot, 0);
  return out;
}

const v1::ExplainCandidate* FindCandidate(const v1::ExplainAttempt& a, std::int64_t pid) {
  for (const auto& k : a.candidates()) {
    if (k.pid() == pid) return &k;
  }
  return nullptr;
}

std::string Text(const v1::ExplainCheck& check) {
  v1::Explanation e;
  e.set_file("check.ptape");
  e.set_recorded_checks(1);
  *e.add_checks() = check;
  return RenderExplanation(e, false);
}

// What holds for every explained resolution, whatever it decided: the
// explanation tells the resolver's own run, call for call.
void ExpectFaithful(const Explained& x) {
  const v1::ExplainCheck& c = x.check;
  EXPECT_EQ(c.kind(), v1::ExplainCheck::RESOLVE);
  EXPECT_EQ(c.replay(), v1::ReplayResult::REPRODUCED) << Text(c);
  EXPECT_EQ(static_cast<int>(c.verdict().status()), static_cast<int>(x.recorded.verdict.status));
  EXPECT_EQ(c.verdict().attempts(), x.recorded.verdict.attempts);
  // One attempt told per attempt the resolver counted.
  EXPECT_EQ(static_cast<std::uint32_t>(c.attempts_size()), x.recorded.verdict.attempts) << Text(c);
  // Every call of the tape belongs to the fingerprint or to one attempt.
  std::uint64_t told = c.fingerprinted() ? 1 : 0;
  for (const auto& a : c.attempts()) {
    EXPECT_EQ(a.first_observation(), told) << "attempt " << a.index();
    told += a.observation_count();
  }
  if (c.attempts_size() > 0) {
    EXPECT_EQ(told, x.recorded.observations);
  }
  // Retries until the last attempt; every candidate has a reason.
  for (int i = 0; i < c.attempts_size(); ++i) {
    const auto& a = c.attempts(i);
    EXPECT_EQ(a.index(), static_cast<std::uint32_t>(i + 1));
    if (i + 1 < c.attempts_size()) {
      EXPECT_EQ(a.outcome(), v1::ExplainAttempt::RETRY);
    }
    for (const auto& k : a.candidates()) {
      EXPECT_NE(k.why(), v1::ExplainCandidate::WHY_UNSPECIFIED) << k.pid();
      EXPECT_FALSE(k.detail().empty()) << k.pid();
    }
  }
  EXPECT_FALSE(c.ended_by().empty());
}

// ---------------------------------------------------------------------------
// Each rejection reason

struct WhyScenario {
  const char* name;
  std::function<void(FakeHost&, Request&)> setup;
  Status status;                 // the verdict
  Outcome first_outcome;         // of attempt 1
  std::vector<std::pair<std::int64_t, Why>> first_attempt;  // pid -> why, in attempt 1
};

std::vector<WhyScenario> WhyScenarios() {
  using C = v1::ExplainCandidate;
  using A = v1::ExplainAttempt;
  return {
      {"Resolved", [](FakeHost&, Request&) {}, Status::kResolved, A::FINAL,
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
       Status::kTokenMismatch, A::RETRY, {{kSleep, C::NO_TOKEN}}},
      {"TokenTwice",
       [](FakeHost& h, Request&) {
         std::vector<std::string> env = SleepEnviron(kToken);
         env.push_back("PROCTAPE_TOKEN=" + kOldToken);
         h.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, env,
                      kSleepExe);
       },
       Status::kTokenMismatch, A::FINAL, {{kSleep, C::TOKEN_TWICE}}},
      {"OtherTokenAlone",
       [](FakeHost& h, Request&) {
         h.Remove(kSleep);
         AddSecondSandbox(h, kOldToken);
       },
       Status::kTokenMismatch, A::RETRY, {{kSecondSleep, C::OTHER_TOKEN}}},
      {"OtherTokenBesideTheMatch", [](FakeHost& h, Request&) { AddSecondSandbox(h, kOldToken); },
       Status::kResolved, A::FINAL, {{kSleep, C::RESOLVED}, {kSecondSleep, C::OTHER_TOKEN}}},
      {"MultipleMatches", [](FakeHost& h, Request&) { AddSecondSandbox(h, kToken); },
       Status::kMultipleMatches, A::FINAL, {{kSleep, C::MATCH}, {kSecondSleep, C::MATCH}}},
      {"ExeMismatch", [](FakeHost& h, Request&) { h.Find(kSleep)->exe = kOtherExe; },
       Status::kExeMismatch, A::FINAL, {{kSleep, C::EXE_MISMATCH}}},
      {"ExeVanished", [](FakeHost& h, Request&) { h.Find(kSleep)->exe = Identity{ENOENT, 0, 0}; },
       Status::kNoMatch, A::RETRY, {{kSleep, C::VANISHED}}},
      {"ExeUnreadable", [](FakeHost& h, Request&) { h.Find(kSleep)->exe = Identity{EACCES, 0, 0}; },
       Status::kUnreadable, A::FINAL, {{kSleep, C::UNREADABLE}}},
      {"AncestryChanged",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.Remove(kSandboxShell);
           host.AddSleep(kSleep, kSandboxInit, kSleepStart, kToken);
         });
       },
       Status::kAncestryChanged, A::FINAL, {{kSleep, C::ANCESTRY_CHANGED}}},
      {"PidReusedAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) { host.AddSleep(kSleep, kSandboxShell, 777777, kToken); });
       },
       Status::kPidReused, A::FINAL, {{kSleep, C::PID_REUSED}}},
      {"AncestorPidReusedAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.AddProcess(kSandboxInit, kBwrap, 777777, "bwrap", {"bwrap"}, {},
                           Identity{0, 0x803, 600});
         });
       },
       Status::kPidReused, A::FINAL, {{kSleep, C::PID_REUSED}}},
      {"RootRestartedAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.AddProcess(kAppServer, kUserShell, kAppServerStart + 1, "codex", {"codex"}, {},
                           Identity{0, 1, 1});
         });
       },
       Status::kRootRestarted, A::FINAL, {{kSleep, C::ROOT_RESTARTED}}},
      // Seed (step 7): "Every PID, parent PID, and start time must match the
      // snapshot" — the root's parent too: reparented to init at its re-read.
      {"RootReparentedAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.AddProcess(kAppServer, 1, kAppServerStart, "codex", {"codex", "app-server"}, {},
                           Identity{0, 0x803, 500});
         });
       },
       Status::kAncestryChanged, A::FINAL, {{kSleep, C::ANCESTRY_CHANGED}}},
      {"RootGoneAtReRead",
       [](FakeHost& h, Request&) { AfterExe(h, [](FakeHost& host) { host.Remove(kAppServer); }); },
       Status::kMissingRoot, A::FINAL, {{kSleep, C::ROOT_VANISHED}}},
      {"AncestorGoneAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) { host.Remove(kSandboxShell); });
         h.on_sleep = [](MemoryEvidence& ev) {
           ev.AddProcess(kSandboxShell, kSandboxInit, kSandboxShellStart, "sh", {"/bin/sh"}, {},
                         kShExe);
         };
       },
       Status::kResolved, A::RETRY, {{kSleep, C::VANISHED}}},
      {"DeadAtReRead",
       [](FakeHost& h, Request&) {
         AfterExe(h, [](FakeHost& host) {
           host.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, 'Z');
         });
       },
       Status::kNoMatch, A::RETRY, {{kSleep, C::DEAD}}},
      // The sleep exits between its cmdline and its environ read: environ
      // reads empty, and the stat re-read that tells why finds it gone or a
      // zombie (seed: "an owned process disappearing during inspection
      // retries"); in every attempt, so the verdict is NO_MATCH.
      {"EnvironEmptyThenGone",
       [](FakeHost& h, Request&) { ExitAtEnviron(h, [](FakeHost& host) { host.Remove(kSleep); }); },
       Status::kNoMatch, A::RETRY, {{kSleep, C::VANISHED}}},
      {"EnvironEmptyThenZombie",
       [](FakeHost& h, Request&) {
         ExitAtEnviron(h, [](FakeHost& host) {
           host.SetFile(kSleep, ProcFile::kStat,
                        MemoryEvidence::StatLine(kSleep, "sleep", 'Z', kSandboxShell, kSleepStart));
         });
       },
       Status::kNoMatch, A::RETRY, {{kSleep, C::VANISHED}}},
      // A live sleep with a really empty environ (env -i): its stat is re-read,
      // unchanged, and it carries no token.
      {"EnvironEmptyAndAlive",
       [](FakeHost& h, Request&) {
         h.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, {},
                      kSleepExe);
       },
       Status::kTokenMismatch, A::RETRY, {{kSleep, C::NO_TOKEN}}},
      // Vanished during inspection: the sandbox's init is gone when its
      // cmdline is read, in the first attempt only.
      {"VanishedDuringInspection",
       [](FakeHost& h, Request&) {
         h.SetFileError(kSandboxInit, ProcFile::kCmdline, ENOENT);
         h.on_sleep = [](MemoryEvidence& ev) {
           ev.SetFile(kSandboxInit, ProcFile::kCmdline, JoinNul({"bwrap"}));
         };
       },
       Status::kResolved, A::RETRY, {{kMcpServer, C::ARGV_DIFFERS}, {kSandboxInit, C::VANISHED}}},
      {"UnreadableCmdline",
       [](FakeHost& h, Request&) { h.SetFileError(kMcpServer, ProcFile::kCmdline, EACCES); },
       Status::kUnreadable, A::FINAL, {{kMcpServer, C::UNREADABLE}}},
      {"CmdlineTooLong", [](FakeHost&, Request& r) { r.bounds.cmdline_bytes = 16; },
       Status::kResolved, A::FINAL,
       {{kMcpServer, C::CMDLINE_TOO_LONG}, {kSleep, C::RESOLVED}}},
      {"EnvironTooLarge", [](FakeHost&, Request& r) { r.bounds.environ_bytes = 40; },
       Status::kFileBound, A::FINAL, {{kSleep, C::ENVIRON_TOO_LARGE}}},
      // The last read of the resolution goes one byte over the budget: the
      // root's re-read.
      {"ByteBudget",
       [](FakeHost&, Request& r) {
         FakeHost probe;
         r.bounds.byte_budget = Resolve(probe, FakeHost::TypicalRequest()).bytes_read - 1;
       },
       Status::kByteBudget, A::FINAL, {{kSleep, C::STOPPED}}},
      // 1 us a call; the deadline passes at the sleep's environ read.
      {"DeadlineDuringInspection",
       [](FakeHost& h, Request& r) {
         h.call_cost_ns = 1000;
         r.bounds.deadline_ns = 30'500;
       },
       Status::kDeadline, A::FINAL, {{kSleep, C::STOPPED}}},
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
    EXPECT_EQ(last.summary().rfind(std::string(StatusName(s.status)) + ": " +
                                       x.recorded.verdict.detail,
                                   0),
              0u)
        << last.summary();
  }
}

INSTANTIATE_TEST_SUITE_P(Reasons, ExplainWhy, ::testing::ValuesIn(WhyScenarios()),
                         [](const ::testing::TestParamInfo<WhyScenario>& p) {
                           return std::string(p.param.name);
                         });

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
  EXPECT_EQ(chain, (std::vector<std::int64_t>{kSleep, kSandboxShell, kSandboxInit, kBwrap,
                                              kAppServer}));
  const v1::ExplainCandidate* mcp = FindCandidate(a, kMcpServer);
  ASSERT_NE(mcp, nullptr);
  EXPECT_FALSE(mcp->argv_exact());
  EXPECT_FALSE(mcp->environ_read());
  EXPECT_EQ(mcp->detail(), "argv \"node\" \"mcp-server.js\": not the expected argv");
}

// Seed (step 5): the argv is exact only when the cmdline is its elements
// NUL-terminated, byte for byte. The same elements without the final NUL are
// told as not the expected argv, and why, though they split alike.
TEST(ExplainAttempts, CmdlineWithoutItsFinalNulIsToldAsNotTheExpectedArgv) {
  FakeHost host;
  host.SetFile(kSleep, ProcFile::kCmdline, std::string("/bin/sleep\0" "120", 14));
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
  host.AddProcess(kAppServer, kUserShell, kAppServerStart, "codex", {}, {},
                  Identity{ENOENT, 0, 0}, 'Z');
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  ASSERT_EQ(x.recorded.verdict.status, Status::kMissingRoot) << x.recorded.verdict.detail;
  ExpectFaithful(x);
  const std::string text = Text(x.check);
  EXPECT_NE(text.find("start tick " + std::to_string(kAppServerStart) +
                      ": as expected, but dead (state Z)"),
            std::string::npos) << text;
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
  EXPECT_EQ(cut.summary(), "the deadline at +5000.0 ms passed during this attempt: the verdict "
                           "keeps the diagnosis of attempt " + std::to_string(n - 1));
  EXPECT_EQ(x.check.ended_by(),
            "the deadline at +5000.0 ms passed during attempt " + std::to_string(n) + ", after " +
                std::to_string(n - 1) +
                " completed attempts without a match (no process beneath the root matches): "
                "NO_MATCH");
  EXPECT_EQ(x.check.attempts(n - 2).summary(), "no process beneath the root matches: retried");
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
  EXPECT_EQ(x.check.ended_by(),
            "no match by the deadline: the next attempt would start at " +
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
  EXPECT_NE(shown.find("\n  attempts 2-" + std::to_string(n - 1) + " at " +
                       FormatOffset(bounds.retry_ns) + " to " +
                       FormatOffset((n - 2) * bounds.retry_ns) +
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
        h.AddProcess(kUnrelated, 1, 800000 + static_cast<std::uint64_t>(sleeps), "cron",
                     {"cron"}, {}, Identity{0, 0x803, 90});
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
  EXPECT_NE(shown.find("\n  attempts 2-" + std::to_string(n - 1) + " at " +
                       FormatOffset(Bounds{}.retry_ns) + " to " +
                       FormatOffset((n - 2) * Bounds{}.retry_ns) +
                       ": each the same as attempt 1 (" + x.check.attempts(0).summary() +
                       "), but for unrelated processes coming and going (" +
                       std::to_string(fewest) + " to " + std::to_string(most) +
                       " /proc entries listed)\n"),
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
    EXPECT_EQ(x.check.ended_by(), "the deadline at " + FormatOffset(10'000) +
                                      " passed during attempt 1");
  }
}

TEST(ExplainFingerprint, TheRootsFingerprintReadComesFirst) {
  {
    FakeHost host;
    RecordOptions options;
    options.fingerprint = true;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest(), options);
    ExpectFaithful(x);
    EXPECT_TRUE(x.check.fingerprinted());
    EXPECT_TRUE(x.check.fingerprint().parsed());
    EXPECT_EQ(x.check.fingerprint().start_ticks(), kAppServerStart);
    EXPECT_NE(Text(x.check).find("  fingerprint: /proc/4000/stat: \"codex\" S, parent 3900, "
                                 "start tick 500000\n"),
              std::string::npos)
        << Text(x.check);
  }
  {
    FakeHost host;
    host.Remove(kAppServer);
    RecordOptions options;
    options.fingerprint = true;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest(), options);
    EXPECT_EQ(x.check.replay(), v1::ReplayResult::REPRODUCED);
    EXPECT_EQ(x.check.verdict().status(), v1::Verdict::MISSING_ROOT);
    EXPECT_EQ(x.check.attempts_size(), 0);
    EXPECT_EQ(x.check.fingerprint().err(), ENOENT);
    EXPECT_EQ(x.check.ended_by(), "the root's fingerprint failed: no attempt was made");
  }
}

// How the root came to be known is told in the request line: late, on the
// tape (a restarted root cannot be detected), or before the turn.
TEST(ExplainFingerprint, TheRequestSaysHowTheRootWasFingerprinted) {
  {
    FakeHost host;
    RecordOptions options;
    options.fingerprint = true;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest(), options);
    EXPECT_NE(Text(x.check).find("  request: root pid 4000, start tick 500000 (fingerprinted "
                                 "late, on the tape: a restarted root cannot be detected); argv"),
              std::string::npos)
        << Text(x.check);
  }
  {
    FakeHost host;
    TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", "b00t\n");
    ASSERT_TRUE(taken.ok());
    RecordOptions options;
    options.before_turn = taken.fingerprint;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest(), options);
    ExpectFaithful(x);
    EXPECT_FALSE(x.check.fingerprinted());
    EXPECT_TRUE(x.check.resolve().has_fingerprint());
    const std::string text = Text(x.check);
    EXPECT_NE(text.find("  request: root pid 4000, start tick 500000 (fingerprinted before the "
                        "turn); argv"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  fingerprint: taken before the turn: root 4000 \"codex\", start tick "
                        "500000; exe \"/bin/sleep\" 2051:1311\n"),
              std::string::npos)
        << text;
  }
  {
    FakeHost host;
    Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
    EXPECT_EQ(Text(x.check).find("fingerprint"), std::string::npos) << Text(x.check);
  }
}

TEST(ExplainRequest, AnInvalidRequestMakesNoCall) {
  FakeHost host;
  Request request = FakeHost::TypicalRequest();
  request.token = "";
  Explained x = RecordAndExplain(host, request);
  EXPECT_EQ(x.check.verdict().status(), v1::Verdict::INVALID_REQUEST);
  EXPECT_EQ(x.check.attempts_size(), 0);
  EXPECT_EQ(x.check.ended_by(), "the request is invalid: the resolver made no call");
}

// ---------------------------------------------------------------------------
// Liveness

struct LivenessScenario {
  const char* name;
  std::function<void(FakeHost&)> setup;
  LivenessStatus status;
  std::string read_line;  // the line telling the stat re-read
};

class ExplainLiveness : public ::testing::TestWithParam<LivenessScenario> {};

TEST_P(ExplainLiveness, TheOneStatReReadAndTheVerdict) {
  const LivenessScenario& s = GetParam();
  FakeHost host;
  s.setup(host);
  Explained x = LivenessExplained(host, kSleep, kSleepStart);
  ASSERT_EQ(x.recorded.liveness.status, s.status);
  EXPECT_EQ(x.check.kind(), v1::ExplainCheck::LIVENESS);
  EXPECT_EQ(x.check.replay(), v1::ReplayResult::REPRODUCED);
  EXPECT_EQ(x.check.liveness_read().pid(), kSleep);
  EXPECT_EQ(static_cast<int>(x.check.liveness_verdict().status()), static_cast<int>(s.status));
  const std::string text = Text(x.check);
  EXPECT_NE(text.find("\n" + s.read_line + "\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  verdict: " + std::string(LivenessName(s.status))), std::string::npos)
      << text;
  EXPECT_NE(text.find(x.recorded.liveness.detail + "\n"), std::string::npos) << text;
}

INSTANTIATE_TEST_SUITE_P(
    Liveness, ExplainLiveness,
    ::testing::Values(
        LivenessScenario{"Alive", [](FakeHost&) {}, LivenessStatus::kAlive,
                         "  re-read /proc/4103/stat: \"sleep\" S, parent 4102, start tick 510003: "
                         "the expected start tick"},
        LivenessScenario{"Gone", [](FakeHost& h) { h.Remove(kSleep); }, LivenessStatus::kDead,
                         "  re-read /proc/4103/stat: gone (errno 2)"},
        LivenessScenario{"Zombie",
                         [](FakeHost& h) { h.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, 'Z'); },
                         LivenessStatus::kDead,
                         "  re-read /proc/4103/stat: \"sleep\" Z, parent 4102, start tick 510003: "
                         "the expected start tick"},
        LivenessScenario{"PidReused",
                         [](FakeHost& h) { h.AddSleep(kSleep, kSandboxShell, 777777, kToken); },
                         LivenessStatus::kError,
                         "  re-read /proc/4103/stat: \"sleep\" S, parent 4102, start tick 777777: "
                         "not the expected 510003"}),
    [](const ::testing::TestParamInfo<LivenessScenario>& p) { return std::string(p.param.name); });

// ---------------------------------------------------------------------------
// Replays that no longer reproduce

TEST(ExplainReplay, ATapeWithACallRemovedSaysWhereItDiverged) {
  FakeHost host;
  ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("edited.ptape");
  Recorded rec = RecordResolution(host, FakeHost::TypicalRequest(), path);
  ASSERT_TRUE(rec.ok);
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(path, &snap).ok());
  // Remove the environ read of the sleep: the resolver asks for it there.
  std::size_t environ_at = 0;
  for (std::size_t i = 0; i < snap.observations.size(); ++i) {
    const auto& o = snap.observations[i];
    if (o.has_read_file() && o.read_file().file() == v1::PROC_FILE_ENVIRON) environ_at = i;
  }
  ASSERT_GT(environ_at, 0u);
  RemoveObservation(&snap, environ_at);
  v1::ExplainCheck c = ExplainRecordedCheck(snap, 0);
  EXPECT_EQ(c.replay(), v1::ReplayResult::DIVERGED);
  EXPECT_EQ(c.replay_detail().rfind("at observation " + std::to_string(environ_at) + " ", 0), 0u)
      << c.replay_detail();
  ASSERT_EQ(c.attempts_size(), 1);
  // What the tape answered is told; nothing after the divergence.
  EXPECT_EQ(c.attempts(0).first_observation() + c.attempts(0).observation_count(), environ_at);
  const v1::ExplainCandidate* sleep = FindCandidate(c.attempts(0), kSleep);
  ASSERT_NE(sleep, nullptr);
  EXPECT_FALSE(sleep->environ_read());
  // Past the divergence the tape answered nothing: no verdict is told.
  EXPECT_FALSE(c.has_verdict()) << c.verdict().DebugString();
  std::string text = Text(c);
  EXPECT_NE(text.find("  verdict: none: the tape cannot answer a call the resolver made\n"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("errno 5"), std::string::npos) << text;
}

// ---------------------------------------------------------------------------
// Output: escaping, determinism, JSON

// A process whose comm and argv hold what a terminal or a line-based reader
// must not get raw, beneath the root; then the real sleep.
Explained HostileRecording() {
  FakeHost host;
  host.AddProcess(4050, kAppServer, 505000, "x) Z 1 1 1\nx", {"/bin/sleep", "120\n\x1b[2J\"q\\"},
                  SleepEnviron(kToken), kSleepExe);
  return RecordAndExplain(host, FakeHost::TypicalRequest());
}

TEST(ExplainOutput, HostileNamesAreEscapedInEveryLine) {
  Explained x = HostileRecording();
  ExpectFaithful(x);
  v1::Explanation e = Explain(x.snapshot, "host\nile.ptape");
  const std::string text = RenderExplanation(e, false);
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(c == '\n' || (u >= 0x20 && u < 0x7f)) << "raw byte " << int{u} << " in\n" << text;
  }
  EXPECT_EQ(text.rfind("host\\x0aile.ptape: 1 recorded check\n", 0), 0u) << text;
  EXPECT_NE(text.find("    pid 4050 \"x) Z 1 1 1\\x0ax\" S, start tick 505000: argv \"/bin/sleep\" "
                      "\"120\\x0a\\x1b[2J\\x22q\\x5c\": not the expected argv\n"),
            std::string::npos)
      << text;
  ExpectGolden("hostile-fixture.txt", text);
  ExpectGolden("hostile-fixture.json", ToJson(e) + "\n");
}

TEST(ExplainOutput, TheSameFileExplainsToTheSameBytesAndJsonRoundTrips) {
  Explained x = HostileRecording();
  v1::Explanation a = Explain(x.snapshot, "a.ptape");
  v1::Explanation b = Explain(x.snapshot, "a.ptape");
  EXPECT_EQ(RenderExplanation(a, false), RenderExplanation(b, false));
  EXPECT_EQ(ToJson(a), ToJson(b));
  v1::Explanation parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(ToJson(a), &parsed).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(parsed, a));
}

TEST(ExplainOutput, OnlyTheCheckAsked) {
  FakeHost host;
  Explained x = RecordAndExplain(host, FakeHost::TypicalRequest());
  EXPECT_EQ(Explain(x.snapshot, "f", 0).checks_size(), 1);
  EXPECT_EQ(Explain(x.snapshot, "f").checks_size(), 1);
  EXPECT_EQ(Explain(x.snapshot, "f", 1).checks_size(), 0);
  EXPECT_EQ(Explain(x.snapshot, "f", 1).recorded_checks(), 1u);
}

TEST(ExplainOutput, OffsetsToATenthOfAMillisecond) {
  EXPECT_EQ(FormatOffset(0), "+0.0 ms");
  EXPECT_EQ(FormatOffset(100'000'000), "+100.0 ms");
  EXPECT_EQ(FormatOffset(49'999), "+0.0 ms");
  EXPECT_EQ(FormatOffset(50'000), "+0.1 ms");
  EXPECT_EQ(FormatOffset(-1'250'000), "-1.3 ms");
  EXPECT_EQ(FormatOffset(std::numeric_limits<std::int64_t>::min()).substr(0, 1), "-");
}

// ---------------------------------------------------------------------------
// The shipped corpus: every entry of corpus/MANIFEST, text and JSON.

TEST(ExplainCorpus, EveryEntryExplainsToItsGoldenFiles) {
  const std::filesystem::path dir = SourceDir() / "corpus";
  Manifest manifest;
  ManifestError error;
  ASSERT_TRUE(ParseManifest(FileBytes(dir / "MANIFEST"), &manifest, &error)) << error.message;
  ASSERT_FALSE(manifest.entries.empty());
  for (const ManifestEntry& entry : manifest.entries) {
    SCOPED_TRACE(entry.name);
    Snapshot snap;
    FormatError e = ReadSnapshot((dir / entry.file).string(), &snap);
    ASSERT_TRUE(e.ok()) << e.message;
    v1::Explanation x = Explain(snap, entry.file);
    ASSERT_EQ(static_cast<std::size_t>(x.checks_size()), entry.expects.size());
    for (const v1::ExplainCheck& c : x.checks()) {
      EXPECT_EQ(c.replay(), v1::ReplayResult::REPRODUCED);
      if (c.kind() != v1::ExplainCheck::RESOLVE || c.attempts_size() == 0) continue;
      EXPECT_EQ(static_cast<std::uint32_t>(c.attempts_size()), c.verdict().attempts());
      std::uint64_t told = c.fingerprinted() ? 1 : 0;
      for (const auto& a : c.attempts()) told += a.observation_count();
      EXPECT_EQ(told, c.observations());
    }
    ExpectGolden(entry.name + ".txt", RenderExplanation(x, false));
    ExpectGolden(entry.name + ".json", ToJson(x) + "\n");
  }
}

// --all on the longest retry loop of the corpus.
TEST(ExplainCorpus, EveryAttemptOfARetryLoop) {
  const std::filesystem::path dir = SourceDir() / "corpus";
  Manifest manifest;
  ManifestError error;
  ASSERT_TRUE(ParseManifest(FileBytes(dir / "MANIFEST"), &manifest, &error)) << error.message;
  for (const ManifestEntry& entry : manifest.entries) {
    if (entry.name != "never-exec-unshare") continue;
    Snapshot snap;
    ASSERT_TRUE(ReadSnapshot((dir / entry.file).string(), &snap).ok());
    v1::Explanation x = Explain(snap, entry.file);
    ASSERT_EQ(x.checks_size(), 1);
    const std::string all = RenderExplanation(x, true);
    EXPECT_GT(all.size(), RenderExplanation(x, false).size());
    ExpectGolden(entry.name + ".all.txt", all);
    return;
  }
  FAIL() << "corpus/MANIFEST has no entry never-exec-unshare";
}

}  // namespace
}  // namespace proctape
