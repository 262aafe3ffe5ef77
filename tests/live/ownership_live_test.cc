// `proctape ownership` on real processes (seed 002): "A disposable live check
// also proved that the candidate preserves the real OpenShell keepalive while
// removing a detached child." The situation, built in a fresh cgroup v2
// directory this test creates (root only):
//
//   test ── runtime (sh: moves itself into the fresh cgroup)
//            ├─ sleep 300                 the keepalive: a sibling of the verifier
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
// ownership_cli_test.cc.
#include <errno.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "core/proc_parse.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::TempDir;

// The mount point of the cgroup2 file system, from /proc/self/mountinfo
// ("ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - cgroup2 SOURCE ..."), or "".
std::string Cgroup2Mount() {
  std::ifstream in("/proc/self/mountinfo");
  std::string line;
  while (std::getline(in, line)) {
    std::size_t dash = line.find(" - ");
    if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
    std::istringstream fields(line.substr(0, dash));
    std::string id, parent, dev, root, mount;
    if (fields >> id >> parent >> dev >> root >> mount) return mount;
  }
  return "";
}

// The path after "0::" in /proc/PID/cgroup, or "".
std::string V2Path(pid_t pid) {
  std::optional<std::string> file = live::ReadProc(pid, "cgroup");
  if (!file) return "";
  std::istringstream lines(*file);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  }
  return "";
}

// A fresh cgroup v2 directory. On destruction every process in it is ended by
// pidfd (opened, then checked against the start time read just before) and
// the directory is removed.
class FreshCgroup {
 public:
  static std::unique_ptr<FreshCgroup> Create(std::string* why) {
    if (::geteuid() != 0) {
      *why = "needs root to create a cgroup v2 directory";
      return nullptr;
    }
    std::string mount = Cgroup2Mount();
    if (mount.empty()) {
      *why = "no cgroup2 file system is mounted (cgroup v1 only)";
      return nullptr;
    }
    std::string dir = mount + "/proctape-ownership-" + live::RandomHex(6);
    if (::mkdir(dir.c_str(), 0755) != 0) {
      *why = "cannot create " + dir + ": " + std::strerror(errno);
      return nullptr;
    }
    return std::unique_ptr<FreshCgroup>(new FreshCgroup(dir));
  }
  ~FreshCgroup() {
    for (int round = 0; round < 100; ++round) {
      std::vector<pid_t> pids = Members();
      if (pids.empty() && ::rmdir(dir_.c_str()) == 0) return;
      for (pid_t pid : pids) {
        std::optional<live::ProcStat> st = live::ReadStat(pid);
        if (!st) continue;
        std::string error;
        live::PidFd fd = live::PidFd::Open(pid, st->start_ticks, &error);
        if (!fd.valid()) continue;
        fd.Kill();
        fd.WaitExited(3000);
      }
      ::usleep(20000);
    }
    ADD_FAILURE() << "could not empty and remove " << dir_;
  }
  FreshCgroup(const FreshCgroup&) = delete;
  FreshCgroup& operator=(const FreshCgroup&) = delete;

  const std::string& dir() const { return dir_; }
  std::vector<pid_t> Members() const {
    std::vector<pid_t> out;
    std::ifstream in(dir_ + "/cgroup.procs");
    long pid = 0;
    while (in >> pid) out.push_back(static_cast<pid_t>(pid));
    return out;
  }

 private:
  explicit FreshCgroup(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

// The runtime: enters the fresh cgroup, starts the keepalive, then runs the
// verifier in the foreground. $1 = cgroup.procs, $2 = work dir, $3 = proctape.
constexpr const char* kRuntime = R"sh(set -e
echo $$ > "$1"
echo "$$ $(cut -d' ' -f22 /proc/$$/stat)" > "$2/runtime.id"
/bin/sleep 300 </dev/null >/dev/null 2>&1 &
echo $! > "$2/keepalive.pid"
/bin/sh "$2/verifier.sh" "$2" "$3"
)sh";

// The verifier: the baseline first, then "repository code", then the
// current snapshot. $1 = work dir, $2 = proctape.
constexpr const char* kVerifier = R"sh(set -e
echo "$$ $(cut -d' ' -f22 /proc/$$/stat)" > "$1/verifier.id"
"$2" capture -o "$1/baseline.ptape" --threads 1 >/dev/null
setsid -f /bin/sh -c 'echo $$ > "$1/detached.pid"; exec /bin/sleep 300' sh "$1" </dev/null >/dev/null 2>&1
/bin/sh -c '/bin/sleep 300 </dev/null >/dev/null 2>&1 & echo $! > "$1/double.pid"' sh "$1"
/bin/sleep 300 </dev/null >/dev/null 2>&1 &
echo $! > "$1/impostor.pid"
n=0
while [ ! -s "$1/detached.pid" ] && [ $n -lt 500 ]; do sleep 0.01; n=$((n+1)); done
"$2" capture -o "$1/current.ptape" --threads 1 >/dev/null
)sh";

