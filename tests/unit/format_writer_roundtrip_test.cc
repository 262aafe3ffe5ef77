// SPDX-License-Identifier: Apache-2.0
// format/writer.h + format/reader.h, the round trip: every field written is
// read back as written, frame parts are joined in order and observations stay
// in order across batches.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_writer_fixture.h"

namespace proctape {
namespace {

using namespace test;  // FormatWriterTest, Same, the sample snapshot

// One observation of every call kind.
std::vector<v1::Observation> SampleObservations(std::uint64_t first_index) {
  std::vector<v1::Observation> out(6);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].set_index(first_index + i);
    out[i].set_mono_ns(static_cast<std::int64_t>(1000 + 10 * (first_index + i)));
  }
  auto* list = out[0].mutable_list_pids();
  list->set_bound(100000);
  for (const char* n : {"1", "2", "500", "4194303"}) list->add_names(n);
  list->set_truncated(true);
  auto* read = out[1].mutable_read_file();
  read->set_pid(500);
  read->set_file(v1::PROC_FILE_ENVIRON);
  *read->mutable_result() = Err(EACCES, 65536);
  auto* exe = out[2].mutable_exe_identity();
  exe->set_pid(1);
  *exe->mutable_result() = Id(0x803, 1311);
  auto* path = out[3].mutable_path_identity();
  path->set_path("/usr/bin/sl\xffp"s);
  *path->mutable_result() = IdErr(ENOENT);
  out[4].mutable_now()->set_result_ns(987654321);
  out[5].mutable_sleep_until()->set_until_ns(987754321);
  return out;
}

v1::Resolution SampleResolve(std::uint64_t first, std::uint64_t count) {
  v1::Resolution r;
  auto* req = r.mutable_resolve();
  req->set_root_pid(1);
  req->set_root_start_ticks(5);
  req->set_token("t0k\xff"s);
  req->set_token_var("PROCTAPE_TOKEN");
  req->add_argv("/usr/bin/d\xe6mon"s);
  req->add_argv("");
  req->set_exe_path("/usr/bin/d\xe6mon"s);
  *req->mutable_exe_identity() = Id(0x803, 1311);
  req->mutable_bounds()->set_max_nodes(7);
  auto* v = r.mutable_verdict();
  v->set_status(v1::Verdict::MULTIPLE_MATCHES);
  v->set_subject_pid(500);
  v->set_subject_start_ticks(7);
  v->set_file(v1::PROC_FILE_ENVIRON);
  v->set_err(EACCES);
  v->set_evidence("PROCTAPE_TOKEN=t0k\xff\0"s);
  v->set_detail("pids 500 and 501 both match");
  v->set_attempts(3);
  v->set_bytes_read(9000);
  v->add_matches(500);
  v->add_matches(501);
  v->set_expected_ticks(6);
  r.set_first_observation(first);
  r.set_observation_count(count);
  r.set_start_mono_ns(1000);
  r.set_end_mono_ns(2000);
  return r;
}

v1::Resolution SampleLiveness(std::uint64_t first, std::uint64_t count) {
  v1::Resolution r;
  r.mutable_liveness()->set_pid(2);
  r.mutable_liveness()->set_start_ticks(6);
  r.mutable_liveness()->set_boot_id("5b1f0000-0000-4000-8000-000000000001\n");
  auto* v = r.mutable_liveness_verdict();
  v->set_status(v1::LivenessVerdict::DEAD);
  v->set_reason(v1::Verdict::PID_REUSED);
  v->set_state("Z");
  v->set_detail("pid 2 is a zombie");
  v->set_err(ESRCH);
  r.set_first_observation(first);
  r.set_observation_count(count);
  r.set_start_mono_ns(3000);
  r.set_end_mono_ns(4000);
  return r;
}
// ---------------------------------------------------------------------------
// Round trip

