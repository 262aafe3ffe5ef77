// SPDX-License-Identifier: Apache-2.0
// Where the writer closes a frame part (docs/format.md section 4): at about
// target_chunk bytes of serialized records, or of records as a reader holds
// them once resolved, whichever comes first, so that a frame of records "the
// same as the previous frame" (a few bytes each in the file) does not make a
// reader resolve the whole frame at once.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "format/chunk_reader.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_frames_v2_fixture.h"
#include "tests/unit/format_writer_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;

TEST_F(FormatWriterTest, PartsAreClosedByTheirResolvedSize) {
  constexpr std::uint64_t kTarget = 10'000;
  constexpr int kRecords = 200;
  const std::string path = Path("parts.ptape");
  SnapshotWriter::Options options;
  options.target_chunk = kTarget;
  Failure failure;
  auto w = SnapshotWriter::Create(path, options, &failure);
  ASSERT_NE(w, nullptr) << failure.message;
  ASSERT_TRUE(w->WriteHeader(v1::Header{}));
  std::map<std::int64_t, std::uint64_t> resolved;  // pid -> its record's size, plain
  for (std::uint64_t k = 0; k < 2; ++k) {
    ASSERT_TRUE(w->BeginFrame(k, 1));
    for (int pid = 1; pid <= kRecords; ++pid) {
      v1::ProcessRecord r = Idle(pid, 1000 + static_cast<std::uint64_t>(pid));
      resolved[pid] = r.ByteSizeLong() + 4;
      ASSERT_TRUE(w->AddProcess(std::move(r)));
    }
    ASSERT_TRUE(w->EndFrame(2, "", 0));
  }
  ASSERT_TRUE(w->Finish(v1::Footer{})) << w->error();

  FormatError e;
  auto reader = ChunkReader::Open(path, &e);
  ASSERT_NE(reader, nullptr) << e.message;
  v1::Chunk c;
  int second_frame_parts = 0, whole_records = 0;
  std::uint64_t largest = 0, total = 0;
  while (reader->Next(&c) == ChunkReader::Result::kChunk) {
    if (!c.has_frame() || c.frame().index() != 1) continue;
    ++second_frame_parts;
    std::uint64_t part = 0;
    for (const v1::ProcessRecord& p : c.frame().processes()) {
      part += resolved[p.pid()];
      whole_records += p.same_as_previous() ? 0 : 1;
    }
    largest = std::max(largest, part);
    total += part;
  }
  EXPECT_EQ(whole_records, 0);  // every record of the second frame is the first's
  // Each part holds under target_chunk resolved, but for its last record.
  EXPECT_LT(largest, kTarget + resolved[kRecords]);
  EXPECT_GE(second_frame_parts, static_cast<int>(total / kTarget));
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(path, &s).ok());
  ASSERT_EQ(s.frames.size(), 2u);
  EXPECT_EQ(s.frames[1].processes_size(), kRecords);
}

}  // namespace
}  // namespace proctape
