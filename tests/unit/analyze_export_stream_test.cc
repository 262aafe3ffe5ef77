// SPDX-License-Identifier: Apache-2.0
// analyze/export_json.h: `export --format json` printed from a file read item
// by item is ExportJson's document of the whole Snapshot, byte for byte, on
// the shipped recordings and on frames of several parts (a blob referred to from
// a later frame); a damaged file is refused as ReadSnapshot refuses it.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "analyze/export.h"
#include "analyze/export_json.h"
#include "format/reader.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/format_structure_fixture.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

using namespace proctape::test;

std::string Data(const char* dir, const char* name) {
  return (test::SourceDir() / "tests" / "data" / dir / (std::string(name) + ".ptape")).string();
}

std::string Whole(const std::string& path) {
  Snapshot snap;
  EXPECT_TRUE(ReadSnapshot(path, &snap).ok()) << path;
  std::string out;
  const MaybeFailure failed = ExportJson(snap, &out);
  EXPECT_FALSE(failed) << failed->message;
  return out;
}

std::string Streamed(const std::string& path, bool small_drains) {
  JsonExport json;
  const FormatError read = json.Survey({path, -1});
  EXPECT_TRUE(read.ok()) << read.message;
  std::string out, written;
  const std::function<MaybeFailure(std::string*)> drain = [&](std::string* piece) {
    written += *piece;
    piece->clear();
    return MaybeFailure();
  };
  const std::function<MaybeFailure(std::string*)> none;
  const MaybeFailure failed = json.Write(&out, small_drains ? drain : none);
  EXPECT_FALSE(failed) << failed->message;
  return written + out;
}

class ExportStreamTest : public TempDirTest {};

TEST_F(ExportStreamTest, StreamedJsonIsTheWholeSnapshotsByteForByte) {
  std::vector<std::string> files;
  for (const char* name : {"resolved", "alive", "dead", "no-match-5s"}) {
    files.push_back(Data("replay", name));
  }
  v1::Chunk later = FramePart(2, true, 2);
  later.mutable_frame()->mutable_processes(1)->mutable_environ()->set_blob(1);
  later.mutable_frame()->set_cut_reason("cut");
  Spit(Path("parts.ptape"),
       Build({BlobFrame(false), FramePart(0, false, 3), FramePart(0, true, 0), Batch({0, 1}),
              FramePart(1, true, 0), Resolution(0, 2), later, Batch({2}), Fingerprint(9)})
           .bytes);
  files.push_back(Path("parts.ptape"));
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    const std::string whole = Whole(f);
    EXPECT_EQ(Streamed(f, false), whole);
    EXPECT_EQ(Streamed(f, true), whole);
  }
}

TEST_F(ExportStreamTest, ADamagedFileIsRefusedAsReadSnapshotRefusesIt) {
  Built b = Build({FramePart(0, true), FramePart(2, true)});
  Spit(Path("bad.ptape"), b.bytes);
  Snapshot snap;
  const FormatError whole = ReadSnapshot(Path("bad.ptape"), &snap);
  JsonExport json;
  const FormatError streamed = json.Survey({Path("bad.ptape"), -1});
  EXPECT_EQ(streamed.kind, whole.kind);
  EXPECT_EQ(streamed.message, whole.message);
  EXPECT_EQ(streamed.offset, whole.offset);
}

}  // namespace
}  // namespace proctape
