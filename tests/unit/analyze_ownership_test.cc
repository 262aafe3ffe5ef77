// The ownership planner (seed 002) on hand-built snapshots: one test per rule
// of the seed, each quoting it, and golden files of the text and JSON output
// (tests/golden/ownership/; PROCTAPE_UPDATE_GOLDEN=1 rewrites them). The
// seed's sandbox is built by tests/unit/ownership_fixture.h.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/ownership.h"
#include "core/memory_evidence.h"
#include "core/proc_parse.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "tests/unit/ownership_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the seed's sandbox: ownership_fixture.h
using test::Request;   // not proctape::Request (the resolver's)
using test::Verdict;   // not proctape::Verdict
using Decision = v1::OwnershipDecision;
using Problem = v1::OwnershipProblem;

// ---- Decisions ------------------------------------------------------------

// Seed: "The runtime's keepalive was a separate process, PID 34, with the same
// UID and cgroup. The cleanup algorithm excluded ancestors and treated every
// other same-UID cgroup member as untrusted. Calling cleanup killed the
// keepalive" -- "The runtime can legitimately own a sibling process."
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

// Seed: "Cleanup preserves those exact PID/start-time pairs and still removes
// new same-UID cgroup processes, including detached and double-forked
// children." Detached (a new session, reparented to init) and double-forked
// (its parent exited; reparented to the keepalive acting as a subreaper):
// neither is the verifier's descendant any more, and both are removed.
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

// Seed: "Process names would also be an inadequate ownership rule: repository
// code can launch another process named sleep." A new process with the
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

