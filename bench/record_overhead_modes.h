// SPDX-License-Identifier: Apache-2.0
// record_overhead's timed modes, each one resolution of the sleep child that
// must be RESOLVED to its pid (else the bench dies): plain, tape, record
// (RecordLive) and the library's call. bench/record_overhead.cc says what
// each measures; one program includes this, so the definitions are inline.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "bench/record_overhead_child.h"
#include "capture/live_record.h"
#include "capture/procfs_evidence.h"
#include "capture/recorder.h"
#include "core/resolver.h"
#include "format/writer.h"
#include "proctape/live.h"
#include "proto/convert.h"

namespace proctape::bench {

struct Run {
  std::int64_t wall_ns = 0;         // the whole mode
  std::int64_t resolve_ns = 0;      // the Resolve call alone
  std::int64_t cpu_ns = 0;          // process CPU time of the whole mode
  std::int64_t resolve_cpu_ns = 0;  // thread CPU time of the Resolve call
  std::uint64_t observations = 0;
  std::uint64_t bytes = 0;       // file bytes written
  std::uint64_t bytes_read = 0;  // /proc bytes the resolver read
  std::uint64_t listed = 0;      // /proc entries its ListPids returned (tape only)
};

inline void CheckVerdict(const Verdict& v, pid_t want, const char* mode) {
  if (!v.resolved() || v.pid != want) {
    Die(std::string(mode) + ": expected RESOLVED " + std::to_string(want) + ", got " +
        std::string(StatusName(v.status)) + " pid " + std::to_string(v.pid) + ": " + v.detail);
  }
}

inline Run RunPlain(ProcfsEvidence& live, const Request& request, pid_t want) {
  Run out;
  std::int64_t c0 = ProcessCpuNs(), tc0 = ThreadCpuNs();
  std::int64_t t0 = MonoNs();
  Verdict v = Resolve(live, request);
  out.wall_ns = out.resolve_ns = MonoNs() - t0;
  out.resolve_cpu_ns = ThreadCpuNs() - tc0;
  out.cpu_ns = ProcessCpuNs() - c0;
  CheckVerdict(v, want, "plain");
  out.bytes_read = v.bytes_read;
  return out;
}

inline Run RunTape(ProcfsEvidence& live, const Request& request, const std::string& token_entry,
                   const std::string& path, pid_t want) {
  Run out;
  std::int64_t c0 = ProcessCpuNs();
  std::int64_t t0 = MonoNs();
  SnapshotWriter::Options wopts;
  wopts.force = true;
  Failure failure;
  auto writer = SnapshotWriter::Create(path, wopts, &failure);
  if (!writer) Die("tape: " + failure.message);
  ScanOptions scan;
  scan.kept_entries = {token_entry};
  v1::Header header;
  FillHeader(scan, "/proc", {"record_overhead"}, &header);
  if (!writer->WriteHeader(header)) Die("tape: " + writer->error());
  RecorderOptions ropts;
  ropts.kept_entries = {token_entry};
  RecordingEvidence recorder(
      live,
      [&writer, &out](v1::Observation&& o) {
        if (o.has_list_pids()) out.listed = static_cast<std::uint64_t>(o.list_pids().names_size());
        writer->AddObservation(std::move(o));
      },
      ropts);
  v1::Resolution resolution;
  *resolution.mutable_resolve() = ToProto(request);
  resolution.set_first_observation(0);
  resolution.set_start_mono_ns(live.NowNs());
  std::int64_t r0 = MonoNs(), rc0 = ThreadCpuNs();
  Verdict v = Resolve(recorder, request);
  out.resolve_ns = MonoNs() - r0;
  out.resolve_cpu_ns = ThreadCpuNs() - rc0;
  resolution.set_end_mono_ns(live.NowNs());
  *resolution.mutable_verdict() = ToProto(v);
  resolution.set_observation_count(recorder.observations());
  if (!writer->error().empty()) Die("tape: " + writer->error());
  if (!writer->WriteResolution(resolution)) Die("tape: " + writer->error());
  v1::Footer footer;
  footer.set_capture_end_mono_ns(live.NowNs());
  if (!writer->Finish(footer)) Die("tape: " + writer->error());
  out.wall_ns = MonoNs() - t0;
  out.cpu_ns = ProcessCpuNs() - c0;
  CheckVerdict(v, want, "tape");
  out.observations = recorder.observations();
  out.bytes = writer->bytes_written();
  out.bytes_read = v.bytes_read;
  return out;
}

inline Run RunRecordLive(ProcfsEvidence& live, const Request& request,
                         const std::string& token_entry, const std::string& path, pid_t want) {
  Run out;
  LiveRecordOptions options;
  options.path = path;
  options.force = true;
  options.command_line = {"record_overhead"};
  options.kept_entries = {token_entry};
  Verdict v;
  std::int64_t c0 = ProcessCpuNs();
  std::int64_t t0 = MonoNs();
  MaybeFailure failed = RecordLive(live, options, [&](Evidence& ev, v1::Resolution* r) {
    *r->mutable_resolve() = ToProto(request);
    std::int64_t r0 = MonoNs(), rc0 = ThreadCpuNs();
    v = Resolve(ev, request);
    out.resolve_ns = MonoNs() - r0;
    out.resolve_cpu_ns = ThreadCpuNs() - rc0;
    *r->mutable_verdict() = ToProto(v);
  });
  out.wall_ns = MonoNs() - t0;
  out.cpu_ns = ProcessCpuNs() - c0;
  if (failed) Die("record: " + failed->message);
  CheckVerdict(v, want, "record");
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) out.bytes = static_cast<std::uint64_t>(st.st_size);
  out.bytes_read = v.bytes_read;
  return out;
}

inline Run RunLibrary(const api::Fingerprint& fingerprint, const std::string& token,
                      const api::RecordPolicy& policy, pid_t want) {
  Run out;
  api::Request request;
  request.token = token;
  std::int64_t c0 = ProcessCpuNs(), tc0 = ThreadCpuNs();
  std::int64_t t0 = MonoNs();
  api::ResolveResult r = api::Resolve(request, fingerprint, policy);
  out.wall_ns = out.resolve_ns = MonoNs() - t0;
  out.resolve_cpu_ns = ThreadCpuNs() - tc0;
  out.cpu_ns = ProcessCpuNs() - c0;
  if (!r.ok()) Die("lib: " + r.error.message);
  if (!r.verdict.resolved() || r.verdict.pid != want) {
    Die("lib: expected RESOLVED " + std::to_string(want) + ", got " +
        std::string(api::StatusName(r.verdict.status)) + ": " + r.verdict.detail);
  }
  if (!r.recording.empty() || std::filesystem::exists(policy.path)) {
    Die("lib-onfail: a RESOLVED verdict left a recording");
  }
  out.bytes_read = r.verdict.bytes_read;
  return out;
}

}  // namespace proctape::bench
