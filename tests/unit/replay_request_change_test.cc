// SPDX-License-Identifier: Apache-2.0
// Replay (`docs/replay.md`, "A changed request"): the recorded tape of the
// typical resolution replayed for another exe, root, start or token says
// VERDICT_CHANGED where the tape answers the changed resolver, and DIVERGED,
// never an invented verdict, where it cannot.
//
// A modified request shows VERDICT CHANGED (`docs/replay.md`, "Two models").
#include "replay/replay.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the typical host: FakeHost, its pids, start times, tokens

// A modified request shows VERDICT CHANGED. The resolver makes
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
  EXPECT_EQ(
      DescribeReplay(r),
      "resolution 0 (request changed): VERDICT CHANGED: recorded RESOLVED host pid 4103, start tick 510003; "
      "now EXE_MISMATCH: /proc/4103/exe is 2051:1311, not the attested 2049:9999 (" +
          std::to_string(r.consumed()) + " of " + std::to_string(r.recorded_count()) +
          " observations)\n  subject: pid 4103, start tick 510003\n");
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
    EXPECT_NE(text.find("no replayed verdict: the tape cannot answer that call"), std::string::npos)
        << text;
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
  Snapshot gone = RecordTypical(
      dir, "g.ptape", [](FakeHost& h) { h.Remove(kAppServer); }, fingerprinted);
  ASSERT_EQ(gone.observations.size(), 1u);
  EXPECT_EQ(gone.resolutions[0].resolve().root_start_ticks(), 0u);
  EXPECT_EQ(ReplayResolution(gone, 0, RequestOverrides{}).outcome(), v1::ReplayResult::REPRODUCED);
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

}  // namespace
}  // namespace proctape
