// SPDX-License-Identifier: Apache-2.0
// ResolveCheck (capture/live_checks.h), the check `resolve` and the lab run
// and record, on the in-memory host: where the root's start tick came from
// is said in the verdict (late_fingerprint) and kept in the recorded request.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "capture/fingerprint.h"
#include "capture/live_checks.h"
#include "proto/convert.h"
#include "tests/unit/fake_host.h"

namespace proctape {
namespace {

using google::protobuf::util::MessageDifferencer;
using test::FakeHost;
using test::kAppServer;
using test::kAppServerStart;
using test::kSleep;
using test::kUserShell;

const std::string kBoot = "5b1f0c2e-3d4a-4e6f-8a9b-0c1d2e3f4a5b\n";

// The app-server ends and a new one takes its pid, with a later start tick.
void RestartAppServer(FakeHost& host) {
  host.AddProcess(kAppServer, kUserShell, kAppServerStart + 3, "codex", {"codex", "app-server"},
                  {"HOME=/root"}, Identity{0, 0x803, 500});
}

// `docs/resolver.md`, "When the root is fingerprinted": step 1 takes the
// start time before the turn; read
// at resolve time it cannot tell a restarted root from the turn's.
TEST(ResolveCheck, RootFingerprintedAtResolveTimeIsLateInVerdictAndRequest) {
  FakeHost host;
  Request request = FakeHost::TypicalRequest();
  request.root_start_ticks = 0;
  Verdict verdict;
  v1::Resolution r;
  ResolveCheck(&request, "/bin/sleep", true, &verdict)(host, &r);
  ASSERT_TRUE(verdict.resolved()) << verdict.detail;
  EXPECT_TRUE(verdict.late_fingerprint);
  EXPECT_TRUE(r.verdict().late_fingerprint());
  EXPECT_TRUE(r.resolve().fingerprint_on_tape());
  EXPECT_FALSE(r.resolve().has_fingerprint());
  EXPECT_EQ(r.resolve().root_start_ticks(), kAppServerStart);
}

// A late fingerprint that failed (the root is gone) read no start tick that a
// resolution then used: the verdict says why it failed, not that it was late.
// The recording still says how the root was to be fingerprinted.
TEST(ResolveCheck, LateFingerprintThatFailedIsNotSaidToBeLate) {
  FakeHost host;
  host.Remove(kAppServer);
  Request request = FakeHost::TypicalRequest();
  Verdict verdict;
  v1::Resolution r;
  ResolveCheck(&request, "/bin/sleep", true, &verdict)(host, &r);
  EXPECT_EQ(verdict.status, Status::kMissingRoot) << verdict.detail;
  EXPECT_FALSE(verdict.late_fingerprint);
  EXPECT_FALSE(r.verdict().late_fingerprint());
  EXPECT_TRUE(r.resolve().fingerprint_on_tape());
}

// Nor is a request refused before any read (an empty token).
TEST(ResolveCheck, RefusedRequestIsNotSaidToBeLate) {
  FakeHost host;
  Request request = FakeHost::TypicalRequest();
  request.token.clear();
  Verdict verdict;
  v1::Resolution r;
  ResolveCheck(&request, "/bin/sleep", true, &verdict)(host, &r);
  EXPECT_EQ(verdict.status, Status::kInvalidRequest) << verdict.detail;
  EXPECT_FALSE(verdict.late_fingerprint);
}

// The caller gave the start tick (--root-start): the root is not late.
TEST(ResolveCheck, GivenStartTickIsNotLate) {
  FakeHost host;
  Request request = FakeHost::TypicalRequest();
  Verdict verdict;
  v1::Resolution r;
  ResolveCheck(&request, "/bin/sleep", false, &verdict)(host, &r);
  ASSERT_TRUE(verdict.resolved()) << verdict.detail;
  EXPECT_FALSE(verdict.late_fingerprint);
  EXPECT_FALSE(r.verdict().late_fingerprint());
  EXPECT_FALSE(r.resolve().fingerprint_on_tape());
}

// `resolve --fingerprint`: the request's root, start tick and executable are
// the fingerprint's, and the recorded request keeps the fingerprint itself.
TEST(ResolveCheck, FingerprintTakenBeforeTheTurnIsStoredInTheRequest) {
  FakeHost host;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
  ASSERT_TRUE(taken.ok());
  Request request = FakeHost::TypicalRequest();
  request.root_start_ticks = 1;
  ApplyFingerprint(taken.fingerprint, &request);
  Verdict verdict;
  v1::Resolution r;
  ResolveCheck(&request, "/bin/sleep", false, &verdict, &taken.fingerprint)(host, &r);
  ASSERT_TRUE(verdict.resolved()) << verdict.detail;
  EXPECT_EQ(verdict.pid, kSleep);
  EXPECT_FALSE(verdict.late_fingerprint);
  ASSERT_TRUE(r.resolve().has_fingerprint());
  EXPECT_TRUE(MessageDifferencer::Equals(r.resolve().fingerprint(), taken.fingerprint));
  EXPECT_EQ(r.resolve().root_start_ticks(), kAppServerStart);
  EXPECT_FALSE(r.resolve().fingerprint_on_tape());
}

// The protection the fingerprint exists for (`docs/resolver.md`, "When the
// root is fingerprinted"): a root restarted between the
// fingerprint and the resolution is ROOT_RESTARTED with a fingerprint, and
// goes unnoticed (RESOLVED, beneath the new root) without one.
TEST(ResolveCheck, RootRestartedAfterTheFingerprintIsRootRestartedOnlyWithIt) {
  FakeHost host;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", kBoot);
  ASSERT_TRUE(taken.ok());
  RestartAppServer(host);

  Request with = FakeHost::TypicalRequest();
  ApplyFingerprint(taken.fingerprint, &with);
  Verdict verdict;
  v1::Resolution r;
  ResolveCheck(&with, "/bin/sleep", false, &verdict, &taken.fingerprint)(host, &r);
  EXPECT_EQ(verdict.status, Status::kRootRestarted) << verdict.detail;
  EXPECT_EQ(verdict.subject_pid, kAppServer);
  EXPECT_EQ(verdict.subject_start_ticks, kAppServerStart + 3);
  EXPECT_EQ(verdict.expected_ticks, kAppServerStart);

  Request late = FakeHost::TypicalRequest();
  late.root_start_ticks = 0;
  Verdict unnoticed;
  ResolveCheck(&late, "/bin/sleep", true, &unnoticed)(host, &r);
  EXPECT_TRUE(unnoticed.resolved()) << unnoticed.detail;
  EXPECT_TRUE(unnoticed.late_fingerprint);
}

}  // namespace
}  // namespace proctape
