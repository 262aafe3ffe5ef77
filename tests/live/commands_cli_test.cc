// SPDX-License-Identifier: Apache-2.0
// The command line's contract for what commands do (docs/cli/commands.md),
// tested from the built binary: an empty selection is not a success,
// options checked together, help without parser noise, failures through one
// channel. Progress is in commands_progress_cli_test.cc, several files and
// standard input in commands_files_cli_test.cc.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "tests/live/cli_contract.h"
#include "tests/live/commands_fixture.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape::live {
namespace {

// ---- An empty selection is not a success ----------------------------------------

// A --root that is in no frame: the file is still written (it is evidence of
// what /proc held), but the exit status is 5, not found, and one line says so.
TEST(EmptySelection, CaptureOfARootInNoFrameWritesTheFileAndExitsNotFound) {
  TempDir dir("empty");
  // A pid this host can have that no process has.
  const std::string absent = live::AbsentPid();
  CommandResult r = Proctape(
      {"capture", "--root", absent, "-o", dir.File("x.ptape"), "--frames", "2", "--interval", "0"});
  EXPECT_EQ(r.exit_code, 5) << Describe(r);
  EXPECT_TRUE(live::StartsWith(r.out, "wrote ")) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
  EXPECT_TRUE(live::StartsWith(r.err, "proctape: --root " + absent + " ")) << Describe(r);
  EXPECT_NE(r.err.find("in no frame"), std::string::npos) << Describe(r);
  CommandResult verify = Proctape({"verify", dir.File("x.ptape")});
  EXPECT_EQ(verify.exit_code, 0) << Describe(verify);

  CommandResult json = Proctape({"capture", "--root", absent, "-o", dir.File("y.ptape"), "--json"});
  EXPECT_EQ(json.exit_code, 5) << Describe(json);
  EXPECT_NE(json.err.find("\"exit_status\":5"), std::string::npos) << Describe(json);
}

// A root that is there is captured as before: exit 0, nothing on stderr.
TEST(EmptySelection, CaptureOfALiveRootIsASuccess) {
  TempDir dir("empty");
  CommandResult r =
      Proctape({"capture", "--root", std::to_string(::getpid()), "-o", dir.File("x.ptape")});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.err, "") << Describe(r);
}

// The output is checked before --proc-root is read (docs/cli/outputs.md,
// "The rule"): a -o that cannot be written is its refusal, exit 10, whatever
// DIR holds, and nothing is made.
TEST(EmptySelection, CaptureRefusesItsOutputBeforeReadingTheProcRoot) {
  TempDir out("first-out");
  TempDir empty("first-empty");
  live::WriteFile(out.File("exists.ptape"), "mine");
  const CommandResult missing =
      Proctape({"capture", "--proc-root", empty.path(), "-o", out.File("none/x.ptape")});
  EXPECT_EQ(missing.exit_code, 10) << Describe(missing);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << Describe(missing);
  const CommandResult exists =
      Proctape({"capture", "--proc-root", empty.path(), "-o", out.File("exists.ptape")});
  EXPECT_EQ(exists.exit_code, 10) << Describe(exists);
  EXPECT_NE(exists.err.find("exists: refused"), std::string::npos) << Describe(exists);
  EXPECT_EQ(live::FileBytes(out.File("exists.ptape")), "mine");
}

