// SPDX-License-Identifier: Apache-2.0
// The reader's budget (docs/format.md section 7, "The reader's budget";
// format/read_budget.h): what a reader materializes from a file, each chunk
// as parsed and every copy out of a reference, is charged before it is made,
// against kReaderBaseBytes plus kReaderBytesPerFileByte per byte read.
#include <gtest/gtest.h>

#include <string>

#include "format/previous_frame.h"
#include "format/read_budget.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"

namespace proctape::test {
namespace {

class FormatReadBudget : public TempDirTest {};

TEST(ReadBudgetTest, AChargeThatWouldPassBasePlusPerFileByteIsRefusedAndNotCounted) {
  ReadBudget budget(1000, 10);
  EXPECT_EQ(budget.Limit(50), 1500u);
  EXPECT_TRUE(budget.Charge(1200, 20));  // limit 1200
  EXPECT_FALSE(budget.Charge(1, 20));
  EXPECT_EQ(budget.used(), 1200u);
  EXPECT_TRUE(budget.Charge(100, 30)) << "more of the file read, more room";
  EXPECT_EQ(ReadBudget(1, UINT64_MAX).Limit(2), UINT64_MAX) << "saturates";
}

// What one chunk makes is bounded whatever the file's size: a file padded
// to 1 MiB raises the budget to 1.1 GiB, but no one item may take more than
// kMaxChunkMaterialized (docs/format.md section 7, "The reader's budget").
TEST(ReadBudgetTest, OneChunkMakesAtMostThePerChunkLimitWhateverTheFileSize) {
  ReadBudget budget(1000, 1000, 300);
  budget.BeginChunk();
  EXPECT_TRUE(budget.Charge(200, 1'000'000));
  EXPECT_FALSE(budget.Charge(101, 1'000'000)) << "the chunk's 300, not the file's 1e9";
  EXPECT_NE(budget.Refusal("the copy", 101, 1'000'000).find("the most one chunk may make"),
            std::string::npos);
  budget.BeginChunk();
  EXPECT_TRUE(budget.Charge(300, 1'000'000)) << "the next chunk counts from 0";
  EXPECT_EQ(budget.used(), 500u);
  EXPECT_EQ(ReadBudget().Limit(0), kReaderBaseBytes);
  EXPECT_GE(kMaxChunkMaterialized, 3 * kMaxChunkContent) << "room for a whole chunk as parsed";
}

// A listing of empty names is 2 bytes a name on the wire and a string each
// in memory: the parse is charged what it makes.
TEST(ReadBudgetTest, ParseCostCountsAStringObjectForEachEmptyName) {
  v1::Observation o;
  for (int i = 0; i < 1000; ++i) o.mutable_list_pids()->add_names();
  const std::string wire = o.SerializeAsString();
  EXPECT_LT(wire.size(), 2100u);
  EXPECT_GE(ParseCost(wire, v1::Observation::descriptor()), 1000u * 40);
  v1::Observation parsed;
  ASSERT_TRUE(parsed.ParseFromString(wire));
  EXPECT_GE(ParseCost(wire, v1::Observation::descriptor()), parsed.SpaceUsedLong() / 2);
}

TEST(ReadBudgetTest, ParseCostCountsEightBytesForEachPackedElement) {
  v1::Chunk c;
  v1::Verdict* v = c.mutable_resolution()->mutable_verdict();
  for (int i = 0; i < 10000; ++i) v->add_matches(1);
  EXPECT_GE(ParseCost(c.SerializeAsString(), v1::Chunk::descriptor()), 10000u * 8);
}

// 4 M empty names in a file of a few KB: 8 MB on the wire, some 170 MB
// parsed, past the budget of a small file before it is parsed.
TEST_F(FormatReadBudget, AListingOfEmptyNamesPastTheBudgetIsTooLargeBeforeItIsParsed) {
  v1::Chunk c;
  v1::Observation* o = c.mutable_observations()->add_observations();
  for (int i = 0; i < 4'000'000; ++i) o->mutable_list_pids()->add_names();
  const std::string bytes = Preamble() + ChunkOf(HeaderBody()) + Compressed(c.SerializeAsString()) +
                            ChunkOf(FooterBody(2));
  ASSERT_LT(bytes.size(), 10'000u);
  Spit(Path("names.ptape"), bytes);
  Snapshot s;
  FormatError e = ReadSnapshot(Path("names.ptape"), &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTooLarge) << e.message;
  EXPECT_NE(e.message.find("chunk 1 at byte 47: its message as parsed"), std::string::npos)
      << e.message;
  EXPECT_NE(e.message.find("the reader's budget: " + std::to_string(kReaderBaseBytes)),
            std::string::npos)
      << e.message;
}

// Nine references to one 15 MiB blob copy 141 MB: under kMaxBlobCopyBytes,
// past what a file of a few KB may make a reader hold.
TEST_F(FormatReadBudget, BlobReferencesPastTheBudgetAreTooLargeUnderTheBlobCopyLimit) {
  ASSERT_LT(9ull * (15u << 20), kMaxBlobCopyBytes);
  Spit(Path("blobs.ptape"), FileOfBlobReferences(9));
  Snapshot s;
  FormatError e = ReadSnapshot(Path("blobs.ptape"), &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTooLarge) << e.message;
  EXPECT_NE(e.message.find("the copy of blob 1 (15728640 bytes) would take what the reader "
                           "holds past"),
            std::string::npos)
      << e.message;
}

// "Same as the previous frame's" copies the whole record: every field is
// counted, an exe's link text and fields this reader does not know too.
TEST(ReadBudgetTest, AWholeRecordCopyIsCountedByItsSerializedSizeWithUnknownFields) {
  v1::ProcessRecord before;
  before.set_pid(7);
  before.mutable_stat()->set_data("7 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55");
  before.mutable_exe()->set_link_text(std::string(5000, 'L'));
  before.GetReflection()->MutableUnknownFields(&before)->AddLengthDelimited(999,
                                                                            std::string(7000, 'U'));
  v1::ProcessRecord ref;
  ref.set_pid(7);
  ref.set_previous_start_ticks(55);
  ref.set_same_as_previous(true);
  std::uint64_t copied = 0;
  ASSERT_EQ(ResolveFromPrevious(&ref, &before, &copied), "");
  EXPECT_EQ(copied, before.ByteSizeLong());
  EXPECT_GT(copied, 12'000u);
  EXPECT_EQ(ref.SerializeAsString(), before.SerializeAsString());
}

// A read taken from the previous frame's record is counted whole (its
// fields beside its data), and only it: not the record it is read from.
TEST(ReadBudgetTest, AReadCopyIsCountedByTheReadAloneAndATableRecordIsNotCopiedToFindIt) {
  v1::ProcessRecord before;
  before.set_pid(7);
  before.mutable_stat()->set_data("7 (x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55");
  before.mutable_cgroup()->set_data("0::/");
  before.mutable_cgroup()->set_bound(4096);
  before.GetReflection()->MutableUnknownFields(&before)->AddLengthDelimited(
      999, std::string(70000, 'U'));
  PreviousFrame table;
  table.BeginFrame(0);
  table.Remember(&before);
  table.BeginFrame(1);
  const PreviousFrame::Held held = table.FindHeld(RecordKey{7, 55});
  ASSERT_NE(held.rest, nullptr);
  v1::ProcessRecord ref;
  ref.set_pid(7);
  ref.set_previous_start_ticks(55);
  ref.mutable_cgroup()->set_from_previous(v1::FROM_PREVIOUS_SAME);
  std::uint64_t copied = 0;
  ASSERT_EQ(ResolveFromPrevious(&ref, held, &copied), "");
  EXPECT_EQ(copied, before.cgroup().ByteSizeLong());
  EXPECT_EQ(ref.cgroup().SerializeAsString(), before.cgroup().SerializeAsString());
}

}  // namespace
}  // namespace proctape::test
