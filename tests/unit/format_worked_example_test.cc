// SPDX-License-Identifier: Apache-2.0
// docs/format.md section 10, "Worked example", is the writer's own file: the
// example is written here as the section says it was, and each thing the
// section shows of it is checked against that file, so that it cannot drift:
// the hex dump (byte for byte with the zstd the section names; chunk by chunk
// the same contents with any other), the bytes and lengths its table names at
// each offset, the chunks as protoc decodes them and the walk's lines, and
// zstd -lv's listing of chunk 0.
#include <gtest/gtest.h>
#include <google/protobuf/text_format.h>
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_writer_fixture.h"
#include "tests/unit/source_dir.h"

namespace proctape {
namespace {

using namespace test;  // FormatWriterTest, Ok, Id, Slurp, Spit

// The example: a header, one frame of one process, the footer.
void WriteWorkedExample(const std::string& path) {
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  v1::Header h;
  h.set_tool_version("0.1.0");
  h.mutable_host()->set_hostname("ci-1");
  h.set_capture_start_mono_ns(1000);
  h.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  ASSERT_TRUE(w->WriteHeader(h));
  w->BeginFrame(0, 1000);
  v1::ProcessRecord p;
  p.set_pid(42);
  *p.mutable_stat() = Ok("42 (sleep) S 1 42 42 0 -1", 4096);
  *p.mutable_cmdline() =
      Ok("sleep\0"
         "300\0"s,
         65536);
  *p.mutable_environ() = Ok("HOME=*********\0PATH=***************************\0"s, 65536);
  p.mutable_environ()->set_redacted(true);
  *p.mutable_exe() = Id(2049, 1311);
  ASSERT_TRUE(w->AddProcess(std::move(p)));
  ASSERT_TRUE(w->EndFrame(2000, "", 123));
  v1::Footer f;
  f.set_capture_end_mono_ns(3000);
  ASSERT_TRUE(w->Finish(f));
  EXPECT_EQ(w->chunks(), 3u);
}

// ---- What the section says ---------------------------------------------------

std::string Section10() {
  const std::string doc = Slurp((SourceDir() / "docs/format.md").string());
  const std::size_t begin = doc.find("\n## 10. Worked example");
  const std::size_t end = doc.find("\n## 11. ", begin);
  EXPECT_NE(begin, std::string::npos) << "docs/format.md has no section 10";
  return begin == std::string::npos ? "" : doc.substr(begin, end - begin);
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The section's code blocks (runs of lines indented by 4), unindented.
std::vector<std::vector<std::string>> Blocks(const std::string& section) {
  std::vector<std::vector<std::string>> out;
  bool in = false;
  for (const std::string& line : Lines(section)) {
    const bool code = line.rfind("    ", 0) == 0;
    if (code && !in) out.emplace_back();
    if (code) out.back().push_back(line.substr(4));
    in = code;
  }
  return out;
}

// The block whose first line begins with `first`.
std::vector<std::string> BlockOf(const std::string& first) {
  for (const auto& block : Blocks(Section10())) {
    if (!block.empty() && block[0].rfind(first, 0) == 0) return block;
  }
  ADD_FAILURE() << "docs/format.md section 10 has no block beginning '" << first << "'";
  return {};
}

// The bytes of the section's `xxd` dump.
std::string DumpBytes() {
  std::string out;
  const std::vector<std::string> block = BlockOf("$ xxd ");
  for (std::size_t i = 1; i < block.size(); ++i) {
    // "00000010: 28b5 2ffd ...  (./.$..": 8 groups of hex after the offset.
    std::string hex = block[i].substr(10, 40);
    hex = hex.substr(0, hex.find("  "));
    std::string digits;
    for (char c : hex) digits += c == ' ' ? "" : std::string(1, c);
    for (std::size_t at = 0; at + 1 < digits.size(); at += 2) {
      out += static_cast<char>(std::stoi(digits.substr(at, 2), nullptr, 16));
    }
  }
  return out;
}

// ---- What the file holds -------------------------------------------------------

struct Chunk {
  std::size_t offset = 0;  // of its length prefix
  std::string frame;       // the zstd frame
  std::string content;     // decompressed: a serialized Chunk
};

std::uint32_t Le32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

std::vector<Chunk> ChunksOf(const std::string& file) {
  std::vector<Chunk> out;
  for (std::size_t at = 12; at + 4 <= file.size();) {
    Chunk c;
    c.offset = at;
    c.frame = file.substr(at + 4, Le32(file, at));
    const unsigned long long size = ZSTD_getFrameContentSize(c.frame.data(), c.frame.size());
    EXPECT_LT(size, 1u << 20) << "chunk at byte " << at << " declares no content size";
    c.content.resize(size < (1u << 20) ? size : 0);
    const std::size_t n =
        ZSTD_decompress(c.content.data(), c.content.size(), c.frame.data(), c.frame.size());
    EXPECT_EQ(n, c.content.size()) << "chunk at byte " << at << " does not decompress";
    out.push_back(std::move(c));
    at += 4 + Le32(file, at);
  }
  return out;
}

std::string Decoded(const Chunk& c) {
  v1::Chunk chunk;
  EXPECT_TRUE(chunk.ParseFromString(c.content));
  std::string text;
  google::protobuf::TextFormat::PrintToString(chunk, &text);  // protoc --decode's printer
  return text;
}

std::string Joined(const std::vector<std::string>& lines, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < lines.size(); ++i) out += lines[i] + "\n";
  return out;
}

// ---- The tests ------------------------------------------------------------------

// With PROCTAPE_FORMAT_EXAMPLE=FILE in the environment, the file is also
// copied to FILE:
//   PROCTAPE_FORMAT_EXAMPLE=/tmp/example.ptape build/tests/unit_tests
//       --gtest_filter=FormatWriterTest.WorkedExample
TEST_F(FormatWriterTest, WorkedExample) {
  const std::string path = Path("example.ptape");
  WriteWorkedExample(path);
  const std::string bytes = Slurp(path);
  EXPECT_EQ(bytes.substr(0, 12), "\x89PTAPE\r\n\x02\0\0\0"s);
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.frames.size(), 1u);
  EXPECT_EQ(s.frames[0].processes(0).environ().data(),
            "HOME=*********\0PATH=***************************\0"s);
  if (const char* out = std::getenv("PROCTAPE_FORMAT_EXAMPLE")) Spit(out, bytes);
}

// The dump is the file: the same chunks holding the same contents, and with
// the zstd the section names ("this is zstd 1.5.4 at level 3"), the same
// bytes; and its count of chunks and bytes is the file's.
TEST_F(FormatWriterTest, WorkedExampleDumpIsTheWritersFile) {
  WriteWorkedExample(Path("example.ptape"));
  const std::string file = Slurp(Path("example.ptape"));
  const std::string dump = DumpBytes();
  const std::vector<Chunk> written = ChunksOf(file);
  const std::vector<Chunk> shown = ChunksOf(dump);
  ASSERT_EQ(shown.size(), written.size()) << "the dump's chunks are not the file's";
  EXPECT_EQ(dump.substr(0, 12), file.substr(0, 12)) << "the preamble";
  for (std::size_t k = 0; k < written.size(); ++k) {
    EXPECT_EQ(shown[k].content, written[k].content) << "the content of chunk " << k;
  }
  const std::string section = Section10();
  std::smatch said;
  const std::regex count("([0-9]+) chunks,\\s+([0-9]+) bytes");
  ASSERT_TRUE(std::regex_search(section, said, count));
  EXPECT_EQ(said[1].str(), std::to_string(written.size()));
  EXPECT_EQ(said[2].str(), std::to_string(file.size()));
  std::smatch zstd;
  const std::regex version("this is zstd ([0-9.]+)\\s+at level 3");
  ASSERT_TRUE(std::regex_search(section, zstd, version));
  if (zstd[1].str() == ZSTD_versionString()) {
    EXPECT_EQ(dump, file) << "with zstd " << ZSTD_versionString() << ", the bytes themselves";
  }
}

// Each row of the table, "| `89 50 ...` (0) | ... |", names the dump's bytes
// at that offset (up to a "..."), and a row that says "length N" names a
// length prefix holding N.
TEST_F(FormatWriterTest, WorkedExampleTableNamesTheBytesAtTheirOffsets) {
  const std::string dump = DumpBytes();
  const std::regex row("^\\| `([0-9a-f ]+?)( *\\.\\.\\.[^`]*)?` \\(([0-9]+)\\) \\| (.*)");
  std::size_t rows = 0;
  for (const std::string& line : Lines(Section10())) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    ++rows;
    const std::size_t offset = std::stoul(m[3].str());
    std::istringstream hex(m[1].str());
    std::size_t at = offset;
    for (std::string byte; hex >> byte; ++at) {
      ASSERT_LT(at, dump.size()) << line;
      EXPECT_EQ(static_cast<unsigned char>(dump[at]), std::stoul(byte, nullptr, 16))
          << line << "\nbyte " << at << " of the dump";
    }
    std::smatch length;
    const std::string what = m[4].str();
    if (std::regex_search(what, length, std::regex("length ([0-9]+)"))) {
      EXPECT_EQ(Le32(dump, offset), std::stoul(length[1].str())) << line;
    }
  }
  EXPECT_GE(rows, 15u) << "the table's rows were not read";
}

