// Replay (issue 4): the identical resolver and liveness code runs against the
// tape of a snapshot file and says REPRODUCED, VERDICT_CHANGED or DIVERGED.
//
// Every file here is real: a check run on the in-memory host of fake_host.h,
// recorded through RecordingEvidence, written by SnapshotWriter and read back
// by ReadSnapshot (tests/unit/replay_fixture.h), laid out as
// `proctape resolve --record` lays out a live recording.
//
// Section 7: "For every verdict status of the resolver, a snapshot file whose
// replay reproduces it ...; a modified request shows VERDICT CHANGED; a tape
// with one observation removed or altered shows DIVERGED at exactly that
// index." Section 4: "replay of a file holding a 5 s retry loop returns in
// well under a second of real time". Section 5: "Replaying the same file twice
// gives byte-identical output (human and --json)".
#include "replay/replay.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "capture/redact.h"
#include "core/proc_parse.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens
using google::protobuf::util::MessageDifferencer;

constexpr std::int64_t kT0 = 1'000'000'000;  // MemoryEvidence's initial clock
constexpr std::uint32_t kAttemptsIn5s = 51;  // attempts at t = 0, 0.1 s, ..., 5.0 s

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A second sandbox beneath the same app-server, its sleep carrying `token`
// (resolver_test.cc's AddSecondSandbox).
constexpr std::int64_t kSecondSleep = 4203;
void AddSecondSandbox(FakeHost& host, const std::string& token) {
  host.AddProcess(4200, kAppServer, 520000, "bwrap", {"bwrap", "--unshare-pid"}, {},
                  Identity{0, 0x803, 600});
  host.AddProcess(4201, 4200, 520001, "bwrap", {"bwrap"}, {}, Identity{0, 0x803, 600});
  host.AddProcess(4202, 4201, 520002, "sh", {"/bin/sh", "-c", "..."}, {}, kShExe);
  host.AddSleep(kSecondSleep, 4202, 520003, token);
}

// The sleep appears (as if it exec'd late) after the `n`th retry sleep.
void SleepAppearsAfter(FakeHost& host, int n) {
  host.Remove(kSleep);
  host.on_sleep = [n, sleeps = 0](MemoryEvidence& ev) mutable {
    if (++sleeps == n) {
      ev.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"},
                    SleepEnviron(kToken), kSleepExe);
    }
  };
}

// Reads `path` back whole; fails the test otherwise.
Snapshot ReadBack(const std::string& path) {
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << path << ": " << e.message;
  return s;
}

std::string Why(const v1::ReplayResult& r) { return DescribeReplay(r); }

// ---------------------------------------------------------------------------
// Every verdict status of the resolver, recorded and reproduced

struct ResolveScenario {
  const char* name;
  Status status;
  std::function<void(FakeHost&, Request&)> setup;
  bool frames = false;
  bool fingerprint = false;  // recorded as without --root-start
};

std::vector<ResolveScenario> ResolveScenarios() {
  return {
      // Seed: "selects the unique exact sleep beneath the app-server".
      {"Resolved", Status::kResolved, [](FakeHost&, Request&) {}},
      {"ResolvedWithFrames", Status::kResolved, [](FakeHost&, Request&) {}, true},
      // "retries from a fresh snapshot every 100 ms": resolved at attempt 3.
      {"ResolvedAtThirdAttempt", Status::kResolved,
       [](FakeHost& h, Request&) { SleepAppearsAfter(h, 2); }},
      {"MissingRoot", Status::kMissingRoot, [](FakeHost& h, Request&) { h.Remove(kAppServer); }},
      // The root vanishes between the snapshot and its re-read.
      {"MissingRootAtReRead", Status::kMissingRoot,
       [](FakeHost& h, Request&) {
         h.after_call = [](FakeHost& host, const Call& c) {
           if (c.kind == "exe" && c.pid == kSleep) host.Remove(kAppServer);
         };
       }},
      {"RootRestarted", Status::kRootRestarted,
       [](FakeHost&, Request& r) { r.root_start_ticks = kAppServerStart - 1; }},
      {"RootRestartedAtReRead", Status::kRootRestarted,
       [](FakeHost& h, Request&) {
         h.after_call = [](FakeHost& host, const Call& c) {
           if (c.kind == "exe" && c.pid == kSleep) {
             host.AddProcess(kAppServer, kUserShell, kAppServerStart + 1, "codex", {"codex"}, {},
                             Identity{0, 1, 1});
           }
         };
       }},
      // 51 attempts over 5 s of recorded time.
      {"NoMatch", Status::kNoMatch, [](FakeHost& h, Request&) { h.Remove(kSleep); }},
      {"MultipleMatches", Status::kMultipleMatches,
       [](FakeHost& h, Request&) { AddSecondSandbox(h, kToken); }},
      {"DuplicateRecord", Status::kDuplicateRecord,
       [](FakeHost& h, Request&) {
         h.listing = std::vector<std::string>{"1",    "2",    "3",    "3900", "4000", "4001",
                                              "3",    "4100", "4101", "4102", "4103"};
       }},
      {"MalformedRecord", Status::kMalformedRecord,
       [](FakeHost& h, Request&) { h.SetFile(kHostPid3, ProcFile::kStat, "\xff\xfe garbage\n"); }},
      {"MalformedProcEntryName", Status::kMalformedRecord,
       [](FakeHost& h, Request&) {
         h.listing = std::vector<std::string>{"2",    "3",    "012",  "3900", "4000",
                                              "4001", "4100", "4101", "4102", "4103"};
       }},
      {"Cycle", Status::kCycle,
       [](FakeHost& h, Request&) {
         h.AddProcess(5000, 5001, 1, "a", {"a"}, {}, kOtherExe);
         h.AddProcess(5001, 5000, 1, "b", {"b"}, {}, kOtherExe);
       }},
      // The typical host lists 10 entries.
      {"EntryBound", Status::kEntryBound, [](FakeHost&, Request& r) { r.bounds.max_entries = 5; }},
      // ... and has 9 records (pid 1 is not scanned).
      {"NodeBound", Status::kNodeBound,
       [](FakeHost&, Request& r) {
         r.bounds.max_entries = 1000;
         r.bounds.max_nodes = 8;
       }},
      // 4102 is 4 parent links below 3900, the top of the graph.
      {"DepthBound", Status::kDepthBound, [](FakeHost&, Request& r) { r.bounds.max_depth = 3; }},
      {"FileBoundStat", Status::kFileBound,
       [](FakeHost& h, Request&) {
         h.SetFile(kHostPid3, ProcFile::kStat,
                   MemoryEvidence::StatLine(kHostPid3, CommForStatSize(3, 1, 900, 4097), 'S', 1,
                                            900));
       }},
      // The candidate's environ over its bound: the verdict quotes environ
      // bytes, which the tape holds redacted.
      {"FileBoundEnviron", Status::kFileBound,
       [](FakeHost& h, Request& r) {
         r.bounds.environ_bytes = 40;
         std::vector<std::string> env = SleepEnviron(kToken);
         env.insert(env.begin(), "AWS_SECRET=hunter2-hunter2-hunter2");
         h.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, env,
                      kSleepExe);
       }},
      {"ByteBudget", Status::kByteBudget,
       [](FakeHost&, Request& r) {
         FakeHost probe;
         r.bounds.byte_budget = Resolve(probe, FakeHost::TypicalRequest()).bytes_read - 1;
       }},
      // 1 us a call, a 20 us deadline: it passes during the first scan.
      {"Deadline", Status::kDeadline,
       [](FakeHost& h, Request& r) {
         h.call_cost_ns = 1000;
         r.bounds.deadline_ns = 20'000;
       }},
      {"UnreadableCmdline", Status::kUnreadable,
       [](FakeHost& h, Request&) { h.SetFileError(kMcpServer, ProcFile::kCmdline, EACCES); }},
      {"UnreadableListing", Status::kUnreadable,
       [](FakeHost& h, Request&) { h.list_err = EACCES; }},
      {"UnreadableExe", Status::kUnreadable,
       [](FakeHost& h, Request&) { h.Find(kSleep)->exe = Identity{EACCES, 0, 0}; }},
      // An older sleep alone: TOKEN_MISMATCH once the 5 s of retries run out.
      {"TokenMismatchStale", Status::kTokenMismatch,
       [](FakeHost& h, Request&) {
         h.Remove(kSleep);
         AddSecondSandbox(h, kOldToken);
       }},
      // Two entries named PROCTAPE_TOKEN: the verdict quotes environ bytes.
      {"TokenMismatchTwoEntries", Status::kTokenMismatch,
       [](FakeHost& h, Request&) {
         std::vector<std::string> env = SleepEnviron(kToken);
         env.push_back("PROCTAPE_TOKEN=" + kOldToken);
         h.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, env,
                      kSleepExe);
       }},
      {"ExeMismatch", Status::kExeMismatch,
       [](FakeHost& h, Request&) { h.Find(kSleep)->exe = kOtherExe; }},
      {"AncestryChanged", Status::kAncestryChanged,
       [](FakeHost& h, Request&) {
         h.after_call = [](FakeHost& host, const Call& c) {
           if (c.kind == "exe" && c.pid == kSleep) {
             host.Remove(kSandboxShell);
             host.AddSleep(kSleep, kSandboxInit, kSleepStart, kToken);
           }
         };
       }},
      {"PidReused", Status::kPidReused,
       [](FakeHost& h, Request&) {
         h.after_call = [](FakeHost& host, const Call& c) {
           if (c.kind == "exe" && c.pid == kSleep) {
             host.AddSleep(kSleep, kSandboxShell, 777777, kToken);
           }
         };
       }},
      {"InvalidRequest", Status::kInvalidRequest, [](FakeHost&, Request& r) { r.token = ""; }},
      // Recorded as `proctape resolve` without --root-start records: the
      // tape begins with the root's fingerprint, which may itself decide.
      {"ResolvedFingerprinted", Status::kResolved, [](FakeHost&, Request&) {}, true, true},
      {"MissingRootAtFingerprint", Status::kMissingRoot,
       [](FakeHost& h, Request&) { h.Remove(kAppServer); }, false, true},
      {"UnreadableAtFingerprint", Status::kUnreadable,
       [](FakeHost& h, Request&) { h.SetFileError(kAppServer, ProcFile::kStat, EACCES); }, false,
       true},
      {"MalformedAtFingerprint", Status::kMalformedRecord,
       [](FakeHost& h, Request&) {
         h.SetFile(kAppServer, ProcFile::kStat, MemoryEvidence::StatLine(4, "codex", 'S', 1, 5));
       },
       false, true},
      // The root restarts just after it was fingerprinted.
      {"RootRestartedAfterFingerprint", Status::kRootRestarted,
       [](FakeHost& h, Request&) {
         h.after_call = [done = false](FakeHost& host, const Call& c) mutable {
           if (!done && c.kind == "read" && c.pid == kAppServer) {
             done = true;
             host.AddProcess(kAppServer, kUserShell, kAppServerStart + 1, "codex", {"codex"}, {},
                             Identity{0, 1, 1});
           }
         };
       },
       false, true},
  };
}

