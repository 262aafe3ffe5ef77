// SPDX-License-Identifier: Apache-2.0
// The one rule for every file proctape writes (docs/cli/outputs.md), from the
// binary, for every command that writes one: capture -o, fingerprint -o,
// export -o (json, dot and sqlite files; proc-dir and csv directories),
// minimize -o, sql --db, resolve and liveness --record, lab --record, corpus
// check --junit (output_writers.h). One test
// per rule, each run for every writer:
//   - an existing output without --force: exit 10, nothing changed, nothing
//     left beside it, nothing run (the lab starts no process);
//   - --force replaces it whole;
//   - a symbolic link is refused even with --force, its target untouched;
//   - a directory is refused (a proc-dir: a directory that is no export);
//   - a missing directory, an unwritable one (as nobody): refused first;
//   - a temporary left by an earlier run blocks nothing;
//   - an empty path, and --force without a file to replace: usage errors;
// and the output options every such command shares (--output and --out, no
// binary file on a terminal). An interrupt is outputs_interrupt_cli_test.cc's;
// corpus add's corpus is outputs_corpus_cli_test.cc's.
// Every process a test starts is its own child, ended by its pid.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "format/reader.h"
#include "tests/live/files.h"
#include "tests/live/output_writers.h"
#include "tests/live/outputs_cli_fixture.h"
#include "tests/live/sandbox.h"
#include "tests/live/build_paths.h"

namespace proctape::live {
namespace {

using namespace outputs;  // outputs_cli_fixture.h

class OutputRules : public ::testing::TestWithParam<Writer> {
 protected:
  void SetUp() override {
    if (GetParam().lab) {
      if (std::string why = SandboxUnavailable(SandboxKind::kUnshare); !why.empty()) {
        GTEST_SKIP() << why;
      }
    }
    ASSERT_FALSE(dir_.path().empty());
    ASSERT_FALSE(tmp_.path().empty());
    how_.cwd = dir_.path();
    how_.tmpdir = tmp_.path();
  }
  std::vector<std::string> Args(const std::string& out, bool force = false) const {
    std::vector<std::string> args = GetParam().args(out);
    if (force) args.push_back("--force");
    return args;
  }
  // Nothing ran: no output printed, no lab directory made.
  void ExpectNothingRan(const CommandResult& r) const {
    EXPECT_EQ(r.out, "") << Describe(r);
    EXPECT_EQ(Entries(tmp_.path()), std::vector<std::string>{}) << "the lab made its directory";
  }
  // What a successful run leaves at `out`: a file, or an export.
  void ExpectWritten(const std::string& out) const {
    if (GetParam().directory) {
      EXPECT_TRUE(Exists(out + "/" + GetParam().marker)) << out;
    } else {
      EXPECT_NE(FileBytes(out).size(), 0u) << out;
    }
  }

  TempDir dir_{"outputs"};
  TempDir tmp_{"outputs-tmp"};
  Invocation how_;
};

TEST_P(OutputRules, AnExistingOutputIsRefusedWithoutForceAndNothingRuns) {
  const std::string out = dir_.File("out");
  std::string refusal = "exists: refused (use --force to replace it)";
  if (GetParam().directory) {  // an earlier export
    ASSERT_EQ(::mkdir(out.c_str(), 0755), 0);
    WriteFile(out + "/" + GetParam().marker, "mine");
    refusal = "holds an earlier export: refused (use --force to replace it)";
  } else {
    WriteFile(out, "mine");
  }
  CommandResult r = RunProctape(how_, Args(out));
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, GetParam().option + " '" + out + "': " + refusal)) << r.err;
  EXPECT_EQ(FileBytes(GetParam().directory ? out + "/" + GetParam().marker : out), "mine");
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{"out"});
  ExpectNothingRan(r);
}

TEST_P(OutputRules, ForceReplacesItWholeAndLeavesNothingBeside) {
  const std::string out = dir_.File("out");
  if (GetParam().directory) {
    ASSERT_EQ(::mkdir(out.c_str(), 0755), 0);
    WriteFile(out + "/" + GetParam().marker, "mine");
    // What the earlier export holds besides (proc-dir: a pid the new frame
    // does not hold; csv: a table): an export's own, replaced (a file of
    // the user's is never replaced: tests/unit/output_file_test.cc).
    const std::string earlier = out + "/" + GetParam().earlier;
    std::filesystem::create_directories(std::filesystem::path(earlier).parent_path());
    WriteFile(earlier, "mine");
  } else {
    WriteFile(out, "mine");
  }
  CommandResult r = RunProctape(how_, Args(out, true));
  EXPECT_EQ(GetParam().wrote.count(r.exit_code), 1u) << Describe(r);
  ExpectWritten(out);
  if (GetParam().directory) {
    EXPECT_NE(FileBytes(out + "/" + GetParam().earlier), "mine");
  }
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{"out"});
  EXPECT_EQ(Entries(tmp_.path()), std::vector<std::string>{});
}

