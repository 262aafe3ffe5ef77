// SPDX-License-Identifier: Apache-2.0
// The ownership planner's scope (ownership/scope.h, docs/ownership.md
// "Scope"): --uid and --cgroup name the verifier's own scope, or the plan is
// refused; new processes of a session older than the baseline that is not
// the verifier's are refused unless --force-scope; the root cgroup is warned
// of. On the keepalive sandbox of tests/unit/ownership_fixture.h.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ownership/ownership.h"
#include "core/memory_evidence.h"
#include "tests/unit/ownership_fixture.h"

namespace proctape {
namespace {

using namespace test;  // the keepalive sandbox: ownership_fixture.h
using test::Request;   // not proctape::Request (the resolver's)
using test::Verdict;   // not proctape::Verdict

// `docs/ownership.md`, "Scope": the cleanup decides the members of the
// scope, every other same-uid cgroup member: of the
// verifier's own uid and cgroup. Another uid or cgroup holds no process of
// the verifier's: refused, saying what that scope holds (nothing here).
TEST(OwnershipScopeTest, AScopeWithoutTheVerifierIsRefused) {
  OwnershipRequest other_uid = Request();
  other_uid.uid = 4242;
  OwnershipRequest other_cgroup = Request();
  other_cgroup.cgroup = "/nonexistent";
  for (const OwnershipRequest& request : {other_uid, other_cgroup}) {
    std::vector<std::string> warnings;
    v1::OwnershipPlan plan =
        PlanOwnership(Baseline(), Current({{60, kVerifier, 600}}), request, &warnings);
    ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::REFUSED) << Why(plan);
    EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::SCOPE_WITHOUT_VERIFIER});
    EXPECT_EQ(plan.decisions_size(), 0);
    EXPECT_NE(plan.problems(0).detail().find("0 processes are in it"), std::string::npos)
        << plan.problems(0).detail();
    EXPECT_NE(plan.problems(0).detail().find("uid 999 and cgroup \"/sandbox\""), std::string::npos)
        << plan.problems(0).detail();
    EXPECT_TRUE(warnings.empty());
  }
}

// Not only an empty scope: one that holds processes, but not the verifier,
// is another's scope all the same.
TEST(OwnershipScopeTest, AScopeOfOtherProcessesWithoutTheVerifierIsRefused) {
  P elsewhere = {61, kInit, 610, {"x"}, "x", kUid, "/other"};
  OwnershipRequest request = Request();
  request.cgroup = "/other";
  v1::OwnershipPlan plan = PlanOwnership(Baseline(), Current({elsewhere}), request);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::REFUSED) << Why(plan);
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::SCOPE_WITHOUT_VERIFIER});
  EXPECT_NE(plan.problems(0).detail().find("1 process is in it"), std::string::npos)
      << plan.problems(0).detail();
}

// The record of `p` with stat's session (field 6) set to `session`; the
// process group too, as setsid makes them equal.
v1::ProcessRecord InSession(const P& p, std::int64_t session) {
  v1::ProcessRecord r = Record(p);
  const std::string ppid = " " + std::to_string(p.ppid) + " ";
  std::string stat = r.stat().data();
  const std::size_t at = stat.find(") S" + ppid) + 3;  // " PPID PGRP SESSION "
  const std::string fields = ppid + std::to_string(p.ppid) + " " + std::to_string(p.ppid) + " ";
  EXPECT_EQ(stat.compare(at, fields.size(), fields), 0) << stat;
  stat.replace(at, fields.size(),
               ppid + std::to_string(session) + " " + std::to_string(session) + " ");
  r.mutable_stat()->set_data(stat);
  return r;
}

// The keepalive sandbox with real sessions: the runtime's init leads session 1,
// it started the keepalive in a session of its own (34), and the verifier
// leads session 44, which its captures inherit.
std::vector<v1::ProcessRecord> Sessions(const std::vector<P>& runtime_and_verifier,
                                        const std::vector<std::pair<P, std::int64_t>>& extra) {
  std::vector<v1::ProcessRecord> out;
  for (const P& p : runtime_and_verifier) {
    const std::int64_t session = p.pid == kInit ? 1 : p.pid == kKeepalive ? 34 : 44;
    out.push_back(InSession(p, session));
  }
  for (const auto& [p, session] : extra) out.push_back(InSession(p, session));
  return out;
}

Snapshot SessionBaseline() {
  return Snap({Sessions({Init(), Keepalive(), Verifier(), BaseCapture()}, {})}, kBaseCapturer,
              1'000'000);
}

Snapshot SessionCurrent(const std::vector<std::pair<P, std::int64_t>>& extra) {
  return Snap({Sessions({Init(), Keepalive(), Verifier(), CurCapture()}, extra)}, kCurCapturer,
              9'000'000);
}

