// SPDX-License-Identifier: Apache-2.0
// One error type across the layers (docs/architecture.md, "Errors"): each
// kind of Failure has the exit status of its family, and the file layer's
// rules say what they refuse as a Failure of the right kind
// (docs/cli/outputs.md, "An output is never an input", "Refusals").
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli/exit_codes.h"
#include "core/failure.h"
#include "fs/inputs.h"
#include "fs/output_is_input.h"
#include "tests/unit/failure_text.h"
#include "tests/unit/format_bytes.h"

namespace proctape::test {
namespace {

TEST(FailureKinds, EachHasTheExitStatusOfItsFamily) {
  EXPECT_EQ(ExitCodeFor(FailureKind::kUsage), kExitUsage);
  EXPECT_EQ(ExitCodeFor(FailureKind::kIo), kExitIo);
  EXPECT_EQ(ExitCodeFor(FailureKind::kBadMagic), kExitBadMagic);
  EXPECT_EQ(ExitCodeFor(FailureKind::kNewerVersion), kExitNewerVersion);
  EXPECT_EQ(ExitCodeFor(FailureKind::kTruncated), kExitTruncated);
  EXPECT_EQ(ExitCodeFor(FailureKind::kChecksum), kExitChecksum);
  EXPECT_EQ(ExitCodeFor(FailureKind::kCorrupt), kExitCorrupt);
  EXPECT_EQ(ExitCodeFor(FailureKind::kTooLarge), kExitTooLarge);
  EXPECT_EQ(ExitCodeFor(FailureKind::kManifest), kExitCorpusManifest);
  EXPECT_EQ(ExitCodeFor(FailureKind::kInternal), kExitInternal);
  EXPECT_EQ(ExitCodeFor(FailureKind::kNotFound), kExitNotFound);
  EXPECT_EQ(ExitCodeFor(FailureKind::kBound), kExitBound);
  EXPECT_EQ(ExitCodeFor(FailureKind::kOtherBoot), kExitOtherBoot);
  EXPECT_EQ(ExitCodeFor(FailureKind::kVerdictChanged), kExitVerdictChanged);
  EXPECT_EQ(ExitCodeFor(FailureKind::kDiverged), kExitDiverged);
  EXPECT_EQ(ExitCodeFor(FailureKind::kCorpusDrift), kExitCorpusDrift);
  EXPECT_EQ(ExitCodeFor(FailureKind::kLabUnavailable), kExitLabUnavailable);
  EXPECT_EQ(ExitCodeFor(FailureKind::kLabFailed), kExitLabFailed);
  EXPECT_EQ(ExitCodeFor(FailureKind::kScope), kExitScope);
  EXPECT_EQ(ExitCodeFor(FailureKind::kShards), kExitShards);
  EXPECT_EQ(kExitShards, 27);
}

TEST(FailureKinds, ADamagedFileIsTheFailureOfItsKind) {
  const std::pair<FormatErrorKind, FailureKind> same[] = {
      {FormatErrorKind::kIo, FailureKind::kIo},
      {FormatErrorKind::kBadMagic, FailureKind::kBadMagic},
      {FormatErrorKind::kNewerVersion, FailureKind::kNewerVersion},
      {FormatErrorKind::kTruncated, FailureKind::kTruncated},
      {FormatErrorKind::kChecksum, FailureKind::kChecksum},
      {FormatErrorKind::kCorrupt, FailureKind::kCorrupt},
      {FormatErrorKind::kTooLarge, FailureKind::kTooLarge},
  };
  for (const auto& [format, failure] : same) {
    SCOPED_TRACE(FormatErrorName(format));
    const MaybeFailure f = ToFailure({format, 3, 40, "chunk 3 at byte 40: what"});
    ASSERT_TRUE(f);
    EXPECT_EQ(f->kind, failure);
    EXPECT_EQ(f->message, "chunk 3 at byte 40: what");
    EXPECT_EQ(ExitCodeFor(format), ExitCodeFor(failure));
  }
  EXPECT_FALSE(ToFailure(FormatError{}));
  EXPECT_EQ(ExitCodeFor(FormatErrorKind::kNone), kExitOk);
}

TEST(FailureKinds, AnIoFailureKeepsItsErrno) {
  const Failure f = IoFailure("x: cannot write", ENOSPC);
  EXPECT_EQ(f.kind, FailureKind::kIo);
  EXPECT_EQ(f.sys_errno, ENOSPC);
  EXPECT_EQ(f.message, "x: cannot write: No space left on device");
}

class OutputIsAnInputTest : public TempDirTest {};

TEST_F(OutputIsAnInputTest, TheSameFileByAnotherNameIsAUsageError) {
  Spit(Path("in.ptape"), "x");
  ASSERT_EQ(::symlink("in.ptape", Path("alias").c_str()), 0);
  const MaybeFailure f = OutputIsAnInput(Path("alias"), false, {{"FILE", Path("in.ptape")}});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, FailureKind::kUsage);
  EXPECT_EQ(f->message, "the same file as FILE '" + Path("in.ptape") +
                            "', an input of this command: refused, --force or not");
}

TEST_F(OutputIsAnInputTest, AFileInsideATreeInputIsOneOfIt) {
  std::filesystem::create_directory(Path("corpus"));
  const MaybeFailure f =
      OutputIsAnInput(Path("corpus/new.xml"), false, {{"the corpus", Path("corpus"), false, true}});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->kind, FailureKind::kUsage);
  EXPECT_NE(f->message.find("inside the corpus '"), std::string::npos) << f->message;
}