// GoogleTest names a failing parameter by this, not by its bytes.
void PrintTo(const ResolveScenario& s, std::ostream* os) { *os << s.name; }

class ReplayEveryVerdict : public ::testing::TestWithParam<ResolveScenario> {};

TEST_P(ReplayEveryVerdict, RecordedFileReproducesItsVerdict) {
  const ResolveScenario& s = GetParam();
  ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  FakeHost host;
  Request request = FakeHost::TypicalRequest();
  s.setup(host, request);
  std::string path = dir.File(std::string(s.name) + ".ptape");
  RecordOptions options;
  options.frames = s.frames;
  options.fingerprint = s.fingerprint;
  Recorded rec = RecordResolution(host, request, path, options);
  ASSERT_TRUE(rec.ok) << rec.error;
  // The scenario makes the resolver decide what it is named after.
  ASSERT_EQ(rec.verdict.status, s.status) << rec.verdict.detail;

  Snapshot snap = ReadBack(path);
  ASSERT_EQ(snap.resolutions.size(), 1u);
  ASSERT_EQ(snap.observations.size(), rec.observations);
  EXPECT_EQ(snap.frames.size(), s.frames ? 2u : 0u);
  EXPECT_EQ(snap.resolutions[0].observation_count(), rec.observations);
  EXPECT_EQ(snap.resolutions[0].resolve().fingerprint_on_tape(), s.fingerprint);
  if (s.fingerprint) {
    ASSERT_FALSE(snap.observations.empty());
    EXPECT_EQ(DescribeCall(snap.observations[0]), "ReadFile(pid 4000, stat, bound 4096)");
  }

  v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_EQ(static_cast<int>(r.replayed().status()), static_cast<int>(s.status)) << Why(r);
  // The same verdict, field by field (pid, ticks, evidence, detail, attempts,
  // bytes read, matches), as the live run gave it.
  EXPECT_TRUE(MessageDifferencer::Equals(r.recorded(), ToProto(rec.verdict))) << Why(r);
  // The replayed verdict quotes the environ bytes as the tape holds them,
  // redacted; everything else is identical.
  v1::Verdict replayed = r.replayed();
  if (replayed.file() == v1::PROC_FILE_ENVIRON) {
    EXPECT_EQ(replayed.evidence(),
              RedactEnviron(r.recorded().evidence(), {"PROCTAPE_TOKEN=" + kToken}));
    replayed.set_evidence(r.recorded().evidence());
  }
  EXPECT_TRUE(MessageDifferencer::Equals(replayed, r.recorded())) << Why(r);
  // Every recorded observation consumed, nothing asked beyond them.
  EXPECT_EQ(r.consumed(), rec.observations) << Why(r);
  EXPECT_EQ(r.recorded_count(), rec.observations) << Why(r);
  EXPECT_FALSE(r.request_changed());
  EXPECT_EQ(r.resolution_index(), 0u);
  EXPECT_EQ(WorstOutcome({r}), v1::ReplayResult::REPRODUCED);

  std::string line = DescribeReplay(r);
  std::string head = "resolution 0: REPRODUCED ";
  head.append(StatusName(s.status));
  EXPECT_EQ(line.rfind(head, 0), 0u) << line;
  std::string counts = " (" + std::to_string(rec.observations) + " of " +
                       Plural(rec.observations, "observation", "observations") + ")\n";
  EXPECT_TRUE(line.size() > counts.size() &&
              line.compare(line.size() - counts.size(), counts.size(), counts) == 0)
      << line;
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;

  // Section 5: replaying the same file again, from a second read, gives
  // byte-identical output, human and JSON.
  Snapshot again = ReadBack(path);
  v1::ReplayResult r2 = ReplayResolution(again, 0, RequestOverrides{});
  EXPECT_EQ(DescribeReplay(r2), line);
  EXPECT_EQ(ToJson(r2), ToJson(r));
  EXPECT_EQ(ToJson(ReplayResolution(snap, 0, RequestOverrides{})), ToJson(r));
}

