// SPDX-License-Identifier: Apache-2.0
// format/writer.h + format/reader.h, blobs: identical environ and argv bytes
// are stored once and resolved when read, small data stays inline. (The
// worked example of docs/format.md: format_worked_example_test.cc.)
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "format/file_format.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_writer_fixture.h"

namespace proctape {
namespace {

using namespace test;  // FormatWriterTest, Same, Slurp, Spit, the sample snapshot

// Writes `frames` frames of `n` processes sharing one environment and one
// argv; with `dedup` false, the same records go out as plain chunks of about
// the same size, each holding its own copies.
void WriteShared(const std::string& path, bool dedup, int frames, int n) {
  const std::string env = RandomBytes(3000, 1);
  const std::string argv = "/usr/bin/python3\0-m\0worker\0--queue=default\0"s;
  Failure failure;
  SnapshotWriter::Options options;
  options.target_chunk = 16 << 10;
  auto w = SnapshotWriter::Create(path, options, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  for (int f = 0; f < frames; ++f) {
    v1::Chunk plain;
    plain.mutable_frame()->set_index(static_cast<std::uint64_t>(f));
    if (dedup) w->BeginFrame(static_cast<std::uint64_t>(f), 0);
    for (int i = 0; i < n; ++i) {
      v1::ProcessRecord p;
      p.set_pid(1000 + i);
      *p.mutable_stat() = Ok(std::to_string(1000 + i) + " (python3) S 1", 4096);
      *p.mutable_cmdline() = Ok(argv, 65536);
      *p.mutable_environ() = Ok(env, 65536);
      if (dedup) {
        ASSERT_TRUE(w->AddProcess(std::move(p)));
        continue;
      }
      *plain.mutable_frame()->add_processes() = std::move(p);
      if (plain.ByteSizeLong() >= options.target_chunk) {
        ASSERT_TRUE(w->WriteChunk(plain));
        plain.mutable_frame()->clear_processes();
      }
    }
    if (dedup) {
      ASSERT_TRUE(w->EndFrame(1, "", 0));
    } else {
      plain.mutable_frame()->set_complete(true);
      ASSERT_TRUE(w->WriteChunk(plain));
    }
  }
  ASSERT_TRUE(w->Finish({}));
}

TEST_F(FormatWriterTest, IdenticalEnvironAndArgvAreStoredOnce) {
  const std::string with = Path("dedup.ptape");
  const std::string without = Path("plain.ptape");
  WriteShared(with, true, 2, 100);
  WriteShared(without, false, 2, 100);
  const auto size_with = std::filesystem::file_size(with);
  const auto size_without = std::filesystem::file_size(without);
  EXPECT_LT(size_with * 4, size_without) << size_with << " vs " << size_without;

  // On disk: the first sighting of each block stays inline; the second
  // defines a blob (environ, argv: two), and every later one refers to it.
  std::uint64_t blobs = 0;
  std::uint64_t references = 0;
  std::uint64_t inline_blocks = 0;
  for (const v1::Chunk& c : RawChunks(with)) {
    if (!c.has_frame()) continue;
    blobs += static_cast<std::uint64_t>(c.frame().blobs_size());
    for (const auto& p : c.frame().processes()) {
      for (const v1::FileRead* r : {&p.cmdline(), &p.environ()}) {
        if (r->blob() != 0) {
          EXPECT_TRUE(r->data().empty());
          ++references;
        } else {
          ++inline_blocks;
        }
      }
    }
  }
  EXPECT_EQ(blobs, 2u);
  EXPECT_EQ(inline_blocks, 2u);
  EXPECT_EQ(references, 398u);

  // Read back: both files hold the same evidence, data resolved.
  Snapshot a, b;
  ASSERT_TRUE(ReadSnapshot(with, &a).ok());
  ASSERT_TRUE(ReadSnapshot(without, &b).ok());
  ASSERT_EQ(a.frames.size(), 2u);
  ASSERT_EQ(b.frames.size(), 2u);
  for (std::size_t f = 0; f < 2; ++f) {
    ASSERT_EQ(a.frames[f].processes_size(), 100);
    ASSERT_EQ(b.frames[f].processes_size(), 100);
    for (int i = 0; i < 100; ++i) {
      EXPECT_TRUE(Same(b.frames[f].processes(i), a.frames[f].processes(i)));
      EXPECT_EQ(a.frames[f].processes(i).environ().blob(), 0u);
      EXPECT_EQ(a.frames[f].processes(i).environ().data().size(), 3000u);
    }
  }
}

TEST_F(FormatWriterTest, SmallDataStaysInline) {
  const std::string path = Path("inline.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  w->BeginFrame(0, 0);
  for (int i = 0; i < 2; ++i) {
    v1::ProcessRecord p;
    p.set_pid(i + 1);
    *p.mutable_cmdline() = Ok(std::string(kMinBlobBytes - 1, 'a'), 65536);
    *p.mutable_environ() = Ok(std::string(kMinBlobBytes, 'e'), 65536);
    ASSERT_TRUE(w->AddProcess(std::move(p)));
  }
  ASSERT_TRUE(w->EndFrame(0, "", 0));
  ASSERT_TRUE(w->Finish({}));
  w.reset();
  for (const v1::Chunk& c : RawChunks(path)) {
    if (!c.has_frame()) continue;
    EXPECT_EQ(c.frame().blobs_size(), 1);
    ASSERT_EQ(c.frame().processes_size(), 2);
    for (const auto& p : c.frame().processes()) EXPECT_EQ(p.cmdline().blob(), 0u);
    // First sighting inline, second a blob.
    EXPECT_EQ(c.frame().processes(0).environ().blob(), 0u);
    EXPECT_EQ(c.frame().processes(1).environ().blob(), 1u);
  }
}

}  // namespace
}  // namespace proctape
