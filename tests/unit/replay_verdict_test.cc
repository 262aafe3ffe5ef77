// SPDX-License-Identifier: Apache-2.0
// Replay (`docs/replay.md`, "Two models") of every verdict: each status of the
// resolver and of the liveness check, recorded on the in-memory host of
// fake_host.h and reproduced from its tape, twice alike.
//
// Every file here is real: a check run on the in-memory host, recorded
// through RecordingEvidence, written by SnapshotWriter and read back by
// ReadSnapshot (tests/unit/replay_fixture.h), laid out as
// `proctape resolve --record` lays out a live recording.
//
// For every verdict status of the resolver, a snapshot file whose replay
// reproduces it; replaying the same file twice gives byte-identical output
// (human and --json).
#include "replay/replay.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/redact.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"
#include "tests/unit/resolver_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens
using google::protobuf::util::MessageDifferencer;

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
      // The unique exact sleep beneath the app-server (docs/resolver.md).
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
         h.listing = std::vector<std::string>{"1", "2",    "3",    "3900", "4000", "4001",
                                              "3", "4100", "4101", "4102", "4103"};
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
         h.SetFile(
             kHostPid3, ProcFile::kStat,
             MemoryEvidence::StatLine(kHostPid3, CommForStatSize(3, 1, 900, 4097), 'S', 1, 900));
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
       [](FakeHost& h, Request&) {
         h.Find(kSleep)->exe = Identity{EACCES, 0, 0};
       }},
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

  // One line, the subject a failure names (by identity, as resolve prints
  // it), then one per near miss (docs/resolver.md, "Near misses").
  const std::string text = DescribeReplay(r);
  const std::string line = text.substr(0, text.find('\n') + 1);
  std::string head = "resolution 0: REPRODUCED ";
  head.append(StatusName(s.status));
  EXPECT_EQ(line.rfind(head, 0), 0u) << line;
  std::string counts = " (" + std::to_string(rec.observations) + " of " +
                       Plural(rec.observations, "observation", "observations") + ")\n";
  EXPECT_TRUE(line.size() > counts.size() &&
              line.compare(line.size() - counts.size(), counts.size(), counts) == 0)
      << line;
  const bool subject =
      s.status != Status::kResolved && !SubjectText(ToSummary(r.replayed())).empty();
  EXPECT_EQ(text.find("\n  subject: ") != std::string::npos, subject) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
            1 + (subject ? 1 : 0) + r.replayed().near_misses_size())
      << text;

  // Replaying the same file again, from a second read, gives
  // byte-identical output, human and JSON.
  Snapshot again = ReadBack(path);
  v1::ReplayResult r2 = ReplayResolution(again, 0, RequestOverrides{});
  EXPECT_EQ(DescribeReplay(r2), text);
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

}  // namespace
}  // namespace proctape
