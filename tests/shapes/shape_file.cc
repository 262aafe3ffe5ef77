// SPDX-License-Identifier: Apache-2.0
#include "tests/shapes/shape_file.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "capture/frame_scanner.h"
#include "capture/recorder.h"
#include "core/memory_evidence.h"
#include "core/resolver.h"
#include "format/writer.h"
#include "proto/convert.h"

namespace proctape::shapes {
namespace {

constexpr std::int64_t kRoot = 1000;
constexpr std::uint64_t kRootStart = 50'000;
const Identity kSleepExe{0, 0x803, 1311};
const char kToken[] = "3f9c1e7a-5b1d-4c8e-9a0f-2e6d7c1b4a93";

void BuildHost(MemoryEvidence& host, Shape shape, std::uint32_t n) {
  host.AddProcess(1, 0, 1, "init", {"/sbin/init"}, {}, Identity{0, 0x803, 2});
  host.AddProcess(kRoot, 1, kRootStart, "shell", {"/bin/sh"}, {}, Identity{0, 0x803, 3});
  const std::string token = std::string("PROCTAPE_TOKEN=") + kToken;
  for (std::uint32_t k = 1; k <= n; ++k) {
    const std::int64_t pid = kRoot + k;
    const std::int64_t ppid = shape == Shape::kChain ? pid - 1 : kRoot;
    const std::uint64_t start = kRootStart + k;
    if (k == n) {
      host.AddProcess(pid, ppid, start, "sleep", {"/bin/sleep", "120"}, {token}, kSleepExe);
    } else {
      host.AddProcess(pid, ppid, start, "sh", {"/bin/sh", "-c", "exec sleep 120"}, {},
                      Identity{0, 0x803, 4});
    }
  }
}

bool WriteFrame(MemoryEvidence& host, std::uint64_t index, const ScanOptions& scan,
                SnapshotWriter& writer) {
  FrameCallbacks cb;
  cb.begin = [&](std::int64_t t) { writer.BeginFrame(index, t); };
  cb.record = [&](v1::ProcessRecord&& r) { return writer.AddProcess(std::move(r)); };
  ScanStats s = ScanFrame(host, scan, nullptr, cb);
  return writer.EndFrame(s.scan_end_mono_ns, s.cut_reason, s.bytes_read);
}

}  // namespace

bool WriteShapeFile(const std::string& path, Shape shape, std::uint32_t n, std::string* error,
                    std::uint32_t checks, std::int64_t deadline_ns) {
  MemoryEvidence host;
  BuildHost(host, shape, n);
  Request request;
  request.root_pid = kRoot;
  request.root_start_ticks = kRootStart;
  request.token = kToken;
  request.exe = kSleepExe;
  if (deadline_ns != 0) {
    request.bounds.deadline_ns = deadline_ns;
    request.bounds.byte_budget = std::uint64_t{1} << 40;
  }
  const std::string kept = request.token_var + "=" + request.token;

  SnapshotWriter::Options options;
  options.force = true;
  Failure refused;
  std::unique_ptr<SnapshotWriter> writer = SnapshotWriter::Create(path, options, &refused);
  if (!writer) {
    *error = refused.message;
    return false;
  }
  v1::Header header;
  header.set_format_version(1);
  header.set_tool_version(PROCTAPE_VERSION);
  header.add_command_line("proctape");
  header.add_command_line("resolve");
  header.mutable_host()->set_clock_ticks_per_second(100);
  header.mutable_redaction()->set_environ(v1::RedactionPolicy::ENVIRON_REDACTED);
  header.mutable_redaction()->add_kept_entries(kept);
  bool ok = writer->WriteHeader(header);
  ScanOptions scan;
  scan.kept_entries = {kept};
  ok = ok && WriteFrame(host, 0, scan, *writer);
  v1::Resolution resolution;
  if (ok) {
    RecordingEvidence recorder(
        host, [&](v1::Observation&& o) { writer->AddObservation(std::move(o)); },
        RecorderOptions{false, {kept}, [&host] { return host.now_ns; }});
    resolution.set_start_mono_ns(host.now_ns);
    *resolution.mutable_resolve() = ToProto(request);
    resolution.mutable_resolve()->set_exe_path("/bin/sleep");
    *resolution.mutable_verdict() = ToProto(Resolve(recorder, request));
    resolution.set_end_mono_ns(host.now_ns);
    resolution.set_observation_count(recorder.observations());
    ok = writer->error().empty();
  }
  ok = ok && WriteFrame(host, 1, scan, *writer);
  for (std::uint32_t c = 0; ok && c < std::max<std::uint32_t>(checks, 1); ++c) {
    ok = writer->WriteResolution(resolution);
  }
  ok = ok && writer->Finish(v1::Footer());
  if (!ok) *error = path + ": " + writer->error();
  return ok;
}

}  // namespace proctape::shapes
