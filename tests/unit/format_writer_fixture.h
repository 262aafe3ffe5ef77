// SPDX-License-Identifier: Apache-2.0
// What the writer tests (format_writer_*_test.cc) share: a fresh directory per
// test (FormatWriterTest), the names in it, a message comparison that prints
// the difference, and a sample snapshot (a header and processes with every
// field set, hostile and large bytes among them) to write.
#pragma once

#include <gtest/gtest.h>
#include <google/protobuf/util/message_differencer.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "format/reader.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"

namespace proctape::test {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs

// A fresh directory per test, removed after it.
class FormatWriterTest : public TempDirTest {};

inline bool Exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

// The names in `dir`, sorted.
inline std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline ::testing::AssertionResult Same(const google::protobuf::Message& want,
                                       const google::protobuf::Message& got) {
  std::string diff;
  google::protobuf::util::MessageDifferencer d;
  d.ReportDifferencesToString(&diff);
  if (d.Compare(want, got)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << want.GetTypeName() << " differs:\n" << diff;
}

inline std::string RandomBytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(gen() & 0xff);
  return s;
}

inline v1::FileRead Ok(std::string data, std::uint64_t bound, bool truncated = false) {
  v1::FileRead r;
  r.set_data(std::move(data));
  r.set_bound(bound);
  r.set_truncated(truncated);
  return r;
}

inline v1::FileRead Err(int err, std::uint64_t bound) {
  v1::FileRead r;
  r.set_err(err);
  r.set_bound(bound);
  return r;
}

inline v1::FileIdentity Id(std::uint64_t dev, std::uint64_t ino) {
  v1::FileIdentity id;
  id.set_dev(dev);
  id.set_ino(ino);
  return id;
}

inline v1::FileIdentity IdErr(int err) {
  v1::FileIdentity id;
  id.set_err(err);
  return id;
}

inline v1::Header SampleHeader() {
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
inline std::vector<v1::ProcessRecord> SampleProcesses() {
  std::vector<v1::ProcessRecord> out;
  {  // A live process: a comm with ") " and a newline, non-UTF-8 argv, a
     // redacted environment, identities and a cgroup.
    v1::ProcessRecord p;
    p.set_pid(1);
    *p.mutable_stat() =
        Ok("1 (we) ird\n) x) S 0 1 1 0 -1 4194560 52000 0 100 0 10 20 0 0 20 0 1 0 5 0 0\n", 4096);
    *p.mutable_cmdline() =
        Ok("/usr/bin/d\xe6mon\0--name=\xff\xfe\x80\0--flag\0with a long tail\0"s, 65536);
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

// All chunks of a file, as stored (blobs and parts not resolved).
inline std::vector<v1::Chunk> RawChunks(const std::string& path) {
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

}  // namespace proctape::test