long ReadPid(const TempDir& dir, const std::string& name) {
  std::istringstream in(live::FileBytes(dir.File(name)));
  long pid = 0;
  in >> pid;
  return pid;
}

// "PID START" as written by the scripts, as "PID@START".
std::string ReadId(const TempDir& dir, const std::string& name) {
  std::istringstream in(live::FileBytes(dir.File(name)));
  long pid = 0;
  unsigned long long start = 0;
  in >> pid >> start;
  return std::to_string(pid) + "@" + std::to_string(start);
}

// "PID@START" of a live process, read independently of proctape.
std::string LiveId(long pid) {
  std::optional<live::ProcStat> st = live::ReadStat(static_cast<pid_t>(pid));
  if (!st) return "gone:" + std::to_string(pid);
  return std::to_string(pid) + "@" + std::to_string(st->start_ticks);
}

struct Line {
  std::string action, id, reason, rest;
};
// The KEEP/REMOVE lines of the text plan, by pid@start.
std::map<std::string, Line> Decisions(const std::string& out) {
  std::map<std::string, Line> lines;
  std::istringstream in(out);
  std::string text;
  while (std::getline(in, text)) {
    std::istringstream fields(text);
    Line l;
    fields >> l.action >> l.id >> l.reason;
    if (l.action != "KEEP" && l.action != "REMOVE") continue;
    std::getline(fields, l.rest);
    lines[l.id] = l;
  }
  return lines;
}

TEST(OwnershipLive, KeepaliveKeptDetachedDoubleForkedAndSameNamedRemoved) {
  std::string why;
  std::unique_ptr<FreshCgroup> cgroup = FreshCgroup::Create(&why);
  if (!cgroup) GTEST_SKIP() << why;
  if (live::FindOnPath("setsid").empty()) GTEST_SKIP() << "setsid (util-linux) is not installed";
  TempDir dir("ownership");
  ASSERT_FALSE(dir.path().empty());
  live::WriteFile(dir.File("runtime.sh"), kRuntime);
  live::WriteFile(dir.File("verifier.sh"), kVerifier);

  CommandResult run = live::RunCommand(
      {"/bin/sh", dir.File("runtime.sh"), cgroup->dir() + "/cgroup.procs", dir.path(),
       PROCTAPE_BINARY},
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

  // The situation is the seed's: one cgroup for all, the keepalive not the
  // verifier's descendant, the detached and double-forked children
  // reparented away from it, the impostor named exactly like the keepalive.
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

  const std::vector<std::string> plan_args = {
      PROCTAPE_BINARY, "ownership",      "--baseline", dir.File("baseline.ptape"),
      "--current",     dir.File("current.ptape"), "--uid", std::to_string(::getuid()),
      "--cgroup",      path,             "--self",     std::to_string(verifier_pid)};
  CommandResult plan = live::RunCommand(plan_args);
  ASSERT_EQ(plan.exit_code, 0) << Describe(plan);
  std::map<std::string, Line> lines = Decisions(plan.out);

  const std::map<std::string, std::pair<std::string, std::string>> expected = {
      {runtime, {"KEEP", "ancestor"}},     {verifier, {"KEEP", "verifier"}},
      {keepalive, {"KEEP", "baseline"}},   {detached, {"REMOVE", "new"}},
      {double_forked, {"REMOVE", "new"}},  {impostor, {"REMOVE", "new"}}};
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

  // Seed: capture ordering -- the same two files the other way round: refused
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
  CommandResult run = live::RunCommand({"/bin/sh", dir.File("verifier.sh"),
                                        cgroup->dir() + "/cgroup.procs", dir.path(),
                                        PROCTAPE_BINARY},
                                       30000);
  ASSERT_EQ(run.exit_code, 0) << Describe(run);
  const long early = ReadPid(dir, "early.pid");
  CommandResult plan = live::RunCommand(
      {PROCTAPE_BINARY, "ownership", "--baseline", dir.File("baseline.ptape"), "--current",
       dir.File("current.ptape"), "--uid", std::to_string(::getuid()), "--cgroup",
       V2Path(static_cast<pid_t>(early)), "--self", std::to_string(ReadPid(dir, "verifier.pid"))});
  EXPECT_EQ(plan.exit_code, 2) << Describe(plan);
  EXPECT_NE(plan.out.find("not-at-bootstrap baseline frame 0 pid " + LiveId(early)),
            std::string::npos)
      << plan.out;
}

}  // namespace
}  // namespace proctape
