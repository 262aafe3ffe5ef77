// SPDX-License-Identifier: Apache-2.0
// The ownership planner (`docs/ownership.md`, "Refusals") on hand-built
// snapshots, its refusals: one test per rule, each stating it: unreadable
// identities fail the whole plan closed, and so do captures out of order, cut
// by a bound, or not bootstrapped by the verifier. The keepalive sandbox is
// built by tests/unit/ownership_fixture.h.
#include <gtest/gtest.h>

#include <cerrno>
#include <vector>

#include "ownership/ownership.h"
#include "tests/unit/ownership_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the keepalive sandbox: ownership_fixture.h
using test::Request;   // not proctape::Request (the resolver's)
using test::Verdict;   // not proctape::Verdict
using Problem = v1::OwnershipProblem;

// ---- Refusals: unreadable identities ---------------------------------------

// `docs/ownership.md`, "Refusals" (unreadable-identity): a process that may be
// in scope but whose identity cannot be read fails the whole plan closed.
TEST(OwnershipTest, UnreadableIdentityFailsTheWholePlanClosed) {
  struct Case {
    const char* name;
    void (*damage)(v1::ProcessRecord*);
  };
  const Case cases[] = {
      {"status EACCES",
       [](v1::ProcessRecord* r) {
         r->mutable_status()->set_data("");
         r->mutable_status()->set_err(EACCES);
       }},
      {"status without Uid",
       [](v1::ProcessRecord* r) { r->mutable_status()->set_data("Name:\tx\n"); }},
      {"cgroup EACCES",
       [](v1::ProcessRecord* r) {
         r->mutable_cgroup()->set_data("");
         r->mutable_cgroup()->set_err(EACCES);
       }},
      {"cgroup v1 only",
       [](v1::ProcessRecord* r) {
         r->mutable_cgroup()->set_data("4:memory:/sandbox\n1:cpu:/sandbox\n");
       }},
      {"stat malformed", [](v1::ProcessRecord* r) { r->mutable_stat()->set_data("81 (x"); }},
      {"stat EACCES",
       [](v1::ProcessRecord* r) {
         r->mutable_stat()->set_data("");
         r->mutable_stat()->set_err(EACCES);
       }},
  };
  for (const Case& c : cases) {
    Snapshot current = Current({{81, kVerifier, 881}});
    c.damage(current.frames[0].mutable_processes(4));
    v1::OwnershipPlan plan = PlanOwnership(Baseline(), current, Request());
    EXPECT_EQ(plan.outcome(), v1::OwnershipPlan::REFUSED) << c.name << "\n" << Why(plan);
    EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::UNREADABLE_IDENTITY}) << c.name;
    EXPECT_EQ(plan.decisions_size(), 0) << c.name;
    ASSERT_EQ(plan.problems_size(), 1);
    EXPECT_EQ(plan.problems(0).pid(), 81) << c.name;
    EXPECT_EQ(plan.problems(0).snapshot(), "current") << c.name;
  }
}

// ... but only when it may be in scope: one readable attribute that rules it
// out (another uid, another cgroup) is enough to leave it undecided.
TEST(OwnershipTest, UnreadableProcessRuledOutByUidOrCgroupDoesNotRefuse) {
  Snapshot current =
      Current({{82, kInit, 882, {"a"}, "a", 0}, {83, kInit, 883, {"b"}, "b", kUid, "/x"}});
  current.frames[0].mutable_processes(4)->mutable_cgroup()->set_err(EACCES);
  current.frames[0].mutable_processes(5)->mutable_status()->set_err(EACCES);
  current.frames[0].mutable_processes(5)->mutable_stat()->set_err(EACCES);
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), current, Request());
  EXPECT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(plan.out_of_scope(), 2u);
}

// The same holds in the baseline: its processes that may be in scope must be
// readable (one of them could be the runtime's, or a repository command).
TEST(OwnershipTest, UnreadableIdentityInTheBaselineFailsClosed) {
  Snapshot baseline = Baseline();
  baseline.frames[0].mutable_processes(1)->mutable_status()->set_err(EIO);
  v1::OwnershipPlan plan = PlanOwnership(baseline, Current(), Request());
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::UNREADABLE_IDENTITY}) << Why(plan);
  EXPECT_EQ(plan.problems(0).snapshot(), "baseline");
  EXPECT_EQ(plan.problems(0).pid(), kKeepalive);
}

