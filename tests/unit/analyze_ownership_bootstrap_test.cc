// SPDX-License-Identifier: Apache-2.0
// The ownership planner's bootstrap rule on hand-built snapshots
// (docs/ownership.md, "Started before the verifier"): the baseline exempts
// only processes that started before the verifier. A process the verifier
// started before its baseline and that left its descendants (setsid, a double
// fork), one born between the baseline's frames, one of the verifier's own
// clock tick, and one out of scope in the baseline but in scope now refuse
// the plan (baseline-not-before, naming it); the runtime's siblings that
// predate the verifier, its ancestors, the capture and kernel threads do not.
// The keepalive sandbox is built by tests/unit/ownership_fixture.h (the
// verifier is 44@400).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ownership/ownership.h"
#include "tests/unit/ownership_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the keepalive sandbox: ownership_fixture.h
using test::Request;   // not proctape::Request (the resolver's)
using test::Verdict;   // not proctape::Verdict
using Problem = v1::OwnershipProblem;

// "pid@start" of every problem of `plan`, in order.
std::vector<std::string> Named(const v1::OwnershipPlan& plan) {
  std::vector<std::string> out;
  for (const Problem& p : plan.problems()) {
    out.push_back(std::to_string(p.pid()) + "@" + std::to_string(p.start_ticks()));
  }
  return out;
}

// A baseline of two frames: the runtime and the capture in each, `first`
// and `second` added to each.
Snapshot TwoFrames(const std::vector<P>& first, const std::vector<P>& second) {
  std::vector<P> a = {Init(), Keepalive(), Verifier(), BaseCapture()};
  std::vector<P> b = a;
  a.insert(a.end(), first.begin(), first.end());
  b.insert(b.end(), second.begin(), second.end());
  return Snap({Records(a), Records(b)}, kBaseCapturer, 1'000'000);
}

// `docs/ownership.md`, "Started before the verifier": new same-uid cgroup
// processes are removed, detached and double-forked children included --
// also when the verifier started them before its
// baseline: a setsid daemon reparented to init and a double-forked child
// reparented to the keepalive (a subreaper) no longer descend from it, but
// both started after it. The baseline is not the bootstrap: refused, each
// named, whether it still runs at cleanup or not.
TEST(OwnershipBootstrapTest, DetachedAndDoubleForkedChildrenStartedBeforeTheBaselineRefuseIt) {
  P daemon = {61, kInit, 405, {"setsid", "-f", "daemon"}, "daemon"};
  P double_forked = {62, kKeepalive, 406, {"sleep", "300"}};
  v1::OwnershipPlan plan =
      PlanOwnership(Baseline({daemon, double_forked}), Current({daemon}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::REFUSED) << Why(plan);
  EXPECT_EQ(Kinds(plan), (std::vector<Problem::Kind>{Problem::BASELINE_NOT_BEFORE,
                                                     Problem::BASELINE_NOT_BEFORE}));
  EXPECT_EQ(Named(plan), (std::vector<std::string>{"61@405", "62@406"}));
  EXPECT_EQ(plan.problems(0).snapshot(), "baseline");
  EXPECT_EQ(plan.decisions_size(), 0);
  EXPECT_NE(plan.problems(0).detail().find("started after the verifier 44@400"), std::string::npos)
      << plan.problems(0).detail();
}

// A process of a later baseline frame that the frame before does not hold
// was born between the frames, after the verifier began: refused where it
// first shows. Even a start tick before the verifier's cannot make such a
// record an exemption (the frames contradict it); the capture's own child,
// born between the frames, is part of the capture.
TEST(OwnershipBootstrapTest, AProcessBornBetweenTheBaselinesFramesRefusesIt) {
  P late = {36, kInit, 405, {"runtime-helper"}, "runtime-helper"};
  P capture_child = {51, kBaseCapturer, 412, {"helper"}, "helper"};
  v1::OwnershipPlan plan =
      PlanOwnership(TwoFrames({}, {late, capture_child}), Current({late}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::REFUSED) << Why(plan);
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::BASELINE_NOT_BEFORE});
  EXPECT_EQ(Named(plan), std::vector<std::string>{"36@405"});
  EXPECT_EQ(plan.problems(0).frame(), 1u);
  EXPECT_NE(plan.problems(0).detail().find("born between the baseline's frames"), std::string::npos)
      << plan.problems(0).detail();

  P contradicted = {37, kInit, 350, {"x"}, "x"};
  plan = PlanOwnership(TwoFrames({}, {contradicted}), Current({contradicted}), Request());
  EXPECT_EQ(Named(plan), std::vector<std::string>{"37@350"}) << Why(plan);
}