TEST_P(OutputRules, ASymbolicLinkIsRefusedEvenWithForceAndItsTargetUntouched) {
  const std::string target = dir_.File("target");
  const std::string link = dir_.File("link");
  if (GetParam().directory) {
    ASSERT_EQ(::mkdir(target.c_str(), 0755), 0);
    WriteFile(target + "/" + GetParam().marker, "mine");
  } else {
    WriteFile(target, "mine");
  }
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  for (bool force : {false, true}) {
    CommandResult r = RunProctape(how_, Args(link, force));
    EXPECT_EQ(r.exit_code, 10) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << r.err;
    EXPECT_TRUE(Has(
        r.err, GetParam().option + " '" + link + "': is a symbolic link: refused, --force or not"))
        << r.err;
    ExpectNothingRan(r);
  }
  EXPECT_EQ(FileBytes(GetParam().directory ? target + "/" + GetParam().marker : target), "mine");
  EXPECT_EQ(Entries(dir_.path()), (std::vector<std::string>{"link", "target"}));
}

TEST_P(OutputRules, ADirectoryIsRefusedEvenWithForce) {
  const std::string out = dir_.File("out");
  ASSERT_EQ(::mkdir(out.c_str(), 0755), 0);
  WriteFile(out + "/notes", "mine");
  const std::string refusal =
      GetParam().directory ? "': is a directory that is not an earlier export (it holds no " +
                                 GetParam().marker + "): refused, --force or not"
                           : "': is a directory: refused, --force or not";
  for (bool force : {false, true}) {
    CommandResult r = RunProctape(how_, Args(out, force));
    EXPECT_EQ(r.exit_code, 10) << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << r.err;
    EXPECT_TRUE(Has(r.err, GetParam().option + " '" + out + refusal)) << r.err;
    ExpectNothingRan(r);
  }
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{"out"});
  EXPECT_EQ(Entries(out), std::vector<std::string>{"notes"});
}

TEST_P(OutputRules, AMissingDirectoryIsRefusedNamingIt) {
  const std::string out = dir_.File("nope/out");
  CommandResult r = RunProctape(how_, Args(out));
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, GetParam().option + " '" + out + "': cannot write: its directory " +
                             dir_.File("nope") + " does not exist"))
      << r.err;
  ExpectNothingRan(r);
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{});
}

TEST_P(OutputRules, AnUnwritableDirectoryIsRefusedBeforeAnyWork) {
  if (::geteuid() != 0 || FindOnPath("setpriv").empty()) {
    GTEST_SKIP() << "needs root and setpriv to run as nobody";
  }
  // Root's, 0755: nobody may enter it, not write in it. Its TMPDIR is nobody's.
  ASSERT_EQ(::chmod(dir_.path().c_str(), 0755), 0);
  ASSERT_EQ(::chmod(tmp_.path().c_str(), 0777), 0);
  Invocation how = how_;
  how.nobody = true;
  const std::string out = dir_.File("out");
  CommandResult r = RunProctape(how, Args(out));
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(
      Has(r.err, GetParam().option + " '" + out + "': cannot write: cannot create a temporary"))
      << r.err;
  EXPECT_TRUE(Has(r.err, "Permission denied")) << r.err;
  ExpectNothingRan(r);
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{});
}

TEST_P(OutputRules, AStaleTemporaryOfAnEarlierRunDoesNotBlock) {
  const std::string out = dir_.File("out");
  // What a killed run left: an older proctape's NAME.partial, and one of
  // this rule. Neither blocks, neither is touched.
  for (const std::string& stale : {out + ".partial", out + ".k1ll3d.partial"}) {
    if (GetParam().directory) {
      ASSERT_EQ(::mkdir(stale.c_str(), 0755), 0);
    } else {
      WriteFile(stale, "left by a run that was killed");
    }
  }
  CommandResult r = RunProctape(how_, Args(out));
  EXPECT_EQ(GetParam().wrote.count(r.exit_code), 1u) << Describe(r);
  ExpectWritten(out);
  EXPECT_EQ(Entries(dir_.path()),
            (std::vector<std::string>{"out", "out.k1ll3d.partial", "out.partial"}));
  if (!GetParam().directory) {
    EXPECT_EQ(FileBytes(out + ".partial"), "left by a run that was killed");
  }
}

