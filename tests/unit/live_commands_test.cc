// SPDX-License-Identifier: Apache-2.0
// The pipelines of `proctape fingerprint`, `resolve` and `liveness` on the
// live host, out of the CLI: a fingerprint file read for a boot
// (format/fingerprint_file.h ReadFingerprintOfBoot), one written
// (capture/fingerprint.h WriteRootFingerprint, on the in-memory host), a
// resolution (capture/live_resolve.h ResolveLive) and a liveness check's
// identity and run (capture/live_liveness.h) on this host's /proc, each
// with the failure a bad input gets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "capture/fingerprint.h"
#include "capture/host_facts.h"
#include "capture/live_liveness.h"
#include "capture/live_resolve.h"
#include "capture/procfs_evidence.h"
#include "core/resolver.h"
#include "format/fingerprint_file.h"
#include "format/writer.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/replay_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the in-memory host and the temporary directory

// Two boots as /proc/sys/kernel/random/boot_id prints them: neither is this host's.
const std::string kBoot = "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0\n";
const std::string kOtherBootId = "99999999-8888-4777-a666-555555555555\n";

std::unique_ptr<OutputFile> OpenOutput(const std::string& path) {
  OutputRequest request;
  request.path = path;
  request.binary = true;
  Failure failure;
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &failure);
  EXPECT_NE(out, nullptr) << failure.message;
  return out;
}

// A fingerprint file of the in-memory host's root, taken in boot `boot_id`.
std::string WriteFingerprintOfBoot(const ReplayTempDir& dir, const std::string& boot_id) {
  FakeHost host;
  TakenFingerprint taken = TakeFingerprint(host, kAppServer, "/bin/sleep", boot_id);
  EXPECT_TRUE(taken.ok()) << taken.root.detail;
  v1::Header header;
  header.mutable_host()->set_boot_id(boot_id);
  const std::string path = dir.File("root.ptape");
  const MaybeFailure failed = WriteFingerprintFile(path, false, header, taken.fingerprint);
  EXPECT_FALSE(failed) << failed->message;
  return path;
}

std::unique_ptr<ProcfsEvidence> LiveProc() {
  Failure failure;
  std::unique_ptr<ProcfsEvidence> proc = ProcfsEvidence::Open("/proc", &failure);
  EXPECT_NE(proc, nullptr) << failure.message;
  return proc;
}

TEST(ReadFingerprintOfBoot, GivesTheFingerprintOfThatBoot) {
  ReplayTempDir dir;
  const std::string path = WriteFingerprintOfBoot(dir, kBoot);
  Failure failure;
  auto fp = ReadFingerprintOfBoot(path, kBoot, "this host's", "again", &failure);
  ASSERT_TRUE(fp.has_value()) << failure.message;
  EXPECT_EQ(fp->root_pid(), kAppServer);
  EXPECT_EQ(fp->root_start_ticks(), kAppServerStart);
}

TEST(ReadFingerprintOfBoot, RefusesAnotherBootAMissingFileAndAFileOfNoFingerprint) {
  ReplayTempDir dir;
  const std::string path = WriteFingerprintOfBoot(dir, kBoot);
  Failure failure;
  EXPECT_FALSE(ReadFingerprintOfBoot(path, kOtherBootId, "this host's", "take it again", &failure));
  EXPECT_EQ(failure.kind, FailureKind::kOtherBoot);
  EXPECT_NE(failure.message.find("(this host's)"), std::string::npos) << failure.message;
  EXPECT_NE(failure.message.find("; take it again"), std::string::npos) << failure.message;

  EXPECT_FALSE(ReadFingerprintOfBoot(dir.File("none.ptape"), kBoot, "w", "r", &failure));
  EXPECT_EQ(failure.kind, FailureKind::kIo);

  const std::string empty = dir.File("empty.ptape");
  auto w = SnapshotWriter::Create(empty, SnapshotWriter::Options{}, &failure);
  ASSERT_NE(w, nullptr) << failure.message;
  ASSERT_TRUE(w->WriteHeader(v1::Header{}));
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  EXPECT_FALSE(ReadFingerprintOfBoot(empty, kBoot, "w", "r", &failure));
  EXPECT_EQ(failure.kind, FailureKind::kUsage);
  EXPECT_NE(failure.message.find("'proctape fingerprint --root PID -o FILE'"), std::string::npos)
      << failure.message;
}