TEST_F(FormatWriterTest, EveryFieldRoundTrips) {
  const std::string path = Path("all.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;

  const v1::Header header = SampleHeader();
  const std::vector<v1::ProcessRecord> processes = SampleProcesses();
  const std::vector<v1::Observation> obs1 = SampleObservations(0);
  const std::vector<v1::Observation> obs2 = SampleObservations(6);

  ASSERT_TRUE(w->WriteHeader(header));
  // Frame 0: the whole sample, before the resolution.
  w->BeginFrame(0, 100);
  for (v1::ProcessRecord p : processes) ASSERT_TRUE(w->AddProcess(std::move(p))) << w->error();
  ASSERT_TRUE(w->EndFrame(200, "", 123456));
  for (v1::Observation o : obs1) ASSERT_TRUE(w->AddObservation(std::move(o)));
  ASSERT_TRUE(w->WriteResolution(SampleResolve(0, 6)));
  // Frame 1: cut by a bound, after it.
  w->BeginFrame(1, 300);
  ASSERT_TRUE(w->AddProcess(v1::ProcessRecord(processes[0])));
  ASSERT_TRUE(w->EndFrame(400, "max-processes 1", 77));
  // An empty frame.
  w->BeginFrame(2, 500);
  ASSERT_TRUE(w->EndFrame(600, "", 0));
  for (v1::Observation o : obs2) ASSERT_TRUE(w->AddObservation(std::move(o)));
  ASSERT_TRUE(w->WriteResolution(SampleLiveness(6, 6)));
  v1::Footer footer;
  footer.set_capture_end_mono_ns(700);
  footer.set_frames(999);  // counts are the writer's, not the caller's
  ASSERT_TRUE(w->Finish(footer)) << w->error();
  const std::uint64_t chunks = w->chunks();
  EXPECT_EQ(w->bytes_written(), std::filesystem::file_size(path));
  w.reset();

  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  ASSERT_TRUE(e.ok()) << e.message;
  EXPECT_EQ(s.chunks, chunks);
  EXPECT_EQ(s.bytes, std::filesystem::file_size(path));

  EXPECT_TRUE(Same(header, s.header));

  ASSERT_EQ(s.frames.size(), 3u);
  v1::Frame f0;
  f0.set_index(0);
  f0.set_scan_start_mono_ns(100);
  f0.set_scan_end_mono_ns(200);
  for (const auto& p : processes) *f0.add_processes() = p;
  f0.set_complete(true);
  f0.set_bytes_read(123456);
  EXPECT_TRUE(Same(f0, s.frames[0]));
  v1::Frame f1;
  f1.set_index(1);
  f1.set_scan_start_mono_ns(300);
  f1.set_scan_end_mono_ns(400);
  *f1.add_processes() = processes[0];
  f1.set_cut_by_bounds(true);
  f1.set_cut_reason("max-processes 1");
  f1.set_complete(true);
  f1.set_bytes_read(77);
  EXPECT_TRUE(Same(f1, s.frames[1]));
  v1::Frame f2;
  f2.set_index(2);
  f2.set_scan_start_mono_ns(500);
  f2.set_scan_end_mono_ns(600);
  f2.set_complete(true);
  EXPECT_TRUE(Same(f2, s.frames[2]));
  // Users of a read snapshot see data, never a blob reference.
  for (const auto& f : s.frames) {
    EXPECT_EQ(f.blobs_size(), 0);
    for (const auto& p : f.processes()) {
      EXPECT_EQ(p.cmdline().blob(), 0u);
      EXPECT_EQ(p.environ().blob(), 0u);
    }
  }

  ASSERT_EQ(s.observations.size(), 12u);
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_TRUE(Same(obs1[i], s.observations[i])) << i;
    EXPECT_TRUE(Same(obs2[i], s.observations[6 + i])) << i;
  }
  ASSERT_EQ(s.resolutions.size(), 2u);
  EXPECT_TRUE(Same(SampleResolve(0, 6), s.resolutions[0]));
  EXPECT_TRUE(Same(SampleLiveness(6, 6), s.resolutions[1]));

  ASSERT_TRUE(s.footer);
  v1::Footer want;
  want.set_frames(3);
  want.set_observations(12);
  want.set_resolutions(2);
  want.set_frames_cut_by_bounds(1);
  want.set_reads_truncated(5);  // pid 3: stat, cmdline, environ, status, cgroup
  want.set_capture_end_mono_ns(700);
  want.set_processes(processes.size() + 1);
  want.set_chunks(chunks - 1);
  EXPECT_TRUE(Same(want, *s.footer));

  // The order of chunks on disk: header first, footer last.
  std::vector<v1::Chunk> raw = RawChunks(path);
  ASSERT_EQ(raw.size(), chunks);
  EXPECT_TRUE(raw.front().has_header());
  EXPECT_TRUE(raw.back().has_footer());
  EXPECT_EQ(raw.front().header().format_version(), kFormatVersion);
}

// A non-UTF-8 byte in a `string` field would make protobuf refuse to parse the
// header, and the whole file would be unreadable: the command line (which
// holds the -o path) is `bytes` for that reason.
TEST_F(FormatWriterTest, NonUtf8CommandLineRoundTrips) {
  const std::string path = Path("cmd.ptape");
  Failure failure;
  auto w = SnapshotWriter::Create(path, {}, &failure);
  ASSERT_TRUE(w) << failure.message;
  v1::Header h = SampleHeader();
  h.add_command_line("-o\xff.ptape");
  ASSERT_TRUE(w->WriteHeader(h));
  ASSERT_TRUE(w->Finish({}));
  w.reset();
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  ASSERT_TRUE(e.ok()) << e.message;
  EXPECT_TRUE(Same(h, s.header));
}

