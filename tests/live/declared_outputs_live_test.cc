// SPDX-License-Identifier: Apache-2.0
// Declared outputs of `proctape ownership` on a real git checkout
// (`docs/ownership.md`, "Declared outputs"): git clean -fdX may have removed
// the ignored .venv directory before cleanup looks for the declared
// .venv/bin/python; a missing parent means that the output is already
// absent, and a parent that is a symbolic link or not a directory still
// fails closed. A real Git checkout with ignored, nested declared outputs.
//
// The processes are planned over two shipped corpus files (the pair of
// docs/ownership.md, a PLANNED plan); the outputs are looked up on the real
// filesystem, from the checkout as the working directory. proctape deletes
// nothing: every file the test made is still there after each plan.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/live/build_paths.h"
#include "tests/live/files.h"
#include "tests/live/sandbox.h"

namespace proctape {
namespace {

using live::CommandResult;
using live::Describe;

const char* const kGit = "/usr/bin/git";

// A git checkout in a fresh temporary directory whose .gitignore ignores the
// nested directories that hold the declared outputs.
class DeclaredOutputsLive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!live::Exists(kGit)) GTEST_SKIP() << kGit << " is not installed";
    ASSERT_FALSE(dir_.path().empty());
    // The real path: no link above the checkout for a reader to wonder about.
    root_ = std::filesystem::canonical(dir_.path()).string() + "/checkout";
    std::filesystem::create_directories(root_ + "/.venv/bin");
    std::filesystem::create_directories(root_ + "/build/out");
    live::WriteFile(root_ + "/.gitignore", ".venv/\nbuild/\n");
    live::WriteFile(root_ + "/README", "tracked\n");
    live::WriteFile(root_ + "/.venv/bin/python", "#!/bin/sh\n");
    live::WriteFile(root_ + "/build/out/lib.so", "ELF");
    Git({"init", "-q"});
    Git({"add", ".gitignore", "README"});
  }

  void Git(std::vector<std::string> args) {
    args.insert(args.begin(), {kGit, "-C", root_});
    CommandResult r = live::RunCommand(args);
    ASSERT_EQ(r.exit_code, 0) << Describe(r);
  }

  // proctape ownership over the corpus pair, with `extra`, run in the checkout.
  CommandResult Ownership(const std::vector<std::string>& extra) {
    const std::string corpus = std::string(PROCTAPE_SOURCE_DIR) + "/corpus/";
    std::vector<std::string> argv = {"/bin/sh",
                                     "-c",
                                     "cd \"$1\" && shift && exec \"$@\"",
                                     "sh",
                                     root_,
                                     ::proctape::live::TestedBinary(),
                                     "ownership",
                                     "--baseline",
                                     corpus + "021e7cdf322033a4.ptape",
                                     "--current",
                                     corpus + "d40fb836ad433348.ptape",
                                     "--uid",
                                     "0",
                                     "--cgroup",
                                     "/",
                                     "--self",
                                     "1"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return live::RunCommand(argv);
  }

  static bool Has(const CommandResult& r, const std::string& line) {
    return r.out.find(line + "\n") != std::string::npos;
  }

  live::TempDir dir_{"outputs"};
  std::string root_;
};

const std::vector<std::string> kOutputs = {"--output", ".venv/bin/python", "--output",
                                           "build/out/lib.so"};

