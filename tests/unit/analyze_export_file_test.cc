// SPDX-License-Identifier: Apache-2.0
// analyze/export_file.h: `export --format json|dot` from the file to its
// output: the document written and committed, what it counts, the steps it
// tells, and what it refuses (a file that is no .ptape, a frame it lacks)
// with nothing written.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "analyze/export.h"
#include "analyze/export_file.h"
#include "format/reader.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/export_run_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;

// The dot of frame `frame` of the recording into `out`.
FileExportRequest DotRequest(std::uint64_t frame, const std::string& out) {
  FileExportRequest request;
  request.file = ShippedRecording();
  request.json = false;
  request.frame = frame;
  request.out = out;
  return request;
}

class ExportFileTest : public TempDirTest {};

TEST_F(ExportFileTest, JsonIsTheWholeFilesDocumentCommitted) {
  std::unique_ptr<OutputFile> out = OpenTestOutput(Path("out.json"));
  ASSERT_TRUE(out);
  std::vector<std::string> steps;
  FileExportRequest request;
  request.file = ShippedRecording();
  request.out = Path("out.json");
  request.progress = [&steps](const std::string& step) { steps.push_back(step); };
  const FileExport e = ExportFile(request, *out);
  ASSERT_FALSE(e.input_failure || e.failure || e.output_failure);
  EXPECT_TRUE(e.warnings.empty());  // a token entry alone is not said

  Snapshot snapshot;
  ASSERT_TRUE(ReadSnapshot(ShippedRecording(), &snapshot).ok());
  std::string want;
  const MaybeFailure failed = ExportJson(snapshot, &want);
  ASSERT_FALSE(failed) << failed->message;
  want += "\n";
  EXPECT_EQ(Slurp(Path("out.json")), want);
  EXPECT_EQ(e.bytes, want.size());
  std::uint64_t records = 0;
  for (const v1::Frame& f : snapshot.frames) records += f.processes_size();
  EXPECT_EQ(e.processes, records);
  struct stat st {};
  ASSERT_EQ(::stat(Path("out.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // the file keeps its token entry
  EXPECT_EQ(steps, (std::vector<std::string>{"export: reading " + ShippedRecording(), "",
                                             "export: writing " + Path("out.json"), ""}));
}

TEST_F(ExportFileTest, DotDrawsTheFrameAsked) {
  std::unique_ptr<OutputFile> out = OpenTestOutput(Path("tree.dot"));
  ASSERT_TRUE(out);
  const FileExport e = ExportFile(DotRequest(0, Path("tree.dot")), *out);
  ASSERT_FALSE(e.input_failure || e.failure || e.output_failure);
  Snapshot snapshot;
  ASSERT_TRUE(ReadSnapshot(ShippedRecording(), &snapshot).ok());
  std::size_t drawn = 0;
  const std::string want = FrameDot(snapshot, 0, &drawn);
  EXPECT_EQ(Slurp(Path("tree.dot")), want);
  EXPECT_EQ(e.bytes, want.size());
  EXPECT_EQ(e.processes, drawn);
  EXPECT_GT(drawn, 0u);
}

TEST_F(ExportFileTest, AFrameTheFileLacksIsAUsageFailureAndNothingIsWritten) {
  {
    std::unique_ptr<OutputFile> out = OpenTestOutput(Path("tree.dot"));
    ASSERT_TRUE(out);
    const FileExport e = ExportFile(DotRequest(99, Path("tree.dot")), *out);
    ASSERT_TRUE(e.failure);
    EXPECT_EQ(e.failure->kind, FailureKind::kUsage);
    EXPECT_EQ(e.failure->message.rfind("--frame 99: ", 0), 0u) << e.failure->message;
    EXPECT_FALSE(e.input_failure || e.output_failure);
  }
  EXPECT_FALSE(std::filesystem::exists(Path("tree.dot")));
}

TEST_F(ExportFileTest, AFileThatIsNoPtapeIsTheInputsFailure) {
  Spit(Path("not.ptape"), "this is no snapshot file at all\n");
  for (bool json : {true, false}) {
    SCOPED_TRACE(json ? "json" : "dot");
    std::unique_ptr<OutputFile> out = OpenTestOutput(Path("out"));
    ASSERT_TRUE(out);
    FileExportRequest request;
    request.file = Path("not.ptape");
    request.json = json;
    request.out = Path("out");
    const FileExport e = ExportFile(request, *out);
    ASSERT_TRUE(e.input_failure);
    EXPECT_EQ(e.input_failure->kind, FailureKind::kBadMagic);
    EXPECT_FALSE(e.failure || e.output_failure);
    EXPECT_EQ(e.bytes, 0u);
  }
}

}  // namespace
}  // namespace proctape
