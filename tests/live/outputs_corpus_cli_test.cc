// SPDX-License-Identifier: Apache-2.0
// The one output rule (docs/cli/outputs.md) for corpus add's corpus, from the
// binary: a corpus whose directory is missing, a MANIFEST that is a symbolic
// link, a corpus nobody may write in: refused before any work, each on one
// line; the corpus is named by --corpus in add, check and list alike. Every
// process a test starts is its own child, ended by its pid.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/live/files.h"
#include "tests/live/outputs_cli_fixture.h"
#include "tests/live/sandbox.h"

namespace proctape::live {
namespace {

using namespace outputs;  // outputs_cli_fixture.h

TEST(CorpusOutputs, ACorpusWhoseDirectoryIsMissingIsRefusedBeforeAnyWork) {
  TempDir dir("outputs-corpus");
  const std::string corpus = dir.File("nope/corpus");
  CommandResult r = Proctape({"corpus", "add", kRecording, "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, "cannot create the corpus " + corpus + ": its directory " +
                             dir.File("nope") + " does not exist"))
      << r.err;
  EXPECT_EQ(Entries(dir.path()), std::vector<std::string>{});
}

TEST(CorpusOutputs, AManifestThatIsALinkIsRefusedAndItsTargetUntouched) {
  TempDir dir("outputs-corpus");
  ASSERT_EQ(::mkdir(dir.File("corpus").c_str(), 0755), 0);
  WriteFile(dir.File("elsewhere"), "");
  ASSERT_EQ(::symlink(dir.File("elsewhere").c_str(), dir.File("corpus/MANIFEST").c_str()), 0);
  CommandResult r = Proctape({"corpus", "add", kRecording, "--corpus", dir.File("corpus")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, dir.File("corpus/MANIFEST") + " is a symbolic link: refused")) << r.err;
  EXPECT_EQ(FileBytes(dir.File("elsewhere")), "");
  EXPECT_EQ(Entries(dir.File("corpus")), std::vector<std::string>{"MANIFEST"});
}

TEST(CorpusOutputs, AnUnwritableCorpusIsRefusedBeforeTheRecordingIsReplayed) {
  if (::geteuid() != 0 || FindOnPath("setpriv").empty()) {
    GTEST_SKIP() << "needs root and setpriv to run as nobody";
  }
  TempDir dir("outputs-corpus");
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  ASSERT_EQ(::mkdir(dir.File("corpus").c_str(), 0755), 0);
  Invocation how;
  how.nobody = true;
  CommandResult r = RunProctape(how, {"corpus", "add", kRecording, "--corpus", dir.File("corpus")});
  EXPECT_EQ(r.exit_code, 10) << Describe(r);
  EXPECT_TRUE(OneLine(r.err)) << r.err;
  EXPECT_TRUE(
      Has(r.err, "cannot write in the corpus " + dir.File("corpus") + ": Permission denied"))
      << r.err;
  EXPECT_EQ(Entries(dir.File("corpus")), std::vector<std::string>{});
}

TEST(CorpusOutputs, TheCorpusIsNamedByCorpusInAddCheckAndList) {
  TempDir dir("outputs-corpus");
  const std::string corpus = dir.File("c");
  CommandResult r = Proctape({"corpus", "add", kRecording, "--corpus", corpus, "--name", "one"});
  ASSERT_EQ(r.exit_code, 0) << Describe(r);
  r = Proctape({"corpus", "list", "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  EXPECT_TRUE(StartsWith(r.out, "one ")) << r.out;
  r = Proctape({"corpus", "check", "--corpus", corpus});
  EXPECT_EQ(r.exit_code, 0) << Describe(r);
  // The positional DIR of check and list is the same option's shorthand.
  EXPECT_EQ(Proctape({"corpus", "list", corpus}).out,
            Proctape({"corpus", "list", "--corpus", corpus}).out);
  for (const char* command : {"check", "list"}) {
    r = Proctape({"corpus", command, corpus, "--corpus", corpus});
    EXPECT_EQ(r.exit_code, 2) << command << ": " << Describe(r);
    EXPECT_TRUE(OneLine(r.err)) << r.err;
  }
  r = Proctape({"corpus", "add", kRecording, "--corpus", ""});
  EXPECT_EQ(r.exit_code, 2) << Describe(r);
}

}  // namespace
}  // namespace proctape::live