// Seed: "A recycled PID does not inherit the exemption." The keepalive exited
// and repository code got its pid: another start tick, so it is removed.
TEST(OwnershipTest, RecycledPidDoesNotInheritTheExemption) {
  Snapshot current = Snap({Records({Init(), Verifier(), CurCapture(),
                                    {kKeepalive, kVerifier, 850}})},
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
  v1::OwnershipPlan plan = PlanOwnership(
      Baseline(), Current({root_daemon, other_cgroup, prefix_cgroup}), request);
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
  v1::ProcessRecord kworker = Record(root({77, 2, 870, {}, "kworker/0:2-events"}));
  std::string stat = kworker.stat().data();
  const std::string flags = " 4194560 ";  // MemoryEvidence::StatLine's
  ASSERT_NE(stat.find(flags), std::string::npos);
  stat.replace(stat.find(flags), flags.size(), " 2129984 ");  // 0x208040: PF_KTHREAD set
  kworker.mutable_stat()->set_data(stat);
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

// The baseline's last frame holds the exemptions: a runtime process started
// while the baseline's frames were taken is still the runtime's.
TEST(OwnershipTest, BaselineExemptionsComeFromItsLastFrame) {
  P late_runtime = {36, kInit, 405, {"runtime-helper"}, "runtime-helper"};
  Snapshot baseline =
      Snap({Records({Init(), Keepalive(), Verifier(), BaseCapture()}),
            Records({Init(), Keepalive(), late_runtime, Verifier(), BaseCapture()})},
           kBaseCapturer, 1'000'000);
  v1::OwnershipPlan plan = PlanOwnership(baseline, Current({late_runtime}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 36), "KEEP/IN_BASELINE");
  EXPECT_EQ(plan.baseline_frame(), 1u);
}

// ---- Refusals: unreadable identities ---------------------------------------

// Seed: "Source tests cover ... unreadable identities": a process that may be
// in scope but whose identity cannot be read fails the whole plan closed.
TEST(OwnershipTest, UnreadableIdentityFailsTheWholePlanClosed) {
  struct Case {
    const char* name;
    void (*damage)(v1::ProcessRecord*);
  };
  const Case cases[] = {
      {"status EACCES", [](v1::ProcessRecord* r) {
         r->mutable_status()->set_data("");
         r->mutable_status()->set_err(EACCES);
       }},
      {"status without Uid", [](v1::ProcessRecord* r) { r->mutable_status()->set_data("Name:\tx\n"); }},
      {"cgroup EACCES", [](v1::ProcessRecord* r) {
         r->mutable_cgroup()->set_data("");
         r->mutable_cgroup()->set_err(EACCES);
       }},
      {"cgroup v1 only", [](v1::ProcessRecord* r) {
         r->mutable_cgroup()->set_data("4:memory:/sandbox\n1:cpu:/sandbox\n");
       }},
      {"stat malformed", [](v1::ProcessRecord* r) { r->mutable_stat()->set_data("81 (x"); }},
      {"stat EACCES", [](v1::ProcessRecord* r) {
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
  Snapshot current = Current({{82, kInit, 882, {"a"}, "a", 0}, {83, kInit, 883, {"b"}, "b", kUid, "/x"}});
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

// Seed: "Source tests cover ... capture ordering": the baseline must be
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
  // The header starts in order, but the baseline's last scan overlaps the current's.
  baseline.frames[0].set_scan_end_mono_ns(current.frames[0].scan_start_mono_ns());
  v1::OwnershipPlan overlap = PlanOwnership(baseline, current, Request());
  EXPECT_EQ(Kinds(overlap), std::vector<Problem::Kind>{Problem::BASELINE_NOT_BEFORE});
}

TEST(OwnershipTest, CaptureOrderingAcrossBootsOrPidNamespacesIsRejected) {
  Snapshot current = Current();
  current.header.mutable_host()->set_boot_id("another-boot\n");
  EXPECT_EQ(Kinds(PlanOwnership(Baseline(), current, Request())),
            std::vector<Problem::Kind>{Problem::DIFFERENT_BOOT});
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

// Seed: "The snapshot must never be captured in the coding agent's sandbox or
// refreshed after bootstrap." A baseline that already shows a command of the
// verifier (other than the capture) was not taken at bootstrap.
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
  Snapshot baseline =
      Snap({Records({Init(), Keepalive(), Verifier(), BaseCapture(), repository}),
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
  Snapshot baseline = Snap({Records({Init(), Keepalive(), Verifier(), wrapper, capture,
                                     capture_child})},
                           kBaseCapturer, 1'000'000);
  v1::OwnershipPlan plan = PlanOwnership(baseline, Current(), Request());
  EXPECT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
}

// Seed: "must never be captured in the coding agent's sandbox": the
// baseline's capturer must be the verifier or its descendant.
TEST(OwnershipTest, BaselineNotCapturedByTheVerifierIsRejected) {
  P agent = {20, kInit, 200, {"agent"}, "agent"};
  P agent_capture = {21, 20, 210, {"proctape", "capture"}, "proctape"};
  Snapshot baseline = Snap({Records({Init(), agent, agent_capture, Keepalive(), Verifier()})},
                           21, 1'000'000);
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

// ---- CgroupV2Path ------------------------------------------------------------

TEST(OwnershipTest, CgroupMembershipIsTheUnifiedHierarchyPathExactly) {
  EXPECT_EQ(CgroupV2Path("0::/user.slice/x\n", false), "/user.slice/x");
  EXPECT_EQ(CgroupV2Path("9:name=systemd:/\n4:memory:/a\n0::/b\n", false), "/b");
  EXPECT_EQ(CgroupV2Path("0::/\n", false), "/");
  EXPECT_EQ(CgroupV2Path("0::/a b) \n", false), "/a b) ");
  EXPECT_EQ(CgroupV2Path("4:memory:/a\n", false), std::nullopt);          // v1 only
  EXPECT_EQ(CgroupV2Path("0::/a\n0::/b\n", false), std::nullopt);         // two
  EXPECT_EQ(CgroupV2Path("4:memory:/a\n0::/lo", true), std::nullopt);     // cut
  EXPECT_EQ(CgroupV2Path("0::/b\n4:memory:/very-lo", true), "/b");       // cut after it
  EXPECT_EQ(CgroupV2Path("", false), std::nullopt);
}

// ---- Golden files ------------------------------------------------------------

std::string GoldenDir() {
  return (std::filesystem::path(__FILE__).parent_path().parent_path() / "golden" / "ownership")
      .string();
}

// Compares `actual` with tests/golden/ownership/NAME byte for byte;
// PROCTAPE_UPDATE_GOLDEN=1 rewrites the file instead.
void ExpectGolden(const std::string& name, const std::string& actual) {
  const std::string path = GoldenDir() + "/" + name;
  const char* update = std::getenv("PROCTAPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(GoldenDir());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << path << " is missing (PROCTAPE_UPDATE_GOLDEN=1 writes it)";
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str()) << "differs from " << path;
}

// The seed's sandbox after repository code ran: the keepalive kept, a
// detached child, a double-forked child, a process named like the keepalive
// and a reused pid removed; --all lists the rest.
v1::OwnershipPlan SeedPlan() {
  Snapshot baseline = Baseline({{35, kInit, 310, {"/usr/bin/containerd-shim"}, "shim", 0, "/"}});
  P detached = {61, kInit, 710, {"setsid", "-f", "daemon"}, "daemon"};
  P double_forked = {62, kKeepalive, 720, {"sleep", "1000"}, "sleep"};
  P impostor = Keepalive();
  impostor.pid = 66;
  impostor.ppid = kVerifier;
  impostor.start = 800;
  P reused = {kBaseCapturer, kVerifier, 850, {"python3", "-m", "http.server"}, "python3"};
  P other = {70, kInit, 750, {"sshd"}, "sshd", 0, "/"};
  Snapshot current = Current({detached, double_forked, impostor, reused, other});
  OwnershipRequest request = Request();
  request.all = true;
  return PlanOwnership(baseline, current, request);
}

TEST(OwnershipTest, GoldenSeedScenario) {
  v1::OwnershipPlan plan = SeedPlan();
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  ExpectGolden("seed.txt", DescribePlan(plan));
  ExpectGolden("seed.json", ToJson(plan) + "\n");
}

// Hostile bytes in comm, argv and the cgroup path: ") ", newlines, a
// terminal escape, a quote and a backslash come out escaped, on one line each.
TEST(OwnershipTest, GoldenHostileNamesAreEscaped) {
  const std::string cgroup = "/sandbox\x1b[2J\"x\\";
  P hostile = {67, kVerifier, 801, {"/bin/sleep\n", "\x1b]0;pwned\x07", "a\" argv \"b"},
               "x) Z 1 1 1\nx", kUid, cgroup};
  std::vector<P> runtime = {Init(), Keepalive(), Verifier(), BaseCapture()};
  std::vector<P> now = {Init(), Keepalive(), Verifier(), CurCapture(), hostile};
  for (P* p : {&runtime[0], &runtime[1], &runtime[2], &runtime[3], &now[0], &now[1], &now[2],
               &now[3]}) {
    p->cgroup = cgroup;
  }
  OwnershipRequest request = Request();
  request.cgroup = cgroup;
  v1::OwnershipPlan plan =
      PlanOwnership(Snap({Records(runtime)}, kBaseCapturer, 1'000'000),
                    Snap({Records(now)}, kCurCapturer, 9'000'000), request);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 67), "REMOVE/NEW");
  const std::string text = DescribePlan(plan);
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  ExpectGolden("hostile.txt", text);
  ExpectGolden("hostile.json", ToJson(plan) + "\n");
}

TEST(OwnershipTest, GoldenRefusedPlans) {
  Snapshot current = Current({{81, kVerifier, 881}});
  current.frames[0].mutable_processes(4)->mutable_status()->set_err(EACCES);
  current.frames[0].mutable_processes(4)->mutable_status()->set_data("");
  v1::OwnershipPlan unreadable = PlanOwnership(Baseline(), current, Request());
  ExpectGolden("refused-unreadable.txt", DescribePlan(unreadable));
  ExpectGolden("refused-unreadable.json", ToJson(unreadable) + "\n");

  P repository = {60, kVerifier, 420, {"make", "test"}, "make"};
  v1::OwnershipPlan late = PlanOwnership(Baseline({repository}), Current(), Request());
  ExpectGolden("refused-bootstrap.txt", DescribePlan(late));

  v1::OwnershipPlan swapped = PlanOwnership(Current(), Baseline(), Request());
  ExpectGolden("refused-ordering.txt", DescribePlan(swapped));
}

// Two real recordings of the shipped corpus (docs/lab.md), made one after the
// other on one boot in one pid namespace whose init (pid 1, the sh running
// scripts/record_corpus.sh) plays the verifier: the first lab run's capture
// is the baseline, the second's the current snapshot. The second lab and
// everything it started (the sleep's comm is "x) Z 1 1 1\nx") is new.
constexpr const char* kCorpusBaseline = "corpus/021e7cdf322033a4.ptape";  // pid-reuse-unshare
constexpr const char* kCorpusCurrent = "corpus/d40fb836ad433348.ptape";   // hostile-comm-unshare

Snapshot ReadCorpus(const std::string& name) {
  Snapshot s;
  const std::string path =
      (std::filesystem::path(__FILE__).parent_path().parent_path().parent_path() / name).string();
  FormatError error = ReadSnapshot(path, &s);
  EXPECT_TRUE(error.ok()) << path << ": " << error.message;
  return s;
}

TEST(OwnershipTest, GoldenCorpusPair) {
  OwnershipRequest request;
  request.uid = 0;
  request.cgroup = "/";
  request.self_pid = 1;
  request.baseline_name = kCorpusBaseline;
  request.current_name = kCorpusCurrent;
  Snapshot baseline = ReadCorpus(kCorpusBaseline);
  Snapshot current = ReadCorpus(kCorpusCurrent);
  v1::OwnershipPlan plan = PlanOwnership(baseline, current, request);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 1), "KEEP/VERIFIER");
  EXPECT_EQ(Verdict(plan, 271), "REMOVE/NEW");
  ExpectGolden("corpus-pair.txt", DescribePlan(plan));
  ExpectGolden("corpus-pair.json", ToJson(plan) + "\n");

  // The same files the other way round: the "baseline" was captured after.
  std::swap(request.baseline_name, request.current_name);
  v1::OwnershipPlan swapped = PlanOwnership(current, baseline, request);
  EXPECT_EQ(Kinds(swapped), std::vector<Problem::Kind>{Problem::BASELINE_NOT_BEFORE});
  ExpectGolden("corpus-reversed.txt", DescribePlan(swapped));
}

}  // namespace
}  // namespace proctape
