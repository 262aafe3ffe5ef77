// SPDX-License-Identifier: Apache-2.0
// format/writer.h obeys every rule of docs/format.md: what it writes is
// checked here chunk by chunk by a reader of the test's own (frame header,
// XXH64 with seed 0, structure, footer counts), not by format/reader.cc. A
// call that would break a rule: format_writer_refusals_test.cc.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"
#include "tests/unit/format_writer_rules_fixture.h"

namespace proctape {
namespace {

using namespace std::string_literals;
using namespace proctape::test;

v1::FileRead Ok(std::string data, bool truncated = false) {
  v1::FileRead r;
  r.set_data(std::move(data));
  r.set_bound(65536);
  r.set_truncated(truncated);
  return r;
}

v1::ProcessRecord Record(std::int64_t pid, const std::string& env) {
  v1::ProcessRecord p;
  p.set_pid(pid);
  *p.mutable_stat() = Ok(std::to_string(pid) + " (w) S 1 1 1 0 -1", pid % 5 == 0);
  *p.mutable_cmdline() = Ok("/usr/bin/worker\0--queue=default\0--id\0"s + std::to_string(pid % 3));
  *p.mutable_environ() = Ok(env);
  *p.mutable_status() = Ok("Name:\tw\n");
  *p.mutable_cgroup() = Ok("0::/a-cgroup-path-long-enough-to-be-a-blob\n");
  return p;
}

v1::Observation ReadObservation(const std::string& env) {
  v1::Observation o;
  o.mutable_read_file()->set_pid(1);
  o.mutable_read_file()->set_file(v1::PROC_FILE_ENVIRON);
  *o.mutable_read_file()->mutable_result() = Ok(env);
  return o;
}

const std::string kEnv = "HOME=/root\0PATH=/usr/local/bin:/usr/bin:/bin\0"s;

// Everything the writer writes: header, a frame in parts with blobs, batches
// of observations, resolutions, a fingerprint, a second frame, the footer.
void WriteEverything(SnapshotWriter& w) {
  const std::string& env = kEnv;
  ASSERT_TRUE(w.WriteHeader(v1::Header())) << w.error();
  w.BeginFrame(0, 10);
  for (int pid = 1; pid <= 40; ++pid) ASSERT_TRUE(w.AddProcess(Record(pid, env))) << w.error();
  ASSERT_TRUE(w.EndFrame(20, "", 4000)) << w.error();
  for (std::uint64_t i = 0; i < 30; ++i) {
    v1::Observation o = ReadObservation(env);
    o.set_index(i);
    ASSERT_TRUE(w.AddObservation(std::move(o))) << w.error();
  }
  v1::Resolution r;
  r.mutable_liveness()->set_pid(1);
  r.set_first_observation(0);
  r.set_observation_count(30);
  ASSERT_TRUE(w.WriteResolution(r)) << w.error();
  v1::RootFingerprint fp;
  fp.set_root_pid(1);
  fp.set_root_start_ticks(99);
  ASSERT_TRUE(w.WriteFingerprint(fp)) << w.error();
  w.BeginFrame(1, 30);
  for (int pid = 1; pid <= 5; ++pid) ASSERT_TRUE(w.AddProcess(Record(pid, env))) << w.error();
  ASSERT_TRUE(w.EndFrame(40, "max_nodes", 500)) << w.error();
  r.set_first_observation(30);
  r.set_observation_count(0);
  ASSERT_TRUE(w.WriteResolution(r)) << w.error();
  ASSERT_TRUE(w.Finish({})) << w.error();
}

// One chunk's frame, checked against section 1; returns its content.
::testing::AssertionResult CheckFrame(const std::string& frame, std::string* content) {
  auto fail = [] { return ::testing::AssertionFailure(); };
  if (frame.size() < 5 || GetLe(frame, 0, 4) != 0xFD2FB528) return fail() << "not a zstd frame";
  const unsigned fhd = static_cast<unsigned char>(frame[4]);
  const bool single = (fhd >> 5) & 1;
  if ((fhd >> 3) & 1) return fail() << "reserved bit";
  if (!((fhd >> 2) & 1)) return fail() << "no checksum";
  if (!single && (fhd >> 6) == 0) return fail() << "no content size";
  std::size_t at = 5;
  if (!single) {
    const unsigned wd = static_cast<unsigned char>(frame[at++]);
    const std::uint64_t base = std::uint64_t{1} << (10 + (wd >> 3));
    if (base + base / 8 * (wd & 7) > kMaxChunkContent) return fail() << "window over the limit";
  }
  const int dict_bytes[4] = {0, 1, 2, 4};
  if (GetLe(frame, at, dict_bytes[fhd & 3]) != 0) return fail() << "a dictionary";
  if (ZSTD_findFrameCompressedSize(frame.data(), frame.size()) != frame.size()) {
    return fail() << "the frame does not fill its length";
  }
  const unsigned long long declared = ZSTD_getFrameContentSize(frame.data(), frame.size());
  if (declared > kMaxChunkContent) return fail() << "declared size over the limit";
  content->assign(declared, '\0');
  if (ZSTD_decompress(content->data(), content->size(), frame.data(), frame.size()) != declared) {
    return fail() << "does not decode to its declared size";
  }
  if (GetLe(frame, frame.size() - 4, 4) != (Xxh64(*content, 0) & 0xffffffff)) {
    return fail() << "checksum is not XXH64 seed 0";
  }
  return ::testing::AssertionSuccess();
}

TEST_F(FormatWriterRulesTest, WhatTheWriterWritesObeysEveryRule) {
  const std::string path = Path("all.ptape");
  Failure failure;
  SnapshotWriter::Options options;
  options.target_chunk = 1024;  // frame parts and several batches
  auto w = SnapshotWriter::Create(path, options, &failure);
  ASSERT_TRUE(w) << failure.message;
  WriteEverything(*w);
  w.reset();

  const std::string bytes = Slurp(path);
  ASSERT_EQ(bytes.substr(0, kPreambleBytes), Preamble());
  std::size_t at = kPreambleBytes;
  std::vector<v1::Chunk> chunks;
  while (at < bytes.size()) {
    SCOPED_TRACE("chunk " + std::to_string(chunks.size()) + " at byte " + std::to_string(at));
    ASSERT_GE(bytes.size() - at, kLengthBytes);
    const std::uint64_t length = GetLe(bytes, at, 4);
    ASSERT_GE(length, 1u);
    ASSERT_LE(length, MaxChunkFrame());
    ASSERT_LE(at + 4 + length, bytes.size());
    std::string content;
    ASSERT_TRUE(CheckFrame(bytes.substr(at + 4, length), &content));
    ASSERT_TRUE(chunks.emplace_back().ParseFromString(content));
    at += 4 + length;
    // Nothing after the footer.
    if (chunks.back().has_footer()) {
      EXPECT_EQ(at, bytes.size());
    }
  }
  ASSERT_GE(chunks.size(), 8u);
  ASSERT_TRUE(chunks.front().has_header());
  EXPECT_EQ(chunks.front().header().format_version(), kFormatVersion);
  ASSERT_TRUE(chunks.back().has_footer());

  v1::Footer counted;
  std::uint64_t frames = 0, blobs = 0, fingerprints = 0, parts = 0;
  bool open = false;
  for (std::size_t k = 1; k + 1 < chunks.size(); ++k) {
    SCOPED_TRACE("chunk " + std::to_string(k));
    const v1::Chunk& c = chunks[k];
    ASSERT_FALSE(c.has_header());
    ASSERT_FALSE(c.has_footer());
    if (c.has_frame()) {
      const v1::Frame& f = c.frame();
      ++parts;
      EXPECT_EQ(f.index(), frames);  // frame k has index k; parts carry it
      std::set<std::uint64_t> defined, used;
      for (const v1::Blob& b : f.blobs()) {
        EXPECT_EQ(b.id(), ++blobs);
        defined.insert(b.id());
      }
      for (const v1::ProcessRecord& p : f.processes()) {
        for (const v1::FileRead* r : {&p.stat(), &p.status(), &p.cgroup()})
          EXPECT_EQ(r->blob(), 0u);
        for (const v1::FileRead* r : {&p.cmdline(), &p.environ()}) {
          if (r->blob() == 0) continue;
          EXPECT_TRUE(r->data().empty());
          EXPECT_EQ(r->err(), 0);
          EXPECT_LE(r->blob(), blobs);
          used.insert(r->blob());
        }
        for (const v1::FileRead* r :
             {&p.stat(), &p.cmdline(), &p.environ(), &p.status(), &p.cgroup()}) {
          counted.set_reads_truncated(counted.reads_truncated() + (r->truncated() ? 1 : 0));
        }
      }
      for (std::uint64_t id : defined)
        EXPECT_TRUE(used.count(id)) << "blob " << id << " unused in its part";
      counted.set_processes(counted.processes() + f.processes_size());
      open = !f.complete();
      if (f.complete()) {
        ++frames;
        counted.set_frames_cut_by_bounds(counted.frames_cut_by_bounds() + f.cut_by_bounds());
      }
    }
    if (c.has_observations()) {
      for (const v1::Observation& o : c.observations().observations()) {
        EXPECT_EQ(o.index(), counted.observations());
        EXPECT_EQ(o.read_file().result().blob(), 0u);
        // Inline, never a blob; or (version 2) "same as" the call's last
        // read, with no result of its own.
        EXPECT_EQ(o.read_file().result().data(), o.same_as() == 0 ? kEnv : "");
        counted.set_observations(counted.observations() + 1);
      }
    }
    if (c.has_resolution()) {
      EXPECT_LE(c.resolution().first_observation() + c.resolution().observation_count(),
                counted.observations());
      counted.set_resolutions(counted.resolutions() + 1);
    }
    fingerprints += c.has_fingerprint();
  }
  EXPECT_FALSE(open);  // no footer while a frame is open
  EXPECT_GT(parts, frames);
  EXPECT_GT(blobs, 0u);
  EXPECT_GT(counted.observations(), 0u);
  EXPECT_EQ(fingerprints, 1u);
  const v1::Footer& footer = chunks.back().footer();
  EXPECT_EQ(footer.chunks(), chunks.size() - 1);
  EXPECT_EQ(footer.frames(), frames);
  EXPECT_EQ(footer.observations(), counted.observations());
  EXPECT_EQ(footer.resolutions(), counted.resolutions());
  EXPECT_EQ(footer.processes(), counted.processes());
  EXPECT_EQ(footer.reads_truncated(), counted.reads_truncated());
  EXPECT_EQ(footer.frames_cut_by_bounds(), counted.frames_cut_by_bounds());
  EXPECT_EQ(footer.frames_cut_by_bounds(), 1u);

  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << e.message;
}

TEST_F(FormatWriterRulesTest, FooterCountsWhatWriteChunkWroteToo) {
  // The counts are those of the chunks in the file, whichever call wrote them.
  const std::string path = Path("raw.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(v1::Header()));
  v1::Chunk frame;
  frame.mutable_frame()->set_complete(true);
  frame.mutable_frame()->set_cut_by_bounds(true);
  *frame.mutable_frame()->add_processes() = Record(5, kEnv);  // its stat is truncated
  ASSERT_TRUE(w->WriteChunk(frame));
  v1::Chunk batch;
  batch.mutable_observations()->add_observations()->mutable_now()->set_result_ns(1);
  ASSERT_TRUE(w->WriteChunk(batch));
  v1::Chunk resolution;
  resolution.mutable_resolution()->set_observation_count(1);
  ASSERT_TRUE(w->WriteChunk(resolution));
  ASSERT_TRUE(w->Finish({})) << w->error();
  w.reset();
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  ASSERT_TRUE(e.ok()) << e.message;
  EXPECT_EQ(s.footer->frames(), 1u);
  EXPECT_EQ(s.footer->frames_cut_by_bounds(), 1u);
  EXPECT_EQ(s.footer->processes(), 1u);
  EXPECT_EQ(s.footer->reads_truncated(), 1u);
  EXPECT_EQ(s.footer->observations(), 1u);
  EXPECT_EQ(s.footer->resolutions(), 1u);
  EXPECT_EQ(s.footer->chunks(), 4u);
}

TEST_F(FormatWriterRulesTest, DataOfAFailedReadStaysInline) {
  // A read that failed has no data to share: the writer never makes it a blob
  // reference (a reference on a failed read is corrupt).
  const std::string path = Path("failed.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(v1::Header()));
  w->BeginFrame(0, 0);
  for (int pid = 1; pid <= 3; ++pid) {
    v1::ProcessRecord p;
    p.set_pid(pid);
    p.mutable_environ()->set_err(EACCES);
    p.mutable_environ()->set_data(std::string(64, 'e'));  // a caller's leftover
    ASSERT_TRUE(w->AddProcess(std::move(p)));
  }
  ASSERT_TRUE(w->EndFrame(1, "", 0));
  ASSERT_TRUE(w->Finish({})) << w->error();
  w.reset();
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  ASSERT_TRUE(e.ok()) << e.message;
  for (const v1::ProcessRecord& p : s.frames.at(0).processes())
    EXPECT_EQ(p.environ().err(), EACCES);
}

}  // namespace
}  // namespace proctape