TEST(WriteRootFingerprint, WritesTheRootsFingerprintInThisHostsBoot) {
  ReplayTempDir dir;
  FakeHost host;
  const std::string path = dir.File("fp.ptape");
  WrittenFingerprint written =
      WriteRootFingerprint(host, kAppServer, "/bin/sleep", "/proc", {"proctape"}, OpenOutput(path));
  ASSERT_FALSE(written.failure) << written.failure->failure.message;
  EXPECT_EQ(written.boot_id, CollectHostFacts("/proc").boot_id());
  FingerprintFile file = ReadFingerprintFile(path);
  ASSERT_TRUE(file.ok()) << file.error;
  EXPECT_EQ(file.fingerprint.root_pid(), kAppServer);
  EXPECT_EQ(file.fingerprint.root_start_ticks(), kAppServerStart);
  EXPECT_EQ(file.fingerprint.boot_id(), written.boot_id);
}

TEST(WriteRootFingerprint, SaysWhyNothingWasWritten) {
  ReplayTempDir dir;
  FakeHost host;
  // No boot id under a directory that is no /proc: a fingerprint must name its boot.
  WrittenFingerprint no_boot = WriteRootFingerprint(host, kAppServer, "/bin/sleep", dir.File(""),
                                                    {}, OpenOutput(dir.File("a.ptape")));
  ASSERT_TRUE(no_boot.failure);
  EXPECT_EQ(no_boot.failure->failure.kind, FailureKind::kInternal);
  EXPECT_TRUE(no_boot.failure->option.empty());
  // An executable the host does not have.
  WrittenFingerprint no_exe = WriteRootFingerprint(host, kAppServer, "/no/such/exe", "/proc", {},
                                                   OpenOutput(dir.File("b.ptape")));
  ASSERT_TRUE(no_exe.failure);
  EXPECT_EQ(no_exe.failure->failure.kind, FailureKind::kUsage);
  EXPECT_EQ(no_exe.failure->option, "--exe");
  EXPECT_EQ(no_exe.failure->path, "/no/such/exe");
  // A root that is not there: no failure, the root's verdict says why.
  WrittenFingerprint no_root =
      WriteRootFingerprint(host, 77777, "/bin/sleep", "/proc", {}, OpenOutput(dir.File("c.ptape")));
  EXPECT_FALSE(no_root.failure);
  EXPECT_EQ(no_root.taken.root.status, Status::kMissingRoot);
  EXPECT_FALSE(ReadFingerprintFile(dir.File("c.ptape")).ok());
}

LiveResolveRequest OwnProcessRequest() {
  LiveResolveRequest in;
  in.words.token = "live-commands-test";
  in.words.bounds.deadline_ns = 0;  // DEADLINE at the first check: nothing is scanned
  in.root = ::getpid();
  return in;
}

TEST(ResolveLive, ARootFingerprintedNowIsLateAndWarnedOf) {
  std::unique_ptr<ProcfsEvidence> proc = LiveProc();
  ASSERT_NE(proc, nullptr);
  LiveResolution r = ResolveLive(*proc, OwnProcessRequest(), nullptr);
  ASSERT_FALSE(r.refused) << r.refused->failure.message;
  ASSERT_TRUE(r.ran);
  EXPECT_FALSE(r.record_failure);
  EXPECT_EQ(r.verdict.status, Status::kDeadline);
  EXPECT_TRUE(r.verdict.late_fingerprint);
  EXPECT_EQ(r.request.root_pid, ::getpid());
  EXPECT_NE(r.request.root_start_ticks, 0u);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("is fingerprinted late"), std::string::npos) << r.warnings[0];
}

