// docs/format.md, the structure (sections 2-5): the order of chunks, frame
// parts and indexes, blobs, observations, resolutions, fingerprints and the
// footer's counts. One test per rule, each both ways: a file obeying the rule
// reads, a file breaking it is refused with the documented kind, chunk and
// byte offset, and the snapshot holds every chunk before the damaged one and
// nothing of it.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"

namespace proctape {
namespace {

using namespace std::string_literals;
using namespace proctape::test;
using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// A file built chunk by chunk: where each chunk starts, and the footer the
// writer would write (its counts as docs/format.md section 2 defines them).
struct Built {
  std::string bytes;
  std::vector<std::uint64_t> starts;  // of chunk 0, 1, ...
};

v1::Footer CountedFooter(const std::vector<v1::Chunk>& body) {
  v1::Footer f;
  f.set_chunks(body.size() + 1);
  for (const v1::Chunk& c : body) {
    if (c.has_frame()) {
      const v1::Frame& part = c.frame();
      if (part.complete()) f.set_frames(f.frames() + 1);
      if (part.complete() && part.cut_by_bounds())
        f.set_frames_cut_by_bounds(f.frames_cut_by_bounds() + 1);
      f.set_processes(f.processes() + part.processes_size());
      for (const v1::ProcessRecord& p : part.processes()) {
        for (const v1::FileRead* r :
             {&p.stat(), &p.cmdline(), &p.environ(), &p.status(), &p.cgroup()}) {
          if (r->truncated()) f.set_reads_truncated(f.reads_truncated() + 1);
        }
      }
    }
    if (c.has_observations())
      f.set_observations(f.observations() + c.observations().observations_size());
    if (c.has_resolution()) f.set_resolutions(f.resolutions() + 1);
  }
  return f;
}

// Preamble, header, `body`, then `footer` (by default the counted one; none
// when `with_footer` is false).
Built Build(const std::vector<v1::Chunk>& body, std::optional<v1::Footer> footer = std::nullopt,
            bool with_footer = true, const v1::Chunk& header = HeaderBody()) {
  Built b;
  b.bytes = Preamble();
  auto add = [&b](const v1::Chunk& c) {
    b.starts.push_back(b.bytes.size());
    b.bytes += ChunkOf(c);
  };
  add(header);
  for (const v1::Chunk& c : body) add(c);
  if (with_footer) {
    v1::Chunk f;
    *f.mutable_footer() = footer ? *footer : CountedFooter(body);
    add(f);
  }
  return b;
}

v1::Chunk FramePart(std::uint64_t index, bool complete, int processes = 1) {
  v1::Chunk c;
  c.mutable_frame()->set_index(index);
  c.mutable_frame()->set_complete(complete);
  for (int i = 0; i < processes; ++i) {
    v1::ProcessRecord* p = c.mutable_frame()->add_processes();
    p->set_pid(100 + i);
    p->mutable_stat()->set_data(std::to_string(100 + i) + " (x) S 1");
  }
  return c;
}

v1::Chunk Batch(std::vector<std::uint64_t> indexes) {
  v1::Chunk c;
  for (std::uint64_t i : indexes) {
    v1::Observation* o = c.mutable_observations()->add_observations();
    o->set_index(i);
    o->mutable_now()->set_result_ns(static_cast<std::int64_t>(i));
  }
  return c;
}

v1::Chunk Resolution(std::uint64_t first, std::uint64_t count) {
  v1::Chunk c;
  c.mutable_resolution()->mutable_liveness()->set_pid(7);
  c.mutable_resolution()->set_first_observation(first);
  c.mutable_resolution()->set_observation_count(count);
  return c;
}

v1::Chunk Fingerprint(std::int64_t pid) {
  v1::Chunk c;
  c.mutable_fingerprint()->set_root_pid(pid);
  c.mutable_fingerprint()->set_root_start_ticks(4242);
  c.mutable_fingerprint()->set_boot_id("b00t\n");
  return c;
}

const std::string kData = "/usr/bin/a-long-enough-argument\0--flag\0"s;

// Frame 0's first part, defining blob 1 and referring to it from a cmdline.
v1::Chunk BlobFrame(bool complete = true) {
  v1::Chunk c = FramePart(0, complete);
  v1::Blob* blob = c.mutable_frame()->add_blobs();
  blob->set_id(1);
  blob->set_data(kData);
  c.mutable_frame()->mutable_processes(0)->mutable_cmdline()->set_blob(1);
  return c;
}

struct Read {
  FormatError error;
  Snapshot snapshot;
};

class FormatStructureRulesTest : public TempDirTest {
 protected:
  Read ReadBytes(const std::string& bytes) {
    Spit(Path("f.ptape"), bytes);
    Read r;
    r.error = ReadSnapshot(Path("f.ptape"), &r.snapshot);
    return r;
  }
};

::testing::AssertionResult Refused(const Read& r, const Built& b, std::size_t chunk,
                                   const std::string& says,
                                   FormatErrorKind kind = FormatErrorKind::kCorrupt) {
  const FormatError& e = r.error;
  const std::uint64_t offset = b.starts.at(chunk);
  const std::string at =
      "chunk " + std::to_string(chunk) + " at byte " + std::to_string(offset) + ": ";
  if (e.kind != kind || e.chunk != chunk || e.offset != offset || e.message.rfind(at, 0) != 0 ||
      e.message.find(says) == std::string::npos || e.message.find('\n') != std::string::npos ||
      r.snapshot.chunks != chunk) {
    return ::testing::AssertionFailure()
           << "got " << FormatErrorName(e.kind) << " chunk " << e.chunk << " offset " << e.offset
           << " \"" << e.message << "\" with " << r.snapshot.chunks << " chunks read; want "
           << FormatErrorName(kind) << " \"" << at << "..." << says << "...\"";
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult Reads(const Read& r) {
  if (r.error.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << r.error.message;
}

// ---------------------------------------------------------------------------
// The header

TEST_F(FormatStructureRulesTest, HeaderFormatVersionEqualsThePreambles) {
  Built b = Build({}, std::nullopt, true, HeaderBody(1));
  EXPECT_TRUE(Reads(ReadBytes(b.bytes)));
  b = Build({}, std::nullopt, true, HeaderBody(0));  // absent: proto3 stores no 0
  EXPECT_TRUE(
      Refused(ReadBytes(b.bytes), b, 0, "the header has no format version (the preamble's is 1)"));
  b = Build({}, std::nullopt, true, HeaderBody(2));
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 0,
                      "the header's format version 2 differs from the preamble's 1"));
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
// Blobs

// Every FileRead reachable from a Chunk, as a path of fields.
void FileReadPaths(const Descriptor* d, std::vector<const FieldDescriptor*>* path,
                   std::vector<std::vector<const FieldDescriptor*>>* out) {
  if (path->size() > 8) return;
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->type() != FieldDescriptor::TYPE_MESSAGE) continue;
    path->push_back(f);
    if (f->message_type() == v1::FileRead::descriptor()) {
      out->push_back(*path);
    } else {
      FileReadPaths(f->message_type(), path, out);
    }
    path->pop_back();
  }
}

std::string Name(const std::vector<const FieldDescriptor*>& path) {
  std::string s;
  for (const FieldDescriptor* f : path) s += (s.empty() ? "" : ".") + f->name();
  return s;
}

TEST_F(FormatStructureRulesTest, BlobReferencesOnlyInARecordsCmdlineOrEnviron) {
  std::vector<const FieldDescriptor*> path;
  std::vector<std::vector<const FieldDescriptor*>> paths;
  FileReadPaths(v1::Chunk::descriptor(), &path, &paths);
  std::vector<std::string> names;
  for (const auto& p : paths) names.push_back(Name(p));
  // A FileRead added elsewhere to the schema must be classified here first.
  ASSERT_EQ(names, (std::vector<std::string>{"frame.processes.stat", "frame.processes.cmdline",
                                             "frame.processes.environ", "frame.processes.status",
                                             "frame.processes.cgroup",
                                             "observations.observations.read_file.result"}));
  for (const auto& p : paths) {
    SCOPED_TRACE(Name(p));
    // Blob 1 is defined (and used) by frame 0; chunk 2 refers to it at `p`.
    v1::Chunk c;
    google::protobuf::Message* m = &c;
    for (const FieldDescriptor* f : p) {
      m = f->is_repeated() ? m->GetReflection()->AddMessage(m, f)
                           : m->GetReflection()->MutableMessage(m, f);
    }
    static_cast<v1::FileRead*>(m)->set_blob(1);
    if (c.has_frame()) {
      c.mutable_frame()->set_index(1);
      c.mutable_frame()->set_complete(true);
    }
    Built b = Build({BlobFrame(), c});
    Read r = ReadBytes(b.bytes);
    const bool allowed = p.back()->name() == "cmdline" || p.back()->name() == "environ";
    if (allowed) {
      ASSERT_TRUE(Reads(r));
      const v1::ProcessRecord& rec = r.snapshot.frames.at(1).processes(0);
      const v1::FileRead& read = p.back()->name() == "cmdline" ? rec.cmdline() : rec.environ();
      EXPECT_EQ(read.data(), kData);
      EXPECT_EQ(read.blob(), 0u);
    } else {
      EXPECT_TRUE(
          Refused(r, b, 2, "a blob reference outside a process record's cmdline or environ"));
    }
  }
}

TEST_F(FormatStructureRulesTest, BlobReferenceBesideInlineDataIsCorrupt) {
  v1::Chunk c = FramePart(1, true);
  c.mutable_frame()->mutable_processes(0)->mutable_environ()->set_blob(1);
  Built b = Build({BlobFrame(), c});
  ASSERT_TRUE(Reads(ReadBytes(b.bytes)));
  c.mutable_frame()->mutable_processes(0)->mutable_environ()->set_data("HOME=/");
  b = Build({BlobFrame(), c});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "a blob reference beside inline data"));
}

