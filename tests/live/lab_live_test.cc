// SPDX-License-Identifier: Apache-2.0
// `proctape lab` (`docs/lab.md`) with the real binary on this kernel:
//   - every scenario, in both sandboxes, records a file whose verdicts show
//     what its name says, and which replays REPRODUCED;
//   - "The lab ends every process it started, by pid": each process its
//     report names is gone afterwards (checked here by pid and start tick,
//     independently of the lab), also when the lab is interrupted mid-run;
//   - scenarios that reuse a pid refuse to run without root, with one line.
#include <google/protobuf/util/json_util.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "lab/lab.h"
#include "proctape.pb.h"
#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;
using live::TempDir;

using live::Proctape;

// Is (pid, start tick) still a live process? Read here, not by the lab.
bool StillRunning(std::int64_t pid, std::uint64_t start_ticks) {
  std::optional<live::ProcStat> st = live::ReadStat(static_cast<pid_t>(pid));
  return st && st->start_ticks == start_ticks && st->state != 'Z' && st->state != 'X';
}

std::string SkipReason(const std::string& sandbox, bool needs_root) {
  std::string missing = live::SandboxUnavailable(sandbox == "bwrap" ? live::SandboxKind::kBwrap
                                                                    : live::SandboxKind::kUnshare);
  if (!missing.empty()) return missing;
  if (needs_root && ::geteuid() != 0) return "this scenario reuses a pid: root only";
  return "";
}

using LabParam = std::tuple<std::string, std::string>;  // scenario, sandbox

class LabScenario : public ::testing::TestWithParam<LabParam> {};

