// SPDX-License-Identifier: Apache-2.0
// What the damage tests (format_damage_*_test.cc) share: a fresh directory
// per test (FormatDamageTest), a small real capture of every kind of chunk,
// and the end offsets of a file's chunks.
#pragma once

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "format/reader.h"
#include "format/writer.h"
#include "proctape.pb.h"
#include "tests/unit/format_bytes.h"

namespace proctape::test {

using namespace std::string_literals;  // "...\0..."s keeps embedded NULs

// A fresh directory per test, removed after it.
class FormatDamageTest : public TempDirTest {};

inline v1::FileRead Ok(std::string data, std::uint64_t bound) {
  v1::FileRead r;
  r.set_data(std::move(data));
  r.set_bound(bound);
  return r;
}

// A small capture of every kind of chunk: header, a frame in two parts with
// a blob, an observation batch, a resolution, a second frame, the footer.
// Unless `finish`, the writer stops as SIGKILL would stop it (Abandon): its
// temporary, unfinished, is then *temporary.
inline std::uint64_t WriteSmallCapture(const std::string& path, bool finish = true,
                                       std::string* temporary = nullptr) {
  Failure failure;
  SnapshotWriter::Options options;
  options.target_chunk = 200;
  auto w = SnapshotWriter::Create(path, options, &failure);
  EXPECT_TRUE(w) << failure.message;
  if (!w) return 0;
  v1::Header h;
  h.set_tool_version("test");
  h.mutable_host()->set_hostname("h\xffst"s);
  h.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  EXPECT_TRUE(w->WriteHeader(h));
  const std::string env = "HOME=*****\0PATH=*************************\0"s;
  w->BeginFrame(0, 10);
  for (int pid : {1, 2, 3}) {
    v1::ProcessRecord p;
    p.set_pid(pid);
    *p.mutable_stat() = Ok(std::to_string(pid) + " (a) b\n) S 0 1 1 0 -1", 4096);
    *p.mutable_cmdline() = Ok("/bin/x\0-y\0"s, 65536);
    *p.mutable_environ() = Ok(env, 65536);
    p.mutable_environ()->set_redacted(true);
    p.mutable_exe()->set_err(EACCES);
    EXPECT_TRUE(w->AddProcess(std::move(p)));
  }
  EXPECT_TRUE(w->EndFrame(20, "", 300));
  for (std::uint64_t i = 0; i < 3; ++i) {
    v1::Observation o;
    o.set_index(i);
    o.set_mono_ns(static_cast<std::int64_t>(30 + i));
    o.mutable_read_file()->set_pid(1);
    o.mutable_read_file()->set_file(v1::PROC_FILE_STAT);
    *o.mutable_read_file()->mutable_result() = Ok("1 (a) S", 4096);
    EXPECT_TRUE(w->AddObservation(std::move(o)));
  }
  v1::Resolution r;
  r.mutable_liveness()->set_pid(1);
  r.mutable_liveness_verdict()->set_status(v1::LivenessVerdict::ALIVE);
  r.set_observation_count(3);
  EXPECT_TRUE(w->WriteResolution(r));
  w->BeginFrame(1, 40);
  v1::ProcessRecord p;
  p.set_pid(1);
  *p.mutable_environ() = Ok(env, 65536);
  EXPECT_TRUE(w->AddProcess(std::move(p)));
  EXPECT_TRUE(w->EndFrame(50, "", 10));
  if (finish) {
    v1::Footer f;
    f.set_capture_end_mono_ns(60);
    EXPECT_TRUE(w->Finish(f)) << w->error();
  } else if (temporary != nullptr) {
    *temporary = w->Abandon();
  }
  return w->chunks();
}

// End offsets of the chunks of a whole file.
inline std::vector<std::uint64_t> ChunkEnds(const std::string& path) {
  std::vector<std::uint64_t> ends;
  FormatError error;
  auto reader = ChunkReader::Open(path, &error);
  EXPECT_TRUE(reader) << error.message;
  if (!reader) return ends;
  v1::Chunk chunk;
  while (reader->Next(&chunk) == ChunkReader::Result::kChunk) ends.push_back(reader->offset());
  EXPECT_TRUE(reader->error().ok()) << reader->error().message;
  return ends;
}

}  // namespace proctape::test