// `capture --proc-root DIR` of a directory that holds no process (empty, or
// files and directories of no /proc copy, or a numeric entry without a stat
// file) is refused on one line naming DIR, exit 2, and writes nothing: it is
// not a frame of 0 processes. One numeric entry with a stat file is a frame.
TEST(EmptySelection, CaptureOfAProcRootWithNoProcessIsRefused) {
  TempDir out("empty-out");
  TempDir empty("empty-dir");
  TempDir unrelated("unrelated-dir");
  live::WriteFile(unrelated.File("README"), "not /proc\n");
  ASSERT_EQ(::mkdir(unrelated.File("src").c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(unrelated.File("42").c_str(), 0755), 0);  // numeric, but no stat
  for (const TempDir* dir : {&empty, &unrelated}) {
    CommandResult r = Proctape({"capture", "--proc-root", dir->path(), "-o", out.File("x.ptape")});
    EXPECT_EQ(r.exit_code, 2) << dir->path() << ": " << Describe(r);
    EXPECT_EQ(r.out, "") << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find(dir->path()), std::string::npos) << Describe(r);
    EXPECT_NE(r.err.find("holds no process"), std::string::npos) << Describe(r);
    EXPECT_FALSE(live::Exists(out.File("x.ptape"))) << dir->path();
  }
  live::WriteFile(unrelated.File("42/stat"),
                  "42 (x) S 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7\n");
  CommandResult one =
      Proctape({"capture", "--proc-root", unrelated.path(), "-o", out.File("y.ptape")});
  EXPECT_EQ(one.exit_code, 0) << Describe(one);
  EXPECT_NE(one.out.find("1 process record"), std::string::npos) << Describe(one);
}

// ---- Options that only make sense together are checked together -------------------

// `lab --list` lists the scenarios and stages none: a scenario, an output or
// a sandbox beside it is a usage error, not silently ignored.
TEST(OptionsTogether, LabListTakesNoScenarioRecordOrSandbox) {
  TempDir dir("together");
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"lab", "--list", "plain"},
                                             {"lab", "plain", "--list"},
                                             {"lab", "--list", "--record", dir.File("x.ptape")},
                                             {"lab", "--list", "--sandbox", "bwrap"},
                                             {"lab", "--list", "--deadline-ms", "200"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << ": " << Describe(r);
    EXPECT_EQ(r.out, "") << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find("--list"), std::string::npos) << Describe(r);
  }
  EXPECT_FALSE(live::Exists(dir.File("x.ptape")));
  CommandResult list = Proctape({"lab", "--list", "--json"});
  EXPECT_EQ(list.exit_code, 0) << Describe(list);
}

// --interval is the time between frames: with one frame there is none.
TEST(OptionsTogether, CaptureIntervalNeedsSeveralFrames) {
  TempDir dir("together");
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"capture", "-o", dir.File("x.ptape"), "--interval", "500"},
           {"capture", "-o", dir.File("x.ptape"), "--frames", "1", "--interval", "0"}}) {
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
    EXPECT_NE(r.err.find("--interval"), std::string::npos) << Describe(r);
    EXPECT_FALSE(live::Exists(dir.File("x.ptape")));
  }
}

// ownership: a --uid or --cgroup that is not the verifier's (an empty scope
// among them) is refused with its own status, 26, saying what the scope holds.
TEST(EmptySelection, OwnershipOfAScopeWithoutTheVerifierExits26) {
  for (const std::vector<std::string>& scope : std::vector<std::vector<std::string>>{
           {"--uid", "4242", "--cgroup", "/"}, {"--uid", "0", "--cgroup", "/nonexistent"}}) {
    std::vector<std::string> args = {"ownership",  "--baseline", kPidReuse, "--current",
                                     kHostileComm, "--self",     "1"};
    args.insert(args.end(), scope.begin(), scope.end());
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 26) << scope[1] << " " << scope[3] << ": " << Describe(r);
    EXPECT_NE(r.out.find("REFUSED"), std::string::npos) << Describe(r);
    EXPECT_NE(r.out.find("scope-without-verifier"), std::string::npos) << Describe(r);
    EXPECT_NE(r.out.find("0 processes are in it"), std::string::npos) << Describe(r);
  }
  CommandResult table = Proctape({"help", "exit-codes"});
  EXPECT_NE(table.out.find("\n 26  ownership: "), std::string::npos) << Describe(table);
}