INSTANTIATE_TEST_SUITE_P(ReplayStatuses, ReplayEveryVerdict,
                         ::testing::ValuesIn(ResolveScenarios()),
                         [](const ::testing::TestParamInfo<ResolveScenario>& p) {
                           return std::string(p.param.name);
                         });

// Every one of the resolver's twenty statuses has a scenario above.
TEST(ReplayCoverage, EveryResolverStatusHasAReproducingScenario) {
  std::set<int> covered;
  for (const ResolveScenario& s : ResolveScenarios()) covered.insert(static_cast<int>(s.status));
  for (int status = static_cast<int>(Status::kResolved);
       status <= static_cast<int>(Status::kInvalidRequest); ++status) {
    EXPECT_TRUE(covered.count(status)) << StatusName(static_cast<Status>(status));
  }
  EXPECT_EQ(covered.size(), 20u);
}

// A verdict quoting environ bytes (here TOKEN_MISMATCH for two token
// entries): the live resolver quoted them as read, the tape holds them
// redacted, so the replayed quote is the redacted one. The replay compares
// the two after redaction and forgives nothing else: an excerpt differing in
// anything redaction keeps (a key, a kept entry, the length) is another
// verdict. Without redaction (keep_environ) the quotes are simply equal.
TEST(ReplayRedaction, EnvironEvidenceIsComparedAfterRedactionAndNothingElse) {
  auto two_entries = [](FakeHost& h) {
    std::vector<std::string> env = SleepEnviron(kToken);
    env.push_back("PROCTAPE_TOKEN=" + kOldToken);
    h.AddProcess(kSleep, kSandboxShell, kSleepStart, "sleep", {"/bin/sleep", "120"}, env,
                 kSleepExe);
  };
  ReplayTempDir dir;
  FakeHost host;
  two_entries(host);
  ASSERT_TRUE(RecordResolution(host, FakeHost::TypicalRequest(), dir.File("r.ptape")).ok);
  Snapshot s = ReadBack(dir.File("r.ptape"));
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  ASSERT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  ASSERT_EQ(r.replayed().status(), v1::Verdict::TOKEN_MISMATCH);
  EXPECT_NE(r.replayed().evidence(), r.recorded().evidence());
  EXPECT_EQ(r.replayed().evidence().find(kOldToken), std::string::npos);
  EXPECT_NE(r.replayed().evidence().find("PROCTAPE_TOKEN=" + kToken), std::string::npos);

  for (const std::string& from : {std::string("HOME="), "PROCTAPE_TOKEN=" + kToken}) {
    Snapshot edited = s;
    std::string evidence = edited.resolutions[0].verdict().evidence();
    std::size_t at = evidence.find(from);
    ASSERT_NE(at, std::string::npos);
    evidence[at + 1] ^= 0x20;  // HOME= -> HoME=; the kept token entry altered
    edited.resolutions[0].mutable_verdict()->set_evidence(evidence);
    v1::ReplayResult changed = ReplayResolution(edited, 0, RequestOverrides{});
    EXPECT_EQ(changed.outcome(), v1::ReplayResult::VERDICT_CHANGED) << from << ": " << Why(changed);
  }
  Snapshot shorter = s;
  std::string evidence = shorter.resolutions[0].verdict().evidence();
  shorter.resolutions[0].mutable_verdict()->set_evidence(evidence.substr(0, evidence.size() - 1));
  EXPECT_EQ(ReplayResolution(shorter, 0, RequestOverrides{}).outcome(),
            v1::ReplayResult::VERDICT_CHANGED);

  FakeHost kept_host;
  two_entries(kept_host);
  RecordOptions keep;
  keep.keep_environ = true;
  ASSERT_TRUE(
      RecordResolution(kept_host, FakeHost::TypicalRequest(), dir.File("k.ptape"), keep).ok);
  v1::ReplayResult k = ReplayResolution(ReadBack(dir.File("k.ptape")), 0, RequestOverrides{});
  EXPECT_EQ(k.outcome(), v1::ReplayResult::REPRODUCED) << Why(k);
  EXPECT_TRUE(MessageDifferencer::Equals(k.replayed(), k.recorded())) << Why(k);
}

// ---------------------------------------------------------------------------
// Liveness: ALIVE, DEAD, ERROR

struct LivenessScenario {
  const char* name;
  LivenessStatus status;
  Status reason;  // for kError
  std::int64_t pid;
  std::uint64_t start;
  std::function<void(FakeHost&)> setup;
};

std::vector<LivenessScenario> LivenessScenarios() {
  return {
      {"Alive", LivenessStatus::kAlive, Status::kUnreadable, kSleep, kSleepStart,
       [](FakeHost&) {}},
      {"DeadGone", LivenessStatus::kDead, Status::kUnreadable, kSleep, kSleepStart,
       [](FakeHost& h) { h.Remove(kSleep); }},
      {"DeadExitedMidRead", LivenessStatus::kDead, Status::kUnreadable, kSleep, kSleepStart,
       [](FakeHost& h) { h.SetFileError(kSleep, ProcFile::kStat, ESRCH); }},
      {"DeadZombie", LivenessStatus::kDead, Status::kUnreadable, kSleep, kSleepStart,
       [](FakeHost& h) { h.AddSleep(kSleep, kSandboxShell, kSleepStart, kToken, 'Z'); }},
      {"ErrorPidReused", LivenessStatus::kError, Status::kPidReused, kSleep, kSleepStart + 1,
       [](FakeHost&) {}},
      {"ErrorMalformed", LivenessStatus::kError, Status::kMalformedRecord, kSleep, kSleepStart,
       [](FakeHost& h) { h.SetFile(kSleep, ProcFile::kStat, "4103 (sleep S 4102\n"); }},
      {"ErrorUnreadable", LivenessStatus::kError, Status::kUnreadable, kSleep, kSleepStart,
       [](FakeHost& h) { h.SetFileError(kSleep, ProcFile::kStat, EACCES); }},
  };
}

void PrintTo(const LivenessScenario& s, std::ostream* os) { *os << s.name; }

class ReplayEveryLiveness : public ::testing::TestWithParam<LivenessScenario> {};

TEST_P(ReplayEveryLiveness, RecordedFileReproducesItsVerdict) {
  const LivenessScenario& s = GetParam();
  ReplayTempDir dir;
  ASSERT_TRUE(dir.ok());
  FakeHost host;
  s.setup(host);
  std::string path = dir.File(std::string(s.name) + ".ptape");
  RecordOptions options;
  options.frames = true;
  Recorded rec = RecordLivenessCheck(host, s.pid, s.start, path, options);
  ASSERT_TRUE(rec.ok) << rec.error;
  ASSERT_EQ(rec.liveness.status, s.status) << rec.liveness.detail;
  if (s.status == LivenessStatus::kError) {
    ASSERT_EQ(rec.liveness.reason, s.reason);
  }
  EXPECT_EQ(rec.observations, 1u);  // one stat read, nothing else

  Snapshot snap = ReadBack(path);
  ASSERT_EQ(snap.resolutions.size(), 1u);
  EXPECT_EQ(snap.frames.size(), 2u);
  v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_TRUE(r.has_replayed_liveness());
  EXPECT_FALSE(r.has_replayed());
  EXPECT_EQ(static_cast<int>(r.replayed_liveness().status()), static_cast<int>(s.status));
  EXPECT_TRUE(MessageDifferencer::Equals(r.replayed_liveness(), ToProto(rec.liveness))) << Why(r);
  EXPECT_EQ(r.consumed(), 1u);
  EXPECT_EQ(r.recorded_count(), 1u);

  std::string head = "resolution 0 (liveness): REPRODUCED ";
  head.append(LivenessName(s.status));
  if (s.status == LivenessStatus::kError) head.append(" ").append(StatusName(s.reason));
  EXPECT_EQ(DescribeReplay(r), head + " (1 of 1 observation)\n");

  Snapshot again = ReadBack(path);
  v1::ReplayResult r2 = ReplayResolution(again, 0, RequestOverrides{});
  EXPECT_EQ(DescribeReplay(r2), DescribeReplay(r));
  EXPECT_EQ(ToJson(r2), ToJson(r));
}

