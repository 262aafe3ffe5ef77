// SPDX-License-Identifier: Apache-2.0
// format/snapshot_stream.h: a file read item by item, in file order, checked
// chunk by chunk as ReadSnapshot checks it (ReadSnapshot collects the same
// items): the items in order, a frame of several parts, blobs that are
// file-global, damage mid-file after every item before it, and what ReadKeep
// keeps of a file.
#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "format/reader.h"
#include "format/snapshot_stream.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/format_structure_fixture.h"

namespace proctape {
namespace {

using namespace proctape::test;
using Kind = StreamItem::Kind;

// What one item was, in a line: its kind, and for a frame part its index and
// first/last flags.
struct Seen {
  std::vector<std::string> items;
  FormatError error;
  bool ended = false;
};

std::string Describe(const StreamItem& item) {
  switch (item.kind) {
    case Kind::kHeader: return "header";
    case Kind::kFramePart:
      return "frame " + std::to_string(item.chunk.frame().index()) + " part of " +
             std::to_string(item.chunk.frame().processes_size()) +
             (item.first_part ? " first" : "") + (item.last_part ? " last" : "");
    case Kind::kObservations:
      return "observations " + std::to_string(item.chunk.observations().observations_size());
    case Kind::kResolution: return "resolution";
    case Kind::kFingerprint: return "fingerprint";
    case Kind::kFooter: return "footer";
  }
  return "?";
}

class FormatStreamTest : public TempDirTest {
 protected:
  Seen Stream(const std::string& bytes) {
    Spit(Path("f.ptape"), bytes);
    Seen seen;
    std::unique_ptr<SnapshotStream> s = SnapshotStream::Open(Path("f.ptape"), &seen.error);
    if (!s) return seen;
    for (;;) {
      const SnapshotStream::Result r = s->Next();
      if (r == SnapshotStream::Result::kEnd) {
        seen.ended = true;
        // Past the end it stays there.
        EXPECT_EQ(s->Next(), SnapshotStream::Result::kEnd);
        return seen;
      }
      if (r == SnapshotStream::Result::kError) {
        seen.error = s->error();
        EXPECT_EQ(s->Next(), SnapshotStream::Result::kError);
        return seen;
      }
      EXPECT_EQ(s->item().index, seen.items.size());
      seen.items.push_back(Describe(s->item()));
    }
  }
};

TEST_F(FormatStreamTest, ItemsComeInFileOrderThenTheEnd) {
  Built b = Build(
      {FramePart(0, true, 2), Batch({0, 1}), Resolution(0, 2), FramePart(1, true, 3), Batch({2})});
  Seen seen = Stream(b.bytes);
  ASSERT_TRUE(seen.error.ok()) << seen.error.message;
  EXPECT_TRUE(seen.ended);
  EXPECT_EQ(seen.items,
            (std::vector<std::string>{"header", "frame 0 part of 2 first last", "observations 2",
                                      "resolution", "frame 1 part of 3 first last",
                                      "observations 1", "footer"}));
}

TEST_F(FormatStreamTest, AFrameOfSeveralPartsIsFlaggedFirstAndLast) {
  Built b = Build({FramePart(0, false, 2), FramePart(0, false, 1), FramePart(0, true, 3),
                   FramePart(1, true, 1)});
  Seen seen = Stream(b.bytes);
  ASSERT_TRUE(seen.error.ok()) << seen.error.message;
  EXPECT_EQ(seen.items, (std::vector<std::string>{"header", "frame 0 part of 2 first",
                                                  "frame 0 part of 1", "frame 0 part of 3 last",
                                                  "frame 1 part of 1 first last", "footer"}));
  // Joined, the parts are the frame ReadSnapshot returns.
  Snapshot snap;
  ASSERT_TRUE(ReadSnapshot(Path("f.ptape"), &snap).ok());
  ASSERT_EQ(snap.frames.size(), 2u);
  EXPECT_EQ(snap.frames[0].processes_size(), 6);
  EXPECT_TRUE(snap.frames[0].complete());
}

TEST_F(FormatStreamTest, ABlobDefinedInFrameZeroIsResolvedInFrameTwo) {
  v1::Chunk later = FramePart(2, true);
  later.mutable_frame()->mutable_processes(0)->mutable_environ()->set_blob(1);
  Built b = Build({BlobFrame(), FramePart(1, true), later});
  Spit(Path("f.ptape"), b.bytes);
  FormatError error;
  std::unique_ptr<SnapshotStream> s = SnapshotStream::Open(Path("f.ptape"), &error);
  ASSERT_NE(s, nullptr) << error.message;
  std::vector<std::string> environs;
  std::vector<std::string> cmdlines;
  while (s->Next() == SnapshotStream::Result::kItem) {
    if (s->item().kind != Kind::kFramePart) continue;
    const v1::Frame& part = s->item().chunk.frame();
    EXPECT_EQ(part.blobs_size(), 0);  // resolved, not handed on
    for (const v1::ProcessRecord& p : part.processes()) {
      EXPECT_EQ(p.cmdline().blob(), 0u);
      EXPECT_EQ(p.environ().blob(), 0u);
      cmdlines.push_back(p.cmdline().data());
      environs.push_back(p.environ().data());
    }
  }
  EXPECT_TRUE(s->error().ok()) << s->error().message;
  EXPECT_EQ(cmdlines, (std::vector<std::string>{kData, "", ""}));
  EXPECT_EQ(environs, (std::vector<std::string>{"", "", kData}));
}

TEST_F(FormatStreamTest, DamageMidFileComesAfterEveryItemBeforeItAsReadSnapshotSaysIt) {
  // Chunk 4 breaks the structure (a part of frame 3 while frame 2 is
  // expected); chunk 3 has a flipped checksum byte in a second file.
  Built structure = Build(
      {FramePart(0, true), Batch({0}), FramePart(1, true), FramePart(3, true), FramePart(2, true)});
  Built flipped = Build({FramePart(0, true), Batch({0}), FramePart(1, true), FramePart(2, true)});
  flipped.bytes[flipped.starts[4] - 1] ^= 0x55;  // the last byte of chunk 3: its checksum
  Built cut = Build({FramePart(0, false), FramePart(0, true)}, std::nullopt, false);
  for (const Built* b : {&structure, &flipped, &cut}) {
    Seen seen = Stream(b->bytes);
    Snapshot snap;
    const FormatError whole = ReadSnapshot(Path("f.ptape"), &snap);
    ASSERT_FALSE(whole.ok());
    EXPECT_FALSE(seen.ended);
    EXPECT_EQ(seen.error.kind, whole.kind);
    EXPECT_EQ(seen.error.chunk, whole.chunk);
    EXPECT_EQ(seen.error.offset, whole.offset);
    EXPECT_EQ(seen.error.message, whole.message);
    EXPECT_EQ(seen.items.size(), snap.chunks);
  }
  Seen seen = Stream(structure.bytes);
  EXPECT_EQ(seen.items,
            (std::vector<std::string>{"header", "frame 0 part of 1 first last", "observations 1",
                                      "frame 1 part of 1 first last"}));
  EXPECT_EQ(seen.error.message, "chunk 4 at byte " + std::to_string(structure.starts[4]) +
                                    ": frame index 3, expected 2");
  EXPECT_EQ(Stream(flipped.bytes).error.kind, FormatErrorKind::kChecksum);
  EXPECT_EQ(Stream(cut.bytes).error.kind, FormatErrorKind::kTruncated);
  EXPECT_EQ(Stream(cut.bytes).items.size(), 3u);
}

TEST_F(FormatStreamTest, CountsAreTheFootersOnesAsTheyGrow) {
  // The footer while frame 0 is open: refused, after the items before it.
  Seen seen = Stream(Build({FramePart(0, false, 2), Batch({0, 1, 2}), Resolution(0, 3)}).bytes);
  EXPECT_EQ(seen.error.kind, FormatErrorKind::kCorrupt);
  EXPECT_EQ(seen.items.size(), 4u);
  Spit(Path("g.ptape"),
       Build({FramePart(0, false, 2), FramePart(0, true, 1), Batch({0, 1, 2}), Resolution(0, 3)})
           .bytes);
  FormatError error;
  std::unique_ptr<SnapshotStream> s = SnapshotStream::Open(Path("g.ptape"), &error);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->Next(), SnapshotStream::Result::kItem);  // header
  ASSERT_EQ(s->Next(), SnapshotStream::Result::kItem);  // frame 0, first part
  EXPECT_TRUE(s->counts().frame_open);
  EXPECT_EQ(s->counts().frames, 1u);
  EXPECT_EQ(s->counts().processes, 2u);
  while (s->Next() == SnapshotStream::Result::kItem) {
  }
  EXPECT_TRUE(s->error().ok()) << s->error().message;
  EXPECT_FALSE(s->counts().frame_open);
  EXPECT_EQ(s->counts().chunks, 6u);
  EXPECT_EQ(s->counts().frames, 1u);
  EXPECT_EQ(s->counts().processes, 3u);
  EXPECT_EQ(s->counts().observations, 3u);
  EXPECT_EQ(s->counts().resolutions, 1u);
}

// ReadKeep: the frames named keep their processes, every other frame is its
// shell, and each count is still the file's; a source that is a descriptor
// reads from its start each time.
TEST_F(FormatStreamTest, ReadKeepKeepsTheNamedFramesAndCountsEveryOne) {
  Spit(Path("k.ptape"),
       Build({FramePart(0, true, 2), Batch({0, 1}), Resolution(0, 2), FramePart(1, false, 1),
              FramePart(1, true, 2), FramePart(2, true, 4)})
           .bytes);
  auto processes = [](const Snapshot& s) {
    std::vector<int> n;
    for (const v1::Frame& f : s.frames) n.push_back(f.processes_size());
    return n;
  };
  Snapshot whole;
  ASSERT_TRUE(ReadSnapshot(Path("k.ptape"), &whole).ok());
  EXPECT_EQ(processes(whole), (std::vector<int>{2, 3, 4}));
  ReadKeep two;
  two.frames = std::vector<std::uint64_t>{2, 1};
  two.observations = false;
  Snapshot kept;
  ASSERT_TRUE(ReadSnapshot(Path("k.ptape"), &kept, two).ok());
  EXPECT_EQ(processes(kept), (std::vector<int>{0, 3, 4}));
  EXPECT_TRUE(kept.frames[0].complete());  // a shell: every field but its processes
  EXPECT_EQ(kept.observations.size(), 0u);
  EXPECT_EQ(kept.observation_count, 2u);
  EXPECT_EQ(kept.process_count, 9u);
  EXPECT_EQ(kept.resolutions.size(), 1u);
  ReadKeep none;
  none.frames.emplace();
  const int fd = ::open(Path("k.ptape").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  for (int pass = 0; pass < 2; ++pass) {  // the same both times: read from its start
    Snapshot shells;
    ASSERT_TRUE(ReadSnapshot(StreamSource{"", fd}, &shells, none).ok()) << pass;
    EXPECT_EQ(processes(shells), (std::vector<int>{0, 0, 0})) << pass;
    EXPECT_EQ(shells.process_count, 9u) << pass;
    EXPECT_EQ(shells.observations.size(), 2u) << pass;
  }
  ::close(fd);
}

}  // namespace
}  // namespace proctape
