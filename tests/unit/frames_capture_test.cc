// SPDX-License-Identifier: Apache-2.0
// A capture's frame loop (capture/frames_capture.h) on the in-memory /proc,
// written by the real writer and read back: the frame count, --until-exit's
// end at the frame that shows the root gone, an import's recorded times and
// cut, and a source that fails mid-frame (docs/cli/commands.md,
// "A capture cut by a bound").
#include "capture/frames_capture.h"

#include <gtest/gtest.h>

#include <string>

#include "format/reader.h"
#include "tests/unit/frame_scanner_fixture.h"
#include "tests/unit/format_writer_fixture.h"

namespace proctape {
namespace {

using namespace test;

constexpr int kSmallTreeProcesses = 7;  // SmallTree

class FramesCaptureTest : public FormatWriterTest {
 protected:
  void SetUp() override {
    FormatWriterTest::SetUp();
    SmallTree(host_);
    hooks_.evidence = &host_;
    hooks_.pid_ns = FakePidNs;
  }
  // CaptureFrames into a fresh file; the file read back into *read.
  FramesEnd Run(const FramePlan& plan, Snapshot* read, const FrameProgressFn& progress = {}) {
    Failure failure;
    SnapshotWriter::Options options;
    options.force = true;
    auto writer = SnapshotWriter::Create(Path("c.ptape"), options, &failure);
    EXPECT_TRUE(writer) << failure.message;
    EXPECT_TRUE(writer->WriteHeader(SampleHeader()));
    const FramesEnd end = CaptureFrames(plan, hooks_, *writer, progress, &totals_);
    if (end == FramesEnd::kFinished) {
      const FormatError read_error = ReadSnapshot(Path("c.ptape"), read);
      EXPECT_TRUE(read_error.ok()) << read_error.message;
    }
    return end;
  }

  TestHost host_;
  FrameSourceHooks hooks_;
  FrameTotals totals_;
};

TEST_F(FramesCaptureTest, TakesTheFramesAskedEachWholeThenTheFooter) {
  FramePlan plan;
  plan.max_frames = 3;
  Snapshot read;
  ASSERT_EQ(Run(plan, &read), FramesEnd::kFinished);
  ASSERT_EQ(read.frames.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(read.frames[k].index(), k);
    EXPECT_EQ(read.frames[k].processes_size(), kSmallTreeProcesses);
  }
  EXPECT_TRUE(read.footer.has_value());
  EXPECT_EQ(totals_.frames, 3u);
  EXPECT_EQ(totals_.processes, 3u * kSmallTreeProcesses);
  EXPECT_EQ(totals_.frames_cut, 0u);
  EXPECT_EQ(totals_.signal, 0);
  EXPECT_FALSE(totals_.root_exited);
}

TEST_F(FramesCaptureTest, UntilExitEndsAtTheFrameThatNoLongerHoldsTheRoot) {
  FramePlan plan;
  plan.max_frames = UINT64_MAX;  // --until-exit alone: no ceiling
  plan.until_exit = true;
  plan.scan.root_pid = 12;
  // The root exits (and is reaped) once frame 1 is complete.
  auto progress = [this](std::uint64_t frame, std::uint64_t, bool done) {
    if (done && frame == 1) host_.Remove(12);
  };
  Snapshot read;
  ASSERT_EQ(Run(plan, &read, progress), FramesEnd::kFinished);
  EXPECT_TRUE(totals_.root_exited);
  EXPECT_EQ(totals_.frames, 3u);  // frame 2 shows it gone, and is the last
  ASSERT_EQ(read.frames.size(), 3u);
  EXPECT_GT(read.frames[1].processes_size(), 0);
  EXPECT_EQ(read.frames[2].processes_size(), 0);
  EXPECT_EQ(totals_.root_missing, 1u);
}

TEST_F(FramesCaptureTest, AnImportKeepsTheRecordedFramesTimesAndCut) {
  hooks_.recorded = true;
  hooks_.recorded_begin_ns = 111;
  hooks_.recorded_end_ns = 222;
  hooks_.recorded_cut = kCutFileLimit;
  FramePlan plan;
  Snapshot read;
  ASSERT_EQ(Run(plan, &read), FramesEnd::kFinished);
  ASSERT_EQ(read.frames.size(), 1u);
  EXPECT_EQ(read.frames[0].scan_start_mono_ns(), 111);
  EXPECT_EQ(read.frames[0].scan_end_mono_ns(), 222);
  EXPECT_EQ(read.frames[0].cut_reason(), kCutFileLimit);
  EXPECT_EQ(totals_.frames_cut, 1u);
  EXPECT_EQ(totals_.last_cut, kCutFileLimit);
  ASSERT_TRUE(read.footer.has_value());
  EXPECT_EQ(read.footer->capture_end_mono_ns(), 222);
}

TEST_F(FramesCaptureTest, ASourceThatFailsMidFrameEndsTheCaptureUnfinished) {
  std::string damage;
  int records = 0;
  hooks_.prepare = [&](v1::ProcessRecord*) {
    if (++records == 2) damage = "12/proctape-identity: malformed";
    return damage.empty();
  };
  hooks_.failed = [&] { return damage; };
  FramePlan plan;
  plan.max_frames = 2;
  Snapshot read;
  EXPECT_EQ(Run(plan, &read), FramesEnd::kSourceFailed);
  EXPECT_EQ(totals_.frames, 0u);
}

}  // namespace
}  // namespace proctape
