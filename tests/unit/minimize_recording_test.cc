// SPDX-License-Identifier: Apache-2.0
// explore/minimize_recording.h on the fixture host's recording: the check
// minimized and written, its report and text, and each refusal's kind.
#include <gtest/gtest.h>

#include <string>

#include "explore/minimize_recording.h"
#include "format/reader.h"
#include "format/writer.h"
#include "tests/unit/explore_recording.h"

namespace proctape::explore {
namespace {

using test::ExploreHost;

struct MinimizeInto {
  std::string path;
  std::unique_ptr<SnapshotWriter> writer;
  explicit MinimizeInto(const std::string& p) : path(p) {
    Failure failure;
    writer = SnapshotWriter::Create(path, {}, &failure);
    EXPECT_TRUE(writer) << failure.message;
  }
  MinimizeRequest Request() const {
    MinimizeRequest request;
    request.file = "rec.ptape";
    request.output = path;
    return request;
  }
};

TEST(MinimizeRecordingRun, WritesTheSmallerHostAndReportsIt) {
  ExploreHost h;
  test::ExploreRecording rec(h);
  MinimizeInto into(rec.dir.File("small.ptape"));
  std::uint64_t last_runs = 0;
  MinimizeFailure failure;
  std::optional<MinimizedRecording> m = MinimizeRecording(
      rec.snapshot, into.Request(), *into.writer, [&](std::uint64_t runs) { last_runs = runs; },
      &failure);
  ASSERT_TRUE(m) << failure.failure.message;
  EXPECT_GT(last_runs, 0u);
  EXPECT_EQ(m->report.processes_before(), 4u);
  EXPECT_EQ(m->report.processes_after(), 3u);
  EXPECT_EQ(m->report.verdict(), "RESOLVED");
  EXPECT_GT(m->report.bytes_after(), 0u);
  Snapshot small;
  ASSERT_TRUE(ReadSnapshot(into.path, &small).ok());
  EXPECT_EQ(small.header.command_line(1), "minimize");
  const std::string text = MinimizeText(*m);
  EXPECT_EQ(text.rfind("minimize rec.ptape, check 0 (resolve): RESOLVED pid " +
                           std::to_string(ExploreHost::kSleep) + ", start tick " +
                           std::to_string(ExploreHost::kSleepStart) + ", kept\n  processes 4 -> 3",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("\nwrote "), std::string::npos) << text;
  EXPECT_EQ(MinimizeJson(*m).back(), '\n');
}

TEST(MinimizeRecordingRun, EachRefusalHasItsKind) {
  ExploreHost h;
  test::ExploreRecording rec(h);
  MinimizeInto into(rec.dir.File("small.ptape"));
  MinimizeFailure failure;
  Snapshot unchanged = rec.snapshot;
  rec.snapshot.resolutions[0].mutable_verdict()->set_status(v1::Verdict::NO_MATCH);
  EXPECT_FALSE(MinimizeRecording(rec.snapshot, into.Request(), *into.writer, {}, &failure));
  EXPECT_EQ(failure.failure.kind, FailureKind::kVerdictChanged);
  EXPECT_EQ(failure.failure.message.rfind("rec.ptape: check 0: ", 0), 0u);
  EXPECT_FALSE(failure.output);

  unchanged.frames.clear();
  EXPECT_FALSE(MinimizeRecording(unchanged, into.Request(), *into.writer, {}, &failure));
  EXPECT_EQ(failure.failure.kind, FailureKind::kUsage);
}

}  // namespace
}  // namespace proctape::explore