TEST_P(LabScenario, RecordsWhatItsNameSaysReplaysReproducedAndLeavesNothingRunning) {
  const auto& [scenario, sandbox] = GetParam();
  const lab::ScenarioInfo* info = lab::FindScenario(scenario);
  ASSERT_NE(info, nullptr);
  if (std::string why = SkipReason(sandbox, info->needs_root); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("lab");
  const std::string file = dir.File(scenario + ".ptape");
  // A 1 s deadline keeps the scenarios that run into it short.
  CommandResult r = Proctape(
      {"lab", scenario, "--sandbox", sandbox, "--record", file, "--deadline-ms", "1000", "--json"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  v1::LabReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << r.out;
  EXPECT_TRUE(report.shown()) << report.error();
  EXPECT_EQ(report.left_running_size(), 0);
  ASSERT_GE(report.started_size(), 3) << "app-server, launcher and more";
  EXPECT_EQ(report.started(0).role(), "app-server");
  for (const auto& p : report.started()) {
    EXPECT_FALSE(StillRunning(p.pid(), p.start_ticks())) << p.role() << " " << p.pid();
  }
  ASSERT_GE(report.checks_size(), 1);
  // `docs/resolver.md`, "The eight steps", step 1: the app-server was
  // fingerprinted before the turn, and every resolve check consumed that
  // fingerprint (none fingerprinted it late).
  for (const v1::CheckSummary& check : report.checks()) {
    if (check.kind() != "resolve") continue;
    EXPECT_TRUE(check.resolve().has_fingerprint());
    EXPECT_FALSE(check.resolve().fingerprint_on_tape());
    EXPECT_FALSE(check.verdict().late_fingerprint());
    EXPECT_EQ(check.resolve().fingerprint().root_pid(), report.started(0).pid());
    EXPECT_EQ(check.resolve().fingerprint().root_start_ticks(), report.started(0).start_ticks());
    EXPECT_EQ(check.resolve().root_start_ticks(), report.started(0).start_ticks());
  }

  CommandResult replay = Proctape({"replay", file});
  EXPECT_EQ(replay.exit_code, 0) << Describe(replay);
  std::size_t reproduced = 0;
  for (std::size_t at = 0; (at = replay.out.find("REPRODUCED", at)) != std::string::npos; ++at)
    ++reproduced;
  EXPECT_EQ(reproduced, static_cast<std::size_t>(report.checks_size())) << replay.out;
}

// The text names a failure as resolve does: its subject by identity and
// its near misses, each with the first rule it failed (docs/resolver.md,
// "Near misses"), from the same masked report --json prints.
TEST(LabText, AFailureNamesItsNearMissesAsResolveDoes) {
  if (std::string why = SkipReason("unshare", false); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("lab");
  CommandResult r = Proctape({"lab", "never-exec", "--sandbox", "unshare", "--record",
                              dir.File("n.ptape"), "--deadline-ms", "1000"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_NE(r.out.find("resolve: NO_MATCH: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  near miss: pid "), std::string::npos) << r.out;
}

std::vector<LabParam> AllScenarios() {
  std::vector<LabParam> out;
  for (const lab::ScenarioInfo& s : lab::Scenarios()) {
    for (const char* sandbox : {"unshare", "bwrap"}) out.emplace_back(s.name, sandbox);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Live, LabScenario, ::testing::ValuesIn(AllScenarios()),
                         [](const ::testing::TestParamInfo<LabParam>& p) {
                           std::string name = std::get<0>(p.param) + "_" + std::get<1>(p.param);
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

TEST(LabCleanup, AnInterruptedLabEndsEveryProcessItStarted) {
  if (std::string why = SkipReason("unshare", false); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("lab-int");
  std::string error;
  // never-exec keeps the resolver retrying for its whole deadline: time to
  // interrupt it mid-recording.
  const std::string err_file = dir.File("stderr");
  const int err_fd = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT_GE(err_fd, 0);
  pid_t lab = live::SpawnChild({::proctape::live::TestedBinary(), "lab", "never-exec", "--record",
                                dir.File("x.ptape"), "--deadline-ms", "20000"},
                               -1, err_fd, &error);
  ::close(err_fd);
  ASSERT_GT(lab, 0) << error;
  // Wait until the sandbox's shell loop runs beneath the lab's app-server.
  std::vector<std::pair<pid_t, std::uint64_t>> seen;
  for (int i = 0; i < 2500 && seen.size() < 4; ++i) {
    seen.clear();
    for (pid_t pid : live::Descendants(lab)) {
      if (auto st = live::ReadStat(pid)) seen.emplace_back(pid, st->start_ticks);
    }
    ::usleep(2000);
  }
  ASSERT_GE(seen.size(), 4u) << "app-server, unshare, the shell and its sleep 1";
  std::vector<pid_t> direct_children;  // the app-server: the lab's own child
  for (const auto& [pid, start] : seen) {
    std::optional<live::ProcStat> st = live::ReadStat(pid);
    if (st && st->start_ticks == start && st->ppid == lab) direct_children.push_back(pid);
  }
  ASSERT_EQ(::kill(lab, SIGINT), 0);  // our unreaped child: the pid is its own
  const std::optional<int> status = live::ReapWithin(lab, 60'000);
  ASSERT_TRUE(status.has_value()) << "the lab still ran 60 s after SIGINT: killed";
  EXPECT_TRUE(WIFSIGNALED(*status) && WTERMSIG(*status) == SIGINT) << *status;
  // Every process seen beneath it ends (the namespace's init is SIGKILLed).
  for (const auto& [pid, start] : seen) {
    bool gone = false;
    for (int i = 0; i < 1500 && !gone; ++i) {
      gone = !StillRunning(pid, start);
      if (!gone) ::usleep(2000);
    }
    EXPECT_TRUE(gone) << "pid " << pid << " still runs after the lab was interrupted";
  }
  EXPECT_FALSE(live::Exists(dir.File("x.ptape"))) << "an interrupted recording is not complete";
  // It said, in one line, which processes it ended: among them its own
  // children (the app-server), by pid.
  const std::string err = live::FileBytes(err_file);
  EXPECT_TRUE(live::OneLine(err)) << err;
  EXPECT_TRUE(live::StartsWith(err, "proctape: lab: interrupted: ended the ")) << err;
  int children = 0;
  for (pid_t pid : direct_children) {
    ++children;
    const std::string p = std::to_string(pid);
    EXPECT_TRUE(err.find(" " + p + ",") != std::string::npos ||
                err.find(" " + p + ")") != std::string::npos)
        << pid << ": " << err;
  }
  EXPECT_GE(children, 1) << err;
}

TEST(LabRefusals, PidReuseNeedsRootAndSaysSoInOneLine) {
  std::string setpriv = live::FindOnPath("setpriv");
  if (::geteuid() != 0 || setpriv.empty())
    GTEST_SKIP() << "needs root and setpriv to drop to nobody";
  TempDir dir("lab-refuse");
  ::chmod(dir.path().c_str(), 0777);
  CommandResult r = live::RunCommand({setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                                      ::proctape::live::TestedBinary(), "lab", "pid-reuse",
                                      "--record", dir.File("x.ptape")});
  EXPECT_EQ(r.exit_code, 24) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << r.err;
  EXPECT_NE(r.err.find("needs root"), std::string::npos) << r.err;
  EXPECT_FALSE(live::Exists(dir.File("x.ptape")));
}

TEST(LabRefusals, UnknownScenarioAndMissingRecordAreUsageErrors) {
  CommandResult r = Proctape({"lab", "no-such", "--record", "/tmp/never.ptape"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << r.err;
  r = Proctape({"lab", "plain"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << r.err;
}

// The lab stages its files in $TMPDIR: one that is missing, or not a
// directory, cannot run here (24), said in one line naming it, before any
// process is started (the sandbox's probe is the first) and before the
// recording is made.
TEST(LabRefusals, AMissingOrUnwritableTmpdirIsCannotRunHereNamingIt) {
  TempDir dir("lab-tmpdir");
  live::WriteFile(dir.File("file"), "not a directory\n");
  for (const std::string& tmpdir : {dir.File("missing"), dir.File("file")}) {
    CommandResult r =
        live::RunCommand({"/usr/bin/env", "TMPDIR=" + tmpdir, ::proctape::live::TestedBinary(),
                          "lab", "plain", "--record", dir.File("x.ptape")});
    EXPECT_EQ(r.exit_code, 24) << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << r.err;
    EXPECT_TRUE(live::StartsWith(r.err, "proctape: lab: cannot run here: TMPDIR " + tmpdir))
        << r.err;
    EXPECT_FALSE(live::Exists(dir.File("x.ptape")));
  }
}

// --record that cannot be written while recording (a file size limit, with
// SIGXFSZ ignored: write fails with EFBIG once the header is out) is an
// output that cannot be written: exit 10, as lab's --help and
// docs/cli/outputs.md say, one line naming --record and the path once,
// nothing left behind.
TEST(LabRefusals, ARecordThatCannotBeWrittenMidRunExitsTen) {
  if (std::string why = SkipReason("unshare", false); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("lab-fsize");
  CommandResult r = live::RunCommand(
      // 2 blocks (1 KiB): past the header, below any recording (a version 2
      // recording of a quiet host fits in 16 KiB, the limit this once had).
      {"/bin/sh", "-c", "trap '' XFSZ; ulimit -f 2; exec \"$0\" \"$@\"",
       ::proctape::live::TestedBinary(), "lab", "plain", "--record", dir.File("x.ptape")},
      120'000);
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
  EXPECT_TRUE(
      live::StartsWith(r.err, "proctape: --record '" + dir.File("x.ptape") + "': cannot write: "))
      << Describe(r);
  // The path is said once, not again by the writer's own words.
  EXPECT_EQ(r.err.find(dir.File("x.ptape")), r.err.rfind(dir.File("x.ptape"))) << Describe(r);
  EXPECT_EQ(live::Entries(dir.path()), std::vector<std::string>{}) << Describe(r);
}

TEST(LabList, NamesEveryScenarioOfTheIssue) {
  CommandResult r = Proctape({"lab", "--list"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  for (const char* name :
       {"plain", "stale-token", "impostor-exe", "misleading-name", "zombie", "pre-exec",
        "ambiguous", "root-restarted", "pid-reuse", "exited", "hostile-comm", "never-exec"}) {
    EXPECT_NE(r.out.find(std::string(name) + " "), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace proctape