// "$ tail -c +17 ... | protoc --decode ..." prints chunk 0, and the walk
// prints "chunk K at byte B: L bytes" and each further chunk, as protoc
// decodes the file's.
TEST_F(FormatWriterTest, WorkedExampleDecodesAsTheSectionShows) {
  WriteWorkedExample(Path("example.ptape"));
  const std::vector<Chunk> chunks = ChunksOf(Slurp(Path("example.ptape")));
  ASSERT_EQ(chunks.size(), 3u);
  const std::vector<std::string> decode =
      BlockOf("$ tail -c +17 /tmp/example.ptape | head -c 39 |");
  ASSERT_GE(decode.size(), 3u);
  EXPECT_EQ(Joined(decode, 2, decode.size()), Decoded(chunks[0]));
  std::string walk;
  for (std::size_t k = 1; k < chunks.size(); ++k) {
    walk += "chunk " + std::to_string(k) + " at byte " + std::to_string(chunks[k].offset) + ": " +
            std::to_string(chunks[k].frame.size()) + " bytes\n" + Decoded(chunks[k]);
  }
  const std::vector<std::string> shown = BlockOf("chunk 1 at byte ");
  EXPECT_EQ(Joined(shown, 0, shown.size()), walk);
}

// `zstd -lv` of chunk 0's frame: its sizes, ratio and checksum (the frame's
// last four bytes, little-endian).
TEST_F(FormatWriterTest, WorkedExampleZstdListingIsChunkZerosFrame) {
  WriteWorkedExample(Path("example.ptape"));
  const Chunk c = ChunksOf(Slurp(Path("example.ptape"))).at(0);
  const std::size_t content = c.content.size();
  const std::size_t frame = c.frame.size();
  char ratio[32], check[32];
  std::snprintf(ratio, sizeof ratio, "%.4f",
                static_cast<double>(content) / static_cast<double>(frame));
  std::snprintf(check, sizeof check, "%08x", Le32(c.frame, frame - 4));
  const auto size = [](std::size_t n) {
    return std::to_string(n) + " B (" + std::to_string(n) + " B)";
  };
  const std::vector<std::string> want = {
      "# Zstandard Frames: 1",           "DictID: 0",
      "Window Size: " + size(content),  // a single-segment frame's window is its content
      "Compressed Size: " + size(frame), "Decompressed Size: " + size(content),
      std::string("Ratio: ") + ratio,    std::string("Check: XXH64 ") + check,
  };
  const std::vector<std::string> shown = BlockOf("$ tail -c +17 /tmp/example.ptape | head -c 39 >");
  ASSERT_GE(shown.size(), 2u);
  EXPECT_EQ(std::vector<std::string>(shown.begin() + 2, shown.end()), want);
}

}  // namespace
}  // namespace proctape