INSTANTIATE_TEST_SUITE_P(ReplayStatuses, ReplayEveryLiveness,
                         ::testing::ValuesIn(LivenessScenarios()),
                         [](const ::testing::TestParamInfo<LivenessScenario>& p) {
                           return std::string(p.param.name);
                         });

// A liveness tape whose stat answer is altered: the same single call, another
// decision.
TEST(ReplayLiveness, AlteredStatResultIsVerdictChanged) {
  ReplayTempDir dir;
  FakeHost host;
  std::string path = dir.File("alive.ptape");
  ASSERT_TRUE(RecordLivenessCheck(host, kSleep, kSleepStart, path).ok);
  Snapshot snap = ReadBack(path);
  ASSERT_EQ(snap.observations.size(), 1u);
  snap.observations[0].mutable_read_file()->mutable_result()->set_data(
      MemoryEvidence::StatLine(kSleep, "sleep", 'Z', kSandboxShell, kSleepStart));
  v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(r);
  EXPECT_EQ(r.recorded_liveness().status(), v1::LivenessVerdict::ALIVE);
  EXPECT_EQ(r.replayed_liveness().status(), v1::LivenessVerdict::DEAD);
  EXPECT_EQ(r.consumed(), 1u);
  EXPECT_EQ(DescribeReplay(r),
            "resolution 0 (liveness): VERDICT CHANGED: recorded ALIVE; now DEAD (1 of 1 "
            "observation)\n");

  // Another pid asked of the tape: DIVERGED at 0.
  snap.resolutions[0].mutable_liveness()->set_pid(kSleep + 1);
  v1::ReplayResult d = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(d.outcome(), v1::ReplayResult::DIVERGED) << Why(d);
  EXPECT_EQ(d.divergence_index(), 0u);
  EXPECT_EQ(d.recorded_call(), "ReadFile(pid 4103, stat, bound 4096)");
  EXPECT_EQ(d.made_call(), "ReadFile(pid 4104, stat, bound 4096)");
}

// ---------------------------------------------------------------------------
// The recorded tape of the typical resolution, and edits of it

// Records the typical host's resolution (or the one `setup` makes) and
// reads it back.
Snapshot RecordTypical(const ReplayTempDir& dir, const std::string& name,
                       const std::function<void(FakeHost&)>& setup = nullptr,
                       const RecordOptions& options = {}) {
  FakeHost host;
  if (setup) setup(host);
  Recorded rec = RecordResolution(host, FakeHost::TypicalRequest(), dir.File(name), options);
  EXPECT_TRUE(rec.ok) << rec.error;
  return ReadBack(dir.File(name));
}

// The position of the `nth` (from 0) observation satisfying `pred`.
std::size_t Find(const Snapshot& s, const std::function<bool(const v1::Observation&)>& pred,
                 int nth = 0) {
  for (std::size_t i = 0; i < s.observations.size(); ++i) {
    if (pred(s.observations[i]) && nth-- == 0) return i;
  }
  ADD_FAILURE() << "no such observation";
  return 0;
}

std::function<bool(const v1::Observation&)> IsRead(std::int64_t pid, v1::ProcFile file) {
  return [pid, file](const v1::Observation& o) {
    return o.has_read_file() && o.read_file().pid() == pid && o.read_file().file() == file;
  };
}
bool IsExe(const v1::Observation& o) { return o.has_exe_identity(); }
bool IsNow(const v1::Observation& o) { return o.has_now(); }

// The call an observation records, without its result or stamps.
std::string CallKey(const v1::Observation& o) { return DescribeCall(o); }

TEST(ReplayTape, TypicalTapeHasTheResolversShape) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  ASSERT_FALSE(s.observations.empty());
  // now, list, now, then stat + now for each of 2, 3, 3900, ..., 4103.
  EXPECT_EQ(DescribeCall(s.observations[0]), "Now()");
  EXPECT_EQ(DescribeCall(s.observations[1]), "ListPids(bound 65536)");
  EXPECT_EQ(DescribeCall(s.observations[3]), "ReadFile(pid 2, stat, bound 4096)");
  EXPECT_EQ(DescribeCall(s.observations.back()), "Now()");
  // One exe check, of the sleep, then the stat re-reads up to the root.
  std::size_t exe = Find(s, IsExe);
  EXPECT_EQ(DescribeCall(s.observations[exe]), "ExeIdentity(pid 4103)");
  EXPECT_EQ(s.observations.size(), exe + 2 + 2 * 5);  // exe, now; 4103 .. 4000 re-read
  // The environ read is stored redacted, the token entry verbatim.
  std::size_t env = Find(s, IsRead(kSleep, v1::PROC_FILE_ENVIRON));
  const v1::FileRead& read = s.observations[env].read_file().result();
  EXPECT_TRUE(read.redacted());
  EXPECT_NE(read.data().find("PROCTAPE_TOKEN=" + kToken), std::string::npos);
  EXPECT_EQ(read.data().find("/usr/bin"), std::string::npos);
}

// The fixture is deterministic: one scenario, the same bytes.
TEST(ReplayTape, RecordingTheSameScenarioTwiceGivesTheSameFile) {
  for (bool frames : {false, true}) {
    RecordOptions options;
    options.frames = frames;
    ReplayTempDir a;
    ReplayTempDir b;
    FakeHost host_a;
    FakeHost host_b;
    // The same name: the path is in the header's command line.
    std::string name = "t.ptape";
    ASSERT_TRUE(RecordResolution(host_a, FakeHost::TypicalRequest(), a.File(name), options).ok);
    ASSERT_TRUE(RecordResolution(host_b, FakeHost::TypicalRequest(), b.File(name), options).ok);
    std::string bytes = FileBytes(a.File(name));
    EXPECT_FALSE(bytes.empty());
    EXPECT_TRUE(bytes == FileBytes(b.File(name))) << "frames " << frames;
  }
}

