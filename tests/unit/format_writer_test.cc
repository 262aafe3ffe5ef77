// format/writer.h + format/reader.h: every field written is read back as
// written; frame parts are joined and blobs resolved; the output path is
// handled safely (symlinks, overwrites, the temporary, standard output).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <google/protobuf/util/message_differencer.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "format/file_format.h"
#include "format/output_file.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"

namespace proctape {
namespace {

using namespace std::string_literals;
using google::protobuf::util::MessageDifferencer;

// ---------------------------------------------------------------------------
// Helpers

class FormatWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "proctape-fmt-XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr) << std::strerror(errno);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  std::string dir_;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void Spit(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// The names in `dir`, sorted.
std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

::testing::AssertionResult Same(const google::protobuf::Message& want,
                                const google::protobuf::Message& got) {
  std::string diff;
  MessageDifferencer d;
  d.ReportDifferencesToString(&diff);
  if (d.Compare(want, got)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << want.GetTypeName() << " differs:\n" << diff;
}

std::string RandomBytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(gen() & 0xff);
  return s;
}

v1::FileRead Ok(std::string data, std::uint64_t bound, bool truncated = false) {
  v1::FileRead r;
  r.set_data(std::move(data));
  r.set_bound(bound);
  r.set_truncated(truncated);
  return r;
}

v1::FileRead Err(int err, std::uint64_t bound) {
  v1::FileRead r;
  r.set_err(err);
  r.set_bound(bound);
  return r;
}

v1::FileIdentity Id(std::uint64_t dev, std::uint64_t ino) {
  v1::FileIdentity id;
  id.set_dev(dev);
  id.set_ino(ino);
  return id;
}

v1::FileIdentity IdErr(int err) {
  v1::FileIdentity id;
  id.set_err(err);
  return id;
}

v1::Header SampleHeader() {
  v1::Header h;
  h.set_format_version(kFormatVersion);
  h.set_tool_version("0.1.0");
  v1::HostFacts* host = h.mutable_host();
  host->set_hostname("ci-\xff\xfe-runner"s);
  host->set_kernel_release("6.1.0-18-amd64");
  host->set_boot_id("0c5f8a4e-2d1b-4c55-9a36-5e2b1f9d7c10\n");
  host->set_pid_max(4194304);
  host->set_clock_ticks_per_second(100);
  host->set_page_size(4096);
  h.set_capture_start_mono_ns(123456789012);
  h.set_capture_start_realtime_ns(1717171717000000000);
  h.set_capturer_pid(4242);
  h.set_capturer_uid(1000);
  h.set_capturer_pid_ns_inode(4026531836);
  v1::Bounds* b = h.mutable_bounds();
  b->set_max_proc_entries(100000);
  b->set_max_nodes(50000);
  b->set_max_depth(64);
  b->set_stat_bytes(4096);
  b->set_cmdline_bytes(65536);
  b->set_environ_bytes(65536);
  b->set_status_bytes(16384);
  b->set_byte_budget(1u << 30);
  b->set_deadline_ns(5000000000);
  b->set_retry_interval_ns(10000000);
  h.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  h.mutable_redaction()->add_kept_entries("PROCTAPE_TOKEN=t0k\xff"s);
  for (const char* arg : {"proctape", "capture", "-o", "host.ptape"}) h.add_command_line(arg);
  return h;
}

// Records covering every kind of evidence a capture may hold.
std::vector<v1::ProcessRecord> SampleProcesses() {
  std::vector<v1::ProcessRecord> out;
  {  // A live process: a comm with ") " and a newline, non-UTF-8 argv, a
     // redacted environment, identities and a cgroup.
    v1::ProcessRecord p;
    p.set_pid(1);
    *p.mutable_stat() =
        Ok("1 (we) ird\n) x) S 0 1 1 0 -1 4194560 52000 0 100 0 10 20 0 0 20 0 1 0 5 0 0\n", 4096);
    *p.mutable_cmdline() = Ok("/usr/bin/d\xe6mon\0--name=\xff\xfe\x80\0--flag\0with a long tail\0"s, 65536);
    v1::FileRead env = Ok("HOME=*****\0PATH=****************\0PROCTAPE_TOKEN=t0k\xff\0"s, 65536);
    env.set_redacted(true);
    *p.mutable_environ() = env;
    *p.mutable_status() = Ok("Name:\twe) ird\\nx\nState:\tS (sleeping)\nPPid:\t0\n", 16384);
    *p.mutable_exe() = Id(0x803, 1311);
    *p.mutable_pid_ns() = Id(4, 4026531836);
    *p.mutable_cgroup() = Ok("0::/init.scope\n", 4096);
    out.push_back(p);
  }
  {  // A zombie: empty cmdline and environ (successful, empty reads).
    v1::ProcessRecord p;
    p.set_pid(2);
    *p.mutable_stat() = Ok("2 (defunct) Z 1 2 2 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 6 0 0\n", 4096);
    *p.mutable_cmdline() = Ok("", 65536);
    *p.mutable_environ() = Ok("", 65536);
    *p.mutable_status() = Ok("Name:\tdefunct\nState:\tZ (zombie)\n", 16384);
    *p.mutable_exe() = IdErr(ENOENT);
    *p.mutable_pid_ns() = Id(4, 4026531836);
    *p.mutable_cgroup() = Ok("", 4096);
    out.push_back(p);
  }
  {  // Every read cut at its bound.
    v1::ProcessRecord p;
    p.set_pid(3);
    *p.mutable_stat() = Ok(std::string(4096, 's'), 4096, true);
    *p.mutable_cmdline() = Ok(RandomBytes(65536, 3), 65536, true);
    *p.mutable_environ() = Ok(RandomBytes(65536, 4), 65536, true);
    *p.mutable_status() = Ok(std::string(16384, 'S'), 16384, true);
    *p.mutable_exe() = Id(0x803, 77);
    *p.mutable_pid_ns() = Id(4, 4026532000);
    *p.mutable_cgroup() = Ok(std::string(4096, 'c'), 4096, true);
    out.push_back(p);
  }
  {  // Vanished between listing and reading: ENOENT / ESRCH everywhere.
    v1::ProcessRecord p;
    p.set_pid(4194303);
    *p.mutable_stat() = Err(ENOENT, 4096);
    *p.mutable_cmdline() = Err(ESRCH, 65536);
    *p.mutable_environ() = Err(ENOENT, 65536);
    *p.mutable_status() = Err(ESRCH, 16384);
    *p.mutable_exe() = IdErr(ENOENT);
    *p.mutable_pid_ns() = IdErr(ESRCH);
    *p.mutable_cgroup() = Err(ENOENT, 4096);
    out.push_back(p);
  }
  {  // Another user's process: EACCES and EPERM.
    v1::ProcessRecord p;
    p.set_pid(500);
    *p.mutable_stat() = Ok("500 (sshd) S 1 500 500 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 7 0 0\n", 4096);
    *p.mutable_cmdline() = Ok("sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups\0"s, 65536);
    *p.mutable_environ() = Err(EACCES, 65536);
    *p.mutable_status() = Ok("Name:\tsshd\n", 16384);
    *p.mutable_exe() = IdErr(EACCES);
    *p.mutable_pid_ns() = IdErr(EPERM);
    *p.mutable_cgroup() = Err(EPERM, 4096);
    out.push_back(p);
  }
  {  // A failing device or kernel: EIO.
    v1::ProcessRecord p;
    p.set_pid(501);
    *p.mutable_stat() = Err(EIO, 4096);
    *p.mutable_cmdline() = Err(EIO, 65536);
    *p.mutable_environ() = Err(EPERM, 65536);
    *p.mutable_status() = Err(EACCES, 16384);
    *p.mutable_exe() = IdErr(EIO);
    *p.mutable_pid_ns() = IdErr(EIO);
    *p.mutable_cgroup() = Err(EIO, 4096);
    out.push_back(p);
  }
  {  // Only some files asked for: absent reads stay absent.
    v1::ProcessRecord p;
    p.set_pid(502);
    *p.mutable_stat() = Ok("502 (x) R 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 8 0 0\n", 4096);
    out.push_back(p);
  }
  return out;
}

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

// All chunks of a file, as stored (blobs and parts not resolved).
std::vector<v1::Chunk> RawChunks(const std::string& path) {
  std::vector<v1::Chunk> out;
  FormatError error;
  auto reader = ChunkReader::Open(path, &error);
  EXPECT_TRUE(reader) << error.message;
  if (!reader) return out;
  v1::Chunk chunk;
  ChunkReader::Result r;
  while ((r = reader->Next(&chunk)) == ChunkReader::Result::kChunk) out.push_back(chunk);
  EXPECT_EQ(r, ChunkReader::Result::kEnd) << reader->error().message;
  return out;
}

// ---------------------------------------------------------------------------
// Round trip

TEST_F(FormatWriterTest, EveryFieldRoundTrips) {
  const std::string path = Path("all.ptape");
  std::string error;
  auto w = SnapshotWriter::Create(path, {}, &error);
  ASSERT_TRUE(w) << error;

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
  std::string error;
  auto w = SnapshotWriter::Create(path, {}, &error);
  ASSERT_TRUE(w) << error;
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
  std::string error;
  SnapshotWriter::Options options;
  options.target_chunk = 1024;
  auto w = SnapshotWriter::Create(path, options, &error);
  ASSERT_TRUE(w) << error;
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
  std::string error;
  SnapshotWriter::Options options;
  options.target_chunk = 512;
  auto w = SnapshotWriter::Create(path, options, &error);
  ASSERT_TRUE(w) << error;
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

// Writes `frames` frames of `n` processes sharing one environment and one
// argv; with `dedup` false, the same records go out as plain chunks of about
// the same size, each holding its own copies.
void WriteShared(const std::string& path, bool dedup, int frames, int n) {
  const std::string env = RandomBytes(3000, 1);
  const std::string argv = "/usr/bin/python3\0-m\0worker\0--queue=default\0"s;
  std::string error;
  SnapshotWriter::Options options;
  options.target_chunk = 16 << 10;
  auto w = SnapshotWriter::Create(path, options, &error);
  ASSERT_TRUE(w) << error;
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
  std::string error;
  auto w = SnapshotWriter::Create(path, {}, &error);
  ASSERT_TRUE(w) << error;
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

// The worked example of docs/format.md. With PROCTAPE_FORMAT_EXAMPLE=FILE in
// the environment, the file is also copied to FILE:
//   PROCTAPE_FORMAT_EXAMPLE=/tmp/example.ptape build/tests/unit_tests
//       --gtest_filter=FormatWriterTest.WorkedExample
TEST_F(FormatWriterTest, WorkedExample) {
  const std::string path = Path("example.ptape");
  std::string error;
  auto w = SnapshotWriter::Create(path, {}, &error);
  ASSERT_TRUE(w) << error;
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
  *p.mutable_cmdline() = Ok("sleep\0" "300\0"s, 65536);
  *p.mutable_environ() = Ok("HOME=*********\0PATH=***************************\0"s, 65536);
  p.mutable_environ()->set_redacted(true);
  *p.mutable_exe() = Id(2049, 1311);
  ASSERT_TRUE(w->AddProcess(std::move(p)));
  ASSERT_TRUE(w->EndFrame(2000, "", 123));
  v1::Footer f;
  f.set_capture_end_mono_ns(3000);
  ASSERT_TRUE(w->Finish(f));
  EXPECT_EQ(w->chunks(), 3u);
  w.reset();

  const std::string bytes = Slurp(path);
  EXPECT_EQ(bytes.substr(0, 12), "\x89PTAPE\r\n\x01\0\0\0"s);
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.frames.size(), 1u);
  EXPECT_EQ(s.frames[0].processes(0).environ().data(),
            "HOME=*********\0PATH=***************************\0"s);
  if (const char* out = std::getenv("PROCTAPE_FORMAT_EXAMPLE")) Spit(out, bytes);
}

// ---------------------------------------------------------------------------
// Safe writing

TEST_F(FormatWriterTest, SymlinkOutputIsRefusedAndItsTargetUntouched) {
  const std::string target = Path("precious");
  const std::string link = Path("out.ptape");
  Spit(target, "keep me");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  for (bool force : {false, true}) {
    std::string error;
    SnapshotWriter::Options options;
    options.force = force;
    EXPECT_FALSE(SnapshotWriter::Create(link, options, &error));
    EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
  }
  EXPECT_EQ(Slurp(target), "keep me");
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"out.ptape", "precious"}));