// The root cgroup "/" is planned, with a warning on standard error (JSON
// under --json) that says what it may hold.
TEST(EmptySelection, OwnershipOfTheRootCgroupWarns) {
  CommandResult r = Proctape({"ownership", "--baseline", kPidReuse, "--current", kHostileComm,
                              "--uid", "0", "--cgroup", "/", "--self", "1", "--json"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(live::OneLine(r.err)) << Describe(r);
  EXPECT_TRUE(live::StartsWith(r.err, "{\"command\":\"ownership\",")) << Describe(r);
  EXPECT_NE(r.err.find("\"warning\":\"--cgroup / is the root cgroup"), std::string::npos)
      << Describe(r);
}

// ---- Help that fits a person --------------------------------------------------

// Every command's help: exit 0, no line over 80 columns, a blank line before
// "Usage:", value names that say what a value is (FILE, DIR, PID, N, ...),
// and no parser noise or private references: no generic VALUE or TEXT, no
// "FILES(1x)", no "TEXT:{a,b}" or "[2 - 2147483647]", no word "seed" (a
// private design note).
TEST(Help, EveryCommandsHelpFitsEightyColumnsWithoutParserNoise) {
  const std::vector<live::CommandWords> commands = live::EveryCommand();
  ASSERT_GE(commands.size(), 18u) << "commands found: " << commands.size();
  for (std::vector<std::string> args : commands) {
    std::string name;
    for (const std::string& a : args) name += a + " ";
    args.push_back("--help");
    CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 0) << name << Describe(r);
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_LE(live::Columns(line), 80u) << name << "--help: " << line;
    }
    if (args[0] != "help") {
      EXPECT_NE(r.out.find("\n\nUsage: proctape "), std::string::npos) << name << r.out;
    }
    for (const char* noise :
         {"VALUE", "TEXT", "(1x)", ":{", " INT", "UINT", " - 2147483647]", "Print this help"}) {
      EXPECT_EQ(r.out.find(noise), std::string::npos) << name << "--help holds " << noise;
    }
    std::string lower = r.out;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // explore's option --seed (a shuffle of its search order) is no citation.
    for (std::size_t at; (at = lower.find("--seed")) != std::string::npos;) lower.erase(at, 6);
    EXPECT_EQ(lower.find("seed"), std::string::npos) << name << "--help cites a design note";
  }
}

// `help --help` is the list of commands, like `help`.
TEST(Help, HelpOfHelpIsTheListOfCommands) {
  CommandResult list = Proctape({"help"});
  CommandResult r = Proctape({"help", "--help"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_EQ(r.out, list.out);
}

// ---- Failures through one channel ----------------------------------------------

// Under --json a failure is one JSON object on standard error, in every
// command (these printed text before).
TEST(JsonFailures, EveryCommandsFailureIsJsonUnderJson) {
  struct Case {
    std::vector<std::string> args;
    std::string command;
    int exit_code;
  };
  for (const Case& c : std::vector<Case>{
           {{"diff", kPidReuse, kHostileComm, "--frames", "0", "1", "--json"}, "diff", 2},
           {{"tree", "/nonexistent/x.ptape", "--json"}, "tree", 10},
           {{"lab", "--list", "plain", "--json"}, "lab", 2},
           {{"resolve", "--token", "T", "--json"}, "resolve", 2},
           {{"show", "/nonexistent/x.ptape", "--json"}, "show", 10}}) {
    CommandResult r = Proctape(c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.command << ": " << Describe(r);
    EXPECT_TRUE(live::OneLine(r.err)) << c.command << ": " << Describe(r);
    EXPECT_TRUE(live::StartsWith(r.err, "{\"command\":\"" + c.command + "\",\"error\":"))
        << c.command << ": " << Describe(r);
    const std::string status = "\"exit_status\":" + std::to_string(c.exit_code);
    const std::size_t at = r.err.find(status);
    ASSERT_NE(at, std::string::npos) << c.command << ": " << Describe(r);
    EXPECT_TRUE(r.err[at + status.size()] == ',' || r.err[at + status.size()] == '}') << r.err;
  }
}
}  // namespace
}  // namespace proctape::live
