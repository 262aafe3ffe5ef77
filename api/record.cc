// SPDX-License-Identifier: Apache-2.0
#include "api/record.h"

#include <utility>

#include "api/convert.h"
#include "capture/live_checks.h"
#include "capture/live_record.h"
#include "capture/recorder.h"
#include "format/writer.h"

namespace proctape::api::detail {

std::unique_ptr<OutputFile> OpenRecording(const RecordPolicy& policy, Error* error) {
  if (policy.when == Record::kNever) return nullptr;
  if (policy.path.empty()) {
    *error = Fail(ErrorCode::kInvalidArgument, "the recording's path is empty");
    return nullptr;
  }
  OutputRequest request;
  request.path = policy.path;
  request.force = policy.replace;
  request.binary = true;
  request.remove_on_interrupt = false;  // the program's signals are its own
  OutputError refused;
  std::unique_ptr<OutputFile> output = OutputFile::Open(request, &refused);
  if (!output) {
    *error = Fail(refused.usage ? ErrorCode::kInvalidArgument : ErrorCode::kRecordRefused,
                  refused.message);
  }
  return output;
}

ResolveResult ResolveRecorded(Evidence& evidence, proctape::Request request,
                              const v1::RootFingerprint& fingerprint, Record when,
                              std::unique_ptr<OutputFile> output, const FrameSource& frames,
                              v1::Header header) {
  ResolveResult result;
  proctape::Verdict verdict;
  // The request holds the fingerprint taken before the turn: not late.
  LiveCheck check = ResolveCheck(&request, fingerprint.exe_path(), false, &verdict, &fingerprint);
  if (when == Record::kNever || !output) {
    v1::Resolution unused;
    check(evidence, &unused);
    result.ran = true;
    result.verdict = FromCore(verdict);
    result.verdict.boot_id = fingerprint.boot_id();  // its start tick's boot
    return result;
  }
  const std::string path = output->path();
  const std::string shown = output->shown();
  ScanOptions scan;
  scan.kept_entries = {TokenEntry(request)};
  header.mutable_redaction()->clear_kept_entries();
  header.mutable_redaction()->add_kept_entries(scan.kept_entries[0]);
  std::unique_ptr<SnapshotWriter> writer = SnapshotWriter::Create(std::move(output), {});
  std::vector<ScanWorker> workers;
  auto frame = [&](std::uint64_t index) {
    if (workers.empty() && frames.open_workers) workers = frames.open_workers();
    return WriteScanFrame(evidence, scan, frames.pid_ns, workers, index, *writer);
  };
  bool written = writer->WriteHeader(header);
  std::uint64_t frames_written = 0;
  if (written && when == Record::kAlways) written = frame(frames_written++);
  RecorderOptions ropts;
  ropts.kept_entries = scan.kept_entries;
  RecordingEvidence recorder(
      evidence, [&writer](v1::Observation&& o) { writer->AddObservation(std::move(o)); }, ropts);
  v1::Resolution resolution;
  resolution.set_first_observation(0);
  resolution.set_start_mono_ns(evidence.NowNs());
  // The resolver runs even when the file already failed: its verdict stands.
  check(recorder, &resolution);
  resolution.set_end_mono_ns(evidence.NowNs());
  resolution.set_observation_count(recorder.observations());
  result.ran = true;
  result.verdict = FromCore(verdict);
  result.verdict.boot_id = fingerprint.boot_id();
  if (when == Record::kOnFailure && verdict.resolved()) return result;  // the temporary goes
  written = written && writer->error().empty() && frame(frames_written++) &&
            writer->WriteResolution(resolution);
  if (written) {
    v1::Footer footer;
    footer.set_capture_end_mono_ns(evidence.NowNs());
    written = writer->Finish(footer);
  }
  if (!written) {
    result.error = Fail(ErrorCode::kRecordFailed, "cannot write the recording " + shown + ": " +
                                                      writer->error());
    return result;
  }
  result.recording = path;
  return result;
}

}  // namespace proctape::api::detail