// A baseline record of a pid that is in scope now, without a start tick: the
// pair cannot be compared, whatever its uid was then.
TEST(OwnershipTest, BaselinePidWithoutStartTickCannotGrantOrDenyTheExemption) {
  Snapshot baseline = Baseline({{85, kInit, 150, {"other"}, "other", 0}});
  v1::ProcessRecord* r = baseline.frames[0].mutable_processes(4);
  r->mutable_stat()->set_data("");
  r->mutable_stat()->set_err(EACCES);
  v1::OwnershipPlan plan = PlanOwnership(baseline, Current({{85, kVerifier, 885}}), Request());
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::UNREADABLE_IDENTITY}) << Why(plan);
  EXPECT_EQ(plan.problems(0).snapshot(), "baseline");
}

// Two records of one pid in a frame: which is the process? Refused.
TEST(OwnershipTest, DuplicatePidRecordFailsClosed) {
  Snapshot current = Current();
  *current.frames[0].add_processes() = Record({kKeepalive, kVerifier, 999});
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), current, Request());
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::UNREADABLE_IDENTITY}) << Why(plan);
}

// ---- Refusals: capture ordering and bootstrap --------------------------------

// `docs/ownership.md`, "Refusals" (baseline-not-before, different-boot,
// different-pid-namespace): the baseline must be
// captured strictly before the current snapshot, on the same boot and in the
// same pid namespace.
TEST(OwnershipTest, CaptureOrderingBaselineAfterCurrentIsRejected) {
  Snapshot baseline = Baseline();
  Snapshot current = Current();
  v1::OwnershipPlan swapped = PlanOwnership(current, baseline, Request());
  EXPECT_EQ(Kinds(swapped), std::vector<Problem::Kind>{Problem::BASELINE_NOT_BEFORE})
      << Why(swapped);
  v1::OwnershipPlan same = PlanOwnership(baseline, baseline, Request());
  EXPECT_EQ(Kinds(same), std::vector<Problem::Kind>{Problem::BASELINE_NOT_BEFORE}) << Why(same);
  // One capture given twice is said as such, not as two times out of order.
  EXPECT_NE(Why(same).find("the baseline and the current snapshot are the same capture"),
            std::string::npos)
      << Why(same);
  EXPECT_EQ(Why(swapped).find("same capture"), std::string::npos) << Why(swapped);
  // The header starts in order, but the baseline's last scan overlaps the current's.
  baseline.frames[0].set_scan_end_mono_ns(current.frames[0].scan_start_mono_ns());
  v1::OwnershipPlan overlap = PlanOwnership(baseline, current, Request());
  EXPECT_EQ(Kinds(overlap), std::vector<Problem::Kind>{Problem::BASELINE_NOT_BEFORE});
}

TEST(OwnershipTest, CaptureOrderingAcrossBootsOrPidNamespacesIsRejected) {
  Snapshot current = Current();
  current.header.mutable_host()->set_boot_id("another-boot\n");
  const v1::OwnershipPlan other_boot = PlanOwnership(Baseline(), current, Request());
  EXPECT_EQ(Kinds(other_boot), std::vector<Problem::Kind>{Problem::DIFFERENT_BOOT});
  // The boot ids are said as one line says them, without the newline read.
  EXPECT_NE(other_boot.problems(0).detail().find("current \"another-boot\")"), std::string::npos)
      << other_boot.problems(0).detail();
  current = Current();
  current.header.set_capturer_pid_ns_inode(4026532000);
  EXPECT_EQ(Kinds(PlanOwnership(Baseline(), current, Request())),
            std::vector<Problem::Kind>{Problem::DIFFERENT_PID_NAMESPACE});
  Snapshot baseline = Baseline();
  baseline.header.mutable_host()->clear_boot_id();
  current = Current();
  current.header.mutable_host()->clear_boot_id();
  EXPECT_EQ(Kinds(PlanOwnership(baseline, current, Request())),
            std::vector<Problem::Kind>{Problem::DIFFERENT_BOOT});
}

// A frame cut by a bound does not hold every process: a missing baseline
// process would lose its exemption, a missing current one would be left.
TEST(OwnershipTest, FrameCutByABoundIsRejected) {
  Snapshot current = Current();
  current.frames[0].set_cut_by_bounds(true);
  current.frames[0].set_cut_reason("max processes");
  EXPECT_EQ(Kinds(PlanOwnership(Baseline(), current, Request())),
            std::vector<Problem::Kind>{Problem::FRAME_CUT});
  Snapshot empty = Snap({}, kCurCapturer, 9'000'000);
  EXPECT_EQ(Kinds(PlanOwnership(Baseline(), empty, Request())),
            std::vector<Problem::Kind>{Problem::NO_FRAME});
}

