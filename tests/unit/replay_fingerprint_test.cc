// SPDX-License-Identifier: Apache-2.0
// Replay of recordings by how their root was fingerprinted: late, on the tape
// (with the verdict's late_fingerprint, or from before the flag existed), or
// before the turn (the request holds the RootFingerprint). late_fingerprint is
// derived from the request, not the evidence: every such recording
// reproduces, and the replayed verdict says it again.
#include <gtest/gtest.h>

#include "capture/fingerprint.h"
#include "replay/replay.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

using test::FakeHost;
using test::kAppServer;
using test::kAppServerStart;
using test::kUserShell;
using test::Recorded;
using test::RecordOptions;
using test::RecordResolution;
using test::ReplayTempDir;

const std::string kBoot = "00000000-0000-4000-8000-000000000000\n";  // the fixture's

std::string Why(const v1::ReplayResult& r) { return DescribeReplay(r); }

Snapshot ReadBack(const std::string& path) {
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << path << ": " << e.message;
  return s;
}

Snapshot Record(const ReplayTempDir& dir, const std::string& name, FakeHost& host,
                const RecordOptions& options) {
  Recorded rec = RecordResolution(host, FakeHost::TypicalRequest(), dir.File(name), options);
  EXPECT_TRUE(rec.ok) << rec.error;
  return ReadBack(dir.File(name));
}

void RestartAppServer(FakeHost& host) {
  host.AddProcess(kAppServer, kUserShell, kAppServerStart + 3, "codex", {"codex", "app-server"},
                  {"HOME=/root"}, Identity{0, 0x803, 500});
}

TEST(ReplayFingerprint, LateRecordingReproducesAndIsToldLate) {
  ReplayTempDir dir;
  FakeHost host;
  RecordOptions late;
  late.fingerprint = true;
  Snapshot s = Record(dir, "late.ptape", host, late);
  ASSERT_TRUE(s.resolutions[0].verdict().late_fingerprint());
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_TRUE(r.replayed().late_fingerprint());
}

