// SPDX-License-Identifier: Apache-2.0
// The writer keeps the limits a reader puts on what it copies (docs/format.md
// section 7; format/file_format.h): out of blobs (kMaxBlobCopyBytes), out of
// the previous frame (kMaxPreviousCopyBytes), out of the tape's latest
// results (kMaxSameAsCopyBytes). A reference that would pass one is not made:
// the data is written whole, so a file of 10 frames of 30,000 processes, each
// referring to one environ blob, is one every reader reads. The limits are
// injected small (SnapshotWriter::Options::limits); what is counted is read
// from the file's raw chunks.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "format/chunk_reader.h"
#include "format/reader.h"
#include "format/tape_calls.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_frames_v2_fixture.h"
#include "tests/unit/format_writer_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;

class FormatWriterCopyLimitsTest : public FormatWriterTest {
 protected:
  std::unique_ptr<SnapshotWriter> Open(const SnapshotWriter::Options& options) {
    Failure failure;
    auto w = SnapshotWriter::Create(Path("c.ptape"), options, &failure);
    EXPECT_NE(w, nullptr) << failure.message;
    if (w) {
      EXPECT_TRUE(w->WriteHeader(v1::Header{}));
    }
    return w;
  }
  // Every chunk of the file as stored; the file must also read back whole.
  std::vector<v1::Chunk> Raw() {
    std::vector<v1::Chunk> out;
    FormatError e;
    auto reader = ChunkReader::Open(Path("c.ptape"), &e);
    EXPECT_NE(reader, nullptr) << e.message;
    if (!reader) return out;
    v1::Chunk c;
    while (reader->Next(&c) == ChunkReader::Result::kChunk) out.push_back(c);
    Snapshot s;
    const FormatError read = ReadSnapshot(Path("c.ptape"), &s);
    EXPECT_TRUE(read.ok()) << read.message;
    return out;
  }
};

TEST_F(FormatWriterCopyLimitsTest, BlobReferencesStopAtTheBlobCopyLimit) {
  const std::string environ(300, 'e');
  SnapshotWriter::Options options;
  options.limits.blob_copy_bytes = 1000;  // three references of 300 bytes
  options.from_previous = false;
  auto w = Open(options);
  ASSERT_TRUE(w->BeginFrame(0, 1));
  for (int pid = 1; pid <= 8; ++pid) {
    v1::ProcessRecord r;
    r.set_pid(pid);
    r.mutable_environ()->set_data(environ);
    ASSERT_TRUE(w->AddProcess(std::move(r)));
  }
  ASSERT_TRUE(w->EndFrame(2, "", 0));
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  int references = 0, inline_copies = 0;
  for (const v1::Chunk& c : Raw()) {
    for (const v1::ProcessRecord& p : c.frame().processes()) {
      references += p.environ().blob() != 0 ? 1 : 0;
      inline_copies += p.environ().data() == environ ? 1 : 0;
    }
  }
  EXPECT_EQ(references, 3);  // 900 bytes copied; a fourth would pass 1000
  EXPECT_EQ(inline_copies, 5);
}

TEST_F(FormatWriterCopyLimitsTest, PreviousFrameReferencesStopAtThePreviousCopyLimit) {
  // A record the same as the previous frame's copies the whole record, its
  // serialized size: the same for pids 1..6 (one digit) started at ticks
  // 701..706.
  const std::uint64_t data = Idle(1, 701).ByteSizeLong();
  SnapshotWriter::Options options;
  options.limits.previous_copy_bytes = 3 * data;  // three whole records
  auto w = Open(options);
  for (std::uint64_t k = 0; k < 2; ++k) {
    ASSERT_TRUE(w->BeginFrame(k, 1));
    for (int pid = 1; pid <= 6; ++pid) {
      v1::ProcessRecord r = Idle(pid, 700 + static_cast<std::uint64_t>(pid));
      ASSERT_TRUE(w->AddProcess(std::move(r)));
    }
    ASSERT_TRUE(w->EndFrame(2, "", 0));
  }
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  int referring = 0, whole = 0;
  for (const v1::Chunk& c : Raw()) {
    if (c.frame().index() != 1) continue;
    for (const v1::ProcessRecord& p : c.frame().processes()) {
      (p.has_previous_start_ticks() ? referring : whole) += 1;
    }
  }
  EXPECT_EQ(referring, 3);
  EXPECT_EQ(whole, 3);
}

TEST_F(FormatWriterCopyLimitsTest, SameAsReferencesStopAtTheSameAsCopyLimit) {
  const std::string stat = "5 (w) S 1 5 5 0 -1 4194560 90 0 0 0 3 1 0 0 20 0 1 0 55\n";
  auto read = [&](std::uint64_t index) {
    v1::Observation o;
    o.set_index(index);
    o.mutable_read_file()->set_pid(5);
    o.mutable_read_file()->set_file(v1::PROC_FILE_STAT);
    o.mutable_read_file()->mutable_result()->set_bound(4096);
    o.mutable_read_file()->mutable_result()->set_data(stat);
    return o;
  };
  const std::uint64_t size = ResultSize(read(0));
  SnapshotWriter::Options options;
  options.limits.same_as_copy_bytes = 2 * size;  // two references
  auto w = Open(options);
  for (std::uint64_t i = 0; i < 6; ++i) ASSERT_TRUE(w->AddObservation(read(i)));
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();
  std::vector<std::uint64_t> same_as;
  for (const v1::Chunk& c : Raw()) {
    for (const v1::Observation& o : c.observations().observations()) same_as.push_back(o.same_as());
  }
  EXPECT_EQ(same_as, (std::vector<std::uint64_t>{0, 1, 1, 0, 0, 0}));
}

}  // namespace
}  // namespace proctape
