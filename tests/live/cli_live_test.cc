// SPDX-License-Identifier: Apache-2.0
// The built proctape binary on live sandboxes: its output lines and its
// documented exit statuses (0 resolved/alive, 2 usage, 3 dead, 5 not found).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"
#include "tests/live/sandbox_fixture.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Sandbox;
using live::SandboxKind;
using live::StartsWith;

using live::Proctape;

std::string Explain(const CommandResult& r) {
  return "exit " + std::to_string(r.exit_code) + " signal " + std::to_string(r.term_signal) +
         (r.timed_out ? " (timed out)" : "") + (r.error.empty() ? "" : " error: " + r.error) +
         "\nstdout: " + r.out + "\nstderr: " + r.err;
}

// Commands that need no sandbox.
TEST(CliLive, ResolveWithoutRootIsAUsageErrorOnOneLine) {
  CommandResult r = Proctape({"resolve", "--token", "T"});
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 2) << Explain(r);
  EXPECT_TRUE(r.out.empty()) << Explain(r);
  ASSERT_FALSE(r.err.empty());
  EXPECT_TRUE(StartsWith(r.err, "proctape: ")) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  EXPECT_NE(r.err.find("--root"), std::string::npos) << r.err;
}

TEST(CliLive, ResolveOfANonexistentRootIsMissingRoot) {
  const std::string absent = live::AbsentPid();
  CommandResult r = Proctape({"resolve", "--root", absent, "--token", "T"});
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 5) << Explain(r);
  EXPECT_TRUE(StartsWith(r.out, "MISSING_ROOT")) << Explain(r);

  CommandResult json = Proctape({"resolve", "--root", absent, "--token", "T", "--json"});
  EXPECT_EQ(json.exit_code, 5) << Explain(json);
  EXPECT_NE(json.out.find("\"status\":\"MISSING_ROOT\""), std::string::npos) << Explain(json);
}

// A value that cannot be a pid is a usage error (exit 2), never DEAD (3) or
// MISSING_ROOT (5): a liveness verdict about pid 0 would be a false claim.
TEST(CliLive, PidsOutsideThePidRangeAreUsageErrors) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"liveness", "--pid", "0", "--start", "5"},
           {"liveness", "--pid", "-1", "--start", "5"},
           {"liveness", "--pid", "2147483648", "--start", "5"},
           {"resolve", "--root", "0", "--token", "T"},
           {"resolve", "--root", "1", "--token", "T"},
           {"resolve", "--root", "-3", "--root-start", "5", "--token", "T"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << args[1] << " " << args[2] << ": " << Explain(r);
    EXPECT_TRUE(r.out.empty()) << Explain(r);
    EXPECT_TRUE(StartsWith(r.err, "proctape: ")) << Explain(r);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  }
}

// liveness validates its request like resolve: the pid must be one this
// host can have (2 up to below /proc/sys/kernel/pid_max: the kernel hands
// out pids below it) and the start tick a real one (not 0). Each is a usage
// error, one line, before /proc is read — not DEAD (pid_max names no
// process, so its stat is missing) nor an error about init (pid 1).
TEST(CliLive, LivenessRefusesPidsThisHostCannotHaveAndStartTickZero) {
  std::string pid_max = live::FileBytes("/proc/sys/kernel/pid_max");
  while (!pid_max.empty() && pid_max.back() == '\n') pid_max.pop_back();
  ASSERT_FALSE(pid_max.empty());
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"liveness", "--pid", pid_max, "--start", "5"},
                                             {"liveness", "--pid", "1", "--start", "5"},
                                             {"liveness", "--pid", "2", "--start", "0"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << "@" << args[4] << ": " << Explain(r);
    EXPECT_TRUE(r.out.empty()) << Explain(r);
    EXPECT_TRUE(StartsWith(r.err, "proctape: ")) << Explain(r);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
  }
  // The pid just below pid_max is one this host can have: a real verdict.
  CommandResult below =
      Proctape({"liveness", "--pid", std::to_string(std::stoll(pid_max) - 1), "--start", "5"});
  EXPECT_TRUE(below.exit_code == 3 || below.exit_code == 4) << Explain(below);
}

