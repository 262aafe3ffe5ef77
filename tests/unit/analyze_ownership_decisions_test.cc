// SPDX-License-Identifier: Apache-2.0
// The ownership planner (`docs/ownership.md`, "Decisions") on hand-built
// snapshots, its decisions: one test per rule, each stating it: what is kept,
// what is removed, what is never decided, and cgroup membership read from the
// unified hierarchy. The keepalive sandbox is built by
// tests/unit/ownership_fixture.h.
#include <gtest/gtest.h>

#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include "ownership/ownership.h"
#include "core/memory_evidence.h"
#include "core/proc_parse.h"
#include "tests/unit/ownership_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the keepalive sandbox: ownership_fixture.h
using test::Request;   // not proctape::Request (the resolver's)
using test::Verdict;   // not proctape::Verdict
using Decision = v1::OwnershipDecision;

// `docs/ownership.md`, introduction: the runtime's keepalive is a separate
// process (pid 34 here) with the same uid and cgroup; a cleanup that spares
// only its ancestors and treats every other same-uid cgroup member as the
// repository's kills it. The runtime can legitimately own a sibling process.
TEST(OwnershipTest, RuntimeSiblingKeepaliveIsPreservedByItsBaselinePair) {
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), Current(), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, kKeepalive), "KEEP/IN_BASELINE");
  EXPECT_EQ(Verdict(plan, kVerifier), "KEEP/VERIFIER");
  EXPECT_EQ(plan.self_start_ticks(), 400u);
  // "its ancestors were PIDs 1 and 44": the ancestor rule still holds.
  EXPECT_EQ(Verdict(plan, kInit), "KEEP/VERIFIER_ANCESTOR");
  EXPECT_EQ(plan.kept(), 3u);
}

// `docs/ownership.md`, "Decisions": cleanup preserves the baseline's exact
// (pid, start tick) pairs and still removes new same-uid cgroup processes,
// detached and double-forked children included. Detached (a new session,
// reparented to init) and double-forked (its parent exited; reparented to the
// keepalive acting as a subreaper): neither is the verifier's descendant any
// more, and both are removed.
TEST(OwnershipTest, DetachedAndDoubleForkedChildrenAreRemovedWhereverTheyWereReparented) {
  P child = {60, kVerifier, 700, {"make", "test"}, "make"};
  P detached = {61, kInit, 710, {"setsid", "-f", "daemon"}, "daemon"};
  P double_forked = {62, kKeepalive, 720, {"sh", "-c", "sleep 1000 &"}, "sleep"};
  v1::OwnershipPlan plan =
      PlanOwnership(Baseline(), Current({child, detached, double_forked}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 60), "REMOVE/NEW");
  EXPECT_EQ(Verdict(plan, 61), "REMOVE/NEW");
  EXPECT_EQ(Verdict(plan, 62), "REMOVE/NEW");
  EXPECT_EQ(Verdict(plan, kKeepalive), "KEEP/IN_BASELINE");
  // The capture that took the current snapshot is new too, and says so.
  EXPECT_EQ(Verdict(plan, kCurCapturer), "REMOVE/NEW");
  EXPECT_TRUE(Find(plan, kCurCapturer)->current_capturer());
  EXPECT_EQ(plan.removed(), 4u);
}

// `docs/ownership.md`, "Decisions": names are never consulted (repository
// code can start another process named sleep). A new process with the
// keepalive's comm and argv exactly is removed; the keepalive is kept.
TEST(OwnershipTest, MisleadingNameIsNeverConsulted) {
  P impostor = Keepalive();
  impostor.pid = 66;
  impostor.ppid = kVerifier;
  impostor.start = 800;
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), Current({impostor}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 66), "REMOVE/NEW");
  EXPECT_EQ(Verdict(plan, kKeepalive), "KEEP/IN_BASELINE");
  EXPECT_EQ(Find(plan, 66)->comm(), Find(plan, kKeepalive)->comm());
}

// `docs/ownership.md`, "Decisions": a recycled pid does not inherit the
// exemption. The keepalive exited
// and repository code got its pid: another start tick, so it is removed.
TEST(OwnershipTest, RecycledPidDoesNotInheritTheExemption) {
  Snapshot current =
      Snap({Records({Init(), Verifier(), CurCapture(), {kKeepalive, kVerifier, 850}})},
           kCurCapturer, 9'000'000);
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), current, Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  const Decision* d = Find(plan, kKeepalive);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(Verdict(plan, kKeepalive), "REMOVE/PID_REUSED");
  EXPECT_EQ(d->start_ticks(), 850u);
  EXPECT_EQ(d->baseline_start_ticks(), 300u);
  EXPECT_NE(d->detail().find("the baseline had 34@300, now 34@850"), std::string::npos)
      << d->detail();
}

