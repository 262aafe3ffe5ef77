// SPDX-License-Identifier: Apache-2.0
// `proctape verify`'s check of one file (replay/file_verify.h): an intact
// recording's line and report, and the first damage of a cut file with the
// complete chunks before it.
#include "replay/file_verify.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/unit/replay_fixture.h"
#include "tests/unit/replay_tape_fixture.h"

namespace proctape {
namespace {

using namespace test;

TEST(FileVerify, AnIntactRecordingSaysWhatItHolds) {
  ReplayTempDir dir;
  RecordTypical(dir, "typical.ptape");
  const std::string file = dir.File("typical.ptape");
  const FileVerified v = VerifyFile(file);
  EXPECT_FALSE(v.damage);
  EXPECT_TRUE(v.warnings.empty());
  EXPECT_TRUE(v.report.intact());
  EXPECT_EQ(v.report.resolutions(), 1u);
  EXPECT_EQ(v.report.frames(), 0u);
  EXPECT_FALSE(v.report.environ_kept());
  const std::string prefix = file + ": intact: ";
  ASSERT_EQ(v.line.substr(0, prefix.size()), prefix) << v.line;
  EXPECT_NE(v.line.find(", 0 frames, 0 process records, "), std::string::npos) << v.line;
  EXPECT_NE(v.line.find(", 1 resolution, environ redacted\n"), std::string::npos) << v.line;
}

TEST(FileVerify, AFileKeepingEnvironValuesIsWarnedOf) {
  ReplayTempDir dir;
  RecordOptions options;
  options.keep_environ = true;
  RecordTypical(dir, "kept.ptape", nullptr, options);
  const FileVerified v = VerifyFile(dir.File("kept.ptape"));
  EXPECT_FALSE(v.damage);
  EXPECT_TRUE(v.report.environ_kept());
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_EQ(v.warnings[0],
            dir.File("kept.ptape") + " stores environment values as read (--env keep)");
}

TEST(FileVerify, ACutFileIsTruncatedAfterItsCompleteChunks) {
  ReplayTempDir dir;
  RecordTypical(dir, "cut.ptape");
  const std::string file = dir.File("cut.ptape");
  std::filesystem::resize_file(file, std::filesystem::file_size(file) - 3);
  const FileVerified v = VerifyFile(file);
  ASSERT_TRUE(v.damage);
  EXPECT_EQ(v.damage->kind, FailureKind::kTruncated);
  EXPECT_EQ(v.damage->message.substr(0, file.size() + 2), file + ": ");
  EXPECT_NE(v.damage->message.find("complete chunks before it read back (0 frames, "),
            std::string::npos)
      << v.damage->message;
  EXPECT_TRUE(v.line.empty());
  EXPECT_FALSE(v.report.intact());
  EXPECT_EQ(v.report.error_kind(), "truncated");
}

TEST(FileVerify, AMissingFileIsAnIoFailure) {
  ReplayTempDir dir;
  const FileVerified v = VerifyFile(dir.File("absent.ptape"));
  ASSERT_TRUE(v.damage);
  EXPECT_EQ(v.damage->kind, FailureKind::kIo);
  EXPECT_EQ(v.damage->message,
            dir.File("absent.ptape") + ": cannot open: No such file or directory");
}

}  // namespace
}  // namespace proctape
