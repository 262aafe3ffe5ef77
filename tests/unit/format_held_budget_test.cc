// SPDX-License-Identifier: Apache-2.0
// What a command that holds a whole file may hold of it (docs/format.md
// section 7, "What a command holds"; format/held_budget.h): ReadSnapshot
// charges what it keeps, as it keeps it, against kHeldBaseBytes plus
// kHeldBytesPerFileByte per byte read. A file of a few KB whose frames each
// refer to the previous frame's 12 MiB record is read a chunk at a time
// within the reader's budget, but is too large to hold whole.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "format/held_budget.h"
#include "format/reader.h"
#include "format/snapshot_stream.h"
#include "proctape.pb.h"
#include "tests/unit/format_frames_v2_fixture.h"
#include "tests/unit/format_structure_fixture.h"

namespace proctape {
namespace {

using namespace test;

constexpr std::size_t kRecordBytes = 12u << 20;
constexpr int kFrames = 8;  // 96 MiB held whole: past 64 MiB + 1,024 per byte

v1::Chunk Frame(std::uint64_t index, const v1::ProcessRecord& p) {
  v1::Chunk c;
  c.mutable_frame()->set_index(index);
  c.mutable_frame()->set_complete(true);
  *c.mutable_frame()->add_processes() = p;
  return c;
}

// Frame 0: one record of a 12 MiB cmdline; every later frame: "the same as
// the previous frame's".
Built ChainOfReferences() {
  v1::ProcessRecord big = Idle(100, 5000);
  *big.mutable_cmdline() = Ok(std::string(kRecordBytes, 'a'), 16u << 20);
  v1::ProcessRecord same;
  same.set_pid(100);
  same.set_previous_start_ticks(5000);
  same.set_same_as_previous(true);
  std::vector<v1::Chunk> body{Frame(0, big)};
  for (int i = 1; i < kFrames; ++i) body.push_back(Frame(i, same));
  // Build()'s chunks, compressed: 12 MiB of one letter is a few hundred bytes.
  Built b;
  b.bytes = Preamble();
  v1::Chunk footer;
  *footer.mutable_footer() = CountedFooter(body);
  body.insert(body.begin(), HeaderBody());
  body.push_back(footer);
  for (const v1::Chunk& c : body) {
    b.starts.push_back(b.bytes.size());
    b.bytes += Compressed(c.SerializeAsString());
  }
  return b;
}

class HeldBudgetTest : public FormatStructureRulesTest {};

TEST(HeldBudget, ItsLimitIsTheBasePlusTheRatePerByteRead) {
  ReadBudget held = HeldBudget();
  EXPECT_EQ(held.Limit(0), kHeldBaseBytes);
  EXPECT_EQ(held.Limit(1u << 20), kHeldBaseBytes + kHeldBytesPerFileByte * (1u << 20));
  EXPECT_LT(held.Limit(1u << 20), kReaderBaseBytes + kReaderBytesPerFileByte * (1u << 20));
  EXPECT_TRUE(held.Charge(kHeldBaseBytes, 0));
  EXPECT_FALSE(held.Charge(1, 0));
}

TEST_F(HeldBudgetTest, AChainOfReferencesIsReadAChunkAtATimeButNotHeldWhole) {
  const Built b = ChainOfReferences();
  ASSERT_LT(b.bytes.size(), 100'000u);
  Spit(Path("chain.ptape"), b.bytes);

  // Streamed, every frame is read: the reader's budget allows it.
  FormatError open;
  auto stream = SnapshotStream::Open(Path("chain.ptape"), &open);
  ASSERT_NE(stream, nullptr) << open.message;
  int frames = 0;
  for (;;) {
    const SnapshotStream::Result r = stream->Next();
    ASSERT_NE(r, SnapshotStream::Result::kError) << stream->error().message;
    if (r == SnapshotStream::Result::kEnd) break;
    if (stream->item().kind == StreamItem::Kind::kFramePart) ++frames;
  }
  EXPECT_EQ(frames, kFrames);
  EXPECT_GT(stream->materialized(), kHeldBaseBytes + kHeldBytesPerFileByte * b.bytes.size());

  // Held whole, it is refused at the frame that passes the limit, naming it.
  const Read r = ReadBytes(b.bytes);
  EXPECT_EQ(r.error.kind, FormatErrorKind::kTooLarge) << r.error.message;
  const std::size_t refused = r.snapshot.frames.size() + 1;  // the chunk after those held
  ASSERT_LT(refused, b.starts.size());
  EXPECT_EQ(r.error.chunk, refused);
  EXPECT_EQ(r.error.offset, b.starts[refused]);
  EXPECT_NE(r.error.message.find("chunk " + std::to_string(refused) + " at byte " +
                                 std::to_string(b.starts[refused]) +
                                 ": what this command holds of the file ("),
            std::string::npos)
      << r.error.message;
  EXPECT_NE(r.error.message.find("the most a command that holds every frame may hold (" +
                                 std::to_string(kHeldBaseBytes) + " bytes and " +
                                 std::to_string(kHeldBytesPerFileByte) + " per byte"),
            std::string::npos)
      << r.error.message;
  EXPECT_GE(r.snapshot.frames.size(), 4u);  // 64 MiB: five 12 MiB frames at most
  EXPECT_LT(r.snapshot.frames.size(), static_cast<std::size_t>(kFrames));
}

TEST_F(HeldBudgetTest, FramesNotKeptAreNotCharged) {
  const Built b = ChainOfReferences();
  Spit(Path("chain.ptape"), b.bytes);
  Snapshot s;
  ReadKeep keep;
  keep.frames = std::vector<std::uint64_t>{kFrames - 1};
  const FormatError e = ReadSnapshot(Path("chain.ptape"), &s, keep);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.frames.size(), static_cast<std::size_t>(kFrames));
  EXPECT_EQ(s.frames.back().processes(0).cmdline().data().size(), kRecordBytes);
  EXPECT_EQ(s.frames.front().processes_size(), 0);
}

// Shared (ReadKeep::shared_records), the chain is one record listed in every
// frame, and held and charged once: what replay --model frames keeps.
TEST_F(HeldBudgetTest, SharedRecordsHoldTheChainOnce) {
  const Built b = ChainOfReferences();
  Spit(Path("chain.ptape"), b.bytes);
  Snapshot s;
  ReadKeep keep;
  keep.shared_records = true;
  const FormatError e = ReadSnapshot(Path("chain.ptape"), &s, keep);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.frames.size(), static_cast<std::size_t>(kFrames));
  ASSERT_EQ(s.records.size(), static_cast<std::size_t>(kFrames));
  EXPECT_EQ(s.records.held(), 1u);
  EXPECT_EQ(s.records.listed(), static_cast<std::uint64_t>(kFrames));
  for (int i = 0; i < kFrames; ++i) {
    EXPECT_EQ(s.frames[i].processes_size(), 0) << i;  // a shell
    ASSERT_EQ(s.records[i].size(), 1u) << i;
    EXPECT_EQ(s.records[i][0], s.records[0][0]) << i;
  }
  EXPECT_EQ(s.records[0][0]->cmdline().data().size(), kRecordBytes);
}

}  // namespace
}  // namespace proctape
