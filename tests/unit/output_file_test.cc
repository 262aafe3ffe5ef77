// SPDX-License-Identifier: Apache-2.0
// fs/output_file.h: the one rule for every file proctape writes
// (docs/cli/outputs.md), one test per rule: what is checked before any work,
// the temporary beside the output, the commit and nothing left behind
// otherwise, and a directory output. Interrupts: output_file_interrupt_test.cc.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "fs/output_file.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/failure_text.h"
#include "tests/unit/output_file_fixture.h"

namespace proctape {
namespace {

using namespace test;  // OutputFileTest, FileAt, Has, Slurp, Spit

// ---- Checked before any work --------------------------------------------------

TEST_F(OutputFileTest, AnEmptyPathIsAUsageError) {
  Failure error;
  EXPECT_FALSE(Open("", true, &error, true));
  EXPECT_EQ(error.kind, FailureKind::kUsage);
  EXPECT_EQ(error.message, "an empty path names no file");
}

TEST_F(OutputFileTest, DashIsStandardOutputOnlyWhereTheCommandAllowsIt) {
  Failure error;
  EXPECT_FALSE(Open("-", false, &error, false));
  EXPECT_EQ(error.kind, FailureKind::kUsage);
  EXPECT_TRUE(Has(error.message, "standard output")) << error.message;
  std::unique_ptr<OutputFile> out = Open("-", false, &error, true);
  ASSERT_TRUE(out) << error.message;
  EXPECT_TRUE(out->is_stdout());
  EXPECT_EQ(out->fd(), STDOUT_FILENO);
  EXPECT_EQ(out->temporary(), "");
  EXPECT_EQ(out->shown(), "standard output");
  EXPECT_TRUE(Names().empty());
}

TEST_F(OutputFileTest, AMissingDirectoryIsRefusedNamingIt) {
  Failure error;
  EXPECT_FALSE(Open(Path("nope/out.ptape"), true, &error));
  EXPECT_EQ(error.kind, FailureKind::kIo);
  EXPECT_EQ(error.message, Path("nope/out.ptape") + ": cannot write: its directory " +
                               Path("nope") + " does not exist");
  Spit(Path("file"), "x");
  EXPECT_FALSE(Open(Path("file/out.ptape"), true, &error));
  EXPECT_TRUE(Has(error.message, Path("file") + " is not a directory")) << error.message;
  EXPECT_EQ(Names(), std::vector<std::string>{"file"});
}

TEST_F(OutputFileTest, ASymbolicLinkIsRefusedEvenWithForceAndItsTargetUntouched) {
  Spit(Path("precious"), "keep me");
  ASSERT_EQ(::symlink(Path("precious").c_str(), Path("link").c_str()), 0);
  ASSERT_EQ(::symlink(Path("nowhere").c_str(), Path("dangling").c_str()), 0);
  for (const char* name : {"link", "dangling"}) {
    for (bool force : {false, true}) {
      Failure error;
      EXPECT_FALSE(Open(Path(name), force, &error));
      EXPECT_EQ(error.message, Path(name) +
                                   ": is a symbolic link: refused, --force or not (a "
                                   "link's target is never written)");
    }
  }
  EXPECT_EQ(Slurp(Path("precious")), "keep me");
  EXPECT_EQ(Names(), (std::vector<std::string>{"dangling", "link", "precious"}));
}

TEST_F(OutputFileTest, ADirectoryOrADeviceIsRefusedEvenWithForce) {
  ASSERT_EQ(::mkdir(Path("d").c_str(), 0755), 0);
  Failure error;
  EXPECT_FALSE(Open(Path("d"), true, &error));
  EXPECT_EQ(error.message, Path("d") + ": is a directory: refused, --force or not (name a file)");
  // Named so that it can only be a directory: the same words when it is one.
  for (const std::string& name : {Path("d/"), Path("d/."), Path("d/../d/")}) {
    EXPECT_FALSE(Open(name, true, &error));
    EXPECT_EQ(error.message, name + ": is a directory: refused, --force or not (name a file)");
  }
  EXPECT_FALSE(Open(Path("none/"), true, &error));
  EXPECT_EQ(error.message, Path("none/") + ": names a directory, not a new file: refused");
  // Never replaced by a rename: checked before a temporary is made in /dev.
  EXPECT_FALSE(Open("/dev/null", true, &error));
  EXPECT_TRUE(Has(error.message, "/dev/null: is not a regular file")) << error.message;
  EXPECT_EQ(Names(), std::vector<std::string>{"d"});
}

TEST_F(OutputFileTest, AnExistingFileNeedsForce) {
  Spit(Path("out"), "older");
  Failure error;
  EXPECT_FALSE(Open(Path("out"), false, &error));
  EXPECT_EQ(error.message, Path("out") + ": exists: refused (use --force to replace it)");
  EXPECT_EQ(Names(), std::vector<std::string>{"out"});
  std::unique_ptr<OutputFile> out = Open(Path("out"), true, &error);
  ASSERT_TRUE(out) << error.message;
  ASSERT_EQ(Why(out->Write("newer")), "");
  EXPECT_EQ(Slurp(Path("out")), "older");  // until the commit
  ASSERT_EQ(Why(out->Commit()), "");
  EXPECT_EQ(Slurp(Path("out")), "newer");
  EXPECT_EQ(Names(), std::vector<std::string>{"out"});
}

// ---- A temporary beside it, new for each run -----------------------------------

TEST_F(OutputFileTest, TheTemporaryIsMadeAtOnceBesideTheOutputWithANewName) {
  Failure error;
  std::unique_ptr<OutputFile> a = Open(Path("out.ptape"), false, &error);
  ASSERT_TRUE(a) << error.message;
  std::unique_ptr<OutputFile> b = Open(Path("out.ptape"), false, &error);
  ASSERT_TRUE(b) << error.message;
  std::vector<std::string> names = Names();
  ASSERT_EQ(names.size(), 2u);
  for (const std::string& name : names) {
    EXPECT_TRUE(IsTemporaryOf(name, "out.ptape")) << name;
    EXPECT_TRUE(Path(name) == a->temporary() || Path(name) == b->temporary()) << name;
  }
  EXPECT_NE(a->temporary(), b->temporary());
}

TEST_F(OutputFileTest, TemporariesLeftByEarlierRunsBlockNothingAndAreLeftAlone) {
  Spit(Path("out.ptape.partial"), "an older proctape's");
  Spit(Path("out.ptape.zzzzzz.partial"), "killed");
  Failure error;
  std::unique_ptr<OutputFile> out = Open(Path("out.ptape"), false, &error);
  ASSERT_TRUE(out) << error.message;
  ASSERT_EQ(Why(out->WriteAndCommit("new")), "");
  EXPECT_EQ(Names(), (std::vector<std::string>{"out.ptape", "out.ptape.partial",
                                               "out.ptape.zzzzzz.partial"}));
  EXPECT_EQ(Slurp(Path("out.ptape.zzzzzz.partial")), "killed");
}

TEST_F(OutputFileTest, ALongNameKeepsItsTemporaryWithinNameMax) {
  const std::string base(255, 'n');
  Failure error;
  std::unique_ptr<OutputFile> out = Open(Path(base), false, &error);
  ASSERT_TRUE(out) << error.message;
  const std::string name = out->temporary().substr(dir_.size() + 1);
  EXPECT_LE(name.size(), 255u);
  EXPECT_TRUE(IsTemporaryOf(name, base)) << name;
  ASSERT_EQ(Why(out->Commit()), "");
  EXPECT_EQ(Names(), std::vector<std::string>{base});
}

TEST_F(OutputFileTest, IsTemporaryOfNamesTheRuleExactly) {
  EXPECT_TRUE(IsTemporaryOf("a.ptape.x1y2z3.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("a.ptape.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("a.ptape.x1y2z.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("a.ptape.X1Y2Z3.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("b.ptape.x1y2z3.partial", "a.ptape"));
  EXPECT_FALSE(IsTemporaryOf("a.ptape.x1y2z3.partial2", "a.ptape"));
}

// ---- Commit, and nothing left behind otherwise ---------------------------------

TEST_F(OutputFileTest, NotCommittedLeavesNothing) {
  Failure error;
  {
    std::unique_ptr<OutputFile> out = Open(Path("out"), false, &error);
    ASSERT_TRUE(out) << error.message;
    ASSERT_EQ(Why(out->Write("half")), "");
  }
  EXPECT_TRUE(Names().empty());
}

TEST_F(OutputFileTest, AFileThatAppearedMeanwhileIsNotReplacedWithoutForce) {
  Failure error;
  std::unique_ptr<OutputFile> out = Open(Path("out"), false, &error);
  ASSERT_TRUE(out) << error.message;
  Spit(Path("out"), "theirs");
  EXPECT_EQ(Why(out->Commit()), Path("out") +
                                    ": appeared while it was being written: not replaced without "
                                    "--force (nothing was written)");
  EXPECT_EQ(Slurp(Path("out")), "theirs");
  EXPECT_EQ(Names(), std::vector<std::string>{"out"});
}

TEST_F(OutputFileTest, AbandonLeavesTheTemporaryAsSigkillWould) {
  Failure error;
  std::unique_ptr<OutputFile> out = Open(Path("out"), false, &error);
  ASSERT_TRUE(out) << error.message;
  ASSERT_EQ(Why(out->Write("chunks")), "");
  const std::string left = out->Abandon();
  out.reset();
  EXPECT_EQ(Slurp(left), "chunks");
  EXPECT_FALSE(std::filesystem::exists(Path("out")));
}

TEST_F(OutputFileTest, WriteOutputFileIsTheWholeRuleInOneCall) {
  std::string error;
  ASSERT_EQ(Why(WriteOutputFile(Path("a"), "one", false)), "");
  error = Why(WriteOutputFile(Path("a"), "two", false));
  EXPECT_NE(error, "");
  EXPECT_TRUE(Has(error, "exists: refused (use --force")) << error;
  ASSERT_EQ(Why(WriteOutputFile(Path("a"), "two", true)), "");
  EXPECT_EQ(Slurp(Path("a")), "two");
  EXPECT_EQ(Names(), std::vector<std::string>{"a"});
}

// ---- A directory output --------------------------------------------------------

TEST_F(OutputFileTest, ADirectoryOutputIsATemporaryDirectoryRenamed) {
  Failure error;
  std::unique_ptr<OutputFile> out = OpenDirectory(Path("frame0/"), false, &error);
  ASSERT_TRUE(out) << error.message;
  ASSERT_EQ(Names().size(), 1u);
  EXPECT_TRUE(IsTemporaryOf(Names()[0], "frame0")) << Names()[0];
  ASSERT_EQ(::mkdirat(out->fd(), "1", 0755), 0);
  ASSERT_EQ(Why(out->Commit()), "");
  EXPECT_EQ(Names(), std::vector<std::string>{"frame0"});
  EXPECT_EQ(Names("frame0"), std::vector<std::string>{"1"});
}

TEST_F(OutputFileTest, ANonEmptyDirectoryIsReplacedOnlyWhenAnEarlierOutputAndForced) {
  ASSERT_EQ(::mkdir(Path("home").c_str(), 0755), 0);
  Spit(Path("home/notes"), "mine");
  Failure error;
  for (bool force : {false, true}) {
    EXPECT_FALSE(OpenDirectory(Path("home"), force, &error));
    EXPECT_EQ(error.message, Path("home") +
                                 ": is a directory that is not an earlier export (it "
                                 "holds no marker): refused, --force or not");
  }
  ASSERT_EQ(::mkdir(Path("old").c_str(), 0755), 0);
  Spit(Path("old/marker"), "");
  Spit(Path("old/stale"), "");
  EXPECT_FALSE(OpenDirectory(Path("old"), false, &error));
  EXPECT_EQ(error.message, Path("old") +
                               ": holds an earlier export: refused (use --force to "
                               "replace it)");
  std::unique_ptr<OutputFile> out = OpenDirectory(Path("old"), true, &error);
  ASSERT_TRUE(out) << error.message;
  ASSERT_EQ(::mkdirat(out->fd(), "new", 0755), 0);
  ASSERT_EQ(Why(out->Commit()), "");
  EXPECT_EQ(Names("old"), std::vector<std::string>{"new"});
  EXPECT_EQ(Names(), (std::vector<std::string>{"home", "old"})) << "the earlier one is removed";
  EXPECT_EQ(Slurp(Path("home/notes")), "mine");
}

// An earlier export that also holds a file no export writes is not replaced:
// the marker says an export was there, not that nothing else is.
TEST_F(OutputFileTest, AnEarlierOutputHoldingAForeignEntryIsNotReplacedEvenForced) {
  ASSERT_EQ(::mkdir(Path("out").c_str(), 0755), 0);
  Spit(Path("out/marker"), "");
  Spit(Path("out/part"), "");
  Spit(Path("out/notes"), "mine");
  OutputRequest request;
  request.path = Path("out");
  request.force = true;
  request.directory = true;
  request.directory_marker = "marker";
  request.directory_entry = [](std::string_view name, bool is_directory) {
    return !is_directory && (name == "marker" || name == "part");
  };
  Failure error;
  EXPECT_FALSE(OutputFile::Open(request, &error));
  EXPECT_EQ(error.message, Path("out") +
                               ": holds an earlier export and 'notes', which no export "
                               "writes: refused, --force or not");
  EXPECT_EQ(Slurp(Path("out/notes")), "mine");
  ASSERT_EQ(::unlink(Path("out/notes").c_str()), 0);
  ASSERT_EQ(::mkdir(Path("out/sub").c_str(), 0755), 0);  // a directory where none is written
  EXPECT_FALSE(OutputFile::Open(request, &error));
  ASSERT_EQ(::rmdir(Path("out/sub").c_str()), 0);
  std::unique_ptr<OutputFile> out = OutputFile::Open(request, &error);
  ASSERT_TRUE(out) << error.message;
  ASSERT_EQ(Why(out->Commit()), "");
  EXPECT_TRUE(Names("out").empty()) << "the earlier export, and only it, replaced";
}

// What lies beneath an accepted directory is asked too, by its path.
TEST_F(OutputFileTest, AForeignEntryDeepInAnEarlierOutputKeepsItFromBeingReplaced) {
  ASSERT_EQ(::mkdir(Path("out").c_str(), 0755), 0);
  Spit(Path("out/marker"), "");
  ASSERT_EQ(::mkdir(Path("out/7").c_str(), 0755), 0);
  Spit(Path("out/7/stat"), "");
  Spit(Path("out/7/notes"), "mine");
  OutputRequest request;
  request.path = Path("out");
  request.force = true;
  request.directory = true;
  request.directory_marker = "marker";
  request.directory_entry = [](std::string_view path, bool is_directory) {
    return path == "marker" || (is_directory && path == "7") || path == "7/stat";
  };
  Failure error;
  EXPECT_FALSE(OutputFile::Open(request, &error));
  EXPECT_EQ(error.message, Path("out") +
                               ": holds an earlier export and '7/notes', which no "
                               "export writes: refused, --force or not");
  EXPECT_EQ(Slurp(Path("out/7/notes")), "mine");
}

TEST_F(OutputFileTest, AnEmptyDirectoryIsReplacedWithoutForce) {
  ASSERT_EQ(::mkdir(Path("empty").c_str(), 0755), 0);
  Failure error;
  std::unique_ptr<OutputFile> out = OpenDirectory(Path("empty"), false, &error);
  ASSERT_TRUE(out) << error.message;
  ASSERT_EQ(Why(out->Commit()), "");
  EXPECT_EQ(Names(), std::vector<std::string>{"empty"});
}

TEST_F(OutputFileTest, AFailedDirectoryOutputLeavesNothing) {
  Failure error;
  {
    std::unique_ptr<OutputFile> out = OpenDirectory(Path("d"), false, &error);
    ASSERT_TRUE(out) << error.message;
    ASSERT_EQ(::mkdirat(out->fd(), "1", 0755), 0);
    int fd = ::openat(out->fd(), "1/stat", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ::close(fd);
  }
  EXPECT_TRUE(Names().empty());
}

}  // namespace
}  // namespace proctape
