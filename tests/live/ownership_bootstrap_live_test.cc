// SPDX-License-Identifier: Apache-2.0
// `proctape ownership` on real processes: a baseline that shows processes the
// verifier started before it is refused (docs/ownership.md, "Started before
// the verifier"), even when they left the verifier's descendants. Built in a
// fresh cgroup v2 directory (root only), as ownership_live_test.cc builds it:
//
//   test ── runtime (sh: moves itself into the fresh cgroup)
//            ├─ sleep 300                 the keepalive, a clock tick before the verifier
//            └─ verifier (sh)             --self
//                ├─ setsid -f sh -> sleep 300      detached (new session, reparented)
//                ├─ sh -c 'sleep 300 &' -> sleep   double-forked (reparented)
//                ├─ ...                            started before the baseline, or
//                │                                 between two of its frames
//                ├─ proctape capture      the baseline
//                └─ proctape capture      the current snapshot
//
// The plan must be refused (exit 2), each such process named as
// baseline-not-before by its pid@start read independently of proctape, and
// the runtime's keepalive, which truly predates the verifier, never named.
// Every process is ended by pidfd, and the cgroups removed (FreshCgroup).
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
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

// Before its baseline, the verifier starts the two children, and a third
// (double-forked) that it moves to the child cgroup $3 so that the baseline
// shows it out of scope; after the baseline it moves it back. $1 = work dir,
// $2 = proctape, $3 = the child cgroup's directory.
constexpr const char* kChildrenBeforeTheBaseline = R"sh(set -e
echo "$$ $(cut -d' ' -f22 /proc/$$/stat)" > "$1/verifier.id"
. "$1/children.sh"
/bin/sh -c '/bin/sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$1/moved.pid"' sh "$1"
cat "$1/moved.pid" > "$3/cgroup.procs"
"$2" capture -o "$1/baseline.ptape" --threads 1 >/dev/null
cat "$1/moved.pid" > "$(dirname "$3")/cgroup.procs"
"$2" capture -o "$1/current.ptape" --threads 1 >/dev/null
)sh";

// The baseline of two frames, one second apart: when the capture waits for
// the second frame's slot (its main thread in ppoll, syscall number $3),
// frame 0 is written; the verifier stops the capture there, starts the two
// children, and lets it take frame 1. $1 = work dir, $2 = proctape.
constexpr const char* kChildrenBetweenTheFrames = R"sh(set -e
echo "$$ $(cut -d' ' -f22 /proc/$$/stat)" > "$1/verifier.id"
"$2" capture -o "$1/baseline.ptape" --threads 1 --frames 2 --interval 1000 >/dev/null &
cap=$!
until read -r call rest < "/proc/$cap/syscall" && [ "$call" = "$3" ]; do
  read -r p comm state rest < "/proc/$cap/stat"
  [ "$state" != Z ] || exit 3
done
kill -s STOP $cap
until read -r p comm state rest < "/proc/$cap/stat" && [ "$state" = T ]; do :; done
. "$1/children.sh"
kill -s CONT $cap
wait $cap
"$2" capture -o "$1/current.ptape" --threads 1 >/dev/null
)sh";

// Runs kRuntime with `verifier` in the fresh cgroup, `arg` its $3, then the
// plan; returns the plan's result. The keepalive's and the verifier's ids
// are checked: the keepalive truly predates the verifier.
CommandResult RunAndPlan(const FreshCgroup& cgroup, const TempDir& dir, const char* verifier,
                         const std::string& arg) {
  live::WriteFile(dir.File("runtime.sh"), kRuntime);
  live::WriteFile(dir.File("verifier.sh"), verifier);
  live::WriteFile(dir.File("children.sh"), kChildren);
  CommandResult run =
      live::RunCommand({"/bin/sh", dir.File("runtime.sh"), cgroup.dir() + "/cgroup.procs",
                        dir.path(), ::proctape::live::TestedBinary(), arg},
                       30000);
  EXPECT_EQ(run.exit_code, 0) << Describe(run);
  const std::string verifier_id = ReadId(dir, "verifier.id");
  const std::string keepalive = LiveId(ReadPid(dir, "keepalive.pid"));
  EXPECT_LT(StartOf(keepalive), StartOf(verifier_id)) << keepalive << " " << verifier_id;
  return live::RunCommand({::proctape::live::TestedBinary(), "ownership", "--baseline",
                           dir.File("baseline.ptape"), "--current", dir.File("current.ptape"),
                           "--uid", std::to_string(::getuid()), "--cgroup",
                           V2Path(static_cast<pid_t>(ReadPid(dir, "keepalive.pid"))), "--self",
                           verifier_id.substr(0, verifier_id.find('@'))});
}

