// SPDX-License-Identifier: Apache-2.0
// analyze/explain_file.h: `explain FILE` from the file: every recorded check
// explained (or the one asked for), and what it refuses: a file that is no
// .ptape, a capture that holds no recorded check, a check it lacks.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "analyze/explain_file.h"
#include "format/writer.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/export_run_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;

// `file` explained, every check or only `check`.
ExplainedFile Explained(const std::string& file, std::optional<std::size_t> check = std::nullopt) {
  ExplainFileRequest request;
  request.file = file;
  request.check = check;
  return ExplainFile(request);
}

class ExplainFileTest : public TempDirTest {};

TEST_F(ExplainFileTest, ExplainsEveryRecordedCheckOrTheOneAsked) {
  const ExplainedFile all = Explained(ShippedRecording());
  ASSERT_FALSE(all.input_failure || all.failure);
  ASSERT_EQ(all.explanation.checks_size(), 1);
  EXPECT_EQ(all.explanation.file(), "resolved.ptape");
  EXPECT_EQ(all.explanation.checks(0).replay(), v1::ReplayResult::REPRODUCED);
  EXPECT_GT(all.explanation.checks(0).attempts_size(), 0);

  const ExplainedFile one = Explained(ShippedRecording(), 0);
  ASSERT_FALSE(one.input_failure || one.failure);
  EXPECT_EQ(one.explanation.checks_size(), 1);
}

TEST_F(ExplainFileTest, ACheckTheFileLacksIsAUsageFailure) {
  const ExplainedFile e = Explained(ShippedRecording(), 3);
  ASSERT_TRUE(e.failure);
  EXPECT_EQ(e.failure->kind, FailureKind::kUsage);
  EXPECT_EQ(e.failure->message,
            "--check 3: " + ShippedRecording() + " holds 1 recorded check (0..0)");
  EXPECT_FALSE(e.input_failure);
  EXPECT_EQ(e.explanation.checks_size(), 0);
}

TEST_F(ExplainFileTest, ACaptureOfFramesAloneHoldsNothingToExplain) {
  Failure failure;
  std::unique_ptr<SnapshotWriter> w =
      SnapshotWriter::Create(Path("frames.ptape"), SnapshotWriter::Options{}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(v1::Header{}));
  ASSERT_TRUE(w->BeginFrame(0, 10));
  v1::ProcessRecord p;
  p.set_pid(1);
  ASSERT_TRUE(w->AddProcess(std::move(p)));
  ASSERT_TRUE(w->EndFrame(20, "", 0));
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();

  const ExplainedFile e = Explained(Path("frames.ptape"));
  ASSERT_TRUE(e.failure);
  EXPECT_EQ(e.failure->kind, FailureKind::kUsage);
  EXPECT_EQ(e.failure->message,
            Path("frames.ptape") +
                " holds no recorded check: explain a resolution on its frames with 'proctape "
                "replay " +
                Path("frames.ptape") + " --model frames --root PID --token T --exe-like PID'");
}

TEST_F(ExplainFileTest, AFileThatIsNoPtapeIsTheInputsFailure) {
  Spit(Path("not.ptape"), "this is no snapshot file at all\n");
  const ExplainedFile e = Explained(Path("not.ptape"));
  ASSERT_TRUE(e.input_failure);
  EXPECT_EQ(e.input_failure->kind, FailureKind::kBadMagic);
  EXPECT_FALSE(e.failure);
}

}  // namespace
}  // namespace proctape