TEST_F(FormatWriterTest, FrameSpanningSeveralPartsIsJoinedInOrder) {
  const std::string path = Path("parts.ptape");
  Failure failure;
  SnapshotWriter::Options options;
  options.target_chunk = 1024;
  auto w = SnapshotWriter::Create(path, options, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));

  std::vector<v1::ProcessRecord> want;
  w->BeginFrame(0, 1000);
  for (int i = 0; i < 64; ++i) {
    v1::ProcessRecord p;
    p.set_pid(100 + i);
    *p.mutable_stat() = Ok(std::to_string(100 + i) + " (w) S 1 1 1 0 -1\n", 4096);
    // Argv of 200 bytes, each used twice in a row: the second sighting makes
    // it a blob, defined in whichever part is open.
    *p.mutable_cmdline() = Ok(RandomBytes(200, static_cast<std::uint32_t>(i / 2)), 65536);
    want.push_back(p);
    ASSERT_TRUE(w->AddProcess(std::move(p))) << w->error();
  }
  ASSERT_TRUE(w->EndFrame(2000, "", 64 * 300));
  // The next frame must not be swallowed by the join.
  w->BeginFrame(1, 3000);
  ASSERT_TRUE(w->AddProcess(v1::ProcessRecord(want[0])));
  ASSERT_TRUE(w->EndFrame(4000, "", 1));
  ASSERT_TRUE(w->Finish({}));
  w.reset();

  // On disk: several parts with the same index, only the last complete.
  std::vector<v1::Chunk> raw = RawChunks(path);
  std::size_t parts = 0;
  std::uint64_t blobs = 0;
  for (const v1::Chunk& c : raw) {
    if (!c.has_frame() || c.frame().index() != 0) continue;
    ++parts;
    for (const v1::Blob& b : c.frame().blobs()) EXPECT_EQ(b.id(), ++blobs);
    EXPECT_LE(c.ByteSizeLong(), 2 * options.target_chunk);
  }
  EXPECT_GE(parts, 5u);
  EXPECT_EQ(blobs, 32u);
  std::size_t seen = 0;
  for (const v1::Chunk& c : raw) {
    if (!c.has_frame() || c.frame().index() != 0) continue;
    ++seen;
    EXPECT_EQ(c.frame().complete(), seen == parts);
  }

  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.frames.size(), 2u);
  const v1::Frame& f = s.frames[0];
  EXPECT_EQ(f.index(), 0u);
  EXPECT_EQ(f.scan_start_mono_ns(), 1000);
  EXPECT_EQ(f.scan_end_mono_ns(), 2000);
  EXPECT_EQ(f.bytes_read(), 64u * 300);
  EXPECT_TRUE(f.complete());
  EXPECT_EQ(f.blobs_size(), 0);
  ASSERT_EQ(f.processes_size(), 64);
  for (int i = 0; i < 64; ++i) EXPECT_TRUE(Same(want[i], f.processes(i))) << i;
  EXPECT_EQ(s.frames[1].index(), 1u);
  ASSERT_EQ(s.frames[1].processes_size(), 1);
  EXPECT_TRUE(Same(want[0], s.frames[1].processes(0)));
  ASSERT_TRUE(s.footer);
  EXPECT_EQ(s.footer->frames(), 2u);
  EXPECT_EQ(s.footer->processes(), 65u);
  EXPECT_EQ(s.footer->chunks(), raw.size() - 1);
}

TEST_F(FormatWriterTest, ObservationsSpanningSeveralBatchesStayInOrder) {
  const std::string path = Path("obs.ptape");
  Failure failure;
  SnapshotWriter::Options options;
  options.target_chunk = 512;
  auto w = SnapshotWriter::Create(path, options, &failure);
  ASSERT_TRUE(w) << failure.message;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  std::vector<v1::Observation> want;
  for (std::uint64_t i = 0; i < 240; i += 6) {
    for (v1::Observation& o : SampleObservations(i)) want.push_back(o);
  }
  for (v1::Observation o : want) ASSERT_TRUE(w->AddObservation(std::move(o)));
  ASSERT_TRUE(w->WriteResolution(SampleResolve(0, want.size())));
  ASSERT_TRUE(w->Finish({}));
  w.reset();

  std::size_t batches = 0;
  for (const v1::Chunk& c : RawChunks(path)) batches += c.has_observations();
  EXPECT_GE(batches, 5u);

  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.observations.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(Same(want[i], s.observations[i])) << i;
  ASSERT_TRUE(s.footer);
  EXPECT_EQ(s.footer->observations(), want.size());
}

}  // namespace
}  // namespace proctape
