// SPDX-License-Identifier: Apache-2.0
// Version 2's frames that cost what changed (docs/format.md 9a, "Frames:
// only what changed"): the writer stores a record, a read or a stat's fields
// as what changed from the previous frame's record of the same (pid, start
// tick), only when the rebuild gives it back exactly; the reader resolves
// every such reference, checked before use, so a read snapshot is plain.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "format/chunk_reader.h"
#include "format/file_format.h"
#include "format/reader.h"
#include "format/snapshot_stream.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_structure_fixture.h"
#include "tests/unit/format_frames_v2_fixture.h"
#include "tests/unit/format_writer_fixture.h"

namespace proctape {
namespace {

using namespace test;

class FramesV2Test : public FormatWriterTest {
 protected:
  // Writes `frames` with the real writer; returns the file's path.
  std::string Write(const std::vector<std::vector<v1::ProcessRecord>>& frames,
                    SnapshotWriter::Options options = {}) {
    const std::string path = Path("f.ptape");
    options.force = true;
    Failure failure;
    auto w = SnapshotWriter::Create(path, options, &failure);
    EXPECT_TRUE(w) << failure.message;
    EXPECT_TRUE(w->WriteHeader(SampleHeader()));
    for (std::size_t i = 0; i < frames.size(); ++i) {
      EXPECT_TRUE(w->BeginFrame(i, 100 * static_cast<std::int64_t>(i)));
      for (v1::ProcessRecord p : frames[i]) EXPECT_TRUE(w->AddProcess(std::move(p))) << w->error();
      EXPECT_TRUE(w->EndFrame(100 * static_cast<std::int64_t>(i) + 50, "", 0));
    }
    EXPECT_TRUE(w->Finish({})) << w->error();
    return path;
  }
  // The records of every frame part as stored on disk (references kept).
  std::vector<v1::ProcessRecord> OnDisk(const std::string& path) {
    FormatError error;
    auto reader = ChunkReader::Open(path, &error);
    std::vector<v1::ProcessRecord> out;
    v1::Chunk chunk;
    while (reader && reader->Next(&chunk) == ChunkReader::Result::kChunk) {
      if (chunk.has_frame()) {
        for (const auto& p : chunk.frame().processes()) out.push_back(p);
      }
    }
    return out;
  }
  // Reads `path` and checks that every frame is exactly `frames`.
  void ExpectReadsBack(const std::string& path,
                       const std::vector<std::vector<v1::ProcessRecord>>& frames) {
    Snapshot s;
    FormatError e = ReadSnapshot(path, &s);
    ASSERT_TRUE(e.ok()) << e.message;
    ASSERT_EQ(s.frames.size(), frames.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
      ASSERT_EQ(s.frames[i].processes_size(), static_cast<int>(frames[i].size()));
      for (std::size_t k = 0; k < frames[i].size(); ++k) {
        EXPECT_TRUE(Same(frames[i][k], s.frames[i].processes(static_cast<int>(k))))
            << "frame " << i << " record " << k;
      }
    }
  }
};

TEST_F(FramesV2Test, UnchangedRecordIsStoredAsTheSameAsThePreviousFrames) {
  std::vector<v1::ProcessRecord> frame = {Idle(100, 5000), Idle(101, 5001), Idle(102, 5002)};
  const std::string path = Write({frame, frame, frame});
  std::vector<v1::ProcessRecord> disk = OnDisk(path);
  ASSERT_EQ(disk.size(), 9u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_FALSE(disk[i].has_previous_start_ticks());
  for (std::size_t i = 3; i < 9; ++i) {
    EXPECT_TRUE(disk[i].same_as_previous()) << i;
    EXPECT_EQ(disk[i].previous_start_ticks(), 5000 + i % 3);
    EXPECT_FALSE(disk[i].has_stat());
  }
  ExpectReadsBack(path, {frame, frame, frame});
}

// Read with shared records (format/frame_records.h), a record the file says
// is the previous frame's is that record, held once; a changed one is its
// own; every frame lists exactly what a plain read holds.
TEST_F(FramesV2Test, SharedRecordsListTheUnchangedRecordOnceAndTheChangedOneAgain) {
  std::vector<v1::ProcessRecord> first = {Idle(100, 5000), Idle(101, 5001)};
  std::vector<v1::ProcessRecord> second = {Idle(100, 5000), Idle(101, 5001, 47)};
  const std::string path = Write({first, second, second});
  Snapshot s;
  ReadKeep keep;
  keep.shared_records = true;
  FormatError e = ReadSnapshot(path, &s, keep);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.records.size(), 3u);
  EXPECT_EQ(s.records.listed(), 6u);
  EXPECT_EQ(s.records.held(), 3u);  // pid 100 once, pid 101 before and after its change
  EXPECT_EQ(s.records[1][0], s.records[0][0]);
  EXPECT_NE(s.records[1][1], s.records[0][1]);
  EXPECT_EQ(s.records[2][1], s.records[1][1]);
  const std::vector<std::vector<v1::ProcessRecord>> want = {first, second, second};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(s.frames[i].processes_size(), 0);
    ASSERT_EQ(s.records[i].size(), want[i].size());
    for (std::size_t k = 0; k < want[i].size(); ++k) {
      EXPECT_TRUE(Same(want[i][k], *s.records[i][k])) << "frame " << i << " record " << k;
    }
  }
}

TEST_F(FramesV2Test, ChangedStatIsStoredAsTheFieldsThatChanged) {
  v1::ProcessRecord before = Idle(100, 5000, 3), after = Idle(100, 5000, 47);
  const std::string path = Write({{before}, {after}});
  std::vector<v1::ProcessRecord> disk = OnDisk(path);
  ASSERT_EQ(disk.size(), 2u);
  const v1::FileRead& stat = disk[1].stat();
  EXPECT_EQ(stat.from_previous(), v1::FROM_PREVIOUS_FIELDS);
  EXPECT_TRUE(stat.data().empty());
  ASSERT_EQ(stat.stat_changes_size(), 1);
  EXPECT_EQ(stat.stat_changes(0).field(), 14u);  // utime: "(idle worker)" is two
  EXPECT_EQ(stat.stat_changes(0).value(), "47");
  EXPECT_EQ(disk[1].cmdline().from_previous(), v1::FROM_PREVIOUS_SAME);
  EXPECT_TRUE(disk[1].cmdline().data().empty());
  ExpectReadsBack(path, {{before}, {after}});
}

TEST_F(FramesV2Test, ChangedReadIsStoredWholeBesideReadsTakenFromThePreviousFrame) {
  v1::ProcessRecord before = Idle(100, 5000), after = Idle(100, 5000);
  *after.mutable_status() = Ok("Name:\tidle worker\nState:\tR (running)\n", 16384);
  after.mutable_cgroup()->set_err(EACCES);
  after.mutable_cgroup()->clear_data();
  const std::string path = Write({{before}, {after}});
  std::vector<v1::ProcessRecord> disk = OnDisk(path);
  ASSERT_EQ(disk.size(), 2u);
  EXPECT_EQ(disk[1].status().from_previous(), v1::FROM_PREVIOUS_NONE);
  EXPECT_EQ(disk[1].status().data(), after.status().data());
  EXPECT_EQ(disk[1].cgroup().err(), EACCES);
  EXPECT_EQ(disk[1].environ().from_previous(), v1::FROM_PREVIOUS_SAME);
  ExpectReadsBack(path, {{before}, {after}});
}

TEST_F(FramesV2Test, ChangedStatusIsStoredAsTheLinesThatChanged) {
  v1::ProcessRecord before = Idle(100, 5000), after = Idle(100, 5000);
  std::string status = after.status().data();
  status.replace(status.find("S (sleeping)"), 12, "R (running)");
  after.mutable_status()->set_data(status);
  const std::string path = Write({{before}, {after}});
  std::vector<v1::ProcessRecord> disk = OnDisk(path);
  const v1::FileRead& read = disk[1].status();
  EXPECT_EQ(read.from_previous(), v1::FROM_PREVIOUS_FIELDS);
  ASSERT_EQ(read.stat_changes_size(), 1);
  EXPECT_EQ(read.stat_changes(0).field(), 1u);
  EXPECT_EQ(read.stat_changes(0).value(), "State:\tR (running)");
  ExpectReadsBack(path, {{before}, {after}});
}

TEST_F(FramesV2Test, StatWhoseFieldCountChangedIsStoredWhole) {
  v1::ProcessRecord before = Idle(100, 5000), after = Idle(100, 5000);
  // A comm that gained a space: the fields no longer line up.
  std::string stat = after.stat().data();
  stat.replace(stat.find("(idle worker)"), 13, "(idle  worker)");
  after.mutable_stat()->set_data(stat);
  const std::string path = Write({{before}, {after}});
  std::vector<v1::ProcessRecord> disk = OnDisk(path);
  EXPECT_EQ(disk[1].stat().from_previous(), v1::FROM_PREVIOUS_NONE);
  EXPECT_EQ(disk[1].stat().data(), stat);
  ExpectReadsBack(path, {{before}, {after}});
}

TEST_F(FramesV2Test, ReusedPidWithAnotherStartTickIsStoredWhole) {
  v1::ProcessRecord before = Idle(100, 5000), after = Idle(100, 9000);
  const std::string path = Write({{before}, {after}});
  std::vector<v1::ProcessRecord> disk = OnDisk(path);
  EXPECT_FALSE(disk[1].has_previous_start_ticks());
  ExpectReadsBack(path, {{before}, {after}});
}

TEST_F(FramesV2Test, RecordOfTwoFramesBackIsNotReferredTo) {
  v1::ProcessRecord a = Idle(100, 5000), b = Idle(200, 6000);
  const std::string path = Write({{a}, {b}, {a}});
  std::vector<v1::ProcessRecord> disk = OnDisk(path);
  EXPECT_FALSE(disk[2].has_previous_start_ticks());
  ExpectReadsBack(path, {{a}, {b}, {a}});
}

TEST_F(FramesV2Test, SecondRecordOfAKeyInAFrameIsStoredWhole) {
  v1::ProcessRecord a = Idle(100, 5000);
  const std::string path = Write({{a}, {a, a}});
  std::vector<v1::ProcessRecord> disk = OnDisk(path);
  ASSERT_EQ(disk.size(), 3u);
  EXPECT_TRUE(disk[1].same_as_previous());
  EXPECT_FALSE(disk[2].has_previous_start_ticks());
  ExpectReadsBack(path, {{a}, {a, a}});
}

TEST_F(FramesV2Test, TruncatedReadsTakenFromThePreviousFrameAreCountedInTheFooter) {
  v1::ProcessRecord a = Idle(100, 5000);
  a.mutable_cmdline()->set_truncated(true);
  a.mutable_status()->set_truncated(true);
  const std::string path = Write({{a}, {a}});
  Snapshot s;
  ASSERT_TRUE(ReadSnapshot(path, &s).ok());
  EXPECT_EQ(s.footer->reads_truncated(), 4u);
  EXPECT_TRUE(OnDisk(path)[1].same_as_previous());
}

// A reader that reads no record (verify) leaves a whole reference as it is:
// checked, counted and charged as the copy it stands for, so that it says of
// the file what a reader that resolves it says.
TEST_F(FramesV2Test, StreamLeavingWholeReferencesCountsAndChargesAsOneThatResolvesThem) {
  v1::ProcessRecord a = Idle(100, 5000);
  a.mutable_cmdline()->set_truncated(true);
  v1::ProcessRecord b = Idle(101, 5001);
  v1::ProcessRecord b2 = b;
  b2.mutable_status()->set_data(b.status().data() + "Extra:\t1\n");
  const std::string path = Write({{a, b}, {a, b2}, {a, b2}});
  struct Read {
    StreamCounts counts;
    std::uint64_t materialized = 0;
    std::vector<v1::ProcessRecord> records;
    std::vector<bool> same;
  };
  auto read = [&](bool resolve) {
    Read r;
    FormatError error;
    auto stream = SnapshotStream::Open(path, &error);
    EXPECT_TRUE(stream) << error.message;
    stream->set_resolve_same_records(resolve);
    SnapshotStream::Result result;
    while ((result = stream->Next()) == SnapshotStream::Result::kItem) {
      const StreamItem& item = stream->item();
      if (item.kind != StreamItem::Kind::kFramePart) continue;
      for (const auto& p : item.chunk.frame().processes()) r.records.push_back(p);
      r.same.insert(r.same.end(), item.same_as_previous.begin(), item.same_as_previous.end());
    }
    EXPECT_EQ(result, SnapshotStream::Result::kEnd) << stream->error().message;
    r.counts = stream->counts();
    r.materialized = stream->materialized();
    return r;
  };
  const Read resolved = read(true);
  const Read left = read(false);
  EXPECT_EQ(left.counts.processes, 6u);
  EXPECT_EQ(left.counts.processes, resolved.counts.processes);
  EXPECT_EQ(left.counts.reads_truncated, 3u);  // a's cmdline in each frame
  EXPECT_EQ(left.counts.reads_truncated, resolved.counts.reads_truncated);
  EXPECT_EQ(left.materialized, resolved.materialized);
  const std::vector<bool> same = {false, false, true, false, true, true};
  EXPECT_EQ(left.same, same);
  EXPECT_EQ(resolved.same, same);
  const std::vector<v1::ProcessRecord> plain = {a, b, a, b2, a, b2};
  ASSERT_EQ(left.records.size(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    EXPECT_TRUE(Same(resolved.records[i], plain[i])) << "record " << i;
    if (same[i]) {
      EXPECT_TRUE(left.records[i].same_as_previous()) << "record " << i;
      EXPECT_FALSE(left.records[i].has_stat()) << "record " << i;
    } else {
      EXPECT_TRUE(Same(left.records[i], plain[i])) << "record " << i;
    }
  }
}

TEST_F(FramesV2Test, WriterWithoutFromPreviousStoresEveryRecordWhole) {
  v1::ProcessRecord a = Idle(100, 5000);
  SnapshotWriter::Options options;
  options.from_previous = false;
  const std::string path = Write({{a}, {a}}, options);
  EXPECT_FALSE(OnDisk(path)[1].has_previous_start_ticks());
  ExpectReadsBack(path, {{a}, {a}});
}

TEST_F(FramesV2Test, WriterRefusesARecordThatAlreadyRefersToThePreviousFrame) {
  Failure failure;
  auto w = SnapshotWriter::Create(Path("r.ptape"), {}, &failure);
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  ASSERT_TRUE(w->BeginFrame(0, 0));
  v1::ProcessRecord p = Idle(100, 5000);
  p.set_previous_start_ticks(5000);
  EXPECT_FALSE(w->AddProcess(std::move(p)));
  EXPECT_NE(w->error().find("refers to the previous frame"), std::string::npos) << w->error();
}

TEST_F(FramesV2Test, IdleFramesCostLessThanFramesStoredWhole) {
  std::vector<v1::ProcessRecord> frame;
  for (int i = 0; i < 500; ++i) frame.push_back(Idle(1000 + i, 7000 + 3 * i));
  const std::vector<std::vector<v1::ProcessRecord>> ten(10, frame);
  SnapshotWriter::Options whole;
  whole.from_previous = false;
  const std::uint64_t whole_bytes = Slurp(Write(ten, whole)).size();
  const std::uint64_t v2_bytes = Slurp(Write(ten)).size();
  EXPECT_LT(2 * v2_bytes, whole_bytes);
}

// --- A version 1 reader meets a version 2 file. ---

// The preamble check of the previous release's reader, kept as it was
// (format/chunk_reader.cc with kFormatVersion 1): it knows version 1 only.
FormatError Version1ReaderPreamble(const std::string& bytes) {
  constexpr std::uint32_t kVersion1 = 1;
  if (bytes.empty())
    return FormatError{FormatErrorKind::kTruncated, 0, 0, "truncated at byte 0: the file is empty"};
  const std::size_t magic_got = bytes.size() < sizeof kMagic ? bytes.size() : sizeof kMagic;
  if (std::memcmp(bytes.data(), kMagic, magic_got) != 0) {
    return FormatError{FormatErrorKind::kBadMagic, 0, 0,
                       "byte 0: not a proctape snapshot (wrong magic number)"};
  }
  if (bytes.size() < kPreambleBytes) {
    return FormatError{
        FormatErrorKind::kTruncated, 0, bytes.size(),
        "truncated at byte " + std::to_string(bytes.size()) + ", inside the preamble"};
  }
  const std::uint32_t version = static_cast<std::uint32_t>(GetLe(bytes, sizeof kMagic, 4));
  if (version > kVersion1) {
    return FormatError{FormatErrorKind::kNewerVersion, 0, sizeof kMagic,
                       "byte 8: format version " + std::to_string(version) +
                           " is newer than this proctape reads (" + std::to_string(kVersion1) +
                           ")"};
  }
  if (version == 0) {
    return FormatError{FormatErrorKind::kCorrupt, 0, sizeof kMagic,
                       "byte 8: format version " + std::to_string(version)};
  }
  return FormatError{};
}

TEST_F(FramesV2Test, Version1ReaderRefusesAFileTheWriterWrote) {
  v1::ProcessRecord a = Idle(100, 5000);
  const std::string path = Write({{a}, {a}});
  ASSERT_TRUE(OnDisk(path)[1].same_as_previous());  // a form version 1 would misread
  FormatError e = Version1ReaderPreamble(Slurp(path));
  EXPECT_EQ(e.kind, FormatErrorKind::kNewerVersion);
  EXPECT_EQ(e.chunk, 0u);
  EXPECT_EQ(e.offset, 8u);
  EXPECT_EQ(e.message, "byte 8: format version 2 is newer than this proctape reads (1)");
  // The version 1 check itself reads a version 1 file's preamble.
  EXPECT_TRUE(Version1ReaderPreamble(Preamble(1)).ok());
}

// Options::frames (the capture knows its frame count): the last frame keeps
// nothing for a next one, and a single frame looks nothing up. The file is
// byte for byte the one written without the count, duplicates of a key in
// the last frame included (the first still takes the key).
TEST_F(FramesV2Test, AnnouncedFrameCountWritesTheSameBytes) {
  auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::vector<v1::ProcessRecord> first = {Idle(100, 5000), Idle(101, 5001)};
  const std::vector<v1::ProcessRecord> last = {Idle(100, 5000, 9), Idle(100, 5000, 9),
                                               Idle(101, 5001), Idle(102, 5002)};
  for (const auto& frames : std::vector<std::vector<std::vector<v1::ProcessRecord>>>{
           {last}, {first, last}, {first, first, last}}) {
    const std::string unknown = bytes(Write(frames));
    SnapshotWriter::Options announced;
    announced.frames = frames.size();
    EXPECT_EQ(bytes(Write(frames, announced)), unknown) << frames.size() << " frames";
    ExpectReadsBack(Path("f.ptape"), frames);
  }
}

TEST_F(FramesV2Test, BeginFramePastTheAnnouncedCountFails) {
  SnapshotWriter::Options options;
  options.force = true;
  options.frames = 1;
  Failure failure;
  auto w = SnapshotWriter::Create(Path("f.ptape"), options, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  ASSERT_TRUE(w->BeginFrame(0, 0));
  ASSERT_TRUE(w->AddProcess(Idle(100, 5000)));
  ASSERT_TRUE(w->EndFrame(1, "", 0));
  EXPECT_FALSE(w->BeginFrame(1, 2));
  EXPECT_NE(w->error().find("past the 1 frames announced"), std::string::npos) << w->error();
}

}  // namespace
}  // namespace proctape
