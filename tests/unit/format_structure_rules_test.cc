// SPDX-License-Identifier: Apache-2.0
// docs/format.md, the structure (sections 2-5): the order of chunks, frame
// parts and indexes, observations, resolutions, fingerprints and the footer's
// counts (blobs: format_blob_rules_test.cc). One test per rule, each both
// ways: a file obeying the rule reads, a file breaking it is refused with the
// documented kind, chunk and byte offset, and the snapshot holds every chunk
// before the damaged one and nothing of it.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/format_structure_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;
using google::protobuf::FieldDescriptor;

// ---------------------------------------------------------------------------
// The header

TEST_F(FormatStructureRulesTest, HeaderFormatVersionEqualsThePreambles) {
  const std::string v = std::to_string(kFormatVersion);
  Built b = Build({}, std::nullopt, true, HeaderBody(kFormatVersion));
  EXPECT_TRUE(Reads(ReadBytes(b.bytes)));
  b = Build({}, std::nullopt, true, HeaderBody(0));  // absent: proto3 stores no 0
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 0,
                      "the header has no format version (the preamble's is " + v + ")"));
  b = Build({}, std::nullopt, true, HeaderBody(kFormatVersion - 1));
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 0,
                      "the header's format version " + std::to_string(kFormatVersion - 1) +
                          " differs from the preamble's " + v));
}

TEST_F(FormatStructureRulesTest, HeaderIsChunk0AndOnlyChunk0) {
  Built b = Build({HeaderBody()});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "a second header"));
  b = Build({}, std::nullopt, true, FramePart(0, true));
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 0, "the first chunk is not a header"));
}

TEST_F(FormatStructureRulesTest, ChunkOfNoKnownKindIsCorrupt) {
  Built b = Build({v1::Chunk()});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "an empty chunk"));
  // Field 6 of Chunk: a body a newer version might add (section 9).
  v1::Chunk unknown;
  unknown.GetReflection()->MutableUnknownFields(&unknown)->AddVarint(6, 1);
  b = Build({unknown});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "a chunk of a kind this reader does not know"));
}

// ---------------------------------------------------------------------------
// Frames

TEST_F(FormatStructureRulesTest, FrameIndexIsTheFramesPositionInTheFile) {
  Built b =
      Build({FramePart(0, false), FramePart(0, true), FramePart(1, true), FramePart(2, true)});
  Read r = ReadBytes(b.bytes);
  ASSERT_TRUE(Reads(r));
  ASSERT_EQ(r.snapshot.frames.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(r.snapshot.frames[k].index(), k);

  b = Build({FramePart(1, true)});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "frame index 1, expected 0"));
  b = Build({FramePart(0, true), FramePart(0, true)});  // a frame repeated
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "frame index 0, expected 1"));
  b = Build({FramePart(0, true), FramePart(2, true)});  // a frame missing
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "frame index 2, expected 1"));
}

TEST_F(FormatStructureRulesTest, PartOfAnotherFrameWhileOneIsOpenIsCorrupt) {
  // Other kinds of chunk may come between parts.
  Built b = Build(
      {FramePart(0, false), Batch({0}), Resolution(0, 1), Fingerprint(1), FramePart(0, true)});
  Read r = ReadBytes(b.bytes);
  ASSERT_TRUE(Reads(r));
  EXPECT_EQ(r.snapshot.frames.at(0).processes_size(), 2);

  b = Build({FramePart(0, false), FramePart(1, true)});
  r = ReadBytes(b.bytes);
  EXPECT_TRUE(Refused(r, b, 2, "a part of frame 1 while frame 0 is open"));
  EXPECT_FALSE(r.snapshot.frames.at(0).complete());
}

TEST_F(FormatStructureRulesTest, FooterWhileAFrameIsOpenIsCorrupt) {
  Built b = Build({FramePart(0, false), FramePart(0, true)});
  EXPECT_TRUE(Reads(ReadBytes(b.bytes)));
  b = Build({FramePart(0, false)});
  Read r = ReadBytes(b.bytes);
  EXPECT_TRUE(Refused(r, b, 2, "the footer comes while frame 0 is open"));
  EXPECT_FALSE(r.snapshot.footer);
  // What came before is returned as a file cut there would be: the open frame.
  ASSERT_EQ(r.snapshot.frames.size(), 1u);
  EXPECT_FALSE(r.snapshot.frames[0].complete());
}

// ---------------------------------------------------------------------------
// Observations, resolutions, fingerprints

TEST_F(FormatStructureRulesTest, ObservationIndexesRunFrom0WithoutGaps) {
  Built b = Build({Batch({0, 1}), Batch({2})});
  ASSERT_TRUE(Reads(ReadBytes(b.bytes)));
  b = Build({Batch({0, 1}), Batch({3})});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "observation index 3, expected 2"));
}