TEST_P(OutputRules, AnEmptyPathIsAUsageError) {
  CommandResult r = RunProctape(how_, Args(""));
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, "an empty path names no file")) << r.err;
  ExpectNothingRan(r);
  EXPECT_EQ(Entries(dir_.path()), std::vector<std::string>{}) << "nothing in the working directory";
}

INSTANTIATE_TEST_SUITE_P(EveryWriter, OutputRules, ::testing::ValuesIn(Writers()),
                         [](const ::testing::TestParamInfo<Writer>& p) { return p.param.name; });

TEST(OutputOptions, ForceWithoutAFileToReplaceIsAUsageError) {
  TempDir dir("outputs-force");
  Invocation how;
  how.cwd = dir.path();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"capture", "--root", SelfPid(), "-o", "-", "--force"},
           {"fingerprint", "--root", SelfPid(), "-o", "-", "--force"},
           {"export", kRecording, "--format", "json", "--force"},
           {"export", kRecording, "--format", "dot", "--out", "-", "--force"},
           {"resolve", "--root", SelfPid(), "--token", "t", "--deadline-ms", "0", "--force"},
           {"resolve", "--root", SelfPid(), "--token", "t", "--deadline-ms", "0", "--record", "-",
            "--force"},
           {"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--force"},
           {"corpus", "check", kCorpus, "--entry", "plain-unshare", "--force"},
       }) {
    CommandResult r = RunProctape(how, args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << r.err;
    EXPECT_TRUE(Has(r.err, "--force replaces an existing output file")) << r.err;
    EXPECT_EQ(r.out, "") << args[0];
  }
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{});
}

TEST(OutputOptions, OutputAndOutAreOneOptionInEveryCommandWithAMainOutput) {
  TempDir dir("outputs-names");
  Invocation how;
  how.cwd = dir.path();
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"capture", "--root", SelfPid(), "--out", "a.ptape"},
           {"capture", "--root", SelfPid(), "--output", "b.ptape"},
           {"fingerprint", "--root", SelfPid(), "--out", "c.ptape"},
           {"export", kRecording, "--format", "dot", "-o", "d.dot"},
           {"export", kRecording, "--format", "dot", "--output", "e.dot"},
       }) {
    CommandResult r = RunProctape(how, args);
    EXPECT_EQ(r.exit_code, 0) << args[0] << " " << args[args.size() - 2] << ": " << Describe(r);
  }
  EXPECT_EQ(Entries(dir.path()),
            (std::vector<std::string>{"a.ptape", "b.ptape", "c.ptape", "d.dot", "e.dot"}));
}

// `args` run by `script` on a pseudo-terminal: standard output is a terminal.
CommandResult OnATerminal(const std::vector<std::string>& args) {
  std::string command = "exec '" + std::string(::proctape::live::TestedBinary()) + "'";
  for (const std::string& a : args) command += " '" + a + "'";  // no quote in them
  return RunCommand({FindOnPath("script"), "-q", "-e", "-c", command, "/dev/null"}, 60'000);
}

TEST(OutputOptions, ABinaryFileIsNeverWrittenToATerminal) {
  if (FindOnPath("script").empty()) GTEST_SKIP() << "needs script (util-linux) for a terminal";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"capture", "--root", SelfPid(), "-o", "-"},
           {"fingerprint", "--root", SelfPid(), "-o", "-"},
           {"resolve", "--root", SelfPid(), "--token", "t", "--deadline-ms", "0", "--record", "-"},
           {"liveness", "--pid", SelfPid(), "--start", SelfStart(), "--record", "-"},
       }) {
    CommandResult r = OnATerminal(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << Describe(r);
    EXPECT_TRUE(Has(r.out, "'-' writes a binary file to standard output, which is a terminal"))
        << args[0] << ": " << Describe(r);
    EXPECT_FALSE(Has(r.out, "PTAPE")) << args[0] << ": the file reached the terminal";
  }
  // Text is for terminals.
  CommandResult r = OnATerminal({"export", kRecording, "--format", "dot"});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(Has(r.out, "digraph proctape")) << r.out;
}

}  // namespace
}  // namespace proctape::live