  // A dangling link is refused too (nothing created at its target).
  const std::string dangling = Path("dangling.ptape");
  ASSERT_EQ(::symlink(Path("nowhere").c_str(), dangling.c_str()), 0);
  std::string error;
  EXPECT_FALSE(SnapshotWriter::Create(dangling, {}, &error));
  EXPECT_FALSE(Exists(Path("nowhere")));
}

TEST_F(FormatWriterTest, StaleTemporariesDoNotBlockAndAreNeverFollowed) {
  // What earlier runs left: an old-style NAME.partial (a link to a file that
  // must survive) and a temporary of this rule. Neither blocks, neither is
  // written, removed or followed.
  const std::string target = Path("precious");
  const std::string path = Path("out.ptape");
  Spit(target, "keep me");
  ASSERT_EQ(::symlink(target.c_str(), (path + ".partial").c_str()), 0);
  Spit(path + ".k1ll3d.partial", "left by a killed capture");
  std::string error;
  auto w = SnapshotWriter::Create(path, {}, &error);
  ASSERT_TRUE(w) << error;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  ASSERT_TRUE(w->Finish({})) << w->error();
  EXPECT_EQ(Slurp(target), "keep me");
  EXPECT_EQ(Slurp(path + ".k1ll3d.partial"), "left by a killed capture");
  Snapshot s;
  EXPECT_TRUE(ReadSnapshot(path, &s).ok());
  EXPECT_EQ(Names(dir_), (std::vector<std::string>{"out.ptape", "out.ptape.k1ll3d.partial",
                                                   "out.ptape.partial", "precious"}));
}