// Scope: "every other same-UID cgroup member" -- exactly that uid and exactly
// that cgroup (a child cgroup is another cgroup). Others are not decided, and
// are listed only with --all.
TEST(OwnershipTest, OnlySameUidSameCgroupProcessesAreDecided) {
  P root_daemon = {70, kInit, 750, {"sshd"}, "sshd", 0};
  P other_cgroup = {71, kVerifier, 760, {"x"}, "x", kUid, "/sandbox/child"};
  P prefix_cgroup = {72, kVerifier, 770, {"y"}, "y", kUid, "/sandbox2"};
  OwnershipRequest request = Request();
  v1::OwnershipPlan plan =
      PlanOwnership(Baseline(), Current({root_daemon, other_cgroup, prefix_cgroup}), request);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 70), "absent");
  EXPECT_EQ(Verdict(plan, 71), "absent");
  EXPECT_EQ(plan.out_of_scope(), 3u);
  request.all = true;
  plan = PlanOwnership(Baseline(), Current({root_daemon, other_cgroup, prefix_cgroup}), request);
  EXPECT_EQ(Verdict(plan, 70), "OUT_OF_SCOPE/OTHER_UID");
  EXPECT_EQ(Verdict(plan, 71), "OUT_OF_SCOPE/OTHER_CGROUP");
  EXPECT_EQ(Verdict(plan, 72), "OUT_OF_SCOPE/OTHER_CGROUP");
  EXPECT_EQ(plan.kept() + plan.removed(), 4u);
}

// Kernel threads sit in the root cgroup with uid 0: no repository command
// starts one and no signal ends one, so a plan for uid 0 and cgroup / leaves
// them out, by the PF_KTHREAD flag of stat (never by a name such as kworker).
TEST(OwnershipTest, KernelThreadsAreNeverDecided) {
  auto root = [](P p) {
    p.uid = 0;
    p.cgroup = "/";
    return p;
  };
  v1::ProcessRecord kworker = KernelThread(root({77, 2, 870, {}, "kworker/0:2-events"}));
  P impostor = root({78, kVerifier, 871, {}, "kworker/0:2-events"});  // a name proves nothing
  std::vector<P> runtime = {root(Init()), root(Keepalive()), root(Verifier()), root(BaseCapture())};
  std::vector<v1::ProcessRecord> now =
      Records({root(Init()), root(Keepalive()), root(Verifier()), root(CurCapture()), impostor});
  now.push_back(kworker);
  OwnershipRequest request = Request();
  request.uid = 0;
  request.cgroup = "/";
  request.all = true;
  v1::OwnershipPlan plan = PlanOwnership(Snap({Records(runtime)}, kBaseCapturer, 1'000'000),
                                         Snap({now}, kCurCapturer, 9'000'000), request);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 77), "OUT_OF_SCOPE/KERNEL_THREAD");
  EXPECT_EQ(Verdict(plan, 78), "REMOVE/NEW");
}

// A process whose /proc entry vanished during the scan (ENOENT) is gone: it
// cannot be in scope and is not an unreadable identity.
TEST(OwnershipTest, ProcessThatVanishedDuringTheScanIsNotDecided) {
  Snapshot current = Current({{80, kVerifier, 880}});
  v1::ProcessRecord& r = *current.frames[0].mutable_processes(4);
  r.mutable_status()->set_data("");
  r.mutable_status()->set_err(ENOENT);
  OwnershipRequest request = Request();
  request.all = true;
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), current, request);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 80), "EXITED/VANISHED");
  EXPECT_EQ(plan.exited(), 1u);
}

// ---- CgroupV2Path ------------------------------------------------------------

TEST(OwnershipTest, CgroupMembershipIsTheUnifiedHierarchyPathExactly) {
  EXPECT_EQ(CgroupV2Path("0::/user.slice/x\n", false), "/user.slice/x");
  EXPECT_EQ(CgroupV2Path("9:name=systemd:/\n4:memory:/a\n0::/b\n", false), "/b");
  EXPECT_EQ(CgroupV2Path("0::/\n", false), "/");
  EXPECT_EQ(CgroupV2Path("0::/a b) \n", false), "/a b) ");
  EXPECT_EQ(CgroupV2Path("4:memory:/a\n", false), std::nullopt);       // v1 only
  EXPECT_EQ(CgroupV2Path("0::/a\n0::/b\n", false), std::nullopt);      // two
  EXPECT_EQ(CgroupV2Path("4:memory:/a\n0::/lo", true), std::nullopt);  // cut
  EXPECT_EQ(CgroupV2Path("0::/b\n4:memory:/very-lo", true), "/b");     // cut after it
  EXPECT_EQ(CgroupV2Path("", false), std::nullopt);
}

}  // namespace
}  // namespace proctape
