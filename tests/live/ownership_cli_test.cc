// SPDX-License-Identifier: Apache-2.0
// `proctape ownership` from the binary on the shipped corpus
// (`docs/ownership.md`): the plan of a corpus pair is the golden files'
// (tests/golden/ownership/, written by the unit test
// OwnershipTest.GoldenCorpusPair), text and JSON; a refused plan of status 2
// says its first problem on standard error; errors are one line each, with the
// documented status. The live check on real processes is
// ownership_live_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;

// The repository root: the golden files and the corpus, by relative path.
std::string SourceDir() { return PROCTAPE_SOURCE_DIR; }

// proctape ARGS..., run with the repository root as working directory so that
// the file names it prints are the relative ones of the golden files.
CommandResult ProctapeInSource(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/sh", "-c",        "cd \"$1\" && shift && exec \"$@\"",
                                   "sh",      SourceDir(), ::proctape::live::TestedBinary()};
  argv.insert(argv.end(), args.begin(), args.end());
  return live::RunCommand(argv);
}

std::string Golden(const std::string& name) {
  return live::FileBytes(SourceDir() + "/tests/golden/ownership/" + name);
}

// The unit test OwnershipTest.GoldenCorpusPair writes these files
// (PROCTAPE_UPDATE_GOLDEN=1); the binary must print exactly them.
TEST(OwnershipCli, CorpusPairPrintsTheGoldenPlan) {
  const std::vector<std::string> args = {"ownership",
                                         "--baseline",
                                         "corpus/021e7cdf322033a4.ptape",
                                         "--current",
                                         "corpus/d40fb836ad433348.ptape",
                                         "--uid",
                                         "0",
                                         "--cgroup",
                                         "/",
                                         "--self",
                                         "1"};
  CommandResult text = ProctapeInSource(args);
  EXPECT_EQ(text.exit_code, 0) << Describe(text);
  EXPECT_EQ(text.out, Golden("corpus-pair.txt"));
  // Planned, with one warning: "/" is the root cgroup.
  EXPECT_TRUE(live::OneLine(text.err)) << text.err;
  EXPECT_TRUE(live::StartsWith(text.err, "proctape: warning: --cgroup / is the root cgroup"))
      << text.err;
  std::vector<std::string> json_args = args;
  json_args.push_back("--json");
  CommandResult json = ProctapeInSource(json_args);
  EXPECT_EQ(json.exit_code, 0) << Describe(json);
  EXPECT_EQ(json.out, Golden("corpus-pair.json"));

  std::vector<std::string> swapped = args;
  std::swap(swapped[2], swapped[4]);
  CommandResult refused = ProctapeInSource(swapped);
  EXPECT_EQ(refused.exit_code, 2) << Describe(refused);
  EXPECT_EQ(refused.out, Golden("corpus-reversed.txt"));
}

// A refused plan of status 2 is no usage error, yet every exit 2 has its one
// line on standard error: the finding, by the first problem, in the plain
// form (no command before it, no "usage error"), the same under --json.
TEST(OwnershipCli, ARefusedPlanOfStatusTwoSaysItsFirstProblemOnStandardError) {
  std::vector<std::string> args = {"ownership",
                                   "--baseline",
                                   "corpus/d40fb836ad433348.ptape",
                                   "--current",
                                   "corpus/021e7cdf322033a4.ptape",
                                   "--uid",
                                   "0",
                                   "--cgroup",
                                   "/",
                                   "--self",
                                   "1"};
  for (const bool json : {false, true}) {
    std::vector<std::string> line = args;
    if (json) line.push_back("--json");
    CommandResult r = ProctapeInSource(line);
    EXPECT_EQ(r.exit_code, 2) << Describe(r);
    ASSERT_TRUE(live::OneLine(r.err)) << Describe(r);
    const std::string said =
        json ? "{\"command\":\"ownership\",\"error\":\"exit 2: the plan is REFUSED: "
             : "proctape: exit 2: the plan is REFUSED: ";
    EXPECT_TRUE(live::StartsWith(r.err, said)) << Describe(r);
    if (!json) {  // the first problem as the plan lists it: kind, where, whom
      const std::size_t at = r.out.find("\n  ", r.out.find("\nREFUSED: "));
      ASSERT_NE(at, std::string::npos) << Describe(r);
      const std::string first = r.out.substr(at + 3, r.out.find(':', at) - at - 3);
      EXPECT_TRUE(live::StartsWith(r.err, said + first + ": ")) << first << "\n" << Describe(r);
    }
    EXPECT_EQ(r.err.find("usage error"), std::string::npos) << Describe(r);
    EXPECT_EQ(r.err.find("--help"), std::string::npos) << Describe(r);
  }
}

// Errors are one line each, with the documented status.
TEST(OwnershipCli, ErrorsAreOneLineWithTheirStatus) {
  const std::string corpus = SourceDir() + "/corpus/021e7cdf322033a4.ptape";
  CommandResult missing = live::RunCommand({::proctape::live::TestedBinary(), "ownership",
                                            "--baseline", "/nonexistent/b.ptape", "--current",
                                            corpus, "--uid", "0", "--cgroup", "/", "--self", "1"});
  EXPECT_EQ(missing.exit_code, 10) << Describe(missing);
  EXPECT_TRUE(live::OneLine(missing.err)) << missing.err;
  EXPECT_TRUE(live::StartsWith(missing.err, "proctape: --baseline '/nonexistent/b.ptape': "))
      << missing.err;

  CommandResult relative =
      live::RunCommand({::proctape::live::TestedBinary(), "ownership", "--baseline", corpus,
                        "--current", corpus, "--uid", "0", "--cgroup", "sandbox", "--self", "1"});
  EXPECT_EQ(relative.exit_code, 2) << Describe(relative);
  EXPECT_TRUE(live::OneLine(relative.err)) << relative.err;

  CommandResult no_self =
      live::RunCommand({::proctape::live::TestedBinary(), "ownership", "--baseline", corpus,
                        "--current", corpus, "--uid", "0", "--cgroup", "/"});
  EXPECT_EQ(no_self.exit_code, 2) << Describe(no_self);
  EXPECT_NE(no_self.err.find("--self"), std::string::npos) << no_self.err;
}

}  // namespace
}  // namespace proctape