TEST(ResolveLive, RefusesARequestBeforeTheCheck) {
  std::unique_ptr<ProcfsEvidence> proc = LiveProc();
  ASSERT_NE(proc, nullptr);
  LiveResolveRequest no_root = OwnProcessRequest();
  no_root.root.reset();
  LiveResolution r = ResolveLive(*proc, no_root, nullptr);
  ASSERT_TRUE(r.refused);
  EXPECT_EQ(r.refused->failure.kind, FailureKind::kUsage);
  EXPECT_FALSE(r.ran);

  LiveResolveRequest bad_exe = OwnProcessRequest();
  bad_exe.exe_problem = "not a regular file";
  r = ResolveLive(*proc, bad_exe, nullptr);
  ASSERT_TRUE(r.refused);
  EXPECT_EQ(r.refused->option, "--exe");
  EXPECT_EQ(r.refused->failure.message, "cannot attest it: not a regular file");

  ReplayTempDir dir;
  LiveResolveRequest missing = OwnProcessRequest();
  missing.fingerprint = dir.File("none.ptape");
  r = ResolveLive(*proc, missing, nullptr);
  ASSERT_TRUE(r.refused);
  EXPECT_EQ(r.refused->failure.kind, FailureKind::kIo);
  EXPECT_EQ(r.refused->option, "--fingerprint");

  LiveResolveRequest other_boot = OwnProcessRequest();
  other_boot.root.reset();
  other_boot.fingerprint = WriteFingerprintOfBoot(dir, kOtherBootId);
  r = ResolveLive(*proc, other_boot, nullptr);
  ASSERT_TRUE(r.refused);
  EXPECT_EQ(r.refused->failure.kind, FailureKind::kOtherBoot);
}

TEST(LivenessIdentity, TakesTheGivenIdentityAndRefusesAnotherBoot) {
  LivenessSource source;
  source.pid = 4242;
  source.start = 99;
  BootIdentity identity;
  EXPECT_FALSE(LivenessIdentity(source, &identity));
  EXPECT_EQ(identity.pid, 4242);
  EXPECT_EQ(identity.start_ticks, 99u);
  EXPECT_TRUE(identity.boot_id.empty());

  source.boot_id = kOtherBootId;
  source.has_boot_id = true;
  auto refused = LivenessIdentity(source, &identity);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->failure.kind, FailureKind::kOtherBoot);
  EXPECT_EQ(refused->option, "--boot-id");

  ReplayTempDir dir;
  LivenessSource recorded;
  recorded.from_recording = dir.File("none.ptape");
  refused = LivenessIdentity(recorded, &identity);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->failure.kind, FailureKind::kIo);
  EXPECT_EQ(refused->option, "--from-recording");
}

TEST(CheckLivenessLive, ThisProcessIsAliveItsBootUnchecked) {
  std::unique_ptr<ProcfsEvidence> proc = LiveProc();
  ASSERT_NE(proc, nullptr);
  const Verdict self = FingerprintRoot(*proc, ::getpid());
  ASSERT_TRUE(self.resolved()) << self.detail;
  const BootIdentity identity{::getpid(), self.start_ticks, ""};
  LiveLiveness checked = CheckLivenessLive(*proc, identity, "/proc", {}, nullptr);
  ASSERT_TRUE(checked.ran);
  EXPECT_FALSE(checked.record_failure);
  EXPECT_EQ(checked.verdict.status, LivenessStatus::kAlive);
  ASSERT_EQ(checked.warnings, std::vector<std::string>{UncheckedBootWarning(identity)});

  const BootIdentity reused{::getpid(), self.start_ticks + 1, CollectHostFacts("/proc").boot_id()};
  checked = CheckLivenessLive(*proc, reused, "/proc", {}, nullptr);
  EXPECT_EQ(checked.verdict.status, LivenessStatus::kError);
  EXPECT_TRUE(checked.warnings.empty());
}

}  // namespace
}  // namespace proctape