// Section 7: "a modified request shows VERDICT CHANGED". The resolver makes
// the recorded calls, in order, until the changed request makes it decide
// otherwise; it stops there, short of the recorded tape, with another verdict.
TEST(ReplayRequestChange, ChangedExeIdentityIsVerdictChangedToExeMismatch) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  RequestOverrides o;
  o.exe = Identity{0, 2049, 9999};
  v1::ReplayResult r = ReplayResolution(s, 0, o);
  EXPECT_EQ(r.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(r);
  EXPECT_TRUE(r.request_changed());
  EXPECT_EQ(r.recorded().status(), v1::Verdict::RESOLVED);
  EXPECT_EQ(r.replayed().status(), v1::Verdict::EXE_MISMATCH);
  EXPECT_EQ(r.replayed().subject_pid(), kSleep);
  // It stopped after the exe check and its deadline check.
  EXPECT_EQ(r.consumed(), Find(s, IsExe) + 2);
  EXPECT_LT(r.consumed(), r.recorded_count());
  EXPECT_EQ(r.recorded_count(), s.observations.size());
  EXPECT_EQ(DescribeReplay(r),
            "resolution 0 (request changed): VERDICT CHANGED: recorded RESOLVED host pid 4103, start tick 510003; "
            "now EXE_MISMATCH: /proc/4103/exe is 2051:1311, not the attested 2049:9999 (" +
                std::to_string(r.consumed()) + " of " + std::to_string(r.recorded_count()) +
                " observations)\n");
  EXPECT_EQ(WorstOutcome({r}), v1::ReplayResult::VERDICT_CHANGED);
}

TEST(ReplayRequestChange, ChangedRootIsVerdictChangedAfterTheFirstScan) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  // The first scan (list + every stat) is the same whatever the root; the
  // decision comes before the first cmdline read.
  std::size_t first_cmdline = Find(s, [](const v1::Observation& o) {
    return o.has_read_file() && o.read_file().file() == v1::PROC_FILE_CMDLINE;
  });

  RequestOverrides absent;
  absent.root_pid = 4242;  // not on the host
  v1::ReplayResult missing = ReplayResolution(s, 0, absent);
  EXPECT_EQ(missing.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(missing);
  EXPECT_EQ(missing.replayed().status(), v1::Verdict::MISSING_ROOT);
  EXPECT_EQ(missing.replayed().subject_pid(), 4242);
  EXPECT_EQ(missing.consumed(), first_cmdline);

  RequestOverrides restarted;
  restarted.root_start_ticks = kAppServerStart + 7;
  v1::ReplayResult rr = ReplayResolution(s, 0, restarted);
  EXPECT_EQ(rr.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(rr);
  EXPECT_EQ(rr.replayed().status(), v1::Verdict::ROOT_RESTARTED);
  EXPECT_EQ(rr.replayed().subject_start_ticks(), kAppServerStart);
  EXPECT_EQ(rr.replayed().expected_ticks(), kAppServerStart + 7);
  EXPECT_EQ(rr.consumed(), first_cmdline);

  // A root higher up (the user's shell, with its start): the app-server is
  // now beneath the root too, and the resolver inspects it, a cmdline read
  // the tape does not hold: DIVERGED at the first cmdline read.
  RequestOverrides higher;
  higher.root_pid = kUserShell;
  higher.root_start_ticks = 400000;
  v1::ReplayResult h = ReplayResolution(s, 0, higher);
  EXPECT_EQ(h.outcome(), v1::ReplayResult::DIVERGED) << Why(h);
  EXPECT_EQ(h.divergence_index(), first_cmdline);
  EXPECT_EQ(h.recorded_call(), "ReadFile(pid 4001, cmdline, bound 65536)");
  EXPECT_EQ(h.made_call(), "ReadFile(pid 4000, cmdline, bound 65536)");
}

// A what-if replay never invents evidence: past the call the tape cannot
// answer, the resolver was fed failures (EIO) and a clock past the deadline
// only so that it stops. Whatever it concluded from them is no verdict: the
// result holds none, and the text says the tape cannot answer, naming the
// call, instead of "errno 5" or "the deadline passed 4.6e18 ns ago".
TEST(ReplayRequestChange, ATapeThatCannotAnswerGivesNoInventedVerdict) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  for (int change = 0; change < 3; ++change) {
    RequestOverrides o;
    if (change == 0) o.argv = std::vector<std::string>{"/bin/sleep", "121"};
    if (change == 1) o.token = std::string("another-token");
    if (change == 2) o.root_pid = kUserShell, o.root_start_ticks = 400000;
    v1::ReplayResult r = ReplayResolution(s, 0, o);
    ASSERT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << change << ": " << Why(r);
    EXPECT_FALSE(r.has_replayed()) << change << ": " << r.replayed().DebugString();
    std::string text = DescribeReplay(r);
    EXPECT_NE(text.find("no replayed verdict: the tape cannot answer that call"),
              std::string::npos) << text;
    EXPECT_NE(text.find("made " + r.made_call()), std::string::npos) << text;
    EXPECT_NE(text.find("--model frames"), std::string::npos) << text;
    EXPECT_EQ(text.find("errno"), std::string::npos) << text;
    EXPECT_EQ(text.find("deadline"), std::string::npos) << text;
    EXPECT_EQ(text.find("UNREADABLE"), std::string::npos) << text;
  }
}

