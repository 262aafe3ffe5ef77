// SPDX-License-Identifier: Apache-2.0
// Usage errors found when a command runs (docs/cli/messages.md, "Usage
// errors"): a line that parses but cannot run has the form of a parse error
// (tests/live/usage_errors_cli_test.cc), "proctape: CMD: WHAT", exit 2, the
// same words under --json.
#include <gtest/gtest.h>

#include <unistd.h>

#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/cli_contract_table.h"
#include "tests/live/files.h"
#include "tests/live/output_writers.h"

namespace proctape::live {
namespace {

// A line that parses but cannot run (a value checked when the command runs,
// options that conflict, a file that cannot answer what was asked) is a
// usage error of the same form as a parse error: one mechanism, Fail with
// status 2 (cli/errors.h).
TEST(RunTimeUsageErrors, HaveTheFormOfParseErrors) {
  TempDir dir("usage");
  const std::string rec = CorpusRecording();
  const std::string self = SelfPid();
  struct Case {
    std::string command;  // as the message names it
    Args args;
  };
  const std::vector<Case> cases = {
      {"resolve", {"resolve", "--token", "t"}},
      {"resolve", {"resolve", "--root", self, "--token", "t", "--force"}},
      {"capture", {"capture", "--root", self, "-o", dir.File("c"), "--interval", "100"}},
      {"liveness", {"liveness", "--pid", self, "--start", "1", "--proc", dir.path()}},
      {"fingerprint", {"fingerprint", "--root", self, "--exe", dir.path(), "-o", dir.File("f")}},
      {"verify", {"verify", "-", "-"}},
      {"show", {"show", "-", "-"}},
      {"tree", {"tree", rec, "--frame", "99"}},
      {"explain", {"explain", rec, "--check", "99"}},
      {"export", {"export", rec, "--format", "json", "--frame", "0", "-o", dir.File("e")}},
      {"replay", {"replay", rec, "--exe-identity", "zz"}},
      {"corpus add", {"corpus", "add", rec, rec, "--name", "x", "--corpus", dir.File("corpus")}},
      {"corpus check", {"corpus", "check", SourceCorpus(), "--corpus", SourceCorpus()}},
      {"corpus rm", {"corpus", "rm", "no-such-entry", "--corpus", SourceCorpus()}},
      {"lab", {"lab"}},
      {"lab", {"lab", "no-such-scenario", "--record", dir.File("l")}},
      {"lab", {"lab", "--list", "plain"}},
      {"help", {"help", "no-such-topic"}},
  };
  for (const Case& c : cases) {
    const CommandResult r = Proctape(c.args);
    const std::string head = "proctape: " + c.command + ": ";
    const std::string tail = " (see 'proctape " + c.command + " --help')\n";
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_TRUE(StartsWith(r.err, head)) << Describe(r);
    EXPECT_TRUE(r.err.size() > head.size() + tail.size() &&
                r.err.compare(r.err.size() - tail.size(), tail.size(), tail) == 0)
        << "ends in " << tail << Describe(r);
    // The message says what is wrong, not again whose it is.
    EXPECT_EQ(r.err.find(head + c.command), std::string::npos) << Describe(r);
    EXPECT_EQ(r.out, "") << Describe(r);
  }
}

// Under --json, the same words in the error object.
TEST(RunTimeUsageErrors, AreTheSameWordsUnderJson) {
  const CommandResult text = Proctape({"resolve", "--token", "t"});
  const CommandResult json = Proctape({"resolve", "--token", "t", "--json"});
  EXPECT_EQ(json.exit_code, 2);
  std::string message = text.err.substr(std::string("proctape: ").size());
  message.pop_back();
  EXPECT_NE(json.err.find("\"error\":\"" + message + "\""), std::string::npos)
      << Describe(text) << "\n"
      << Describe(json);
}

// The top level: no command known, the pointer is to the list of commands.
TEST(RunTimeUsageErrors, TopLevelPointsToTheListOfCommands) {
  CommandResult r = Proctape({"nosuch"});
  EXPECT_EQ(r.err, "proctape: 'nosuch' is not a proctape command (see 'proctape --help')\n");
  r = Proctape({"--bogus"});
  EXPECT_EQ(r.err,
            "proctape: unknown option '--bogus': a command comes first (see 'proctape --help')\n");
}

// What the resolver refuses as INVALID_REQUEST (an empty token, a token
// variable holding '=', an argv over the cmdline bound) is refused by resolve
// and by replay's overrides alike, with the same words, exit 2, before any
// read: replay of a file that does not exist, resolve of a --proc that is no
// procfs, name the word, not the path; nothing is recorded.
TEST(RequestWords, ResolveAndReplayRefuseTheSameWordsBeforeAnyRead) {
  TempDir dir("words");
  const std::string self = std::to_string(::getpid());
  const std::string recording = SourceCorpus() + "/f46add6575430d19.ptape";
  const std::string long_argv(65536, 'a');  // with its NUL, one byte over the bound
  const std::vector<std::pair<Args, std::string>> words = {
      {{"--token", ""}, "--token: the invocation token is empty (INVALID_REQUEST)"},
      {{"--token", "t", "--token-var", "A=B"},
       "--token-var: the token variable name is empty or holds '=' or NUL (INVALID_REQUEST)"},
      {{"--token", "t", "--argv", long_argv},
       "--argv: the expected argv is longer than the cmdline bound (INVALID_REQUEST)"}};
  for (const auto& [word, what] : words) {
    Args resolve = {"resolve",       "--root", self,       "--proc",           dir.File("nowhere"),
                    "--deadline-ms", "0",      "--record", dir.File("r.ptape")};
    resolve.insert(resolve.end(), word.begin(), word.end());
    Args replay = {"replay", dir.File("missing.ptape")};
    replay.insert(replay.end(), word.begin(), word.end());
    Args replay_file = {"replay", recording};
    replay_file.insert(replay_file.end(), word.begin(), word.end());
    for (const auto& [args, command] : std::vector<std::pair<Args, std::string>>{
             {resolve, "resolve"}, {replay, "replay"}, {replay_file, "replay"}}) {
      const CommandResult r = Proctape(args);
      EXPECT_EQ(r.exit_code, 2) << what << "\n" << Describe(r);
      EXPECT_EQ(r.out, "") << Describe(r);
      EXPECT_EQ(r.err,
                "proctape: " + command + ": " + what + " (see 'proctape " + command + " --help')\n")
          << Describe(r);
    }
    EXPECT_FALSE(Exists(dir.File("r.ptape")));
  }
}

// pid 1 where a live pid is asked for is refused saying why, not with the
// range alone: init is outside the resolver's pids, and a sandbox's marker
// (a pid of its own namespace) is often 1.
TEST(PidOne, IsRefusedSayingWhy) {
  TempDir dir("pid-one");
  const std::string recording = SourceCorpus() + "/f46add6575430d19.ptape";
  for (const auto& [args, command] : std::vector<std::pair<Args, std::string>>{
           {{"resolve", "--root", "1", "--token", "t"}, "resolve"},
           {{"fingerprint", "--root", "1", "-o", dir.File("fp")}, "fingerprint"},
           {{"liveness", "--pid", "1", "--start", "5"}, "liveness"},
           {{"replay", recording, "--root", "1"}, "replay"}}) {
    const CommandResult r = Proctape(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << Describe(r);
    EXPECT_TRUE(StartsWith(r.err, "proctape: " + command + ": ")) << Describe(r);
    EXPECT_NE(r.err.find("'1' is outside 2..2^31-1: pid 1 is init"), std::string::npos)
        << Describe(r);
    EXPECT_NE(r.err.find("marker"), std::string::npos) << Describe(r);
  }
}

// --exe-like of a pid the first frame does not hold says so in words, not
// as an errno number.
TEST(ExeLike, APidTheFirstFrameDoesNotHoldIsSaidInWords) {
  const std::string recording = SourceCorpus() + "/f46add6575430d19.ptape";
  const CommandResult r = Proctape({"replay", recording, "--exe-like", "999999"});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << Describe(r);
  EXPECT_TRUE(StartsWith(r.err, "proctape: replay: --exe-like 999999: the first frame of " +
                                    recording + " holds no process 999999"))
      << Describe(r);
  EXPECT_EQ(r.err.find("errno"), std::string::npos) << Describe(r);
}

}  // namespace
}  // namespace proctape::live
