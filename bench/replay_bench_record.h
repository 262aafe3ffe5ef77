// SPDX-License-Identifier: Apache-2.0
// replay_bench's clocks and its recordings: one resolution on the in-memory
// host of bench/replay_bench_host.h, recorded as `resolve --record` records
// it (header, a frame, the tape, a frame, the Resolution, footer) and read
// back whole. One program includes this (bench/replay_bench.cc), so the
// definitions are inline.
#pragma once

#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>

#include "bench/replay_bench_host.h"
#include "capture/frame_scanner.h"
#include "capture/recorder.h"
#include "core/memory_evidence.h"
#include "core/resolver.h"
#include "format/reader.h"
#include "format/writer.h"
#include "proto/convert.h"

namespace proctape::bench {

inline std::int64_t ClockNs(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
inline std::int64_t MonoNs() { return ClockNs(CLOCK_MONOTONIC); }
inline std::int64_t CpuNs() { return ClockNs(CLOCK_THREAD_CPUTIME_ID); }

[[noreturn]] inline void Die(const std::string& why) {
  std::fprintf(stderr, "replay_bench: %s\n", why.c_str());
  std::exit(1);
}

struct Recorded {
  std::unique_ptr<MemoryEvidence> host;  // the in-memory host it was recorded on
  std::string path;
  Snapshot snapshot;
  std::uint64_t observations = 0;
  double record_s = 0;
  double read_s = 0;
  std::uint64_t file_bytes = 0;
};

inline void WriteFrame(MemoryEvidence& host, std::uint64_t index, const ScanOptions& scan,
                       SnapshotWriter& writer) {
  FrameCallbacks cb;
  cb.begin = [&](std::int64_t t) { writer.BeginFrame(index, t); };
  cb.record = [&](v1::ProcessRecord&& r) { return writer.AddProcess(std::move(r)); };
  ScanStats s = ScanFrame(host, scan, nullptr, cb);
  if (!writer.EndFrame(s.scan_end_mono_ns, s.cut_reason, s.bytes_read)) Die(writer.error());
}

// Records one resolution as `resolve --record` would, then reads it back.
inline Recorded Record(const std::string& path, std::int64_t workers, bool with_sleep,
                       v1::Verdict::Status want) {
  Recorded out;
  out.host = std::make_unique<MemoryEvidence>();
  MemoryEvidence& host = *out.host;
  BuildHost(host, workers, with_sleep);
  Request request = TheRequest();
  const std::string kept = request.token_var + "=" + request.token;
  out.path = path;
  std::int64_t t0 = MonoNs();
  Failure failure;
  SnapshotWriter::Options wopts;
  wopts.force = true;
  auto writer = SnapshotWriter::Create(path, wopts, &failure);
  if (!writer) Die(failure.message);
  v1::Header header;
  header.set_format_version(1);
  header.set_tool_version(PROCTAPE_VERSION);
  header.set_capturer_uid(1001);
  header.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  header.mutable_redaction()->add_kept_entries(kept);
  if (!writer->WriteHeader(header)) Die(writer->error());
  ScanOptions scan;
  scan.kept_entries = {kept};
  WriteFrame(host, 0, scan, *writer);
  RecordingEvidence recorder(
      host, [&](v1::Observation&& o) { writer->AddObservation(std::move(o)); },
      RecorderOptions{false, {kept}, [&host] { return host.now_ns; }});
  v1::Resolution resolution;
  resolution.set_start_mono_ns(host.now_ns);
  *resolution.mutable_resolve() = ToProto(request);
  resolution.mutable_resolve()->set_exe_path("/bin/sleep");
  Verdict v = Resolve(recorder, request);
  *resolution.mutable_verdict() = ToProto(v);
  resolution.set_end_mono_ns(host.now_ns);
  resolution.set_observation_count(recorder.observations());
  if (!writer->error().empty()) Die(writer->error());
  WriteFrame(host, 1, scan, *writer);
  if (!writer->WriteResolution(resolution)) Die(writer->error());
  if (!writer->Finish(v1::Footer())) Die(writer->error());
  out.file_bytes = writer->bytes_written();
  out.record_s = static_cast<double>(MonoNs() - t0) / 1e9;
  if (resolution.verdict().status() != want) {
    Die("recorded " + v1::Verdict::Status_Name(resolution.verdict().status()) + " (" + v.detail +
        "), wanted " + v1::Verdict::Status_Name(want));
  }
  out.observations = recorder.observations();

  std::int64_t t1 = MonoNs();
  FormatError read = ReadSnapshot(path, &out.snapshot);
  out.read_s = static_cast<double>(MonoNs() - t1) / 1e9;
  if (!read.ok()) Die(path + ": " + read.message);
  if (out.snapshot.resolutions.size() != 1 ||
      out.snapshot.observations.size() != out.observations) {
    Die(path + " did not read back whole");
  }
  return out;
}

}  // namespace proctape::bench
