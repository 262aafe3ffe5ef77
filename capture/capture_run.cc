// SPDX-License-Identifier: Apache-2.0
#include "capture/capture_run.h"

#include <cstring>
#include <utility>

#include "capture/host_facts.h"
#include "capture/live_record.h"
#include "core/proc_parse.h"
#include "fs/interrupt.h"
#include "format/writer.h"
#include "proto/summary.h"

namespace proctape::capture {
namespace {

// A hostname as a file name component: [A-Za-z0-9._-] kept, anything else
// (a '/', a control byte, non-ASCII) becomes '_'.
std::string FileNameSafe(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    out.push_back(ok ? c : '_');
  }
  if (out.empty() || out[0] == '.') out.insert(0, "host");
  return out;
}

// What the file has no place for (a frame's index is its position, so
// skipped slots are said here), why a watch ended, and a kept environment.
void AddNotes(const Request& request, Result* r) {
  const FrameTotals& t = r->totals;
  const FramePlan& plan = request.plan;
  const std::int64_t root = plan.scan.root_pid.value_or(0);
  if (t.missed_slots > 0) {
    r->notes.push_back(Plural(t.missed_slots, "interval slot was", "interval slots were") +
                       " skipped: a frame started only after its slot's successor had begun "
                       "(--interval " +
                       std::to_string(plan.interval_ns / 1'000'000) + " ms; " +
                       Plural(t.frames, "frame", "frames") + " over " + std::to_string(t.slots) +
                       " slots)");
  }
  // The root's exit, or the --frames ceiling with the root still running
  // (an interrupt says so itself).
  if (plan.until_exit && t.root_exited) {
    r->notes.push_back("--until-exit: root " + std::to_string(root) +
                       " exited (gone, a zombie, or its pid another process's): frame " +
                       std::to_string(t.frames - 1) + ", the last, shows it");
  } else if (plan.until_exit && t.signal == 0) {
    r->notes.push_back("--until-exit: stopped at --frames " + std::to_string(request.frames_given) +
                       " with root " + std::to_string(root) + " still running");
  }
  if (plan.scan.keep_environ) {
    r->warnings.push_back(
        "--env keep: environment values are stored as read; the file may hold secrets");
  }
}

// The status of a finished capture (docs/cli/commands.md): the file is kept
// in every case. `refused` is the file limit that ended it, if any.
void AddStatus(const Request& request, const std::string& refused, Result* r) {
  const FrameTotals& t = r->totals;
  const std::string where = EscapeBytes(request.source_name, 4096);
  const std::string file = EscapeBytes(request.output_name, 4096);
  const std::uint64_t max_frames = request.plan.max_frames;
  const std::string of_frames = max_frames == UINT64_MAX ? "" : " of " + std::to_string(max_frames);
  const std::string root = std::to_string(request.plan.scan.root_pid.value_or(0));
  if (t.list_err != 0) {
    r->failure =
        Failure(FailureKind::kInternal, "cannot list " + where + ": " + std::strerror(t.list_err) +
                                            " (frames without records were written)");
    return;
  }
  if (t.signal != 0) {  // under --json its error object, with the status
    r->interrupted = std::string("interrupted by ") + SignalName(t.signal) + " after " +
                     Plural(t.frames, "frame", "frames") + of_frames + ": " + file +
                     " holds those, complete";
    return;
  }
  // A cut frame does not hold every process (exit 8, "A capture cut by a
  // bound"); a root in no frame of a cut capture may lie past the cut.
  const bool cut = t.frames_cut > 0 || !refused.empty();
  // A --root in no frame selected nothing: not found, the file kept as
  // evidence of what /proc held.
  if (!cut && t.root_missing > 0 && t.root_missing == t.frames) {
    r->failure = Failure(FailureKind::kNotFound, "--root " + root + " is in no frame: " + where +
                                                     " holds no such process; " + file +
                                                     " was written with 0 processes");
    return;
  }
  // --until-exit: a root missing from the last frame is how it ended.
  if (t.root_missing > (t.root_exited ? 1u : 0u)) {
    r->warnings.push_back("--root " + root + " was not in " + where + " in " +
                          std::to_string(t.root_missing) + " of " +
                          Plural(t.frames, "frame", "frames") + " (it exited or had not started)");
  }
  if (!cut) return;
  // The file's count limits may end a capture before a frame begins: then
  // no frame is cut, the capture is.
  const std::string what =
      t.frames_cut > 0 ? Plural(t.frames_cut, "frame", "frames") + " of " +
                             std::to_string(t.frames) + " cut by a bound (" + t.last_cut + ")"
                       : "stopped after " + Plural(t.frames, "frame", "frames") + of_frames;
  r->failure =
      Failure(FailureKind::kBound, (refused.empty() ? "" : refused + ": ") + what + ": " + file +
                                       " holds what was read, complete and readable, not every "
                                       "process");
}

}  // namespace

