// SPDX-License-Identifier: Apache-2.0
// The ownership planner (`docs/ownership.md`): golden files of its text and
// JSON output (tests/golden/ownership/; PROCTAPE_UPDATE_GOLDEN=1 rewrites
// them), of the keepalive sandbox, hostile names, refused plans and the
// committed corpus pair. The keepalive sandbox is built by
// tests/unit/ownership_fixture.h.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ownership/ownership.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "tests/unit/ownership_fixture.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

using namespace test;  // the keepalive sandbox: ownership_fixture.h
using test::Request;   // not proctape::Request (the resolver's)
using test::Verdict;   // not proctape::Verdict
using Problem = v1::OwnershipProblem;

std::string GoldenDir() { return (test::SourceDir() / "tests" / "golden" / "ownership").string(); }

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

// The keepalive sandbox after repository code ran: the keepalive kept, a
// detached child, a double-forked child, a process named like the keepalive
// and a reused pid removed; --all lists the rest.
v1::OwnershipPlan KeepaliveSandboxPlan() {
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

TEST(OwnershipTest, GoldenKeepaliveSandbox) {
  v1::OwnershipPlan plan = KeepaliveSandboxPlan();
  ASSERT_EQ(plan.outcome(), v1::OwnershipPlan::PLANNED) << Why(plan);
  ExpectGolden("keepalive-sandbox.txt", DescribePlan(plan));
  ExpectGolden("keepalive-sandbox.json", ToJson(plan) + "\n");
}

// Hostile bytes in comm, argv and the cgroup path: ") ", newlines, a
// terminal escape, a quote and a backslash come out escaped, on one line each.
TEST(OwnershipTest, GoldenHostileNamesAreEscaped) {
  const std::string cgroup = "/sandbox\x1b[2J\"x\\";
  P hostile = {
      67,   kVerifier, 801, {"/bin/sleep\n", "\x1b]0;pwned\x07", "a\" argv \"b"}, "x) Z 1 1 1\nx",
      kUid, cgroup};
  std::vector<P> runtime = {Init(), Keepalive(), Verifier(), BaseCapture()};
  std::vector<P> now = {Init(), Keepalive(), Verifier(), CurCapture(), hostile};
  for (P* p :
       {&runtime[0], &runtime[1], &runtime[2], &runtime[3], &now[0], &now[1], &now[2], &now[3]}) {
    p->cgroup = cgroup;
  }
  OwnershipRequest request = Request();
  request.cgroup = cgroup;
  v1::OwnershipPlan plan = PlanOwnership(Snap({Records(runtime)}, kBaseCapturer, 1'000'000),
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
  const std::string path = (test::SourceDir() / name).string();
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
