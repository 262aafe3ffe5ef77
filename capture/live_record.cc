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
    Failure failure;
    std::unique_ptr<ProcfsEvidence> proc = ProcfsEvidence::Open(proc_root, &failure);
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

MaybeFailure RecordLive(ProcfsEvidence& live, const LiveRecordOptions& options,
                        std::unique_ptr<OutputFile> output,
                        const std::function<void(Evidence&, v1::Resolution*)>& check) {
  return RecordLiveSteps(live, options, std::move(output), {LiveStep{nullptr, check}});
}

MaybeFailure RecordLive(ProcfsEvidence& live, const LiveRecordOptions& options,
                        const std::function<void(Evidence&, v1::Resolution*)>& check) {
  return RecordLiveSteps(live, options, {LiveStep{nullptr, check}});
}

MaybeFailure RunLiveCheck(ProcfsEvidence& live, const LiveRecordOptions& options,
                          std::unique_ptr<OutputFile> output,
                          const std::function<void(Evidence&, v1::Resolution*)>& check) {
  if (!output) {
    v1::Resolution unused;
    check(live, &unused);
    return std::nullopt;
  }
  return RecordLive(live, options, std::move(output), check);  // its failures are kIo
}

MaybeFailure RecordLiveSteps(ProcfsEvidence& live, const LiveRecordOptions& options,
                             const std::vector<LiveStep>& steps) {
  OutputRequest request;
  request.path = options.path;
  request.force = options.force;
  request.stdout_allowed = true;
  request.binary = true;
  Failure refused;
  std::unique_ptr<OutputFile> output = OutputFile::Open(request, &refused);
  if (!output) return refused;
  return RecordLiveSteps(live, options, std::move(output), steps);
}

MaybeFailure RecordLiveSteps(ProcfsEvidence& live, const LiveRecordOptions& options,
                             std::unique_ptr<OutputFile> output,
                             const std::vector<LiveStep>& steps) {
  RecordPlan plan;
  plan.scan = options.scan;
  plan.scan.kept_entries = options.kept_entries;
  FillHeader(plan.scan, options.proc_root, options.command_line, &plan.header);
  plan.frames.pid_ns = [&live](std::int64_t pid) { return live.PidNamespace(pid); };
  plan.frames.open_workers = [&options] {
    return OpenScanWorkers(options.proc_root,
                           options.threads == 0 ? DefaultScanThreads() : options.threads);
  };
  Failure failure;
  if (RecordChecks(live, plan, std::move(output), steps, &failure) == RecordOutcome::kWritten) {
    return std::nullopt;
  }
  return failure;
}

RecordOutcome RecordChecks(Evidence& evidence, const RecordPlan& plan,
                           std::unique_ptr<OutputFile> output, const std::vector<LiveStep>& steps,
                           Failure* failure) {
  auto writer = SnapshotWriter::Create(std::move(output), {});
  // The frames' readers, opened at the first frame (the checks themselves
  // run on this thread alone).
  std::vector<ScanWorker> workers;
  bool opened = false;
  std::uint64_t frames = 0;
  auto frame = [&] {
    if (!opened && plan.frames.open_workers) workers = plan.frames.open_workers();
    opened = true;
    return WriteScanFrame(evidence, plan.scan, plan.frames.pid_ns, workers, frames++, *writer);
  };
  auto failed = [&] {
    *failure = Failure(FailureKind::kIo, writer->error());
    return RecordOutcome::kFailed;  // the temporary goes with the writer
  };
  bool written = writer->WriteHeader(plan.header);
  RecorderOptions ropts;
  ropts.keep_environ = plan.scan.keep_environ;
  ropts.kept_entries = plan.scan.kept_entries;
  // One recorder for the whole file: observation indexes run on across checks.
  RecordingEvidence recorder(
      evidence, [&writer](v1::Observation&& o) { writer->AddObservation(std::move(o)); }, ropts);
  std::vector<v1::Resolution> resolutions;
  for (const LiveStep& step : steps) {
    if (step.before) {
      if (MaybeFailure stopped = step.before()) {
        *failure = std::move(*stopped);
        return RecordOutcome::kFailed;
      }
    }
    if (written && (plan.frame_before_first || !resolutions.empty())) written = frame();
    v1::Resolution& resolution = resolutions.emplace_back();
    const std::uint64_t first = recorder.observations();
    resolution.set_first_observation(first);
    resolution.set_start_mono_ns(evidence.NowNs());
    step.check(recorder, &resolution);  // even when the file has failed: its verdict stands
    resolution.set_end_mono_ns(evidence.NowNs());
    resolution.set_observation_count(recorder.observations() - first);
    written = written && writer->error().empty();
    if (!written) break;
  }
  // A file not kept is no failure, whatever became of its temporary.
  if (plan.keep && !plan.keep()) return RecordOutcome::kDiscarded;
  if (!written || !frame()) return failed();
  for (const v1::Resolution& resolution : resolutions) {
    if (!writer->WriteResolution(resolution)) return failed();
  }
  v1::Footer footer;
  footer.set_capture_end_mono_ns(evidence.NowNs());
  if (!writer->Finish(footer)) return failed();
  return RecordOutcome::kWritten;
}

}  // namespace proctape