// A process keeps its parent's session or starts a new one; it never joins an
// older one. A new process of the keepalive's session (older than the
// baseline, not the verifier's) was started by the runtime, not by a
// repository command: a cleanup of every new process would kill the
// runtime's process (docs/ownership.md, "Scope").
// Refused; the verifier's own session and new sessions (setsid) are planned.
TEST(OwnershipScopeTest, NewProcessesOfAnOlderSessionNotTheVerifiersAreRefused) {
  P runtime_helper = {35, kKeepalive, 700, {"runtime-helper"}, "runtime-helper"};
  P detached = {70, kInit, 701, {"sleep", "300"}};       // setsid: a session of its own
  P double_forked = {71, kInit, 702, {"sleep", "300"}};  // the verifier's session
  Snapshot current = SessionCurrent({{runtime_helper, 34}, {detached, 70}, {double_forked, 44}});
  std::vector<std::string> warnings;
  v1::OwnershipPlan plan = PlanOwnership(SessionBaseline(), current, Request(), &warnings);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::REFUSED) << Why(plan);
  EXPECT_EQ(Kinds(plan), std::vector<Problem::Kind>{Problem::OTHER_SESSION});
  EXPECT_EQ(plan.problems(0).pid(), 34);
  EXPECT_NE(plan.problems(0).detail().find("35@700"), std::string::npos)
      << plan.problems(0).detail();
  EXPECT_NE(plan.problems(0).detail().find("its leader was 34@300"), std::string::npos)
      << plan.problems(0).detail();
  EXPECT_TRUE(warnings.empty());

  // Without it, the plan is the one of "Decisions": the detached and
  // double-forked children are removed, with no word about sessions.
  plan = PlanOwnership(SessionBaseline(), SessionCurrent({{detached, 70}, {double_forked, 44}}),
                       Request(), &warnings);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 70), "REMOVE/NEW");
  EXPECT_EQ(Verdict(plan, 71), "REMOVE/NEW");
  EXPECT_TRUE(warnings.empty());
}

// --force-scope plans them all the same: marked in their decision, and said
// in a warning.
TEST(OwnershipScopeTest, ForceScopePlansOtherSessionsWithAWarning) {
  P runtime_helper = {35, kKeepalive, 700, {"runtime-helper"}, "runtime-helper"};
  P detached = {70, kInit, 701, {"sleep", "300"}};
  OwnershipRequest request = Request();
  request.force_scope = true;
  std::vector<std::string> warnings;
  v1::OwnershipPlan plan =
      PlanOwnership(SessionBaseline(), SessionCurrent({{runtime_helper, 34}, {detached, 70}}),
                    request, &warnings);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 35), "REMOVE/NEW");
  EXPECT_NE(Find(plan, 35)->detail().find("--force-scope"), std::string::npos);
  EXPECT_EQ(Find(plan, 70)->detail().find("--force-scope"), std::string::npos);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("1 process of 1 session"), std::string::npos) << warnings[0];
}

// A session id seen in the baseline whose leader now is a process started
// since (the old session ended, its id was reused by a setsid) is new.
TEST(OwnershipScopeTest, ASessionWhoseLeaderIsNewIsANewSession) {
  P old_leader = {60, kInit, 350, {"old"}, "old"};  // the runtime's, before the verifier
  P reused = {60, kInit, 800, {"new"}, "new"};
  Snapshot baseline =
      Snap({Sessions({Init(), Keepalive(), Verifier(), BaseCapture()}, {{old_leader, 60}})},
           kBaseCapturer, 1'000'000);
  v1::OwnershipPlan plan = PlanOwnership(baseline, SessionCurrent({{reused, 60}}), Request());
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_EQ(Verdict(plan, 60), "REMOVE/PID_REUSED");
}

// The root cgroup holds, outside a cgroup namespace, whatever no service
// manager placed elsewhere: a plan for it is made, with a warning.
TEST(OwnershipScopeTest, TheRootCgroupIsPlannedWithAWarning) {
  auto root = [](P p) {
    p.cgroup = "/";
    return p;
  };
  OwnershipRequest request = Request();
  request.cgroup = "/";
  std::vector<std::string> warnings;
  v1::OwnershipPlan plan = PlanOwnership(
      Snap({Records({root(Init()), root(Keepalive()), root(Verifier()), root(BaseCapture())})},
           kBaseCapturer, 1'000'000),
      Snap({Records({root(Init()), root(Keepalive()), root(Verifier()), root(CurCapture())})},
           kCurCapturer, 9'000'000),
      request, &warnings);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("--cgroup / is the root cgroup", 0), 0u) << warnings[0];

  warnings.clear();
  plan = PlanOwnership(Baseline(), Current(), Request(), &warnings);
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace proctape
