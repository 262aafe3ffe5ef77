// SPDX-License-Identifier: Apache-2.0
// README.md's examples run, so that they cannot drift from the binary: every
// ```sh block is run in a fresh directory by a bash session of its own
// (shell_session.h), command by command, unless an HTML comment just above it
// says why not ("<!-- not run: WHY -->"). For each command:
//   - its exit status is 0, or one its comment names ("# ... (exit 5 if absent)");
//   - each "#   OUTPUT" line under it begins with a word that begins a line
//     of what it printed ("RESOLVED", "ALIVE:", "wrote");
// with the built proctape first on PATH (build/cli/proctape is written
// `proctape`), README's placeholders made real — 4242 an app-server and 4243
// its sandboxed sleep (a sandbox this test starts, tests/live/sandbox.h),
// t0k3n that sandbox's token, /tmp/ a directory of the test's, the numbers of
// an example output (48213 in "RESOLVED host pid 48213") what the command
// printed there — and the files an example reads but no command before it
// wrote made here (Fixtures below).
//
// The test is the processes' subreaper while a block runs: every process a
// block starts, background jobs and their orphans included, is ended by pid
// (a pidfd checked against its start time) and reaped when the block is done.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/cli_contract.h"
#include "tests/live/files.h"
#include "tests/live/output_writers.h"
#include "tests/live/readme_examples.h"
#include "tests/live/sandbox.h"
#include "tests/live/shell_session.h"

namespace proctape::live {

void PrintTo(const ReadmeBlock& block, std::ostream* os) {
  *os << "README.md line " << block.line << " (" << block.heading << ")";
}

namespace {

const std::vector<ReadmeBlock>& Blocks() {
  static const std::vector<ReadmeBlock> blocks =
      ReadmeBlocks(FileBytes(std::string(PROCTAPE_SOURCE_DIR) + "/README.md"));
  return blocks;
}

// "UsingItByHand", "CapturingEvidenceOnAFailingHost_2" for a second block.
std::string BlockName(const ::testing::TestParamInfo<ReadmeBlock>& p) {
  int same = 0;
  for (std::size_t i = 0; i < p.index; ++i) same += Blocks()[i].heading == p.param.heading;
  const std::string name = CamelCase(p.param.heading);
  return (name.empty() ? "Top" : name) + (same > 0 ? "_" + std::to_string(same + 1) : "");
}

bool HasWord(const std::string& text, const std::string& word) {
  return ReplaceWord(text, word, std::string(1, '\x01')) != text;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
    text.replace(at, from.size(), to);
  }
  return text;
}

class ReadmeExample : public ::testing::TestWithParam<ReadmeBlock> {
 protected:
  void SetUp() override {
    if (!GetParam().not_run.empty()) GTEST_SKIP() << "README: not run: " << GetParam().not_run;
    for (SandboxKind kind : {SandboxKind::kUnshare, SandboxKind::kBwrap}) {
      const std::string why = SandboxUnavailable(kind);
      const bool needed = kind == SandboxKind::kUnshare || Mentions(SandboxName(kind));
      if (needed && !why.empty()) GTEST_SKIP() << "the example needs " << kind << ": " << why;
    }
    ::signal(SIGPIPE, SIG_IGN);  // a shell that died is a failed write, not our end
    ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    subreaper_ = true;
    ASSERT_FALSE(dir_.path().empty());
    ASSERT_FALSE(scratch_.path().empty());
  }
  void TearDown() override {
    shell_.reset();
    sandbox_.reset();
    if (subreaper_) {
      EndEveryProcessStarted();
      ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    }
  }

  bool Mentions(const std::string& word) const {
    for (const ReadmeCommand& c : GetParam().commands) {
      if (HasWord(c.text, word)) return true;
    }
    return false;
  }

  // Every process still beneath this test (our subreaper's orphans
  // included): SIGKILL by pidfd, then reaped.
  static void EndEveryProcessStarted() {
    for (int round = 0; round < 3 && !Descendants(::getpid()).empty(); ++round) {
      for (pid_t p : Descendants(::getpid())) {
        std::string error;
        if (std::optional<ProcStat> st = ReadStat(p)) {
          PidFd::Open(p, st->start_ticks, &error).Kill();
        }
      }
      for (pid_t p : Descendants(::getpid())) WaitGoneOrDead(p, 3000);
      int status = 0;
      while (::waitpid(-1, &status, WNOHANG) > 0) {
      }
    }
  }

  Sandbox& TheSandbox() {
    if (!sandbox_) {
      std::string error;
      sandbox_ = Sandbox::Start(SandboxKind::kUnshare, token_, &error);
      EXPECT_NE(sandbox_, nullptr) << error;
    }
    return *sandbox_;
  }
  std::string AppServer() { return std::to_string(TheSandbox().app_server()); }

  // README's placeholders made real, then the numbers learned from outputs.
  std::string Substitute(std::string text) {
    text = Replace(text, "build/cli/proctape", "proctape");
    text = Replace(text, "/tmp/", scratch_.path() + "/");
    text = ReplaceWord(text, "t0k3n", token_);
    if (HasWord(text, "4242")) text = ReplaceWord(text, "4242", AppServer());
    if (HasWord(text, "4243")) {
      text = ReplaceWord(text, "4243", std::to_string(TheSandbox().sleep_pid()));
    }
    for (const auto& [from, to] : learned_) text = ReplaceWord(text, from, to);
    return text;
  }