TEST_F(FormatWriterTest, ExistingFileIsReplacedOnlyWithForce) {
  const std::string path = Path("out.ptape");
  Spit(path, "an older capture");
  std::string error;
  EXPECT_FALSE(SnapshotWriter::Create(path, {}, &error));
  EXPECT_NE(error.find("exists"), std::string::npos) << error;
  EXPECT_NE(error.find("--force"), std::string::npos) << error;
  EXPECT_EQ(Slurp(path), "an older capture");
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.ptape"});

  SnapshotWriter::Options options;
  options.force = true;
  auto w = SnapshotWriter::Create(path, options, &error);
  ASSERT_TRUE(w) << error;
  // Until Finish, the old file is still there.
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  EXPECT_EQ(Slurp(path), "an older capture");
  ASSERT_TRUE(w->Finish({})) << w->error();
  Snapshot s;
  FormatError e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << e.message;
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.ptape"});
}

TEST_F(FormatWriterTest, FileAppearingDuringTheCaptureIsNotReplacedWithoutForce) {
  const std::string path = Path("out.ptape");
  std::string error;
  auto w = SnapshotWriter::Create(path, {}, &error);
  ASSERT_TRUE(w) << error;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  Spit(path, "written meanwhile");
  EXPECT_FALSE(w->Finish({}));
  EXPECT_NE(w->error().find("appeared while it was being written"), std::string::npos)
      << w->error();
  EXPECT_EQ(Slurp(path), "written meanwhile");
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.ptape"}) << "nothing is left behind";
}

