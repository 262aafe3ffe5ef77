// SPDX-License-Identifier: Apache-2.0
#include "tests/fuzz/generated.h"

#include <cstdint>
#include <cstring>

#include "analyze/export.h"
#include "capture/recorder.h"
#include "core/memory_evidence.h"
#include "core/resolver.h"
#include "format/file_format.h"
#include "format/reader.h"
#include "proto/convert.h"
#include "tests/fuzz/fuzz_support.h"

namespace proctape::fuzz {
namespace {

v1::SnapshotExport Base(const std::string& source_dir) {
  Snapshot snapshot;
  const std::string path = source_dir + "/tests/data/replay/resolved.ptape";
  if (!ReadSnapshot(path, &snapshot).ok() || snapshot.resolutions.empty() ||
      snapshot.frames.empty()) {
    Broken("cannot read " + path);
  }
  return ToExport(snapshot);
}

v1::Bounds* RequestBounds(v1::SnapshotExport* e) {
  return e->mutable_resolutions(0)->mutable_resolve()->mutable_bounds();
}

// A chain of `depth` processes (pid 2 the root, each the parent of the
// next), the last one the sandboxed process the request names: the tape of
// the real resolver run over it (a recording of `resolve --record`), and one
// frame holding the chain.
v1::SnapshotExport Chain(int depth) {
  MemoryEvidence host;
  const Identity exe{0, 8, 77};
  const std::string token = "t0ken";
  for (int i = 0; i < depth; ++i) {
    const std::int64_t pid = 2 + i;
    const bool last = i + 1 == depth;
    host.AddProcess(
        pid, i == 0 ? 1 : pid - 1, 100 + static_cast<std::uint64_t>(i), last ? "sleep" : "sh",
        last ? std::vector<std::string>{"/bin/sleep", "120"} : std::vector<std::string>{"/bin/sh"},
        {"PROCTAPE_TOKEN=" + token}, last ? exe : Identity{0, 8, 78});
  }
  host.SetPath("/bin/sleep", exe);
  Request request;
  request.root_pid = 2;
  request.root_start_ticks = 100;
  request.token = token;
  request.exe = exe;
  request.bounds.max_depth = static_cast<std::uint32_t>(depth) + 1;
  request.bounds.max_nodes = static_cast<std::uint64_t>(depth) + 1;

  v1::SnapshotExport e;
  e.mutable_header()->set_format_version(kFormatVersion);
  RecorderOptions options;
  options.kept_entries = {"PROCTAPE_TOKEN=" + token};
  options.clock = [&host] { return host.now_ns; };
  RecordingEvidence recording(
      host, [&e](v1::Observation&& o) { *e.add_observations() = std::move(o); }, options);
  v1::Resolution* r = e.add_resolutions();
  *r->mutable_resolve() = ToProto(request);
  r->set_start_mono_ns(host.now_ns);
  *r->mutable_verdict() = ToProto(Resolve(recording, request));
  r->set_end_mono_ns(host.now_ns);
  r->set_observation_count(static_cast<std::uint64_t>(e.observations_size()));

  v1::Frame* frame = e.add_frames();
  frame->set_scan_start_mono_ns(host.now_ns);
  frame->set_scan_end_mono_ns(host.now_ns + 1000);
  for (int i = 0; i < depth; ++i) {
    const std::int64_t pid = 2 + i;
    v1::ProcessRecord* p = frame->add_processes();
    p->set_pid(pid);
    p->mutable_stat()->set_data(MemoryEvidence::StatLine(pid, "sh", 'S', i == 0 ? 1 : pid - 1,
                                                         100 + static_cast<std::uint64_t>(i)));
  }
  return e;
}

}  // namespace

std::vector<NamedInput> GeneratedInputs(const std::string& target, const std::string& source_dir) {
  std::vector<NamedInput> out;
  if (target == "reader") {
    // A chunk claiming 4 GiB in a 16-byte file.
    std::string huge(reinterpret_cast<const char*>(kMagic), sizeof(kMagic));
    const std::uint32_t version = kFormatVersion;
    huge.append(reinterpret_cast<const char*>(&version), 4);
    huge.append("\xff\xff\xff\xff", 4);
    out.push_back({"chunk-claiming-4-GiB", huge});
    return out;
  }
  if (target != "replay" && target != "views") return out;
  auto add = [&out](const std::string& name, const v1::SnapshotExport& e) {
    out.push_back({name, e.SerializeAsString()});
  };
  {  // core/resolver.cc CheckDeadline: now - deadline with a deadline of INT64_MIN
    v1::SnapshotExport e = Base(source_dir);
    RequestBounds(&e)->set_deadline_ns(INT64_MIN);
    add("deadline-int64-min", e);
  }
  {  // a deadline of years and a retry of a nanosecond: replay must end
    v1::SnapshotExport e = Base(source_dir);
    RequestBounds(&e)->set_deadline_ns(std::int64_t{10} * 365 * 24 * 3600 * 1'000'000'000);
    RequestBounds(&e)->set_retry_interval_ns(1);
    add("deadline-years-retry-1ns", e);
  }
  {  // replay/frame_evidence.cc ScanDuration: end - start of a frame
    v1::SnapshotExport e = Base(source_dir);
    e.mutable_frames(0)->set_scan_start_mono_ns(INT64_MIN);
    e.mutable_frames(0)->set_scan_end_mono_ns(INT64_MAX);
    e.mutable_resolutions(0)->set_start_mono_ns(INT64_MIN);
    add("frame-scan-int64-min-to-max", e);
  }
  {  // analyze/explain.cc attempt offsets: 0 - INT64_MIN
    v1::SnapshotExport e = Base(source_dir);
    e.mutable_resolutions(0)->set_start_mono_ns(INT64_MAX);
    for (v1::Observation& o : *e.mutable_observations()) o.set_mono_ns(INT64_MIN);
    e.mutable_header()->set_capture_start_mono_ns(INT64_MIN);
    add("observations-at-int64-min", e);
  }
  // explain was quadratic on a 60,000-deep parent chain (89 s). The
  // sanitizer build walks a tenth of it: the same paths, at ASan's cost (the
  // whole chain took 112 s of CI there); the ordinary build, and
  // tests/live/views_shapes_cli_test.cc, keep the 60,000 that show linearity.
#if defined(PROCTAPE_ASAN)
  add("parent-chain-6000", Chain(6'000));
#else
  add("parent-chain-60000", Chain(60'000));
#endif
  return out;
}

}  // namespace proctape::fuzz
