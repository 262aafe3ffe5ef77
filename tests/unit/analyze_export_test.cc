// SPDX-License-Identifier: Apache-2.0
// proctape export's printers on hand-made snapshots: DOT escaping of hostile
// names, the process tree of a frame, and the JSON of a whole snapshot and of
// a fingerprint file. The proc-dir is in analyze_proc_dir_*_test.cc; the CLI,
// the corpus and the golden files are in tests/live/export_cli_test.cc.
#include <gtest/gtest.h>

#include <string>

#include <google/protobuf/util/json_util.h>

#include "analyze/export.h"
#include "proto/convert.h"
#include "tests/unit/analyze_export_fixture.h"

namespace proctape {
namespace {

using namespace test;  // kHostileComm, kWorseComm, Record, HostileSnapshot

// ---- DOT -----------------------------------------------------------------

TEST(ExportDotTest, EscapesHostileNamesToAsciiThatRendersAsEscapeBytes) {
  EXPECT_EQ(DotEscape("sleep"), "sleep");
  EXPECT_EQ(DotEscape("a\"b"), "a\\\"b");                    // a\"b
  EXPECT_EQ(DotEscape("\") \""), "\\\") \\\"");              // \") \"
  EXPECT_EQ(DotEscape(kHostileComm), "x) Z 1 1 1\\\\x0ax");  // x) Z 1 1 1\\x0ax
  EXPECT_EQ(DotEscape("\x1b[31mred"), "\\\\x1b[31mred");     // \\x1b[31mred
  EXPECT_EQ(DotEscape("back\\n"), "back\\\\x5cn");           // never a DOT \n escape
  EXPECT_EQ(DotEscape("\xff\x7f"), "\\\\xff\\\\x7f");
  EXPECT_EQ(DotEscape("abcdef", 3), "abc...");
}

TEST(ExportDotTest, TreeOfAHostileFrame) {
  const Snapshot s = HostileSnapshot();
  const std::string dot = FrameDot(s, 0);
  // The first record of pid 41, its comm escaped, filled as RESOLVED.
  EXPECT_NE(dot.find("  p41_120 [label=\"41 start 120 S\\nx) Z 1 1 1\\\\x0ax\\nRESOLVED "
                     "(resolution 0)\", style=\"filled,bold\", fillcolor=\"#ffd966\"];\n"),
            std::string::npos)
      << dot;
  EXPECT_EQ(dot.find("duplicate"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  p40_100 [label=\"40 start 100 S\\napp-server\\nroot of resolutions 0, 1\", "
                     "peripheries=2];\n"),
            std::string::npos)
      << dot;
  EXPECT_NE(dot.find("  p45_160 [label=\"45 start 160 Z\\na\\\"b\\\\x5cc\\\\x1b[31m\\\") "
                     "\\\\xff\"];\n"),
            std::string::npos)
      << dot;
  EXPECT_NE(
      dot.find("  p42 [label=\"42\\n(stat unreadable: Permission denied)\", style=dashed];\n"),
      std::string::npos)
      << dot;
  EXPECT_NE(dot.find("  p40_100 -> p41_120;\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  p44_150 -> p43_140 [style=dashed];\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("resolution 1: RESOLVED 77 start 700, not in this frame"), std::string::npos)
      << dot;
  EXPECT_EQ(dot.find(" -> p42"), std::string::npos) << dot;
  // ASCII only, one statement per line, and the same text every time.
  for (char c : dot) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << static_cast<int>(c);
  EXPECT_EQ(dot, FrameDot(s, 0));
}

TEST(ExportJsonTest, TheWholeSnapshot) {
  Snapshot s = HostileSnapshot();
  s.footer.emplace().set_frames(1);
  v1::SnapshotExport e = ToExport(s);
  EXPECT_EQ(e.header().host().hostname(), "ci\nhost");
  ASSERT_EQ(e.frames_size(), 1);
  EXPECT_EQ(e.frames(0).processes_size(), s.frames[0].processes_size());
  EXPECT_EQ(e.resolutions_size(), 2);
  EXPECT_EQ(e.footer().frames(), 1u);
}

// The JSON printed piece by piece (proto/json_pieces.h: protobuf's printer
// alone builds the whole document as a tree, gigabytes for a 60,000-process
// file) is protobuf's own, byte for byte: the export and a view's report.
TEST(ExportJsonTest, PrintedPieceByPieceIsProtobufsDocumentByteForByte) {
  Snapshot s = HostileSnapshot();
  s.footer.emplace().set_frames(1);
  s.frames.push_back(s.frames[0]);
  s.observations.emplace_back().set_index(0);
  s.observations.back().mutable_read_file()->set_pid(7);
  s.observations.emplace_back().mutable_list_pids()->add_names("1\xff");
  s.fingerprints.emplace_back().set_root_pid(4000);
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string whole;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(ToExport(s), &whole, options).ok());
  std::string pieces;
  MaybeFailure failed = ExportJson(s, &pieces);
  ASSERT_FALSE(failed) << failed->message;
  EXPECT_EQ(pieces, whole);
  EXPECT_EQ(ToJson(ToExport(s)), whole);
  std::string checked;
  failed = ToJsonChecked(ToExport(s), &checked);
  ASSERT_FALSE(failed) << failed->message;
  EXPECT_EQ(checked, whole);
}

// A fingerprint file (`proctape fingerprint`) exports its fingerprint too.
TEST(ExportJsonTest, TheFingerprintOfAFingerprintFile) {
  Snapshot s;
  s.header.mutable_host()->set_boot_id("b00t\n");
  v1::RootFingerprint& f = s.fingerprints.emplace_back();
  f.set_root_pid(4000);
  f.set_root_start_ticks(500000);
  f.set_boot_id("b00t\n");
  v1::SnapshotExport e = ToExport(s);
  ASSERT_EQ(e.fingerprints_size(), 1);
  EXPECT_EQ(e.fingerprints(0).root_start_ticks(), 500000u);
  EXPECT_NE(ToJson(e).find("\"fingerprints\":[{\"root_pid\":\"4000\",\"root_start_ticks\":"
                           "\"500000\""),
            std::string::npos)
      << ToJson(e);
}

}  // namespace
}  // namespace proctape