class CliLiveTest : public live::LiveSandboxTest {};

TEST_P(CliLiveTest, ResolvePrintsTheTrueHostPid) {
  CommandResult r = Proctape({"resolve", "--root", Root(), "--token", sandbox_->token()});
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 0) << Explain(r);
  EXPECT_TRUE(StartsWith(r.out, "RESOLVED host pid " + Pid() + ", start tick " + Start()))
      << Explain(r) << "\nexpected host pid " << Pid() << " (marker " << sandbox_->marker() << ")";

  // The same with the root's start time given, as a caller that
  // fingerprinted it before the turn would.
  std::optional<live::ProcStat> root = live::ReadStat(sandbox_->app_server());
  ASSERT_TRUE(root.has_value());
  std::string root_start = std::to_string(root->start_ticks);
  CommandResult given = Proctape({"resolve", "--root", Root(), "--root-start", root_start,
                                  "--token", sandbox_->token(), "--argv", "/bin/sleep", "--argv",
                                  "120", "--exe", "/usr/bin/sleep"});
  EXPECT_EQ(given.exit_code, 0) << Explain(given);
  EXPECT_TRUE(StartsWith(given.out, "RESOLVED host pid " + Pid() + ",")) << Explain(given);
}

TEST_P(CliLiveTest, ResolveJsonCarriesStatusAndPid) {
  CommandResult r = Proctape({"resolve", "--root", Root(), "--token", sandbox_->token(), "--json"});
  EXPECT_EQ(r.exit_code, 0) << Explain(r);
  EXPECT_NE(r.out.find("\"status\":\"RESOLVED\""), std::string::npos) << Explain(r);
  EXPECT_NE(r.out.find("\"pid\":" + Pid() + ","), std::string::npos) << Explain(r);
}

TEST_P(CliLiveTest, ResolveWithAnotherTokenIsNotFound) {
  CommandResult r = Proctape(
      {"resolve", "--root", Root(), "--token", live::RandomHex(16), "--deadline-ms", "300"});
  EXPECT_EQ(r.exit_code, 5) << Explain(r);
  EXPECT_TRUE(StartsWith(r.out, "TOKEN_MISMATCH")) << Explain(r);
}

// docs/resolver.md, "Near misses": a wrong --argv is told from a sleep not
// started yet without a recording: NO_MATCH names the real sleep, by its
// identity, with the argv it has, in the text and in --json; the token the
// sandbox's shell holds in its argv is masked.
TEST_P(CliLiveTest, ResolveWithAnotherArgvNamesTheSleepAsANearMiss) {
  const std::string miss = "near miss: pid " + Pid() + ", start tick " + Start() +
                           ": argv \"/bin/sleep\" \"120\": not the expected argv";
  CommandResult r = Proctape({"resolve", "--root", Root(), "--token", sandbox_->token(), "--argv",
                              "/bin/sleep", "--argv", "121", "--deadline-ms", "300"});
  EXPECT_EQ(r.exit_code, 5) << Explain(r);
  EXPECT_TRUE(StartsWith(r.out, "NO_MATCH: ")) << Explain(r);
  EXPECT_NE(r.out.find("\n  " + miss + "\n"), std::string::npos) << Explain(r);
  EXPECT_EQ(r.out.find(sandbox_->token()), std::string::npos) << Explain(r);

  CommandResult json =
      Proctape({"resolve", "--root", Root(), "--token", sandbox_->token(), "--argv", "/bin/sleep",
                "--argv", "121", "--deadline-ms", "300", "--json"});
  EXPECT_EQ(json.exit_code, 5) << Explain(json);
  EXPECT_NE(json.out.find("{\"pid\":" + Pid() + ",\"start_ticks\":\"" + Start() +
                          "\",\"argv\":[\"/bin/sleep\",\"120\"]"),
            std::string::npos)
      << Explain(json);
  EXPECT_NE(json.out.find("\"rule\":\"ARGV\""), std::string::npos) << Explain(json);
  EXPECT_EQ(json.out.find("UNSPECIFIED"), std::string::npos) << Explain(json);
  EXPECT_EQ(json.out.find(sandbox_->token()), std::string::npos) << Explain(json);
}