TEST_F(DeclaredOutputsLive, GitCleanRemovedIgnoredParentsAndTheOutputsAreAlreadyAbsent) {
  CommandResult before = Ownership(kOutputs);
  ASSERT_EQ(before.exit_code, 0) << Describe(before);
  EXPECT_TRUE(Has(before, "OUTPUT \".venv/bin/python\": present: a regular file")) << before.out;
  EXPECT_TRUE(Has(before, "OUTPUTS: 2 declared: 2 present, 0 already absent. Nothing was deleted."))
      << before.out;

  Git({"clean", "-fdX", "-q"});  // removes the ignored .venv and build, nothing else
  ASSERT_FALSE(live::Exists(root_ + "/.venv"));
  ASSERT_TRUE(live::Exists(root_ + "/README"));

  CommandResult after = Ownership(kOutputs);
  ASSERT_EQ(after.exit_code, 0) << Describe(after);
  // The one line on standard error warns of the root cgroup "/" (docs/ownership.md).
  EXPECT_TRUE(live::OneLine(after.err)) << after.err;
  EXPECT_NE(after.err.find("--cgroup / is the root cgroup"), std::string::npos) << after.err;
  EXPECT_TRUE(live::StartsWith(after.out, "ownership plan for uid 0")) << after.out;
  EXPECT_TRUE(Has(after,
                  "OUTPUT \".venv/bin/python\": already absent: its parent \".venv\" is "
                  "missing"))
      << after.out;
  EXPECT_TRUE(Has(after,
                  "OUTPUT \"build/out/lib.so\": already absent: its parent \"build\" is "
                  "missing"))
      << after.out;
  EXPECT_TRUE(Has(after, "OUTPUTS: 2 declared: 0 present, 2 already absent. Nothing was deleted."))
      << after.out;

  std::vector<std::string> json_args = kOutputs;
  json_args.push_back("--json");
  CommandResult json = Ownership(json_args);
  EXPECT_EQ(json.exit_code, 0) << Describe(json);
  EXPECT_NE(json.out.find("\"outputs_absent\":2"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"state\":\"ABSENT\""), std::string::npos) << json.out;
}

// `docs/ownership.md`, "Declared outputs": a parent that is a symbolic link
// or not a directory still fails closed. The
// ignored .venv comes back as a link to a directory outside the checkout
// holding bin/python, then as a plain file: the plan is refused (exit 7),
// one line per problem, and the link's target is untouched.
TEST_F(DeclaredOutputsLive, SymlinkOrFileInPlaceOfAnIgnoredParentFailsThePlanClosed) {
  Git({"clean", "-fdX", "-q"});
  const std::string elsewhere = std::filesystem::path(root_).parent_path().string() + "/elsewhere";
  std::filesystem::create_directories(elsewhere + "/bin");
  live::WriteFile(elsewhere + "/bin/python", "not the checkout's");
  std::filesystem::create_symlink(elsewhere, root_ + "/.venv");

  CommandResult linked = Ownership(kOutputs);
  EXPECT_EQ(linked.exit_code, 7) << Describe(linked);
  EXPECT_TRUE(Has(linked, "REFUSED: 1 problem; no process is planned")) << linked.out;
  EXPECT_TRUE(Has(linked,
                  "  output-parent-symlink: output \".venv/bin/python\": its parent "
                  "\".venv\" is a symbolic link: cleanup would follow it; the plan fails "
                  "closed"))
      << linked.out;
  EXPECT_EQ(linked.out.find("OUTPUT "), std::string::npos) << linked.out;
  EXPECT_EQ(live::FileBytes(elsewhere + "/bin/python"), "not the checkout's");

  std::filesystem::remove(root_ + "/.venv");
  live::WriteFile(root_ + "/.venv", "a file where a directory was");
  CommandResult filed = Ownership(kOutputs);
  EXPECT_EQ(filed.exit_code, 7) << Describe(filed);
  EXPECT_TRUE(Has(filed,
                  "  output-parent-not-directory: output \".venv/bin/python\": its parent "
                  "\".venv\" is a regular file, not a directory; the plan fails closed"))
      << filed.out;
  EXPECT_TRUE(live::Exists(root_ + "/.venv"));
}

// An --output that names no file is a usage error, on one line.
TEST_F(DeclaredOutputsLive, OutputNamingNoFileIsAUsageError) {
  for (const std::string& bad : {std::string(""), std::string("/"), std::string("//")}) {
    CommandResult r = Ownership({"--output", bad});
    EXPECT_EQ(r.exit_code, 2) << "'" << bad << "': " << Describe(r);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_TRUE(live::OneLine(r.err) && live::StartsWith(r.err, "proctape: ")) << r.err;
  }
}

}  // namespace
}  // namespace proctape