// Files written before the flag existed (tests/data/replay/resolved.ptape,
// the first corpus) hold fingerprint_on_tape without late_fingerprint.
TEST(ReplayFingerprint, LateRecordingWrittenBeforeTheFlagReproducesAndIsToldLate) {
  ReplayTempDir dir;
  FakeHost host;
  RecordOptions late;
  late.fingerprint = true;
  Snapshot s = Record(dir, "late.ptape", host, late);
  s.resolutions[0].mutable_verdict()->clear_late_fingerprint();
  std::string error;
  ASSERT_TRUE(test::WriteSnapshotFile(s, dir.File("old.ptape"), &error)) << error;
  Snapshot old = ReadBack(dir.File("old.ptape"));
  ASSERT_FALSE(old.resolutions[0].verdict().late_fingerprint());
  v1::ReplayResult r = ReplayResolution(old, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_TRUE(r.replayed().late_fingerprint());
}

// A start tick given for a what-if is not late: the replay does not say so.
TEST(ReplayFingerprint, WhatIfStartTickOfALateRecordingIsNotLate) {
  ReplayTempDir dir;
  FakeHost host;
  RecordOptions late;
  late.fingerprint = true;
  Snapshot s = Record(dir, "late.ptape", host, late);
  RequestOverrides given;
  given.root_start_ticks = kAppServerStart;
  v1::ReplayResult r = ReplayResolution(s, 0, given);
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_FALSE(r.replayed().late_fingerprint());
}

TEST(ReplayFingerprint, RecordingWithAFingerprintTakenBeforeTheTurnReproducesNotLate) {
  ReplayTempDir dir;
  FakeHost host;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
  ASSERT_TRUE(taken.ok());
  RecordOptions before;
  before.before_turn = taken.fingerprint;
  Snapshot s = Record(dir, "before.ptape", host, before);
  const v1::ResolutionRequest& q = s.resolutions[0].resolve();
  ASSERT_TRUE(q.has_fingerprint());
  EXPECT_FALSE(q.fingerprint_on_tape());
  EXPECT_EQ(q.root_start_ticks(), q.fingerprint().root_start_ticks());
  EXPECT_EQ(q.exe_identity().ino(), q.fingerprint().exe_identity().ino());
  EXPECT_EQ(DescribeCall(s.observations[0]), "Now()");  // no fingerprint on the tape
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_EQ(r.replayed().status(), v1::Verdict::RESOLVED);
  EXPECT_FALSE(r.replayed().late_fingerprint());
}

// The fingerprint a recording holds is what its replay resolves against:
// the request's own root fields are only its copy.
TEST(ReplayFingerprint, ReplayResolvesAgainstTheRecordedFingerprint) {
  ReplayTempDir dir;
  FakeHost host;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
  ASSERT_TRUE(taken.ok());
  RecordOptions before;
  before.before_turn = taken.fingerprint;
  Snapshot s = Record(dir, "before.ptape", host, before);
  v1::ResolutionRequest* q = s.resolutions[0].mutable_resolve();
  q->set_root_start_ticks(kAppServerStart + 99);
  q->mutable_exe_identity()->set_ino(1);
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);

  // A what-if still changes it.
  RequestOverrides other;
  other.root_start_ticks = kAppServerStart + 99;
  r = ReplayResolution(s, 0, other);
  EXPECT_EQ(r.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(r);
  EXPECT_EQ(r.replayed().status(), v1::Verdict::ROOT_RESTARTED);
}

// The root restarted after its fingerprint: recorded ROOT_RESTARTED, and the
// replay decides the same against the same fingerprint.
TEST(ReplayFingerprint, RootRestartedAfterTheFingerprintReproduces) {
  ReplayTempDir dir;
  FakeHost host;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
  ASSERT_TRUE(taken.ok());
  RestartAppServer(host);
  RecordOptions before;
  before.before_turn = taken.fingerprint;
  Snapshot s = Record(dir, "restarted.ptape", host, before);
  ASSERT_EQ(s.resolutions[0].verdict().status(), v1::Verdict::ROOT_RESTARTED);
  v1::ReplayResult r = ReplayResolution(s, 0, RequestOverrides{});
  EXPECT_EQ(r.outcome(), v1::ReplayResult::REPRODUCED) << Why(r);
  EXPECT_EQ(r.replayed().expected_ticks(), kAppServerStart);
}

// What if the late recording of a restarted root had had the fingerprint
// taken before the turn? Its start tick, given to the replay, decides
// ROOT_RESTARTED where the late recording RESOLVED beneath the new root.
TEST(ReplayFingerprint, WhatIfTheFingerprintHadBeenTakenBeforeTheTurn) {
  ReplayTempDir dir;
  FakeHost host;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
  ASSERT_TRUE(taken.ok());
  RestartAppServer(host);
  RecordOptions late;
  late.fingerprint = true;
  Snapshot s = Record(dir, "late.ptape", host, late);
  ASSERT_EQ(s.resolutions[0].verdict().status(), v1::Verdict::RESOLVED);

  RequestOverrides fingerprinted;
  fingerprinted.root_pid = taken.fingerprint.root_pid();
  fingerprinted.root_start_ticks = taken.fingerprint.root_start_ticks();
  fingerprinted.exe = FromProto(taken.fingerprint.exe_identity());
  v1::ReplayResult r = ReplayResolution(s, 0, fingerprinted);
  EXPECT_EQ(r.outcome(), v1::ReplayResult::VERDICT_CHANGED) << Why(r);
  EXPECT_EQ(r.replayed().status(), v1::Verdict::ROOT_RESTARTED);
  EXPECT_FALSE(r.replayed().late_fingerprint());
}

}  // namespace
}  // namespace proctape