EvidenceSource LiveSource(std::unique_ptr<ProcfsEvidence> proc, const ScanOptions& scan,
                          const std::string& proc_path,
                          const std::vector<std::string>& command_line, unsigned threads) {
  EvidenceSource s;
  ProcfsEvidence* live = proc.get();
  s.evidence = std::move(proc);
  s.hooks.evidence = live;
  s.hooks.pid_ns = [live](std::int64_t pid) { return live->PidNamespace(pid); };
  // A --root scan of live /proc reads only the subtree, walked through the
  // children files (capture/frame_scanner.h, "Root mode").
  s.hooks.children = [live](std::int64_t pid, std::uint64_t bound,
                            std::vector<std::int64_t>* children, bool* truncated) {
    return live->ListChildren(pid, bound, children, truncated);
  };
  FillHeader(scan, proc_path, command_line, &s.header);
  s.start_ns = s.header.capture_start_mono_ns();
  s.open_workers = [proc_path, threads] {
    return OpenScanWorkers(proc_path, threads == 0 ? DefaultScanThreads() : threads);
  };
  return s;
}

std::string DefaultOutputPath(const v1::Header& header) {
  return "./" + FileNameSafe(header.host().hostname()) + "-" +
         UtcStamp(header.capture_start_realtime_ns()) + ".ptape";
}

Result Run(const Request& request, EvidenceSource& source, std::unique_ptr<OutputFile> output,
           const FrameProgressFn& progress) {
  Result r;
  FramePlan plan = request.plan;
  plan.start_ns = source.start_ns;
  // The last frame there can be keeps nothing for a next one (0: not known).
  SnapshotWriter::Options writer_options;
  writer_options.frames = plan.max_frames == UINT64_MAX ? 0 : plan.max_frames;
  auto writer = SnapshotWriter::Create(std::move(output), writer_options);
  if (!writer->WriteHeader(source.header)) {
    r.stop = Unfinished::kOutput;
    r.unfinished = Failure(FailureKind::kIo, writer->error());
    return r;
  }
  if (source.open_workers) source.hooks.workers = source.open_workers();
  const FramesEnd end = CaptureFrames(plan, source.hooks, *writer, progress, &r.totals);
  if (end == FramesEnd::kSourceFailed) {
    r.stop = Unfinished::kSource;
    r.unfinished = Failure(FailureKind::kCorrupt, source.hooks.failed());
    return r;
  }
  if (end == FramesEnd::kWriteFailed) {
    r.stop = Unfinished::kOutput;
    r.unfinished = Failure(FailureKind::kIo, writer->error());
    return r;
  }
  r.bytes_written = writer->bytes_written();
  AddNotes(request, &r);
  AddStatus(request, writer->refused(), &r);
  return r;
}

v1::CaptureReport JsonReport(const Request& request, const Result& result) {
  const FrameTotals& t = result.totals;
  v1::CaptureReport report;
  report.set_file(EscapedText(request.output_name));
  report.set_frames(Count32(t.frames));
  report.set_processes(Count32(t.processes));
  report.set_bytes_read(static_cast<double>(t.bytes_read));
  report.set_bytes_written(static_cast<double>(result.bytes_written));
  report.set_elapsed_ns(static_cast<double>(t.elapsed_ns));
  report.set_frames_cut(Count32(t.frames_cut));
  report.set_cut_reason(Printable(t.last_cut));
  report.set_environ(request.plan.scan.keep_environ ? "kept" : "redacted");
  return report;
}

}  // namespace proctape::capture