// `docs/ownership.md`, "Refusals" (not-at-bootstrap): the snapshot must never
// be captured in the coding agent's sandbox or refreshed after bootstrap. A
// baseline that already shows a command of the verifier (other than the
// capture) was not taken at bootstrap.
TEST(OwnershipTest, BaselineRefreshedAfterBootstrapIsRejected) {
  P repository = {60, kVerifier, 420, {"make", "test"}, "make"};
  P grandchild = {61, 60, 421, {"cc"}, "cc"};
  v1::OwnershipPlan plan =
      PlanOwnership(Baseline({repository, grandchild}), Current({repository}), Request());
  EXPECT_EQ(Kinds(plan),
            (std::vector<Problem::Kind>{Problem::NOT_AT_BOOTSTRAP, Problem::NOT_AT_BOOTSTRAP}))
      << Why(plan);
  EXPECT_EQ(plan.problems(0).pid(), 60);
  EXPECT_EQ(plan.decisions_size(), 0);
}

// Every frame of the baseline is checked: a command visible in an earlier
// frame and gone by the last still means the baseline is not the bootstrap.
TEST(OwnershipTest, BaselineBootstrapIsCheckedInEveryFrame) {
  P repository = {60, kVerifier, 420, {"make"}, "make"};
  Snapshot baseline = Snap({Records({Init(), Keepalive(), Verifier(), BaseCapture(), repository}),
                            Records({Init(), Keepalive(), Verifier(), BaseCapture()})},
                           kBaseCapturer, 1'000'000);
  v1::OwnershipPlan plan = PlanOwnership(baseline, Current(), Request());
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::NOT_AT_BOOTSTRAP}) << Why(plan);
  EXPECT_EQ(plan.problems(0).frame(), 0u);
}

// The capture itself is allowed: a shell between the verifier and the
// capturer, and anything the capturer started.
TEST(OwnershipTest, BaselineCaptureThroughAWrapperIsStillTheBootstrap) {
  P wrapper = {48, kVerifier, 405, {"sh", "-c", "proctape capture -o b"}, "sh"};
  P capture = BaseCapture();
  capture.ppid = 48;
  P capture_child = {51, kBaseCapturer, 411, {"helper"}, "helper"};
  Snapshot baseline =
      Snap({Records({Init(), Keepalive(), Verifier(), wrapper, capture, capture_child})},
           kBaseCapturer, 1'000'000);
  v1::OwnershipPlan plan = PlanOwnership(baseline, Current(), Request());
  EXPECT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
}

// `docs/ownership.md`, "Refusals" (not-by-verifier): the snapshot must never
// be captured in the coding agent's sandbox: the
// baseline's capturer must be the verifier or its descendant.
TEST(OwnershipTest, BaselineNotCapturedByTheVerifierIsRejected) {
  P agent = {20, kInit, 200, {"agent"}, "agent"};
  P agent_capture = {21, 20, 210, {"proctape", "capture"}, "proctape"};
  Snapshot baseline =
      Snap({Records({Init(), agent, agent_capture, Keepalive(), Verifier()})}, 21, 1'000'000);
  v1::OwnershipPlan plan = PlanOwnership(baseline, Current(), Request());
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::NOT_BY_VERIFIER}) << Why(plan);
  baseline.header.set_capturer_pid(4242);  // not in the frame at all
  plan = PlanOwnership(baseline, Current(), Request());
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::NOT_BY_VERIFIER}) << Why(plan);
}

// The verifier (--self) is one process, (pid, start), in both snapshots.
TEST(OwnershipTest, VerifierMissingOrRestartedIsRejected) {
  Snapshot current = Snap({Records({Init(), Keepalive(), {kVerifier, kInit, 950}, CurCapture()})},
                          kCurCapturer, 9'000'000);
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), current, Request());
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::VERIFIER_RESTARTED}) << Why(plan);
  OwnershipRequest request = Request();
  request.self_pid = 4444;
  plan = PlanOwnership(Baseline(), Current(), request);
  EXPECT_EQ(Kinds(plan),
            (std::vector<Problem::Kind>{Problem::VERIFIER_MISSING, Problem::VERIFIER_MISSING}))
      << Why(plan);
}

// A capture of one subtree (capture --root) lacks the verifier's parents, and
// with them the runtime's siblings: the verifier's chain must be whole.
TEST(OwnershipTest, SubtreeCaptureWithoutTheVerifiersParentsIsRejected) {
  Snapshot current = Snap({Records({Verifier(), CurCapture()})}, kCurCapturer, 9'000'000);
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), current, Request());
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::ANCESTRY_BROKEN}) << Why(plan);
  EXPECT_EQ(plan.problems(0).snapshot(), "current");
}

}  // namespace
}  // namespace proctape
