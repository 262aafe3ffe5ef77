// SPDX-License-Identifier: Apache-2.0
// procdir/export.h: `export --format proc-dir` from the file to its
// directory: the frame written and committed, the steps it tells, and what it
// refuses (a file that is no .ptape, a frame it lacks) with nothing left.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "fs/output_file.h"
#include "procdir/export.h"
#include "procdir/writer.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/export_run_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;

std::unique_ptr<OutputFile> Directory(const std::string& path) {
  return OpenTestOutput(ProcDirRequest(path, false));
}

class ProcDirExportTest : public TempDirTest {};

TEST_F(ProcDirExportTest, WritesTheFrameAndCountsIt) {
  std::vector<std::string> steps;
  ProcDirExportRequest request;
  request.file = ShippedRecording();
  request.out = Path("frame0");
  request.progress = [&steps](const std::string& step) { steps.push_back(step); };
  const ProcDirExport e = ExportProcDir(request, Directory(Path("frame0")));
  ASSERT_FALSE(e.input_failure || e.failure || e.output_failure);
  EXPECT_TRUE(e.warnings.empty());  // a token entry alone is not said
  EXPECT_GT(e.stats.processes, 0u);
  EXPECT_GT(e.stats.files, e.stats.processes);
  EXPECT_TRUE(std::filesystem::is_regular_file(Path("frame0/proctape-frame")));
  std::uint64_t directories = 0;
  for (const auto& entry : std::filesystem::directory_iterator(Path("frame0"))) {
    if (entry.is_directory()) ++directories;
  }
  EXPECT_EQ(directories, e.stats.processes);
  EXPECT_EQ(steps, (std::vector<std::string>{"export: reading " + ShippedRecording(), "",
                                             "export: writing " + Path("frame0"), ""}));
}

TEST_F(ProcDirExportTest, AFrameTheFileLacksIsAUsageFailureAndNothingIsLeft) {
  ProcDirExportRequest request;
  request.file = ShippedRecording();
  request.frame = 7;
  request.out = Path("frame7");
  const ProcDirExport e = ExportProcDir(request, Directory(Path("frame7")));
  ASSERT_TRUE(e.failure);
  EXPECT_EQ(e.failure->kind, FailureKind::kUsage);
  EXPECT_EQ(e.failure->message.rfind("--frame 7: ", 0), 0u) << e.failure->message;
  EXPECT_FALSE(std::filesystem::exists(Path("frame7")));
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(ProcDirExportTest, AFileThatIsNoPtapeIsTheInputsFailure) {
  Spit(Path("not.ptape"), "this is no snapshot file at all\n");
  ProcDirExportRequest request;
  request.file = Path("not.ptape");
  request.out = Path("out");
  const ProcDirExport e = ExportProcDir(request, Directory(Path("out")));
  ASSERT_TRUE(e.input_failure);
  EXPECT_EQ(e.input_failure->kind, FailureKind::kBadMagic);
  EXPECT_FALSE(e.failure || e.output_failure);
  EXPECT_FALSE(std::filesystem::exists(Path("out")));
}

}  // namespace
}  // namespace proctape
