// SPDX-License-Identifier: Apache-2.0
#include "capture/live_record.h"

#include <algorithm>
#include <memory>
#include <thread>

#include "capture/host_facts.h"
#include "capture/recorder.h"
#include "format/writer.h"

namespace proctape {

void FillHeader(const ScanOptions& scan, const std::string& proc_root,
                const std::vector<std::string>& command_line, v1::Header* header) {
  FillCaptureHeader(proc_root, header);
  FillScanHeader(scan, command_line, header);
}

void FillScanHeader(const ScanOptions& scan, const std::vector<std::string>& command_line,
                    v1::Header* header) {
  header->set_tool_version(PROCTAPE_VERSION);
  v1::Bounds* bounds = header->mutable_bounds();
  bounds->set_max_proc_entries(scan.root_pid ? scan.max_entries : scan.max_processes);
  bounds->set_max_nodes(scan.max_processes);
  bounds->set_stat_bytes(scan.stat_bytes);
  bounds->set_cmdline_bytes(scan.cmdline_bytes);
  bounds->set_environ_bytes(scan.environ_bytes);
  bounds->set_status_bytes(scan.status_bytes);
  bounds->set_byte_budget(scan.max_bytes);  // per frame
  v1::RedactionPolicy* redaction = header->mutable_redaction();
  redaction->set_environ(scan.keep_environ ? v1::RedactionPolicy::ENVIRON_KEPT
                                           : v1::RedactionPolicy::ENVIRON_REDACTED);
  for (const std::string& kept : scan.kept_entries) redaction->add_kept_entries(kept);
  for (const std::string& arg : command_line) header->add_command_line(arg);
  if (scan.root_pid) header->set_scope_root_pid(*scan.root_pid);
}

unsigned DefaultScanThreads() {
  unsigned cores = std::thread::hardware_concurrency();
  return std::clamp(cores, 1u, 4u);
}

std::vector<ScanWorker> OpenScanWorkers(const std::string& proc_root, unsigned threads) {
  std::vector<ScanWorker> workers;
  if (threads <= 1) return workers;
  for (unsigned i = 0; i < threads; ++i) {
    std::string error;
    std::unique_ptr<ProcfsEvidence> proc = ProcfsEvidence::Open(proc_root, &error);
    if (!proc) break;
    ProcfsEvidence* p = proc.get();
    workers.push_back(
        ScanWorker{std::move(proc), [p](std::int64_t pid) { return p->PidNamespace(pid); }});
  }
  return workers;
}

bool WriteScanFrame(Evidence& evidence, const ScanOptions& scan, const PidNamespaceFn& pid_ns,
                    std::vector<ScanWorker>& workers, std::uint64_t index, SnapshotWriter& writer) {
  FrameCallbacks callbacks;
  callbacks.begin = [&writer, index](std::int64_t t) { writer.BeginFrame(index, t); };
  callbacks.record = [&writer](v1::ProcessRecord&& r) { return writer.AddProcess(std::move(r)); };
  ScanStats s = ScanFrameParallel(evidence, scan, pid_ns, workers, callbacks);
  return writer.EndFrame(s.scan_end_mono_ns, s.cut_reason, s.bytes_read);
}

namespace {

bool WriteFrame(ProcfsEvidence& live, const ScanOptions& scan, std::vector<ScanWorker>& workers,
                std::uint64_t index, SnapshotWriter& writer) {
  PidNamespaceFn pid_ns = [&live](std::int64_t pid) { return live.PidNamespace(pid); };
  return WriteScanFrame(live, scan, pid_ns, workers, index, writer);
}

}  // namespace

bool RecordLive(ProcfsEvidence& live, const LiveRecordOptions& options,
                std::unique_ptr<OutputFile> output,
                const std::function<void(Evidence&, v1::Resolution*)>& check, std::string* error) {
  return RecordLiveSteps(live, options, std::move(output), {LiveStep{nullptr, check}}, error);
}

bool RecordLive(ProcfsEvidence& live, const LiveRecordOptions& options,
                const std::function<void(Evidence&, v1::Resolution*)>& check, std::string* error) {
  return RecordLiveSteps(live, options, {LiveStep{nullptr, check}}, error);
}

bool RecordLiveSteps(ProcfsEvidence& live, const LiveRecordOptions& options,
                     const std::vector<LiveStep>& steps, std::string* error) {
  OutputRequest request;
  request.path = options.path;
  request.force = options.force;
  request.stdout_allowed = true;
  request.binary = true;
  OutputError refused;
  std::unique_ptr<OutputFile> output = OutputFile::Open(request, &refused);
  if (!output) {
    *error = refused.message;
    return false;
  }
  return RecordLiveSteps(live, options, std::move(output), steps, error);
}

bool RecordLiveSteps(ProcfsEvidence& live, const LiveRecordOptions& options,
                     std::unique_ptr<OutputFile> output, const std::vector<LiveStep>& steps,
                     std::string* error) {
  ScanOptions scan = options.scan;
  scan.kept_entries = options.kept_entries;
  v1::Header header;
  FillHeader(scan, options.proc_root, options.command_line, &header);

  auto writer = SnapshotWriter::Create(std::move(output), {});
  auto failed = [&] {
    *error = writer->error();
    return false;
  };
  if (!writer->WriteHeader(header)) return failed();
  // The frames' readers (the checks themselves run on this thread alone).
  std::vector<ScanWorker> workers = OpenScanWorkers(
      options.proc_root, options.threads == 0 ? DefaultScanThreads() : options.threads);
  RecorderOptions ropts;
  ropts.keep_environ = scan.keep_environ;
  ropts.kept_entries = options.kept_entries;
  // One recorder for the whole file: observation indexes run on across checks.
  RecordingEvidence recorder(
      live, [&writer](v1::Observation&& o) { writer->AddObservation(std::move(o)); }, ropts);
  std::uint64_t frame = 0;
  std::vector<v1::Resolution> resolutions;
  for (const LiveStep& step : steps) {
    if (step.before && !step.before(error)) return false;  // the temporary goes with the writer
    if (!WriteFrame(live, scan, workers, frame++, *writer)) return failed();
    v1::Resolution& resolution = resolutions.emplace_back();
    const std::uint64_t first = recorder.observations();
    resolution.set_first_observation(first);
    resolution.set_start_mono_ns(live.NowNs());
    step.check(recorder, &resolution);
    resolution.set_end_mono_ns(live.NowNs());
    resolution.set_observation_count(recorder.observations() - first);
    if (!writer->error().empty()) return failed();
  }
  if (!WriteFrame(live, scan, workers, frame, *writer)) return failed();
  for (const v1::Resolution& resolution : resolutions) {
    if (!writer->WriteResolution(resolution)) return failed();
  }
  v1::Footer footer;
  footer.set_capture_end_mono_ns(live.NowNs());
  if (!writer->Finish(footer)) return failed();
  return true;
}

}  // namespace proctape
