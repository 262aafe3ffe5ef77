// SPDX-License-Identifier: Apache-2.0
// Replay (`docs/replay.md`, "Two models") of the tape itself: the recorded tape
// of the typical resolution has the resolver's shape, and every edit of it (an
// observation removed, altered or added) is caught where it was made.
//
// A tape with one observation removed or altered shows DIVERGED at exactly
// that index (`docs/replay.md`, "Two models").
#include "replay/replay.h"

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens
using google::protobuf::util::MessageDifferencer;

// ---------------------------------------------------------------------------
// The recorded tape of the typical resolution, and edits of it

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

// A tape with one observation removed shows DIVERGED at exactly that index
// — for every index of two tapes: the typical resolution
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
      file.mutable_read_file()->set_file(
          o.read_file().file() == v1::PROC_FILE_STAT ? v1::PROC_FILE_STATUS : v1::PROC_FILE_STAT);
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

// A tape with one observation altered shows DIVERGED at exactly that index:
// every argument (pid, file, bound, sleep target) of
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
      std::string("/bin/sleep\0"
                  "121\0",
                  15));
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
  // It passed while the only match's ancestry was re-read: said, with the
  // match (docs/resolver.md, "Retries, deadline and budget").
  const std::string said = "the deadline passed 1 ns ago while confirming pid 4103";
  EXPECT_EQ(r.replayed().detail().rfind(said, 0), 0u) << r.replayed().detail();
  EXPECT_EQ(r.replayed().subject_pid(), 4103);
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

}  // namespace
}  // namespace proctape