TEST_F(FormatStructureRulesTest, BlobReferenceOnAFailedReadIsCorrupt) {
  v1::Chunk c = FramePart(1, true);
  c.mutable_frame()->mutable_processes(0)->mutable_environ()->set_blob(1);
  c.mutable_frame()->mutable_processes(0)->mutable_environ()->set_err(EACCES);
  Built b = Build({BlobFrame(), c});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 2, "a blob reference on a failed read"));
}

TEST_F(FormatStructureRulesTest, BlobIsDefinedWhereItIsFirstReferredTo) {
  // Defined in part 1 and referred to there and in part 2: reads.
  v1::Chunk later = FramePart(0, true);
  later.mutable_frame()->mutable_processes(0)->mutable_cmdline()->set_blob(1);
  Built b = Build({BlobFrame(false), later});
  ASSERT_TRUE(Reads(ReadBytes(b.bytes)));
  // Defined and not referred to in its part.
  v1::Chunk unused = FramePart(0, true);
  unused.mutable_frame()->add_blobs()->set_id(1);
  unused.mutable_frame()->mutable_blobs(0)->set_data(kData);
  b = Build({unused});
  EXPECT_TRUE(
      Refused(ReadBytes(b.bytes), b, 1, "blob 1 is defined but not referred to in its part"));
  // Referred to before it is defined.
  b = Build({later, BlobFrame()});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "a reference to an undefined blob"));
  // Ids out of order.
  v1::Chunk two = BlobFrame();
  two.mutable_frame()->mutable_blobs(0)->set_id(2);
  two.mutable_frame()->mutable_processes(0)->mutable_cmdline()->set_blob(2);
  b = Build({two});
  EXPECT_TRUE(Refused(ReadBytes(b.bytes), b, 1, "blob ids out of order"));
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