// A recording made without --root-start begins with the root's fingerprint.
// A what-if start time passes over that recorded read (the fix in replay.cc:
// it used to diverge at observation 0 for any --root-start) and resolves with
// the given start; a what-if root without a start would need the new root's
// fingerprint, which the tape does not hold: DIVERGED at 0, honestly.
TEST(ReplayRequestChange, FingerprintedRecordingWithChangedRootOrStart) {
  ReplayTempDir dir;
  RecordOptions fingerprinted;
  fingerprinted.fingerprint = true;
  Snapshot s = RecordTypical(dir, "f.ptape", nullptr, fingerprinted);
  ASSERT_TRUE(s.resolutions[0].resolve().fingerprint_on_tape());
  EXPECT_EQ(s.resolutions[0].resolve().root_start_ticks(), kAppServerStart);
  ASSERT_EQ(ReplayResolution(s, 0, RequestOverrides{}).outcome(), v1::ReplayResult::REPRODUCED);

  // The start it found, given: the same calls, the same verdict.
  RequestOverrides same;
  same.root_start_ticks = kAppServerStart;
  v1::ReplayResult r = ReplayResolution(s, 0, same);
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_TRUE(r.request_changed());
  EXPECT_EQ(r.consumed(), s.observations.size());

  RequestOverrides other;
  other.root_start_ticks = kAppServerStart + 7;
  v1::ReplayResult restarted = ReplayResolution(s, 0, other);
  EXPECT_EQ(restarted.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(restarted);
  EXPECT_EQ(restarted.replayed().status(), v1::Verdict::ROOT_RESTARTED);

  RequestOverrides absent;
  absent.root_pid = 4242;
  absent.root_start_ticks = 1;
  v1::ReplayResult missing = ReplayResolution(s, 0, absent);
  EXPECT_EQ(missing.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(missing);
  EXPECT_EQ(missing.replayed().status(), v1::Verdict::MISSING_ROOT);
  EXPECT_EQ(missing.replayed().subject_pid(), 4242);

  RequestOverrides root_only;
  root_only.root_pid = 4242;
  v1::ReplayResult d = ReplayResolution(s, 0, root_only);
  EXPECT_EQ(d.outcome(), v1::ReplayResult::DIVERGED) << Why(d);
  EXPECT_EQ(d.divergence_index(), 0u);
  EXPECT_EQ(d.recorded_call(), "ReadFile(pid 4000, stat, bound 4096)");
  EXPECT_EQ(d.made_call(), "ReadFile(pid 4242, stat, bound 4096)");

  RequestOverrides exe;
  exe.exe = Identity{0, 1, 2};
  v1::ReplayResult e = ReplayResolution(s, 0, exe);
  EXPECT_EQ(e.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(e);
  EXPECT_EQ(e.replayed().status(), v1::Verdict::EXE_MISMATCH);

  // A fingerprint that failed in the recording (the root was gone) is the
  // recorded verdict; with a start time given the resolver runs instead and
  // asks past the one recorded read.
  Snapshot gone = RecordTypical(dir, "g.ptape", [](FakeHost& h) { h.Remove(kAppServer); },
                                fingerprinted);
  ASSERT_EQ(gone.observations.size(), 1u);
  EXPECT_EQ(gone.resolutions[0].resolve().root_start_ticks(), 0u);
  EXPECT_EQ(ReplayResolution(gone, 0, RequestOverrides{}).outcome(),
            v1::ReplayResult::REPRODUCED);
  v1::ReplayResult past = ReplayResolution(gone, 0, same);
  EXPECT_EQ(past.outcome(), v1::ReplayResult::DIVERGED) << Why(past);
  EXPECT_EQ(past.divergence_index(), 1u);
  EXPECT_EQ(past.recorded_call(), "end of tape");
  EXPECT_EQ(past.made_call(), "Now()");
}

TEST(ReplayRequestChange, InvalidRequestAsksForNothing) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  RequestOverrides o;
  o.token_var = "PROCTAPE=TOKEN";
  v1::ReplayResult r = ReplayResolution(s, 0, o);
  EXPECT_EQ(r.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(r);
  EXPECT_EQ(r.replayed().status(), v1::Verdict::INVALID_REQUEST);
  EXPECT_EQ(r.consumed(), 0u);

  RequestOverrides argv;
  argv.argv = std::vector<std::string>{};
  EXPECT_EQ(ReplayResolution(s, 0, argv).replayed().status(), v1::Verdict::INVALID_REQUEST);
}

// Another token is not a VERDICT_CHANGED on a tape: the recorded sleep no
// longer carries it, so the resolver wants to retry (sleep until the next
// attempt) where the tape holds the exe check of the match. The tape cannot
// answer that: DIVERGED at the exe check. (`--model frames` answers it.)
TEST(ReplayRequestChange, AnotherTokenDivergesAtTheExeCheck) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "typical.ptape");
  RequestOverrides o;
  o.token = "another-token";
  v1::ReplayResult r = ReplayResolution(s, 0, o);
  EXPECT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << Why(r);
  EXPECT_EQ(r.divergence_index(), Find(s, IsExe));
  EXPECT_EQ(r.recorded_call(), "ExeIdentity(pid 4103)");
  EXPECT_EQ(r.made_call(), "SleepUntil(" + std::to_string(kT0 + 100'000'000) + ")");
  EXPECT_EQ(r.consumed(), Find(s, IsExe));
  EXPECT_EQ(WorstOutcome({r}), v1::ReplayResult::DIVERGED);
}

// Section 7: "a tape with one observation removed ... shows DIVERGED at
// exactly that index" — for every index of two tapes: the typical resolution
// and one resolved at its third attempt (so the tape holds retry sleeps).
TEST(ReplayTapeEdit, RemovingAnyObservationDivergesAtExactlyThatIndex) {
  ReplayTempDir dir;
  for (int variant = 0; variant < 2; ++variant) {
    Snapshot original = RecordTypical(dir, "t.ptape", [variant](FakeHost& h) {
      if (variant == 1) SleepAppearsAfter(h, 2);
    });
    const std::size_t n = original.observations.size();
    ASSERT_GT(n, 20u);
    for (std::size_t k = 0; k < n; ++k) {
      // Neighbouring calls always differ in the resolver's tapes (a read is
      // followed by a clock reading), which is what makes the index exact.
      if (k + 1 < n) {
        ASSERT_NE(CallKey(original.observations[k]), CallKey(original.observations[k + 1])) << k;
      }
      Snapshot s = original;
      RemoveObservation(&s, k);
      v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
      ASSERT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << variant << "/" << k << ": " << Why(r);
      EXPECT_EQ(r.divergence_index(), k) << variant << ": " << Why(r);
      EXPECT_EQ(r.consumed(), k);
      EXPECT_EQ(r.recorded_count(), n - 1);
      EXPECT_EQ(r.made_call(), DescribeCall(original.observations[k]));
      EXPECT_EQ(r.recorded_call(),
                k + 1 < n ? DescribeCall(original.observations[k + 1]) : "end of tape");
      std::string head = "resolution 0: DIVERGED at observation " + std::to_string(k) + ": ";
      EXPECT_EQ(DescribeReplay(r).rfind(head, 0), 0u) << DescribeReplay(r);
    }
  }
}

// The same through a file: an edited tape written by the real writer and read
// back diverges where the in-memory edit does.
TEST(ReplayTapeEdit, RemovedObservationInARewrittenFileDivergesThere) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  std::size_t env = Find(s, IsRead(kSleep, v1::PROC_FILE_ENVIRON));
  RemoveObservation(&s, env);
  std::string error;
  ASSERT_TRUE(WriteSnapshotFile(s, dir.File("edited.ptape"), &error)) << error;
  Snapshot edited = ReadBack(dir.File("edited.ptape"));
  v1::ReplayResult r = ReplayResolution(edited, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << Why(r);
  EXPECT_EQ(r.divergence_index(), env);
  EXPECT_EQ(r.recorded_call(), "Now()");
  EXPECT_EQ(r.made_call(), "ReadFile(pid 4103, environ, bound 65536)");
  EXPECT_EQ(DescribeReplay(r).substr(0, DescribeReplay(r).find('\n')),
            "resolution 0: DIVERGED at observation " + std::to_string(env) +
                ": recorded Now(), made ReadFile(pid 4103, environ, bound 65536)");
}

// The ways an observation's call can be altered in its arguments.
std::vector<v1::Observation> AlteredCalls(const v1::Observation& o) {
  std::vector<v1::Observation> out;
  switch (o.call_case()) {
    case v1::Observation::kListPids: {
      v1::Observation a = o;
      a.mutable_list_pids()->set_bound(o.list_pids().bound() + 1);
      out.push_back(a);
      break;
    }
    case v1::Observation::kReadFile: {
      v1::Observation pid = o;
      pid.mutable_read_file()->set_pid(o.read_file().pid() + 1);
      out.push_back(pid);
      v1::Observation bound = o;
      bound.mutable_read_file()->mutable_result()->set_bound(o.read_file().result().bound() - 1);
      out.push_back(bound);
      v1::Observation file = o;
      file.mutable_read_file()->set_file(o.read_file().file() == v1::PROC_FILE_STAT
                                             ? v1::PROC_FILE_STATUS
                                             : v1::PROC_FILE_STAT);
      out.push_back(file);
      break;
    }
    case v1::Observation::kExeIdentity: {
      v1::Observation a = o;
      a.mutable_exe_identity()->set_pid(o.exe_identity().pid() - 1);
      out.push_back(a);
      break;
    }
    case v1::Observation::kSleepUntil: {
      v1::Observation a = o;
      a.mutable_sleep_until()->set_until_ns(o.sleep_until().until_ns() + 1);
      out.push_back(a);
      break;
    }
    case v1::Observation::kNow: {
      // No arguments: altered into another call.
      v1::Observation a;
      a.set_index(o.index());
      a.set_mono_ns(o.mono_ns());
      a.mutable_sleep_until()->set_until_ns(o.now().result_ns());
      out.push_back(a);
      break;
    }
    default: break;
  }
  return out;
}

// Section 7: "a tape with one observation ... altered shows DIVERGED at
// exactly that index": every argument (pid, file, bound, sleep target) of
// every observation of both tapes.
TEST(ReplayTapeEdit, AlteringAnyCallsArgumentsDivergesAtExactlyThatIndex) {
  ReplayTempDir dir;
  std::set<std::string> kinds;
  for (int variant = 0; variant < 2; ++variant) {
    Snapshot original = RecordTypical(dir, "t.ptape", [variant](FakeHost& h) {
      if (variant == 1) SleepAppearsAfter(h, 2);
    });
    for (std::size_t k = 0; k < original.observations.size(); ++k) {
      for (const v1::Observation& altered : AlteredCalls(original.observations[k])) {
        Snapshot s = original;
        s.observations[k] = altered;
        v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
        ASSERT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << k << ": " << Why(r);
        EXPECT_EQ(r.divergence_index(), k) << Why(r);
        EXPECT_EQ(r.consumed(), k);
        EXPECT_EQ(r.recorded_call(), DescribeCall(altered));
        EXPECT_EQ(r.made_call(), DescribeCall(original.observations[k]));
        kinds.insert(DescribeCall(altered).substr(0, DescribeCall(altered).find('(')));
      }
    }
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"ListPids", "ReadFile", "ExeIdentity", "SleepUntil"}));
}