  // The files README's examples read that no example before writes: made in
  // the block's directory before the first command that reads them.
  std::map<std::string, std::function<CommandResult(const std::string& path)>> Fixtures() {
    const auto copy = [](const std::string& recording) {
      return [recording](const std::string& path) {
        WriteFile(path, FileBytes(SourceCorpus() + "/" + recording));
        return CommandResult{true, false, 0, 0, "", "", ""};
      };
    };
    return {
        // A failure recorded on CI: the corpus's pid-reuse-unshare, the
        // recording README's example outputs are of.
        {"failure.ptape", copy("021e7cdf322033a4.ptape")},
        {"bug.ptape", copy("f46add6575430d19.ptape")},   // plain-unshare
        {"lab1.ptape", copy("d40fb836ad433348.ptape")},  // hostile-comm-unshare
        {"lab2.ptape", copy("90f88ffa55b074b2.ptape")},  // exited-unshare
        {"host.ptape",
         [this](const std::string& path) {
           return Proctape({"capture", "--root", AppServer(), "--env", "keep", "-o", path});
         }},
        {"root.ptape",
         [this](const std::string& path) {
           return Proctape({"fingerprint", "--root", AppServer(), "-o", path});
         }},
        {"late.ptape",
         [this](const std::string& path) {
           return Proctape({"resolve", "--root", AppServer(), "--token", token_, "--record", path});
         }},
    };
  }
  void MakeFixtures(const std::string& command) {
    const std::set<std::string> written = WrittenBy(command);
    for (const auto& [name, make] : Fixtures()) {
      if (!HasWord(command, name) || written.count(name) > 0 || Exists(dir_.File(name))) continue;
      const CommandResult r = make(dir_.File(name));
      EXPECT_EQ(r.exit_code, 0) << "making " << name << " for the example\n" << Describe(r);
    }
  }

  TempDir dir_{"readme"};
  TempDir scratch_{"readme-tmp"};
  std::string token_ = RandomHex(8);
  std::unique_ptr<Sandbox> sandbox_;
  std::unique_ptr<ShellSession> shell_;
  std::map<std::string, std::string> learned_;
  bool subreaper_ = false;
};

TEST_P(ReadmeExample, RunsAndPrintsWhatTheReadmeSays) {
  const ReadmeBlock& block = GetParam();
  ASSERT_FALSE(block.commands.empty()) << "README.md line " << block.line << ": an empty block";
  std::string error;
  shell_ = ShellSession::Start(
      dir_.path(), std::filesystem::path(::proctape::live::TestedBinary()).parent_path().string(),
      &error);
  ASSERT_NE(shell_, nullptr) << error;
  for (const ReadmeCommand& c : block.commands) {
    const std::string text = Substitute(c.text);
    MakeFixtures(text);
    const std::string where =
        "README.md line " + std::to_string(c.line) + ": " + c.text + "\n  (run as: " + text + ")";
    const ShellSession::Result r = shell_->Run(text, 180'000);
    ASSERT_TRUE(r.ran) << where << "\n" << r.error;
    const std::string said = "\nstdout: " + r.out + "\nstderr: " + r.err;
    std::string allowed;
    for (int s : c.statuses) allowed += " " + std::to_string(s);
    EXPECT_EQ(c.statuses.count(r.status), 1u)
        << where << "\nexited " << r.status << "; README says it exits with one of:" << allowed
        << " (0, or a status its comment names: 'exit N')" << said;
    const std::vector<std::string> lines = LinesOf(r.out + r.err);
    for (const std::string& shape : c.shapes) {
      const std::string word = FirstWord(shape);
      const std::string* match = nullptr;
      for (const std::string& line : lines) {
        if (match == nullptr && FirstWord(line) == word) match = &line;
      }
      EXPECT_NE(match, nullptr) << where << "\nREADME says it prints a line like\n  " << shape
                                << "\nbut no line it printed begins with '" << word << "'" << said;
      if (match != nullptr) {
        for (const auto& [from, to] : PlaceholdersOf(shape, *match)) learned_[from] = to;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Readme, ReadmeExample, ::testing::ValuesIn(Blocks()), BlockName);

// The runner reads what README holds: blocks, commands, their outputs.
TEST(ReadmeExamples, EveryShellBlockIsFoundWithItsCommands) {
  ASSERT_GE(Blocks().size(), 8u) << "README.md's ```sh blocks were not read";
  std::size_t shapes = 0;
  for (const ReadmeBlock& b : Blocks()) {
    EXPECT_FALSE(b.commands.empty()) << "README.md line " << b.line << ": a block without commands";
    for (const ReadmeCommand& c : b.commands) shapes += c.shapes.size();
  }
  EXPECT_GE(shapes, 10u) << "the '#   output' lines under README's commands were not read";
}

}  // namespace
}  // namespace proctape::live