TEST_F(FormatStructureRulesTest, ResolutionSpanEndsWithinTheObservationsBeforeIt) {
  Built b = Build({Batch({0, 1, 2}), Resolution(1, 2), Resolution(3, 0), Resolution(0, 3)});
  ASSERT_TRUE(Reads(ReadBytes(b.bytes)));
  b = Build({Batch({0, 1, 2}), Resolution(1, 3)});
  EXPECT_TRUE(
      Refused(ReadBytes(b.bytes), b, 2,
              "the resolution's span (first_observation 1, observation_count 3) runs past the 3 "
              "observations before it"));
  b = Build({Resolution(0, 1), Batch({0})});  // the batch comes after it
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "runs past the 0 observations before it"));
  b = Build({Batch({0}), Resolution(UINT64_MAX, 2)});  // first + count overflows
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "runs past the 1 observation before it"));
}

TEST_F(FormatStructureRulesTest, ResolutionVerdictIsUpgradedWhenRead) {
  v1::Chunk c = Resolution(0, 0);
  c.mutable_resolution()->mutable_verdict()->set_status(v1::Verdict::NO_MATCH);
  c.mutable_resolution()->mutable_verdict()->set_pid(41);  // as files before subject_pid
  Built b = Build({c});
  Read r = ReadBytes(b.bytes);
  ASSERT_TRUE(Reads(r));
  const v1::Verdict& v = r.snapshot.resolutions.at(0).verdict();
  EXPECT_FALSE(v.has_pid());
  EXPECT_EQ(v.subject_pid(), 41);
}

// docs/format.md section 5, "Verdicts written before subject_pid": in a file
// of either version, every verdict but RESOLVED is upgraded field by field
// (an unknown status too); a RESOLVED one and a current failure read as
// written.
TEST_F(FormatStructureRulesTest, VerdictsWrittenBeforeSubjectPidAreUpgradedFieldByField) {
  struct Case {
    int status;
    std::optional<std::int64_t> pid;
    std::optional<std::uint64_t> start;
    std::int64_t subject;
    std::uint64_t subject_start;
    // What is read: the identity (pid, start) kept or not, and the subject.
    bool identity_kept;
    std::int64_t want_subject;
    std::uint64_t want_subject_start;
  };
  const Case cases[] = {
      {v1::Verdict::NO_MATCH, 41, 7, 0, 0, false, 41, 7},
      {v1::Verdict::PID_REUSED, 41, 7, 52, 9, false, 52, 9},  // the subject stays
      {v1::Verdict::TOKEN_MISMATCH, std::nullopt, 7, 0, 0, false, 0, 7},
      {v1::Verdict::NO_MATCH, 0, std::nullopt, 0, 0, false, 0, 0},  // a present 0 cleared
      {v1::Verdict::STATUS_UNSPECIFIED, 41, std::nullopt, 0, 0, false, 41, 0},
      {99, 41, 7, 0, 0, false, 41, 7},  // a status this reader does not know
      {v1::Verdict::NO_MATCH, std::nullopt, std::nullopt, 41, 7, false, 41, 7},  // current
      {v1::Verdict::RESOLVED, 41, 7, 0, 0, true, 0, 0},
  };
  for (std::uint32_t version : {1u, 2u}) {
    for (const Case& k : cases) {
      v1::Chunk c = Resolution(0, 0);
      v1::Verdict* v = c.mutable_resolution()->mutable_verdict();
      v->set_status(static_cast<v1::Verdict::Status>(k.status));
      if (k.pid) v->set_pid(*k.pid);
      if (k.start) v->set_start_ticks(*k.start);
      // As a writer of either kind put them: a subject only when it names one
      // (subject_start_ticks is optional: absent, never a written 0).
      if (k.subject != 0) v->set_subject_pid(k.subject);
      if (k.subject_start != 0) v->set_subject_start_ticks(k.subject_start);
      v->set_detail("kept");
      Built b = Build({c}, std::nullopt, true, HeaderBody(version));
      b.bytes.replace(8, 4, Le32(version));
      const std::string what = "version " + std::to_string(version) + ", status " +
                               std::to_string(k.status) + ", pid " +
                               (k.pid ? std::to_string(*k.pid) : "absent");
      Read r = ReadBytes(b.bytes);
      ASSERT_TRUE(Reads(r)) << what;
      const v1::Verdict& got = r.snapshot.resolutions.at(0).verdict();
      EXPECT_EQ(got.has_pid(), k.identity_kept && k.pid.has_value()) << what;
      EXPECT_EQ(got.has_start_ticks(), k.identity_kept && k.start.has_value()) << what;
      EXPECT_EQ(got.subject_pid(), k.want_subject) << what;
      EXPECT_EQ(got.subject_start_ticks(), k.want_subject_start) << what;
      EXPECT_EQ(got.detail(), "kept") << what;
    }
  }
}