// One case of it, spelled out and through a rewritten file: the sleep's pid
// in its cmdline read changed.
TEST(ReplayTapeEdit, AlteredPidDivergesAtThatIndexWithBothCalls) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  std::size_t k = Find(s, IsRead(kSleep, v1::PROC_FILE_CMDLINE));
  s.observations[k].mutable_read_file()->set_pid(4104);
  std::string error;
  ASSERT_TRUE(WriteSnapshotFile(s, dir.File("edited.ptape"), &error)) << error;
  v1::ReplayResult r = ReplayResolution(ReadBack(dir.File("edited.ptape")), 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << Why(r);
  EXPECT_EQ(r.divergence_index(), k);
  EXPECT_EQ(r.recorded_call(), "ReadFile(pid 4104, cmdline, bound 65536)");
  EXPECT_EQ(r.made_call(), "ReadFile(pid 4103, cmdline, bound 65536)");
  EXPECT_EQ(r.recorded().status(), v1::Verdict::RESOLVED);
}

// Altered results. The calls still match, so what happens is decided by the
// resolver on the altered evidence:
//   - if it then decides otherwise without asking anything the tape does not
//     hold, VERDICT_CHANGED (the exe identity, a re-read start time, a clock
//     reading past the deadline);
//   - if it then wants to ask something else, DIVERGED at the first call the
//     tape does not hold (the sleep's cmdline no longer matches: no environ
//     read, a retry sleep instead).
TEST(ReplayTapeEdit, AlteredCmdlineResultDivergesWhereTheEnvironReadWas) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  std::size_t cmd = Find(s, IsRead(kSleep, v1::PROC_FILE_CMDLINE));
  std::size_t env = Find(s, IsRead(kSleep, v1::PROC_FILE_ENVIRON));
  ASSERT_EQ(env, cmd + 2);  // cmdline, its deadline check, environ
  s.observations[cmd].mutable_read_file()->mutable_result()->set_data(
      std::string("/bin/sleep\0" "121\0", 15));
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  // The sleep is the last process beneath the root: no match in this
  // attempt, so the resolver sleeps until the next one (t0 + 100 ms), where
  // the tape holds the environ read.
  EXPECT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << Why(r);
  EXPECT_EQ(r.divergence_index(), env);
  EXPECT_EQ(r.recorded_call(), "ReadFile(pid 4103, environ, bound 65536)");
  EXPECT_EQ(r.made_call(), "SleepUntil(" + std::to_string(kT0 + 100'000'000) + ")");
}

TEST(ReplayTapeEdit, AlteredEnvironResultDivergesWhereTheExeCheckWas) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  std::size_t env = Find(s, IsRead(kSleep, v1::PROC_FILE_ENVIRON));
  std::string data = s.observations[env].read_file().result().data();
  std::size_t at = data.find("PROCTAPE_TOKEN=");
  ASSERT_NE(at, std::string::npos);
  data[at] = 'X';  // the token entry is gone: no match
  s.observations[env].mutable_read_file()->mutable_result()->set_data(data);
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << Why(r);
  EXPECT_EQ(r.divergence_index(), Find(s, IsExe));
  EXPECT_EQ(r.made_call(), "SleepUntil(" + std::to_string(kT0 + 100'000'000) + ")");
}

TEST(ReplayTapeEdit, AlteredExeResultIsVerdictChanged) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  std::size_t exe = Find(s, IsExe);
  s.observations[exe].mutable_exe_identity()->mutable_result()->set_ino(4242);
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(r);
  EXPECT_EQ(r.replayed().status(), v1::Verdict::EXE_MISMATCH);
  EXPECT_EQ(r.consumed(), exe + 2);
  EXPECT_FALSE(r.request_changed());
}

TEST(ReplayTapeEdit, AlteredReReadStartTimeIsVerdictChangedToPidReused) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  std::size_t reread = Find(s, IsRead(kSleep, v1::PROC_FILE_STAT), 1);  // after the scan's
  ASSERT_GT(reread, Find(s, IsExe));
  s.observations[reread].mutable_read_file()->mutable_result()->set_data(
      MemoryEvidence::StatLine(kSleep, "sleep", 'S', kSandboxShell, 999999));
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(r);
  EXPECT_EQ(r.replayed().status(), v1::Verdict::PID_REUSED);
  EXPECT_EQ(r.replayed().subject_start_ticks(), 999999u);
  EXPECT_EQ(r.replayed().expected_ticks(), kSleepStart);
  EXPECT_EQ(r.consumed(), reread + 2);
}

// The clock is evidence: the last clock reading moved past the deadline
// makes the same calls end in DEADLINE. Every observation was asked for, yet
// the verdict changed.
TEST(ReplayTapeEdit, AlteredClockReadingIsVerdictChangedToDeadline) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  ASSERT_TRUE(IsNow(s.observations.back()));
  s.observations.back().mutable_now()->set_result_ns(kT0 + 5'000'000'001);
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(r);
  EXPECT_EQ(r.replayed().status(), v1::Verdict::DEADLINE);
  EXPECT_EQ(r.replayed().detail(), "the deadline passed 1 ns ago");
  EXPECT_EQ(r.consumed(), r.recorded_count());
}

// An observation after the last one the resolver asks for: same verdict, but
// the tape holds a call the resolver no longer makes.
TEST(ReplayTapeEdit, ExtraObservationAtTheEndDivergesAtItsIndex) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  const std::size_t n = s.observations.size();
  v1::Observation extra;
  extra.mutable_now()->set_result_ns(kT0 + 1);
  AppendObservation(&s, extra);
  std::string error;
  ASSERT_TRUE(WriteSnapshotFile(s, dir.File("extra.ptape"), &error)) << error;
  v1::ReplayResult r = ReplayResolution(ReadBack(dir.File("extra.ptape")), 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << Why(r);
  EXPECT_EQ(r.divergence_index(), n);
  EXPECT_EQ(r.consumed(), n);
  EXPECT_EQ(r.recorded_count(), n + 1);
  EXPECT_EQ(r.recorded_call(), "observation " + std::to_string(n) + " and later");
  EXPECT_EQ(r.made_call(), "none: the resolver stopped");
  EXPECT_EQ(r.replayed().status(), v1::Verdict::RESOLVED);
  EXPECT_TRUE(MessageDifferencer::Equals(r.replayed(), r.recorded()));
  EXPECT_EQ(DescribeReplay(r),
            "resolution 0: DIVERGED at observation " + std::to_string(n) +
                ": recorded observation " + std::to_string(n) +
                " and later, made none: the resolver stopped\n"
                "  replayed verdict: RESOLVED host pid 4103, start tick 510003; recorded: RESOLVED "
                "host pid 4103, start tick 510003 (" +
                std::to_string(n) + " of " + std::to_string(n + 1) + " observations)\n");
}