// A sibling started in the verifier's own clock tick (10 ms) may have come
// before it or after it: fail closed. One tick earlier is the runtime's.
TEST(OwnershipBootstrapTest, AProcessOfTheVerifiersClockTickIsRefusedOneTickEarlierIsKept) {
  P same_tick = {38, kInit, 400, {"sleep", "300"}};
  v1::OwnershipPlan plan = PlanOwnership(Baseline({same_tick}), Current({same_tick}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::REFUSED) << Why(plan);
  EXPECT_EQ(Named(plan), std::vector<std::string>{"38@400"});
  EXPECT_NE(plan.problems(0).detail().find("in the clock tick of the verifier"), std::string::npos)
      << plan.problems(0).detail();

  P tick_before = {38, kInit, 399, {"sleep", "300"}};
  plan = PlanOwnership(Baseline({tick_before}), Current({tick_before}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 38), "KEEP/IN_BASELINE");
}

// The exemption is by pair, whatever the uid or cgroup was then; so a
// process out of scope in the baseline and in scope now must have started
// before the verifier too: one the verifier started and moved to another
// cgroup (or that changed its uid) before the baseline is refused; one of
// the runtime's from before the verifier is kept.
TEST(OwnershipBootstrapTest, AProcessOutOfScopeInTheBaselineAndInScopeNowMustPredateTheVerifier) {
  P moved = {63, kInit, 407, {"sleep", "300"}, "sleep", kUid, "/elsewhere"};
  P setuid = {64, kInit, 408, {"sleep", "300"}, "sleep", 0};
  P runtime_moved = {65, kInit, 350, {"agent"}, "agent", kUid, "/elsewhere"};
  auto in_scope = [](P p) {
    p.uid = kUid;
    p.cgroup = kCgroup;
    return p;
  };
  v1::OwnershipPlan plan = PlanOwnership(
      Baseline({moved, setuid, runtime_moved}),
      Current({in_scope(moved), in_scope(setuid), in_scope(runtime_moved)}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::REFUSED) << Why(plan);
  EXPECT_EQ(Kinds(plan), (std::vector<Problem::Kind>{Problem::BASELINE_NOT_BEFORE,
                                                     Problem::BASELINE_NOT_BEFORE}));
  EXPECT_EQ(Named(plan), (std::vector<std::string>{"63@407", "64@408"}));
  EXPECT_NE(plan.problems(0).detail().find(
                "(out of scope in the baseline: cgroup \"/elsewhere\"; in scope now)"),
            std::string::npos)
      << plan.problems(0).detail();

  plan = PlanOwnership(Baseline({runtime_moved}), Current({in_scope(runtime_moved)}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 65), "KEEP/IN_BASELINE");
}

// `docs/ownership.md`, introduction: the runtime can legitimately own a
// sibling process. Over a
// baseline of several frames, the siblings that predate the verifier (in
// every frame) are kept by their pair in the last frame, and a process the
// scope never holds (another uid) started since the verifier refuses nothing.
TEST(OwnershipBootstrapTest, RuntimeSiblingsThatPredateTheVerifierStayExemptInEveryFrame) {
  P sibling = {35, kInit, 320, {"runtime-helper"}, "runtime-helper"};
  P other_uid = {70, kInit, 450, {"sshd"}, "sshd", 0};
  v1::OwnershipPlan plan = PlanOwnership(TwoFrames({sibling, other_uid}, {sibling, other_uid}),
                                         Current({sibling, other_uid}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(plan.baseline_frame(), 1u);
  EXPECT_EQ(Verdict(plan, kKeepalive), "KEEP/IN_BASELINE");
  EXPECT_EQ(Verdict(plan, 35), "KEEP/IN_BASELINE");
  EXPECT_EQ(Verdict(plan, kInit), "KEEP/VERIFIER_ANCESTOR");
}

// Kernel threads are never in scope (docs/ownership.md, "Scope"): a kernel
// worker started after the verifier, in the root cgroup with uid 0, is no
// process of the verifier's for a plan of uid 0 and cgroup /.
TEST(OwnershipBootstrapTest, AKernelThreadStartedAfterTheVerifierRefusesNothing) {
  auto root = [](P p) {
    p.uid = 0;
    p.cgroup = "/";
    return p;
  };
  v1::ProcessRecord kworker = KernelThread(root({77, 2, 450, {}, "kworker/0:2-events"}));
  std::vector<v1::ProcessRecord> then =
      Records({root(Init()), root(Keepalive()), root(Verifier()), root(BaseCapture())});
  then.push_back(kworker);
  std::vector<v1::ProcessRecord> now =
      Records({root(Init()), root(Keepalive()), root(Verifier()), root(CurCapture())});
  now.push_back(kworker);
  OwnershipRequest request = Request();
  request.uid = 0;
  request.cgroup = "/";
  v1::OwnershipPlan plan = PlanOwnership(Snap({then}, kBaseCapturer, 1'000'000),
                                         Snap({now}, kCurCapturer, 9'000'000), request);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 77), "absent");
  EXPECT_EQ(plan.out_of_scope(), 1u);
}

}  // namespace
}  // namespace proctape