TEST_P(CliLiveTest, ResolveWithAnotherRootStartIsIdentityChanged) {
  std::optional<live::ProcStat> root = live::ReadStat(sandbox_->app_server());
  ASSERT_TRUE(root.has_value());
  std::string wrong = std::to_string(root->start_ticks + 1);
  CommandResult r =
      Proctape({"resolve", "--root", Root(), "--root-start", wrong, "--token", sandbox_->token()});
  EXPECT_EQ(r.exit_code, 4) << Explain(r);
  EXPECT_TRUE(StartsWith(r.out, "ROOT_RESTARTED")) << Explain(r);
}

TEST_P(CliLiveTest, LivenessIsAliveThenDeadAfterTheSleepEnds) {
  CommandResult alive = Proctape({"liveness", "--pid", Pid(), "--start", Start()});
  ASSERT_TRUE(alive.started) << alive.error;
  EXPECT_EQ(alive.exit_code, 0) << Explain(alive);
  EXPECT_TRUE(StartsWith(alive.out, "ALIVE")) << Explain(alive);

  ASSERT_TRUE(sandbox_->KillSleep()) << "the sleep did not end within 3 s";
  CommandResult dead = Proctape({"liveness", "--pid", Pid(), "--start", Start()});
  EXPECT_EQ(dead.exit_code, 3) << Explain(dead);
  EXPECT_TRUE(StartsWith(dead.out, "DEAD")) << Explain(dead);

  CommandResult json = Proctape({"liveness", "--pid", Pid(), "--start", Start(), "--json"});
  EXPECT_EQ(json.exit_code, 3) << Explain(json);
  EXPECT_NE(json.out.find("\"status\":\"DEAD\""), std::string::npos) << Explain(json);
}

// --proc must name the root of a procfs mount (statfs PROC_SUPER_MAGIC): a
// directory that is not one holds no live process, so every live command
// refuses it as a usage error (exit 2, one line) instead of reading it as a
// host (liveness of a live process was DEAD). Files are imported with
// capture --proc-root.
TEST_P(CliLiveTest, ProcThatIsNotAProcfsIsAUsageErrorNotAVerdict) {
  live::TempDir tmp("not-procfs");
  // A directory that even holds the live sleep's stat, as a copy.
  ASSERT_TRUE(std::filesystem::create_directories(tmp.File(Pid())));
  live::WriteFile(tmp.File(Pid() + "/stat"), live::FileBytes("/proc/" + Pid() + "/stat"));
  for (const std::string& proc : {tmp.path(), std::string("/tmp"), "/proc/" + Pid()}) {
    for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
             {"liveness", "--pid", Pid(), "--start", Start(), "--proc", proc},
             {"liveness", "--pid", Pid(), "--start", Start(), "--proc", proc, "--record",
              tmp.File("l.ptape")},
             {"resolve", "--root", Root(), "--token", sandbox_->token(), "--proc", proc},
             {"capture", "--proc", proc, "-o", tmp.File("c.ptape")}}) {
      CommandResult r = Proctape(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << " --proc " << proc << ": " << Explain(r);
      EXPECT_TRUE(r.out.empty()) << Explain(r);
      EXPECT_TRUE(StartsWith(r.err, "proctape: " + args[0] + ": --proc '" + proc + "': "))
          << Explain(r);
      EXPECT_NE(r.err.find("not the root of a procfs mount"), std::string::npos) << Explain(r);
      EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
      EXPECT_FALSE(live::Exists(tmp.File("l.ptape")));
      EXPECT_FALSE(live::Exists(tmp.File("c.ptape")));
    }
  }
  // The real one still answers.
  CommandResult alive =
      Proctape({"liveness", "--pid", Pid(), "--start", Start(), "--proc", "/proc"});
  EXPECT_EQ(alive.exit_code, 0) << Explain(alive);
}

std::string ParamName(const ::testing::TestParamInfo<SandboxKind>& param) {
  return live::SandboxName(param.param);
}

INSTANTIATE_TEST_SUITE_P(Sandboxes, CliLiveTest,
                         ::testing::Values(SandboxKind::kUnshare, SandboxKind::kBwrap), ParamName);

}  // namespace
}  // namespace proctape