// ---------------------------------------------------------------------------
// Time (section 4): the clock is the recorded one, sleeping is virtual

// Sleeping is virtual: the replay does not wait out the 5 s the loop took
// when recorded. (How fast it is: bench/, BENCHMARKS.md.)
TEST(ReplayTime, FiveSecondRetryLoopReplaysWithoutWaitingItOut) {
  ReplayTempDir dir;
  FakeHost host;
  host.Remove(kSleep);
  std::string path = dir.File("no-match.ptape");
  Recorded rec = RecordResolution(host, FakeHost::TypicalRequest(), path);
  ASSERT_TRUE(rec.ok) << rec.error;
  ASSERT_EQ(rec.verdict.status, Status::kNoMatch);
  ASSERT_EQ(rec.verdict.attempts, kAttemptsIn5s);
  Snapshot snap = ReadBack(path);
  // The tape spans the 5 s of the loop, 50 retry sleeps included.
  const v1::Resolution& res = snap.resolutions[0];
  EXPECT_EQ(res.end_mono_ns() - res.start_mono_ns(), 5'000'000'000);
  EXPECT_EQ(std::count_if(snap.observations.begin(), snap.observations.end(),
                          [](const v1::Observation& o) { return o.has_sleep_until(); }),
            50);

  auto started = std::chrono::steady_clock::now();
  v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_EQ(r.replayed().attempts(), kAttemptsIn5s);
  EXPECT_EQ(r.consumed(), snap.observations.size());
  EXPECT_LT(took, std::chrono::seconds(5))
      << std::chrono::duration_cast<std::chrono::milliseconds>(took).count() << " ms";
}

// ---------------------------------------------------------------------------
// Output

// Several resolutions: the worst outcome decides.
TEST(ReplayOutput, WorstOutcomeOrdersDivergedOverChangedOverReproduced) {
  v1::ReplayResult ok;
  ok.set_outcome(v1::ReplayResult::REPRODUCED);
  v1::ReplayResult changed;
  changed.set_outcome(v1::ReplayResult::VERDICT_CHANGED);
  v1::ReplayResult diverged;
  diverged.set_outcome(v1::ReplayResult::DIVERGED);
  EXPECT_EQ(WorstOutcome({}), v1::ReplayResult::REPRODUCED);
  EXPECT_EQ(WorstOutcome({ok, ok}), v1::ReplayResult::REPRODUCED);
  EXPECT_EQ(WorstOutcome({ok, changed, ok}), v1::ReplayResult::VERDICT_CHANGED);
  EXPECT_EQ(WorstOutcome({changed, diverged, ok}), v1::ReplayResult::DIVERGED);
  EXPECT_EQ(WorstOutcome({diverged, changed}), v1::ReplayResult::DIVERGED);
}

TEST(ReplayOutput, ReproducedLineAndJsonOfTheTypicalResolution) {
  ReplayTempDir dir;
  Snapshot s = RecordTypical(dir, "t.ptape");
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  std::string n = std::to_string(s.observations.size());
  EXPECT_EQ(DescribeReplay(r),
            "resolution 0: REPRODUCED RESOLVED host pid 4103, start tick 510003 (" + n + " of " +
                n + " observations)\n");
  // As --json prints it: counts and pids are numbers.
  std::string json = ToJson(ToSummary(r));
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_EQ(json.rfind("{\"outcome\":\"REPRODUCED\"", 0), 0u) << json;
  EXPECT_NE(json.find("\"consumed\":" + n + ","), std::string::npos) << json;
  EXPECT_NE(json.find("\"pid\":4103,"), std::string::npos) << json;
}

// ---------------------------------------------------------------------------
// The committed corpus (section 5): real recordings of a real sandboxed sleep
// made on a Linux kernel by tests/data/replay/make_corpus.sh, with the output
// their replay gave there. Here, on whatever machine runs the tests, the same
// bytes.

std::filesystem::path CorpusDir() {
  return std::filesystem::path(__FILE__).parent_path().parent_path() / "data" / "replay";
}

const char* const kCorpus[] = {"resolved", "no-match-5s", "alive", "dead"};

TEST(ReplayCorpus, CommittedRecordingsReplayToTheirCommittedOutput) {
  for (const char* name : kCorpus) {
    std::string base = (CorpusDir() / name).string();
    Snapshot snap;
    FormatError e = ReadSnapshot(base + ".ptape", &snap);
    ASSERT_TRUE(e.ok()) << base << ".ptape: " << e.message;
    EXPECT_FALSE(snap.header.host().kernel_release().empty()) << name;
    ASSERT_EQ(snap.resolutions.size(), 1u) << name;
    EXPECT_EQ(snap.frames.size(), 2u) << name;
    v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
    EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << name << ": " << Why(r);
    EXPECT_EQ(r.consumed(), snap.observations.size()) << name;
    EXPECT_EQ(DescribeReplay(r), FileBytes(base + ".replay.txt")) << name;
    EXPECT_EQ(ToJson(TapeReplayReport(std::string(name) + ".ptape", {r})) + "\n",
              FileBytes(base + ".replay.json"))
        << name;
  }
}

// The real 5 s retry loop, recorded live: about 800 calls over 5 s of the
// recording host's clock, replayed to the end from the tape alone. (How fast
// is measured in bench/, BENCHMARKS.md, not asserted here.)
TEST(ReplayCorpus, RecordedLiveRetryLoopReplaysEveryObservation) {
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot((CorpusDir() / "no-match-5s.ptape").string(), &snap).ok());
  ASSERT_EQ(snap.resolutions.size(), 1u);
  const v1::Resolution& res = snap.resolutions[0];
  // Attempts every 100 ms while the next one starts by the 5 s deadline: the
  // last one starts within 100 ms of it.
  EXPECT_GE(res.end_mono_ns() - res.start_mono_ns(), 4'900'000'000);
  EXPECT_EQ(res.verdict().status(), v1::Verdict::NO_MATCH);
  EXPECT_GE(res.verdict().attempts(), 40u);
  v1::ReplayResult r = ReplayResolution(snap, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_EQ(r.consumed(), snap.observations.size());
}

// Section 7 on a real tape: removing any one observation of the recorded
// resolution diverges at exactly that index.
TEST(ReplayCorpus, RemovingAnyObservationOfTheRealTapeDivergesThere) {
  Snapshot original;
  ASSERT_TRUE(ReadSnapshot((CorpusDir() / "resolved.ptape").string(), &original).ok());
  const std::size_t n = original.observations.size();
  ASSERT_GT(n, 10u);
  for (std::size_t k = 0; k < n; ++k) {
    Snapshot s = original;
    RemoveObservation(&s, k);
    v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
    EXPECT_EQ(r.outcome(), v1::ReplayResult::DIVERGED) << k << ": " << Why(r);
    EXPECT_EQ(r.divergence_index(), k) << Why(r);
    EXPECT_EQ(r.made_call(), DescribeCall(original.observations[k]));
  }
}

}  // namespace
}  // namespace proctape
