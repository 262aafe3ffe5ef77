// SPDX-License-Identifier: Apache-2.0
// `proctape ownership` on real processes (`docs/ownership.md`, "Tests"): a
// live check that the plan preserves a real keepalive while
// removing a detached child. The situation, built in a fresh cgroup v2
// directory this test creates (root only):
//
//   test ── runtime (sh: moves itself into the fresh cgroup)
//            ├─ sleep 300                 the keepalive: a sibling of the verifier,
//            │                            started a clock tick before it
//            └─ verifier (sh)             --self
//                ├─ proctape capture      the baseline, its first command
//                ├─ setsid -f sh -> sleep 300      detached (new session, reparented)
//                ├─ sh -c 'sleep 300 &' -> sleep   double-forked (reparented)
//                ├─ sleep 300             argv and comm exactly the keepalive's
//                └─ proctape capture      the current snapshot
//
// The test then plans with the real CLI and checks every decision against
// what it knows independently (pid files, /proc read by tests/live/sandbox.h).
// Every process it started is in that cgroup; all are ended by pidfd (checked
// against their start time), and the directory is removed.
// The CLI on the shipped corpus, against the golden files, is
// ownership_cli_test.cc; baselines that show processes the verifier started
// before them, ownership_bootstrap_live_test.cc; what they share,
// ownership_live_fixture.h.
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/ownership_live_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::TempDir;
using namespace ownership_live;  // FreshCgroup, kRuntime, readers: ownership_live_fixture.h

// The verifier: the baseline first, then "repository code" (kChildren and
// a sleep named like the keepalive), then the current snapshot. $1 = work
// dir, $2 = proctape.
constexpr const char* kVerifier = R"sh(set -e
echo "$$ $(cut -d' ' -f22 /proc/$$/stat)" > "$1/verifier.id"
"$2" capture -o "$1/baseline.ptape" --threads 1 >/dev/null
. "$1/children.sh"
/bin/sleep 300 </dev/null >/dev/null 2>&1 &
echo $! > "$1/impostor.pid"
"$2" capture -o "$1/current.ptape" --threads 1 >/dev/null
)sh";

