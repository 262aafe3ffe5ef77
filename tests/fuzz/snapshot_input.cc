// SPDX-License-Identifier: Apache-2.0
#include "tests/fuzz/snapshot_input.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "analyze/export.h"
#include "fs/output_file.h"
#include "format/writer.h"
#include "tests/fuzz/fuzz_support.h"

namespace proctape::fuzz {

bool WriteSnapshotFile(const v1::SnapshotExport& content, const std::string& path) {
  OutputRequest request;
  request.path = path;
  request.force = true;
  request.binary = true;
  request.remove_on_interrupt = false;  // libFuzzer keeps its own signal handlers
  Failure error;
  std::unique_ptr<OutputFile> output = OutputFile::Open(request, &error);
  if (!output) return false;
  SnapshotWriter::Options options;
  options.level = 1;
  std::unique_ptr<SnapshotWriter> writer = SnapshotWriter::Create(std::move(output), options);
  if (!writer || !writer->WriteHeader(content.header())) return false;
  for (int k = 0; k < content.frames_size(); ++k) {
    const v1::Frame& frame = content.frames(k);
    if (!writer->BeginFrame(static_cast<std::uint64_t>(k), frame.scan_start_mono_ns())) {
      return false;
    }
    for (const v1::ProcessRecord& record : frame.processes()) {
      if (!writer->AddProcess(v1::ProcessRecord(record))) return false;
    }
    if (!writer->EndFrame(frame.scan_end_mono_ns(), frame.cut_reason(), frame.bytes_read())) {
      return false;
    }
  }
  std::uint64_t observations = 0;
  for (const v1::Observation& o : content.observations()) {
    v1::Observation copy(o);
    copy.set_index(observations++);
    if (!writer->AddObservation(std::move(copy))) return false;
  }
  for (const v1::Resolution& r : content.resolutions()) {
    v1::Resolution copy(r);
    std::uint64_t first = std::min<std::uint64_t>(copy.first_observation(), observations);
    copy.set_first_observation(first);
    copy.set_observation_count(std::min(copy.observation_count(), observations - first));
    if (!writer->WriteResolution(copy)) return false;
  }
  if (content.fingerprints_size() > 0 && !writer->WriteFingerprint(content.fingerprints(0))) {
    return false;
  }
  return writer->Finish(content.footer());
}

bool DecodeSnapshotInput(const std::uint8_t* data, std::size_t size, Snapshot* out) {
  v1::SnapshotExport content;
  if (!content.ParseFromArray(data, static_cast<int>(std::min<std::size_t>(size, INT32_MAX)))) {
    return false;
  }
  const std::string path = ScratchDir() + "/input.ptape";
  bool written = WriteSnapshotFile(content, path);
  bool read = written && ReadSnapshot(path, out).ok();
  ::unlink(path.c_str());
  // What the writer wrote, the reader must read: a file the writer makes and
  // the reader refuses is a bug of one of them (docs/format.md).
  if (written && !read) Broken("the writer wrote a file the reader refuses");
  return read;
}

std::string SnapshotInputOf(const Snapshot& snapshot) {
  return ToExport(snapshot).SerializeAsString();
}

}  // namespace proctape::fuzz
