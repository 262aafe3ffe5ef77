// SPDX-License-Identifier: Apache-2.0
// The writer keeps the reader's count limits (format/file_format.h,
// docs/format.md section 7): a call that would pass one is refused, the
// writer stays usable, and the file it finishes is whole and reads back.
// Limits are injected small (SnapshotWriter::Options::limits).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "format/file_format.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_frames_v2_fixture.h"

namespace proctape {
namespace {

class FormatWriterLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "proctape-lim-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/limits.ptape";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::unique_ptr<SnapshotWriter> Open(const SnapshotWriter::Options& options) {
    Failure failure;
    auto w = SnapshotWriter::Create(path_, options, &failure);
    EXPECT_TRUE(w) << failure.message;
    if (w) {
      EXPECT_TRUE(w->WriteHeader(v1::Header{}));
    }
    return w;
  }
  Snapshot ReadBack() {
    Snapshot s;
    const FormatError e = ReadSnapshot(path_, &s);
    EXPECT_EQ(e.kind, FormatErrorKind::kNone) << e.message;
    return s;
  }
  std::string dir_, path_;
};

v1::ProcessRecord Record(std::int64_t pid) {
  v1::ProcessRecord r;
  r.set_pid(pid);
  return r;
}

TEST_F(FormatWriterLimitsTest, ProcessRecordPastTheLimitIsRefusedAndTheFileFinishes) {
  SnapshotWriter::Options options;
  options.limits.processes = 5;
  auto w = Open(options);
  ASSERT_TRUE(w->BeginFrame(0, 1));
  for (int pid = 1; pid <= 3; ++pid) ASSERT_TRUE(w->AddProcess(Record(pid)));
  ASSERT_TRUE(w->EndFrame(2, "", 0));
  ASSERT_TRUE(w->BeginFrame(1, 3));
  EXPECT_TRUE(w->AddProcess(Record(1)));
  EXPECT_TRUE(w->AddProcess(Record(2)));
  EXPECT_FALSE(w->AddProcess(Record(3)));  // the sixth record
  EXPECT_NE(w->refused().find("5 process records"), std::string::npos) << w->refused();
  ASSERT_TRUE(w->EndFrame(4, "file-limit", 0));
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  const Snapshot s = ReadBack();
  ASSERT_EQ(s.frames.size(), 2u);
  EXPECT_EQ(s.frames[1].processes_size(), 2);
  ASSERT_TRUE(s.footer);
  EXPECT_EQ(s.footer->processes(), 5u);
}

TEST_F(FormatWriterLimitsTest, FrameThatWouldPassTheChunkLimitIsRefusedKeepingTheFooter) {
  SnapshotWriter::Options options;
  options.limits.chunks = 4;  // header, two frames, footer
  auto w = Open(options);
  for (std::uint64_t k = 0; k < 2; ++k) {
    ASSERT_TRUE(w->BeginFrame(k, 1));
    ASSERT_TRUE(w->EndFrame(2, "", 0));
  }
  EXPECT_FALSE(w->BeginFrame(2, 3));
  EXPECT_FALSE(w->frame_open());
  EXPECT_NE(w->refused().find("4 chunks"), std::string::npos) << w->refused();
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  const Snapshot s = ReadBack();
  EXPECT_EQ(s.frames.size(), 2u);
  EXPECT_EQ(s.chunks, 4u);
}

TEST_F(FormatWriterLimitsTest, FramePartThatWouldPassTheChunkLimitIsRefused) {
  SnapshotWriter::Options options;
  options.target_chunk = 1;   // every record fills a part
  options.limits.chunks = 5;  // header, two parts, the frame's last part, footer
  auto w = Open(options);
  ASSERT_TRUE(w->BeginFrame(0, 1));
  EXPECT_TRUE(w->AddProcess(Record(1)));
  EXPECT_TRUE(w->AddProcess(Record(2)));
  EXPECT_FALSE(w->AddProcess(Record(3)));
  ASSERT_TRUE(w->EndFrame(2, "file-limit", 0));
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  const Snapshot s = ReadBack();
  ASSERT_EQ(s.frames.size(), 1u);
  EXPECT_EQ(s.frames[0].processes_size(), 2);
  EXPECT_EQ(s.chunks, 5u);
}

// A record whose command line was seen before defines a blob in the open
// part; when that record is refused, the part must not keep the blob ("a
// blob is defined in the part where it is first referred to": one nothing
// refers to makes the file corrupt).
TEST_F(FormatWriterLimitsTest, RecordRefusedForChunksLeavesNoBlobBehind) {
  SnapshotWriter::Options options;
  options.target_chunk = 1;   // every record fills a part
  options.limits.chunks = 4;  // header, one part, the frame's last part, footer
  auto w = Open(options);
  const std::string shared(200, 'c');  // over kMinBlobBytes: the second sighting is a blob
  ASSERT_TRUE(w->BeginFrame(0, 1));
  v1::ProcessRecord first = Record(1);
  first.mutable_cmdline()->set_data(shared);
  ASSERT_TRUE(w->AddProcess(std::move(first)));
  v1::ProcessRecord second = Record(2);
  second.mutable_cmdline()->set_data(shared);
  EXPECT_FALSE(w->AddProcess(std::move(second)));
  EXPECT_NE(w->refused().find("4 chunks"), std::string::npos) << w->refused();
  ASSERT_TRUE(w->EndFrame(2, "file-limit", 0));
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  const Snapshot s = ReadBack();
  ASSERT_EQ(s.frames.size(), 1u);
  ASSERT_EQ(s.frames[0].processes_size(), 1);
  EXPECT_EQ(s.frames[0].processes(0).cmdline().data(), shared);
  EXPECT_EQ(s.chunks, 4u);
}

// The class of the test above: whatever limit a refusal comes from and
// wherever it falls (a part's first record, one that defines a blob, one
// stored as a change from the previous frame, an observation "same as" an
// earlier one), the finished file is intact and holds every accepted call.
TEST_F(FormatWriterLimitsTest, EveryRefusalPointLeavesAnIntactFile) {
  const std::string shared_cmdline(100, 'c'), shared_environ(300, 'e');
  for (std::uint64_t chunks = 3; chunks <= 14; ++chunks) {
    for (std::uint64_t target : {1u, 200u, 700u}) {
      SCOPED_TRACE("chunks " + std::to_string(chunks) + ", target " + std::to_string(target));
      SnapshotWriter::Options options;
      options.target_chunk = target;
      options.force = true;  // one file, rewritten each round
      options.limits.chunks = chunks;
      auto w = Open(options);
      std::uint64_t accepted = 0, frames = 0;
      for (std::uint64_t k = 0; k < 3 && w->BeginFrame(k, 1); ++k, ++frames) {
        for (int pid = 1; pid <= 6; ++pid) {
          // Idle: a record the next frame may store as what changed.
          v1::ProcessRecord r = test::Idle(pid, 100 + static_cast<std::uint64_t>(pid), 3 + k % 2);
          r.mutable_cmdline()->set_data(pid % 2 ? shared_cmdline : "own " + std::to_string(pid));
          r.mutable_environ()->set_data(shared_environ);
          if (!w->AddProcess(std::move(r))) break;
          ++accepted;
        }
        ASSERT_TRUE(w->EndFrame(2, "", 0)) << w->error();
      }
      std::uint64_t observations = 0;
      for (std::uint64_t i = 0; i < 6; ++i, ++observations) {
        v1::Observation o;
        o.set_index(i);
        o.mutable_read_file()->set_pid(1);
        o.mutable_read_file()->mutable_result()->set_data(shared_cmdline);
        if (!w->AddObservation(std::move(o))) break;
      }
      ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
      const Snapshot s = ReadBack();
      EXPECT_EQ(s.frames.size(), frames);
      std::uint64_t records = 0;
      for (const v1::Frame& f : s.frames) records += static_cast<std::uint64_t>(f.processes_size());
      EXPECT_EQ(records, accepted);
      EXPECT_EQ(s.observations.size(), observations);
      EXPECT_LE(s.chunks, chunks);
    }
  }
}

TEST_F(FormatWriterLimitsTest, ObservationPastTheLimitIsRefused) {
  SnapshotWriter::Options options;
  options.limits.observations = 2;
  auto w = Open(options);
  for (std::uint64_t i = 0; i < 2; ++i) {
    v1::Observation o;
    o.set_index(i);
    ASSERT_TRUE(w->AddObservation(std::move(o)));
  }
  v1::Observation third;
  third.set_index(2);
  EXPECT_FALSE(w->AddObservation(std::move(third)));
  EXPECT_NE(w->refused().find("2 observations"), std::string::npos) << w->refused();
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  EXPECT_EQ(ReadBack().observations.size(), 2u);
}

TEST_F(FormatWriterLimitsTest, ResolutionPastTheLimitIsRefused) {
  SnapshotWriter::Options options;
  options.limits.resolutions = 1;
  auto w = Open(options);
  ASSERT_TRUE(w->WriteResolution(v1::Resolution{}));
  EXPECT_FALSE(w->WriteResolution(v1::Resolution{}));
  EXPECT_NE(w->refused().find("1 resolutions"), std::string::npos) << w->refused();
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  EXPECT_EQ(ReadBack().resolutions.size(), 1u);
}

TEST_F(FormatWriterLimitsTest, DefaultLimitsAreTheReaders) {
  const SnapshotWriter::Options options;
  EXPECT_EQ(options.limits.chunks, kMaxChunks);
  EXPECT_EQ(options.limits.processes, kMaxProcessRecords);
  EXPECT_EQ(options.limits.observations, kMaxObservations);
  EXPECT_EQ(options.limits.resolutions, kMaxResolutions);
  EXPECT_EQ(options.limits.blob_copy_bytes, kMaxBlobCopyBytes);
  EXPECT_EQ(options.limits.previous_copy_bytes, kMaxPreviousCopyBytes);
  EXPECT_EQ(options.limits.same_as_copy_bytes, kMaxSameAsCopyBytes);
}

}  // namespace
}  // namespace proctape