TEST(OwnershipLive, KeepaliveKeptDetachedDoubleForkedAndSameNamedRemoved) {
  std::string why;
  std::unique_ptr<FreshCgroup> cgroup = FreshCgroup::Create(&why);
  if (!cgroup) GTEST_SKIP() << why;
  if (live::FindOnPath("setsid").empty()) GTEST_SKIP() << "setsid (util-linux) is not installed";
  TempDir dir("ownership");
  ASSERT_FALSE(dir.path().empty());
  live::WriteFile(dir.File("runtime.sh"), kRuntime);
  live::WriteFile(dir.File("verifier.sh"), kVerifier);
  live::WriteFile(dir.File("children.sh"), kChildren);

  CommandResult run =
      live::RunCommand({"/bin/sh", dir.File("runtime.sh"), cgroup->dir() + "/cgroup.procs",
                        dir.path(), ::proctape::live::TestedBinary()},
                       30000);
  ASSERT_EQ(run.exit_code, 0) << Describe(run);

  const std::string runtime = ReadId(dir, "runtime.id");
  const std::string verifier = ReadId(dir, "verifier.id");
  const long keepalive_pid = ReadPid(dir, "keepalive.pid");
  const std::string keepalive = LiveId(keepalive_pid);
  const long impostor_pid = ReadPid(dir, "impostor.pid");
  const std::string impostor = LiveId(impostor_pid);
  const long detached_pid = ReadPid(dir, "detached.pid");
  const std::string detached = LiveId(detached_pid);
  const long double_pid = ReadPid(dir, "double.pid");
  const std::string double_forked = LiveId(double_pid);
  const long verifier_pid = std::stol(verifier.substr(0, verifier.find('@')));
  // The runtime's keepalive truly predates the verifier (kRuntime waits a tick).
  ASSERT_LT(StartOf(keepalive), StartOf(verifier)) << keepalive << " " << verifier;

  // The situation of docs/ownership.md's introduction: one cgroup for all, the
  // keepalive not the verifier's descendant, the detached and double-forked
  // children reparented away from it, the impostor named exactly like the
  // keepalive.
  const std::string path = V2Path(static_cast<pid_t>(keepalive_pid));
  ASSERT_FALSE(path.empty());
  for (long pid : {impostor_pid, detached_pid, double_pid}) {
    EXPECT_EQ(V2Path(static_cast<pid_t>(pid)), path) << pid;
  }
  for (long pid : {detached_pid, double_pid}) {
    std::optional<live::ProcStat> st = live::ReadStat(static_cast<pid_t>(pid));
    ASSERT_TRUE(st.has_value()) << pid;
    EXPECT_NE(st->ppid, verifier_pid) << pid << " is still the verifier's child";
  }
  EXPECT_EQ(live::ReadProc(static_cast<pid_t>(impostor_pid), "cmdline"),
            live::ReadProc(static_cast<pid_t>(keepalive_pid), "cmdline"));
  EXPECT_EQ(live::ReadProc(static_cast<pid_t>(impostor_pid), "comm"),
            live::ReadProc(static_cast<pid_t>(keepalive_pid), "comm"));

  const std::vector<std::string> plan_args = {::proctape::live::TestedBinary(),
                                              "ownership",
                                              "--baseline",
                                              dir.File("baseline.ptape"),
                                              "--current",
                                              dir.File("current.ptape"),
                                              "--uid",
                                              std::to_string(::getuid()),
                                              "--cgroup",
                                              path,
                                              "--self",
                                              std::to_string(verifier_pid)};
  CommandResult plan = live::RunCommand(plan_args);
  ASSERT_EQ(plan.exit_code, 0) << Describe(plan);
  std::map<std::string, Line> lines = Decisions(plan.out);

  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {runtime, {"KEEP", "ancestor"}},    {verifier, {"KEEP", "verifier"}},
      {keepalive, {"KEEP", "baseline"}},  {detached, {"REMOVE", "new"}},
      {double_forked, {"REMOVE", "new"}}, {impostor, {"REMOVE", "new"}}};
  for (const auto& [id, want] : expected) {
    auto it = lines.find(id);
    ASSERT_NE(it, lines.end()) << id << " is not planned:\n" << plan.out;
    EXPECT_EQ(it->second.action, want.first) << id << "\n" << plan.out;
    EXPECT_EQ(it->second.reason, want.second) << id << "\n" << plan.out;
  }
  // The only other process in scope is the capture that took the current
  // snapshot (it has exited since): removed, and marked as such.
  ASSERT_EQ(lines.size(), expected.size() + 1) << plan.out;
  for (const auto& [id, line] : lines) {
    if (expected.count(id) != 0) continue;
    EXPECT_EQ(line.action, "REMOVE") << plan.out;
    EXPECT_NE(line.rest.find("[took the current snapshot]"), std::string::npos) << plan.out;
  }
  EXPECT_NE(plan.out.find("PLANNED: 7 in scope: 3 to keep, 4 to remove"), std::string::npos)
      << plan.out;

  std::vector<std::string> json_args = plan_args;
  json_args.push_back("--json");
  CommandResult json = live::RunCommand(json_args);
  ASSERT_EQ(json.exit_code, 0) << Describe(json);
  EXPECT_TRUE(live::OneLine(json.out)) << json.out;
  EXPECT_NE(json.out.find("\"outcome\":\"PLANNED\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"kept\":3"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"removed\":4"), std::string::npos) << json.out;

  // Capture ordering (docs/ownership.md, "Refusals", baseline-not-before) --
  // the same two files the other way round: refused
  // (exit 2), and nothing is decided.
  std::vector<std::string> swapped = plan_args;
  std::swap(swapped[3], swapped[5]);
  CommandResult refused = live::RunCommand(swapped);
  EXPECT_EQ(refused.exit_code, 2) << Describe(refused);
  EXPECT_NE(refused.out.find("baseline-not-before"), std::string::npos) << refused.out;
  EXPECT_TRUE(Decisions(refused.out).empty()) << refused.out;

  // proctape only planned: every process the test started is still running.
  for (long pid : {keepalive_pid, impostor_pid, detached_pid, double_pid}) {
    EXPECT_TRUE(live::ReadStat(static_cast<pid_t>(pid)).has_value()) << pid;
  }
}

// A baseline taken after a command of the verifier had started (here: the
// same verifier captures its baseline while a child of it runs) is refused.
TEST(OwnershipLive, BaselineTakenAfterTheVerifierStartedACommandIsRefused) {
  std::string why;
  std::unique_ptr<FreshCgroup> cgroup = FreshCgroup::Create(&why);
  if (!cgroup) GTEST_SKIP() << why;
  TempDir dir("ownership-late");
  ASSERT_FALSE(dir.path().empty());
  live::WriteFile(dir.File("verifier.sh"), R"sh(set -e
echo $$ > "$1"
/bin/sleep 300 </dev/null >/dev/null 2>&1 &
echo $! > "$2/early.pid"
"$3" capture -o "$2/baseline.ptape" --threads 1 >/dev/null
"$3" capture -o "$2/current.ptape" --threads 1 >/dev/null
echo $$ > "$2/verifier.pid"
)sh");
  CommandResult run =
      live::RunCommand({"/bin/sh", dir.File("verifier.sh"), cgroup->dir() + "/cgroup.procs",
                        dir.path(), ::proctape::live::TestedBinary()},
                       30000);
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  const long early = ReadPid(dir, "early.pid");
  CommandResult plan = live::RunCommand(
      {::proctape::live::TestedBinary(), "ownership", "--baseline", dir.File("baseline.ptape"),
       "--current", dir.File("current.ptape"), "--uid", std::to_string(::getuid()), "--cgroup",
       V2Path(static_cast<pid_t>(early)), "--self", std::to_string(ReadPid(dir, "verifier.pid"))});
  EXPECT_EQ(plan.exit_code, 2) << Describe(plan);
  EXPECT_NE(plan.out.find("not-at-bootstrap baseline frame 0 pid " + LiveId(early)),
            std::string::npos)
      << plan.out;
}

}  // namespace
}  // namespace proctape
