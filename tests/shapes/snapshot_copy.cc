// SPDX-License-Identifier: Apache-2.0
#include "tests/shapes/snapshot_copy.h"

#include <utility>

#include "format/writer.h"

namespace proctape::shapes {

bool WriteSnapshotCopy(const Snapshot& snapshot, const std::string& path, std::string* error) {
  SnapshotWriter::Options wopts;
  wopts.force = true;
  Failure refused;
  auto writer = SnapshotWriter::Create(path, wopts, &refused);
  if (!writer) {
    *error = refused.message;
    return false;
  }
  auto failed = [&] {
    *error = writer->error();
    return false;
  };
  auto write_frames = [&](bool first) {
    for (const v1::Frame& frame : snapshot.frames) {
      if ((frame.index() == 0) != first) continue;
      writer->BeginFrame(frame.index(), frame.scan_start_mono_ns());
      for (const v1::ProcessRecord& record : frame.processes()) {
        if (!writer->AddProcess(v1::ProcessRecord(record))) return false;
      }
      if (!writer->EndFrame(frame.scan_end_mono_ns(), frame.cut_reason(), frame.bytes_read())) {
        return false;
      }
    }
    return true;
  };
  if (!writer->WriteHeader(snapshot.header)) return failed();
  if (!write_frames(true)) return failed();
  for (std::size_t i = 0; i < snapshot.observations.size(); ++i) {
    v1::Observation o = snapshot.observations[i];
    o.set_index(i);
    if (!writer->AddObservation(std::move(o))) return failed();
  }
  if (!write_frames(false)) return failed();
  for (const v1::Resolution& r : snapshot.resolutions) {
    if (!writer->WriteResolution(r)) return failed();
  }
  v1::Footer footer;
  if (snapshot.footer) footer.set_capture_end_mono_ns(snapshot.footer->capture_end_mono_ns());
  if (!writer->Finish(footer)) return failed();
  return true;
}

}  // namespace proctape::shapes
