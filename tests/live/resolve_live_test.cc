// SPDX-License-Identifier: Apache-2.0
// The resolver (`docs/resolver.md`) against real PID-namespace sandboxes on
// this kernel: the marker a sandboxed shell writes is a namespace pid; the
// resolver must find the sleep's true host pid beneath the app-server, and
// liveness must follow that (pid, start time), never the marker.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "capture/procfs_evidence.h"
#include "core/legacy_marker.h"
#include "core/resolver.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::Sandbox;
using live::SandboxKind;

// What `kill(pid, 0)` really answers on this host: the legacy strategy's
// probe. Sends no signal.
class RealKill0 : public SignalProbe {
 public:
  int Kill0(std::int64_t pid) override {
    return ::kill(static_cast<pid_t>(pid), 0) == 0 ? 0 : errno;
  }
};

class ResolveLiveTest : public ::testing::TestWithParam<SandboxKind> {
 protected:
  void SetUp() override {
    std::string why = live::SandboxUnavailable(GetParam());
    if (!why.empty()) GTEST_SKIP() << why;
    Failure failure;
    evidence_ = ProcfsEvidence::Open("/proc", &failure);
    ASSERT_NE(evidence_, nullptr) << failure.message;
    std::string error;
    sandbox_ = Sandbox::Start(GetParam(), live::RandomHex(16), &error);
    ASSERT_NE(sandbox_, nullptr) << error;
  }

  // The request of `docs/resolver.md`, "Inputs (Request)": root = the
  // app-server, fingerprinted now; the attested /bin/sleep; the invocation's
  // token.
  Request MakeRequest() {
    Request request;
    request.root_pid = sandbox_->app_server();
    Verdict fingerprint = FingerprintRoot(*evidence_, request.root_pid);
    EXPECT_TRUE(fingerprint.resolved()) << fingerprint.detail;
    request.root_start_ticks = fingerprint.start_ticks;
    request.exe = evidence_->PathIdentity("/bin/sleep");
    EXPECT_TRUE(request.exe.ok()) << "errno " << request.exe.err;
    request.token = sandbox_->token();
    return request;
  }

  // unshare's shell is the namespace's init; bwrap keeps pid 1 for itself.
  long ExpectedMarker() const { return GetParam() == SandboxKind::kUnshare ? 1 : 2; }

  std::unique_ptr<ProcfsEvidence> evidence_;
  std::unique_ptr<Sandbox> sandbox_;
};

TEST_P(ResolveLiveTest, MarkerIsANamespacePidNotTheSleepsHostPid) {
  EXPECT_EQ(sandbox_->marker(), ExpectedMarker());
  EXPECT_NE(sandbox_->sleep_pid(), sandbox_->marker());
  // Independent proof of the sleep's two identities: NSpid lists the host
  // pid first and the namespace pid (what `echo $$` wrote) last.
  std::vector<long> nspid = live::NsPids(sandbox_->sleep_pid());
  ASSERT_EQ(nspid.size(), 2u);
  EXPECT_EQ(nspid.front(), sandbox_->sleep_pid());
  EXPECT_EQ(nspid.back(), sandbox_->marker());

  // The tree beneath the app-server is exactly the launcher chain and the
  // sleep, and the helper recorded each of them: app-server, unshare, sleep;
  // or app-server, bwrap, bwrap (the namespace's init), sleep.
  std::vector<pid_t> started = sandbox_->started();
  ASSERT_EQ(started.size(), GetParam() == SandboxKind::kUnshare ? 3u : 4u);
  EXPECT_EQ(started.front(), sandbox_->app_server());
  EXPECT_EQ(started.back(), sandbox_->sleep_pid());
  for (std::size_t i = 1; i < started.size(); ++i) {
    std::optional<live::ProcStat> st = live::ReadStat(started[i]);
    ASSERT_TRUE(st.has_value()) << "pid " << started[i] << " is gone";
    EXPECT_EQ(st->ppid, started[i - 1]) << "pid " << started[i];
  }
  std::vector<pid_t> tree = live::Descendants(sandbox_->app_server());
  EXPECT_EQ(tree.size(), started.size() - 1);
}