TEST_F(OutputIsAnInputTest, AnotherFileOrNoPathIsNone) {
  Spit(Path("in.ptape"), "x");
  EXPECT_EQ(Why(OutputIsAnInput(Path("out.ptape"), false, {{"FILE", Path("in.ptape")}})), "");
  EXPECT_EQ(Why(OutputIsAnInput("", false, {{"FILE", Path("in.ptape")}})), "");
  // A directory FILE that is no tree input is left to the read to refuse.
  std::filesystem::create_directory(Path("d"));
  EXPECT_EQ(Why(OutputIsAnInput(Path("d/out"), false, {{"FILE", Path("d")}})), "");
}

TEST_F(OutputIsAnInputTest, ADirectoryWrittenIntoIsCheckedBeforeAnyWork) {
  const MaybeFailure missing = DirectoryWrittenIntoProblem(Path("none"));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->kind, FailureKind::kIo);
  EXPECT_EQ(missing->sys_errno, ENOENT);
  EXPECT_EQ(missing->message, "cannot write: no such directory");
  Spit(Path("file"), "x");
  EXPECT_EQ(Why(DirectoryWrittenIntoProblem(Path("file"))), "is not a directory: refused");
  EXPECT_EQ(Why(DirectoryWrittenIntoProblem(Path("file") + "/")), "is not a directory: refused");
  EXPECT_EQ(Why(DirectoryWrittenIntoProblem(Path("file") + "/sub")), "is not a directory: refused");
  const MaybeFailure dash = DirectoryWrittenIntoProblem("-");
  ASSERT_TRUE(dash);
  EXPECT_EQ(dash->kind, FailureKind::kUsage);
  std::filesystem::create_directory(Path("out"));
  EXPECT_EQ(Why(DirectoryWrittenIntoProblem(Path("out"))), "");
}

TEST_F(OutputIsAnInputTest, ACopyOfARegularFileIsNoCopy) {
  Spit(Path("in.ptape"), "x");
  InputCopy copy;
  EXPECT_EQ(Why(copy.Open(Path("in.ptape"))), "");
  EXPECT_FALSE(copy.copied());
  EXPECT_EQ(copy.path(), Path("in.ptape"));
}

TEST_F(OutputIsAnInputTest, AFifoIsCopiedWhole) {
  ASSERT_EQ(::mkfifo(Path("fifo").c_str(), 0600), 0);
  // The writer opens after the copy's open blocks: a child of this test,
  // ended by its own exit.
  const pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    Spit(Path("fifo"), "chunks");
    ::_exit(0);
  }
  InputCopy copy;
  EXPECT_EQ(Why(copy.Open(Path("fifo"))), "");
  int status = 0;
  ASSERT_EQ(::waitpid(writer, &status, 0), writer);
  ASSERT_TRUE(copy.copied());
  EXPECT_EQ(Slurp(copy.path()), "chunks");
}

}  // namespace
}  // namespace proctape::test
