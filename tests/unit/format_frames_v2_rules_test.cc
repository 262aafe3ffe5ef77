// SPDX-License-Identifier: Apache-2.0
// Version 2 frames (docs/format.md 9a, "Frames: only what changed"): the
// reader's checks of references to the previous frame, on hand-built files.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "format/chunk_reader.h"
#include "format/file_format.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_structure_fixture.h"
#include "tests/unit/format_frames_v2_fixture.h"

namespace proctape {
namespace {

using namespace test;

// --- The reader's checks (docs/format.md section 8), on hand-built files. ---

class FramesV2RulesTest : public FormatStructureRulesTest {};

v1::Chunk Part(std::uint64_t index, std::vector<v1::ProcessRecord> records) {
  v1::Chunk c;
  c.mutable_frame()->set_index(index);
  c.mutable_frame()->set_complete(true);
  for (auto& p : records) *c.mutable_frame()->add_processes() = std::move(p);
  return c;
}

v1::ProcessRecord SameAs(std::int64_t pid, std::uint64_t start) {
  v1::ProcessRecord p;
  p.set_pid(pid);
  p.set_previous_start_ticks(start);
  p.set_same_as_previous(true);
  return p;
}

TEST_F(FramesV2RulesTest, ReferenceToARecordThePreviousFrameHoldsReads) {
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {SameAs(100, 5000)})});
  Read r = ReadBytes(b.bytes);
  ASSERT_TRUE(r.error.ok()) << r.error.message;
  EXPECT_TRUE(Same(Idle(100, 5000), r.snapshot.frames[1].processes(0)));
}

TEST_F(FramesV2RulesTest, ReferenceInTheFirstFrameIsCorrupt) {
  Built b = Build({Part(0, {SameAs(100, 5000)})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "which holds no such record"));
}

TEST_F(FramesV2RulesTest, ReferenceToAnotherStartTickIsCorrupt) {
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {SameAs(100, 5001)})});
  EXPECT_TRUE(
      Refused(ReadBytes(b.bytes), b, 2, "(pid 100, start tick 5001) of the previous frame"));
}

TEST_F(FramesV2RulesTest, ReferenceToTwoFramesBackIsCorrupt) {
  Built b =
      Build({Part(0, {Idle(100, 5000)}), Part(1, {Idle(200, 6000)}), Part(2, {SameAs(100, 5000)})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 3, "which holds no such record"));
}

TEST_F(FramesV2RulesTest, SecondReferenceToOneRecordInAFrameIsCorrupt) {
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {SameAs(100, 5000), SameAs(100, 5000)})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "which holds no such record"));
}

TEST_F(FramesV2RulesTest, WholeRecordReferenceBesideItsOwnReadsIsCorrupt) {
  v1::ProcessRecord p = SameAs(100, 5000);
  *p.mutable_cgroup() = Ok("0::/\n", 4096);
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {p})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "beside fields of its own"));
}

TEST_F(FramesV2RulesTest, SameReadBesideInlineDataIsCorrupt) {
  v1::ProcessRecord p = Idle(100, 5000);
  p.set_previous_start_ticks(5000);
  p.mutable_cmdline()->set_from_previous(v1::FROM_PREVIOUS_SAME);
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {p})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "cmdline same as the previous frame's beside"));
}

TEST_F(FramesV2RulesTest, ReadFormWithoutPreviousStartTicksIsCorrupt) {
  v1::ProcessRecord p = Idle(100, 5000);
  p.mutable_cmdline()->Clear();
  p.mutable_cmdline()->set_from_previous(v1::FROM_PREVIOUS_SAME);
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {p})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "without previous_start_ticks"));
}

TEST_F(FramesV2RulesTest, StatFieldChangePastThePreviousFieldsIsCorrupt) {
  v1::ProcessRecord p;
  p.set_pid(100);
  p.set_previous_start_ticks(5000);
  p.mutable_stat()->set_from_previous(v1::FROM_PREVIOUS_FIELDS);
  v1::StatFieldChange* c = p.mutable_stat()->add_stat_changes();
  c->set_field(52);
  c->set_value("x");
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {p})});
  EXPECT_TRUE(
      Refused(ReadBytes(b.bytes), b, 2, "stat field change 52 out of order or past the 42 fields"));
}

TEST_F(FramesV2RulesTest, StatFieldChangesOutOfOrderAreCorrupt) {
  v1::ProcessRecord p;
  p.set_pid(100);
  p.set_previous_start_ticks(5000);
  p.mutable_stat()->set_from_previous(v1::FROM_PREVIOUS_FIELDS);
  p.mutable_stat()->add_stat_changes()->set_field(14);
  p.mutable_stat()->add_stat_changes()->set_field(13);
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {p})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "stat field change 13 out of order"));
}

TEST_F(FramesV2RulesTest, FieldsOutsideStatAndStatusAreCorrupt) {
  v1::ProcessRecord p;
  p.set_pid(100);
  p.set_previous_start_ticks(5000);
  p.mutable_cgroup()->set_from_previous(v1::FROM_PREVIOUS_FIELDS);
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {p})});
  EXPECT_TRUE(
      Refused(ReadBytes(b.bytes), b, 2, "cgroup as stat fields (only stat and status may be)"));
}

TEST_F(FramesV2RulesTest, UnknownFromPreviousIsCorrupt) {
  v1::ProcessRecord p;
  p.set_pid(100);
  p.set_previous_start_ticks(5000);
  p.mutable_cgroup()->set_from_previous(static_cast<v1::FromPrevious>(7));
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {p})});
  EXPECT_TRUE(
      Refused(ReadBytes(b.bytes), b, 2, "cgroup has from_previous 7, unknown to this reader"));
}

TEST_F(FramesV2RulesTest, ReferenceToThePreviousFrameInAVersion1FileIsCorrupt) {
  Built b = Build({Part(0, {Idle(100, 5000)}), Part(1, {SameAs(100, 5000)})}, std::nullopt, true,
                  HeaderBody(1));
  b.bytes.replace(0, kPreambleBytes, Preamble(1));
  EXPECT_TRUE(
      Refused(ReadBytes(b.bytes), b, 2,
              "a reference to the previous frame (process record of pid 100) in a version 1 file"));
  // The same frames in a version 2 file read.
  Built v2 = Build({Part(0, {Idle(100, 5000)}), Part(1, {SameAs(100, 5000)})});
  EXPECT_TRUE(ReadBytes(v2.bytes).error.ok());
}

TEST_F(FramesV2RulesTest, ReferenceToThePreviousFrameInAnObservationIsCorrupt) {
  v1::Chunk batch = Batch({0});
  v1::Observation* o = batch.mutable_observations()->mutable_observations(0);
  o->mutable_read_file()->set_pid(1);
  o->mutable_read_file()->mutable_result()->set_from_previous(v1::FROM_PREVIOUS_SAME);
  Built b = Build({batch});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "outside a process record (observation 0)"));
}

}  // namespace
}  // namespace proctape