TEST_P(ResolveLiveTest, ResolvesTheTrueHostPidThenLivenessFollowsIt) {
  Request request = MakeRequest();
  std::optional<live::ProcStat> root = live::ReadStat(sandbox_->app_server());
  ASSERT_TRUE(root.has_value());
  ASSERT_EQ(request.root_start_ticks, root->start_ticks);

  Verdict v = Resolve(*evidence_, request);
  ASSERT_EQ(v.status, Status::kResolved) << StatusName(v.status) << ": " << v.detail;
  EXPECT_EQ(v.pid, sandbox_->sleep_pid());
  EXPECT_NE(v.pid, sandbox_->marker());
  EXPECT_EQ(v.start_ticks, sandbox_->sleep_start());
  EXPECT_GE(v.attempts, 1u);
  EXPECT_GT(v.bytes_read, 0u);
  // The resolved pid's own NSpid ends in the marker value.
  std::vector<long> nspid = live::NsPids(static_cast<pid_t>(v.pid));
  ASSERT_EQ(nspid.size(), 2u);
  EXPECT_EQ(nspid.back(), sandbox_->marker());

  LivenessVerdict alive = CheckLiveness(*evidence_, v.pid, v.start_ticks);
  EXPECT_EQ(alive.status, LivenessStatus::kAlive) << alive.detail;
  EXPECT_TRUE(alive.state == "S" || alive.state == "R") << alive.state;

  ASSERT_TRUE(sandbox_->KillSleep()) << "the sleep did not end within 3 s";
  LivenessVerdict dead = CheckLiveness(*evidence_, v.pid, v.start_ticks);
  EXPECT_EQ(dead.status, LivenessStatus::kDead) << dead.detail;
}

TEST_P(ResolveLiveTest, WrongTokenIsTokenMismatch) {
  Request request = MakeRequest();
  request.token = live::RandomHex(16);  // another invocation's token
  request.bounds.deadline_ns = 300'000'000;
  Verdict v = Resolve(*evidence_, request);
  EXPECT_EQ(v.status, Status::kTokenMismatch) << StatusName(v.status) << ": " << v.detail;
  EXPECT_EQ(v.subject_pid, sandbox_->sleep_pid());
  EXPECT_GE(v.attempts, 2u);  // a stale token is retried until the deadline
}

TEST_P(ResolveLiveTest, RootOfAnotherStartTimeIsRootRestarted) {
  Request request = MakeRequest();
  std::uint64_t real = request.root_start_ticks;
  request.root_start_ticks = real - 1;
  Verdict v = Resolve(*evidence_, request);
  EXPECT_EQ(v.status, Status::kRootRestarted) << StatusName(v.status) << ": " << v.detail;
  EXPECT_EQ(v.subject_pid, sandbox_->app_server());
  EXPECT_EQ(v.subject_start_ticks, real);
  EXPECT_EQ(v.expected_ticks, real - 1);
}

TEST_P(ResolveLiveTest, MarkerTakenAsHostPidNamesAnotherProcess) {
  const pid_t marker = static_cast<pid_t>(sandbox_->marker());
  // Host pid 1 (init) and 2 (kthreadd) exist and are not the sleep.
  std::optional<live::ProcStat> other = live::ReadStat(marker);
  ASSERT_TRUE(other.has_value()) << "host pid " << marker << " does not exist";
  EXPECT_NE(other->pid, sandbox_->sleep_pid());
  EXPECT_NE(live::ReadProc(marker, "cmdline"), live::ReadProc(sandbox_->sleep_pid(), "cmdline"));
  // The sleep's identity does not hold at the marker's pid.
  LivenessVerdict at_marker = CheckLiveness(*evidence_, marker, sandbox_->sleep_start());
  EXPECT_NE(at_marker.status, LivenessStatus::kAlive) << at_marker.detail;

  // The legacy strategy probes that unrelated process: after the sleep is
  // gone it still does not conclude DEAD (root: ALIVE; others: EPERM).
  ASSERT_TRUE(sandbox_->KillSleep());
  RealKill0 probe;
  LegacyResult legacy = LegacyMarkerCheck(std::to_string(marker) + "\n", probe);
  EXPECT_EQ(legacy.pid, marker);
  EXPECT_NE(legacy.outcome, LegacyOutcome::kDead) << legacy.detail;
  if (::geteuid() == 0) {
    EXPECT_EQ(legacy.outcome, LegacyOutcome::kAlive) << legacy.detail;
  }
  EXPECT_EQ(CheckLiveness(*evidence_, sandbox_->sleep_pid(), sandbox_->sleep_start()).status,
            LivenessStatus::kDead);
}

std::string ParamName(const ::testing::TestParamInfo<SandboxKind>& param) {
  return live::SandboxName(param.param);
}

INSTANTIATE_TEST_SUITE_P(Sandboxes, ResolveLiveTest,
                         ::testing::Values(SandboxKind::kUnshare, SandboxKind::kBwrap), ParamName);

}  // namespace
}  // namespace proctape
