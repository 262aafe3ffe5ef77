// SPDX-License-Identifier: Apache-2.0
// `proctape capture` as one call (capture/capture_run.h) on the in-memory
// /proc, written through a real output file and read back: the report's
// numbers, the notes and warnings, and the failure a kept file ends with
// (a --root in no frame, a frame cut by a bound), then the default name.
#include "capture/capture_run.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include "format/reader.h"
#include "tests/unit/format_writer_fixture.h"
#include "tests/unit/frame_scanner_fixture.h"

namespace proctape {
namespace {

using namespace test;

constexpr int kSmallTreeProcesses = 7;  // SmallTree

class CaptureRunTest : public FormatWriterTest {
 protected:
  // A source over a fresh SmallTree.
  capture::EvidenceSource Source() {
    auto host = std::make_unique<TestHost>();
    SmallTree(*host);
    capture::EvidenceSource source;
    source.hooks.evidence = host.get();
    source.hooks.pid_ns = FakePidNs;
    source.evidence = std::move(host);
    source.header = SampleHeader();
    return source;
  }
  std::unique_ptr<OutputFile> Output() {
    OutputRequest request;
    request.path = Path("c.ptape");
    request.binary = true;
    request.remove_on_interrupt = false;
    Failure failure;
    std::unique_ptr<OutputFile> output = OutputFile::Open(request, &failure);
    EXPECT_TRUE(output) << failure.message;
    return output;
  }
  capture::Result Run(const capture::Request& request) {
    capture::EvidenceSource source = Source();
    return capture::Run(request, source, Output(), {});
  }
  static capture::Request Request(std::uint64_t frames) {
    capture::Request request;
    request.plan.max_frames = frames;
    request.frames_given = frames;
    request.source_name = "/proc";
    request.output_name = "c.ptape";
    return request;
  }
};

TEST_F(CaptureRunTest, WritesTheFramesAndReportsTheirNumbers) {
  int shown = 0;
  capture::EvidenceSource source = Source();
  const capture::Result r =
      capture::Run(Request(2), source, Output(), [&shown](std::uint64_t, std::uint64_t, bool done) {
        if (done) ++shown;
      });
  ASSERT_EQ(r.stop, capture::Unfinished::kNo);
  EXPECT_FALSE(r.failure.has_value());
  EXPECT_TRUE(r.interrupted.empty());
  EXPECT_TRUE(r.notes.empty());
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(shown, 2);
  EXPECT_EQ(r.totals.frames, 2u);
  EXPECT_EQ(r.totals.processes, 2u * kSmallTreeProcesses);
  struct stat st;
  ASSERT_EQ(::stat(Path("c.ptape").c_str(), &st), 0);
  EXPECT_EQ(r.bytes_written, static_cast<std::uint64_t>(st.st_size));
  Snapshot read;
  ASSERT_TRUE(ReadSnapshot(Path("c.ptape"), &read).ok());
  EXPECT_EQ(read.frames.size(), 2u);
  EXPECT_EQ(read.header.host().hostname(), SampleHeader().host().hostname());
}

TEST_F(CaptureRunTest, ARootInNoFrameIsNotFoundWithTheFileKept) {
  capture::Request request = Request(2);
  request.plan.scan.root_pid = 999;
  const capture::Result r = Run(request);
  ASSERT_EQ(r.stop, capture::Unfinished::kNo);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->kind, FailureKind::kNotFound);
  EXPECT_EQ(r.failure->message,
            "--root 999 is in no frame: /proc holds no such process; c.ptape was written with 0 "
            "processes");
  EXPECT_EQ(r.totals.root_missing, 2u);
  EXPECT_TRUE(Exists(Path("c.ptape")));
}

TEST_F(CaptureRunTest, AFrameCutByABoundIsABoundFailure) {
  capture::Request request = Request(1);
  request.plan.scan.max_processes = 2;
  const capture::Result r = Run(request);
  ASSERT_TRUE(r.failure.has_value());
  EXPECT_EQ(r.failure->kind, FailureKind::kBound);
  EXPECT_EQ(r.totals.frames_cut, 1u);
  EXPECT_EQ(r.totals.processes, 2u);
  EXPECT_NE(r.failure->message.find("1 frame of 1 cut by a bound"), std::string::npos)
      << r.failure->message;
}

TEST_F(CaptureRunTest, UntilExitAtTheCeilingIsANoteAndKeptEnvironAWarning) {
  capture::Request request = Request(2);
  request.plan.scan.root_pid = 12;
  request.plan.until_exit = true;
  request.plan.scan.keep_environ = true;
  const capture::Result r = Run(request);
  EXPECT_FALSE(r.failure.has_value());
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "--until-exit: stopped at --frames 2 with root 12 still running");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "--env keep: environment values are stored as read; the file may hold secrets");
}

TEST_F(CaptureRunTest, ASourceThatFailsLeavesTheFileUnfinished) {
  capture::EvidenceSource source = Source();
  std::string damage;
  source.hooks.prepare = [&damage](v1::ProcessRecord*) {
    damage = "DIR/proctape-frame: line 3: no value";
    return false;
  };
  source.hooks.failed = [&damage] { return damage; };
  const capture::Result r = capture::Run(Request(1), source, Output(), {});
  ASSERT_EQ(r.stop, capture::Unfinished::kSource);
  ASSERT_TRUE(r.unfinished.has_value());
  EXPECT_EQ(r.unfinished->kind, FailureKind::kCorrupt);
  EXPECT_EQ(r.unfinished->message, "DIR/proctape-frame: line 3: no value");
  EXPECT_FALSE(Exists(Path("c.ptape")));
}

TEST(CaptureDefaultOutputPathTest, MakesTheHostnameAFileNameComponent) {
  v1::Header header;
  header.mutable_host()->set_hostname("ci/host\x01");
  header.set_capture_start_realtime_ns(0);
  EXPECT_EQ(capture::DefaultOutputPath(header), "./ci_host_-19700101T000000Z.ptape");
  header.mutable_host()->set_hostname(".hidden");
  EXPECT_EQ(capture::DefaultOutputPath(header), "./host.hidden-19700101T000000Z.ptape");
}

}  // namespace
}  // namespace proctape