// The lines naming `ids` as baseline-not-before in baseline frame `frame`
// are in the refused plan `plan`, and nothing else is named; the keepalive
// is kept out of it.
void ExpectNamed(const CommandResult& plan, const TempDir& dir, int frame,
                 const std::vector<std::string>& ids) {
  EXPECT_EQ(plan.exit_code, 2) << Describe(plan);
  EXPECT_NE(plan.out.find("REFUSED: " + std::to_string(ids.size()) + " problems"),
            std::string::npos)
      << plan.out;
  for (const std::string& id : ids) {
    EXPECT_NE(plan.out.find("  baseline-not-before baseline frame " + std::to_string(frame) +
                            " pid " + id + ": "),
              std::string::npos)
        << id << "\n"
        << plan.out;
  }
  const std::string keepalive = LiveId(ReadPid(dir, "keepalive.pid"));
  EXPECT_EQ(plan.out.find(keepalive), std::string::npos) << keepalive << "\n" << plan.out;
  EXPECT_TRUE(Decisions(plan.out).empty()) << plan.out;
}

// Children the verifier started before its baseline, reparented away from
// it (setsid, a double fork), and one it moved out of the scope for the
// baseline and back: none of them can be exempt.
TEST(OwnershipLive, ChildrenTheVerifierStartedBeforeItsBaselineRefuseThePlan) {
  std::string why;
  std::unique_ptr<FreshCgroup> cgroup = FreshCgroup::Create(&why);
  if (!cgroup) GTEST_SKIP() << why;
  if (live::FindOnPath("setsid").empty()) GTEST_SKIP() << "setsid (util-linux) is not installed";
  const std::string elsewhere = cgroup->Child("elsewhere");
  ASSERT_FALSE(elsewhere.empty());
  TempDir dir("ownership-before");
  ASSERT_FALSE(dir.path().empty());
  CommandResult plan = RunAndPlan(*cgroup, dir, kChildrenBeforeTheBaseline, elsewhere);

  const long detached = ReadPid(dir, "detached.pid");
  const long double_forked = ReadPid(dir, "double.pid");
  const long moved = ReadPid(dir, "moved.pid");
  const long verifier = ReadPid(dir, "verifier.id");
  for (long pid : {detached, double_forked, moved}) {
    std::optional<live::ProcStat> st = live::ReadStat(static_cast<pid_t>(pid));
    ASSERT_TRUE(st.has_value()) << pid;
    EXPECT_NE(st->ppid, verifier) << pid << " is still the verifier's child";
  }
  ExpectNamed(plan, dir, 0, {LiveId(detached), LiveId(double_forked), LiveId(moved)});
  EXPECT_NE(plan.out.find("(out of scope in the baseline: cgroup \"" +
                          V2Path(static_cast<pid_t>(moved)) + "/elsewhere\"; in scope now)"),
            std::string::npos)
      << plan.out;
}

// Children started while the baseline's capture waits between its frames:
// frame 1 shows them, frame 0 does not.
TEST(OwnershipLive, ChildrenStartedBetweenTheBaselinesFramesRefuseThePlan) {
  std::string why;
  std::unique_ptr<FreshCgroup> cgroup = FreshCgroup::Create(&why);
  if (!cgroup) GTEST_SKIP() << why;
  if (live::FindOnPath("setsid").empty()) GTEST_SKIP() << "setsid (util-linux) is not installed";
  TempDir dir("ownership-between");
  ASSERT_FALSE(dir.path().empty());
  CommandResult plan =
      RunAndPlan(*cgroup, dir, kChildrenBetweenTheFrames, std::to_string(SYS_ppoll));
  const std::vector<std::string> ids = {LiveId(ReadPid(dir, "detached.pid")),
                                        LiveId(ReadPid(dir, "double.pid"))};
  ExpectNamed(plan, dir, 1, ids);
  EXPECT_NE(plan.out.find("baseline frame 0 does not hold it (born between the baseline's "
                          "frames)"),
            std::string::npos)
      << plan.out;
}

}  // namespace
}  // namespace proctape