TEST_F(FormatWriterTest, TemporaryUntilFinishThenRenamed) {
  const std::string path = Path("out.ptape");
  std::string error;
  auto w = SnapshotWriter::Create(path, {}, &error);
  ASSERT_TRUE(w) << error;
  // NAME.XXXXXX.partial beside NAME: a new name for each writer.
  const std::string partial = w->temporary();
  EXPECT_EQ(partial.substr(0, dir_.size() + 1), dir_ + "/");
  EXPECT_TRUE(IsTemporaryOf(partial.substr(dir_.size() + 1), "out.ptape")) << partial;
  auto other = SnapshotWriter::Create(Path("out.ptape"), {}, &error);
  ASSERT_TRUE(other) << error;
  EXPECT_NE(other->temporary(), partial);
  other.reset();
  EXPECT_TRUE(Exists(partial));
  EXPECT_FALSE(Exists(path));
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  w->BeginFrame(0, 1);
  for (v1::ProcessRecord p : SampleProcesses()) ASSERT_TRUE(w->AddProcess(std::move(p)));
  ASSERT_TRUE(w->EndFrame(2, "", 3));
  // Each chunk is on disk as soon as it is complete.
  EXPECT_EQ(std::filesystem::file_size(partial), w->bytes_written());
  EXPECT_TRUE(Exists(partial));
  EXPECT_FALSE(Exists(path));
  Snapshot s;
  FormatError e = ReadSnapshot(partial, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
  EXPECT_EQ(s.chunks, 2u);
  ASSERT_EQ(s.frames.size(), 1u);
  EXPECT_EQ(static_cast<std::size_t>(s.frames[0].processes_size()), SampleProcesses().size());

  ASSERT_TRUE(w->Finish({})) << w->error();
  EXPECT_FALSE(Exists(partial));
  EXPECT_TRUE(Exists(path));
  e = ReadSnapshot(path, &s);
  EXPECT_TRUE(e.ok()) << e.message;
  EXPECT_EQ(Names(dir_), std::vector<std::string>{"out.ptape"});
}

TEST_F(FormatWriterTest, AWriterThatFailsOrIsDroppedUnfinishedLeavesNothing) {
  std::string error;
  {
    auto w = SnapshotWriter::Create(Path("dropped.ptape"), {}, &error);
    ASSERT_TRUE(w) << error;
    ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  }
  {
    auto w = SnapshotWriter::Create(Path("failed.ptape"), {}, &error);
    ASSERT_TRUE(w) << error;
    EXPECT_FALSE(w->AddObservation(v1::Observation()));  // before the header: breaks a rule
    EXPECT_FALSE(w->Finish({}));
  }
  EXPECT_EQ(Names(dir_), std::vector<std::string>{});
}

TEST_F(FormatWriterTest, AbandonLeavesWhatSigkillWouldLeave) {
  std::string error;
  auto w = SnapshotWriter::Create(Path("killed.ptape"), {}, &error);
  ASSERT_TRUE(w) << error;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  const std::string partial = w->Abandon();
  EXPECT_EQ(partial, w->temporary());
  w.reset();
  Snapshot s;
  FormatError e = ReadSnapshot(partial, &s);
  EXPECT_EQ(e.kind, FormatErrorKind::kTruncated) << e.message;
  EXPECT_EQ(s.chunks, 1u);
}

// Redirects a standard descriptor to `fd` for the lifetime of the object.
class Redirect {
 public:
  Redirect(int target, int fd) : target_(target), saved_(::dup(target)) {
    std::fflush(stdout);
    ::dup2(fd, target_);
  }
  ~Redirect() {
    ::dup2(saved_, target_);
    ::close(saved_);
  }

 private:
  int target_;
  int saved_;
};

std::string Drain(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

TEST_F(FormatWriterTest, DashWritesToStandardOutputAndReadsFromStandardInput) {
  // The capture is far below a pipe's buffer, so one process does both ends.
  int out_pipe[2];
  ASSERT_EQ(::pipe(out_pipe), 0);
  bool created = false, finished = false;
  std::string error;
  std::uint64_t written = 0;
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir_);  // so that a stray "-.partial" would show
  {
    Redirect redirect(STDOUT_FILENO, out_pipe[1]);
    auto w = SnapshotWriter::Create("-", {}, &error);
    created = w != nullptr;
    if (w) {
      w->WriteHeader(SampleHeader());
      w->BeginFrame(0, 1);
      w->AddProcess(v1::ProcessRecord(SampleProcesses()[0]));
      w->EndFrame(2, "", 3);
      finished = w->Finish({});
      written = w->bytes_written();
      error = w->error();
    }
  }
  std::filesystem::current_path(cwd);
  ::close(out_pipe[1]);
  ASSERT_TRUE(created) << error;
  ASSERT_TRUE(finished) << error;
  const std::string bytes = Drain(out_pipe[0]);
  ::close(out_pipe[0]);
  EXPECT_EQ(bytes.size(), written);
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
  // Standard output is left open for the rest of the program.
  EXPECT_NE(::fcntl(STDOUT_FILENO, F_GETFD), -1);

  // Read back through "-" (standard input, a pipe: size unknown).
  int in_pipe[2];
  ASSERT_EQ(::pipe(in_pipe), 0);
  ASSERT_EQ(::write(in_pipe[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(in_pipe[1]);
  Snapshot s;
  FormatError e;
  {
    Redirect redirect(STDIN_FILENO, in_pipe[0]);
    e = ReadSnapshot("-", &s);
  }
  ::close(in_pipe[0]);
  ASSERT_TRUE(e.ok()) << e.message;
  ASSERT_EQ(s.frames.size(), 1u);
  EXPECT_TRUE(Same(SampleProcesses()[0], s.frames[0].processes(0)));
  EXPECT_TRUE(Same(SampleHeader(), s.header));
}

TEST_F(FormatWriterTest, CallsAfterAFailureDoNothing) {
  const std::string path = Path("out.ptape");
  std::string error;
  auto w = SnapshotWriter::Create(path, {}, &error);
  ASSERT_TRUE(w) << error;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  EXPECT_FALSE(w->EndFrame(1, "", 0));  // no frame open
  EXPECT_NE(w->error().find("outside a frame"), std::string::npos);
  const std::uint64_t bytes = w->bytes_written();
  EXPECT_FALSE(w->WriteHeader(SampleHeader()));
  EXPECT_FALSE(w->Finish({}));
  EXPECT_EQ(w->bytes_written(), bytes);
  EXPECT_FALSE(Exists(path));
}

TEST_F(FormatWriterTest, FinishInsideAnOpenFrameFails) {
  const std::string path = Path("out.ptape");
  std::string error;
  auto w = SnapshotWriter::Create(path, {}, &error);
  ASSERT_TRUE(w) << error;
  ASSERT_TRUE(w->WriteHeader(SampleHeader()));
  w->BeginFrame(0, 0);
  EXPECT_FALSE(w->Finish({}));
  EXPECT_NE(w->error().find("open frame"), std::string::npos) << w->error();
  EXPECT_FALSE(Exists(path));
}

}  // namespace
}  // namespace proctape