TEST_F(FormatStructureRulesTest, AtMostOneFingerprintChunkAnywhereAfterTheHeader) {
  // `proctape fingerprint`: header, fingerprint, footer (which counts it in
  // `chunks` only).
  Built b = Build({Fingerprint(1)});
  Read r = ReadBytes(b.bytes);
  ASSERT_TRUE(Reads(r));
  ASSERT_EQ(r.snapshot.fingerprints.size(), 1u);
  EXPECT_EQ(r.snapshot.fingerprints[0].root_start_ticks(), 4242u);
  EXPECT_EQ(r.snapshot.footer->chunks(), 2u);
  b = Build({FramePart(0, true), Batch({0}), Fingerprint(1)});
  ASSERT_TRUE(Reads(ReadBytes(b.bytes)));

  b = Build({Fingerprint(1), Fingerprint(2)});
  r = ReadBytes(b.bytes);
  EXPECT_TRUE(Refused(r, b, 2, "a second fingerprint"));
  EXPECT_EQ(r.snapshot.fingerprints.size(), 1u);
}

// ---------------------------------------------------------------------------
// The footer

TEST_F(FormatStructureRulesTest, FooterCountsAreChecked) {
  v1::Chunk cut = FramePart(1, true, 2);
  cut.mutable_frame()->set_cut_by_bounds(true);
  cut.mutable_frame()->set_cut_reason("max_nodes");
  cut.mutable_frame()->mutable_processes(1)->mutable_stat()->set_truncated(true);
  const std::vector<v1::Chunk> body = {FramePart(0, true), Batch({0, 1}), Resolution(0, 2), cut,
                                       Fingerprint(1)};
  v1::Footer footer;
  footer.set_chunks(6);
  footer.set_frames(2);
  footer.set_processes(3);
  footer.set_observations(2);
  footer.set_resolutions(1);
  footer.set_reads_truncated(1);
  footer.set_frames_cut_by_bounds(1);
  footer.set_capture_end_mono_ns(-5);  // a time, not a count: not checked
  Built b = Build(body, footer);
  ASSERT_TRUE(Reads(ReadBytes(b.bytes)));

  const FieldDescriptor* chunks = v1::Footer::descriptor()->FindFieldByName("chunks");
  for (const char* name : {"chunks", "frames", "observations", "resolutions", "processes",
                           "reads_truncated", "frames_cut_by_bounds"}) {
    SCOPED_TRACE(name);
    v1::Footer wrong = footer;
    const FieldDescriptor* f = v1::Footer::descriptor()->FindFieldByName(name);
    wrong.GetReflection()->SetUInt64(&wrong, f, wrong.GetReflection()->GetUInt64(wrong, f) + 1);
    b = Build(body, wrong);
    Read r = ReadBytes(b.bytes);
    const std::string what = f == chunks ? "chunks before it" : name;
    EXPECT_TRUE(Refused(r, b, 6,
                        "the footer counts " +
                            std::to_string(wrong.GetReflection()->GetUInt64(wrong, f)) + " " +
                            what + ", the file holds " +
                            std::to_string(footer.GetReflection()->GetUInt64(footer, f))));
    EXPECT_FALSE(r.snapshot.footer);
  }
}

// ---------------------------------------------------------------------------
// A damaged chunk contributes nothing

TEST_F(FormatStructureRulesTest, DamagedChunkContributesNothing) {
  // An observation batch whose third index is wrong: none of it is returned.
  Built b = Build({Batch({0}), Batch({1, 2, 4})});
  Read r = ReadBytes(b.bytes);
  EXPECT_TRUE(Refused(r, b, 2, "observation index 4, expected 3"));
  EXPECT_EQ(r.snapshot.observations.size(), 1u);

  // A frame's second part whose last record refers to an undefined blob: the
  // open frame keeps its first part only, and the part's blob is not kept.
  v1::Chunk second = BlobFrame(true);
  second.mutable_frame()->mutable_blobs(0)->set_id(1);
  second.mutable_frame()->add_processes()->mutable_environ()->set_blob(2);
  b = Build({FramePart(0, false, 3), second});
  r = ReadBytes(b.bytes);
  EXPECT_TRUE(Refused(r, b, 2, "a reference to an undefined blob"));
  ASSERT_EQ(r.snapshot.frames.size(), 1u);
  EXPECT_EQ(r.snapshot.frames[0].processes_size(), 3);
  EXPECT_FALSE(r.snapshot.frames[0].complete());

  // A new frame whose part is damaged is not returned at all.
  v1::Chunk bad = FramePart(1, true);
  bad.mutable_frame()->mutable_processes(0)->mutable_stat()->set_blob(1);
  b = Build({BlobFrame(), bad});
  r = ReadBytes(b.bytes);
  EXPECT_TRUE(Refused(r, b, 2, "blob reference"));
  EXPECT_EQ(r.snapshot.frames.size(), 1u);
}

}  // namespace
}  // namespace proctape
