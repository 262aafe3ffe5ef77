// SPDX-License-Identifier: Apache-2.0
// `proctape capture`: bounded /proc evidence of the live host (or of one
// subtree) into a .ptape snapshot file, one or more frames.
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "procdir/evidence.h"
#include "procdir/import.h"
#include "capture/frame_scanner.h"
#include "capture/host_facts.h"
#include "capture/live_record.h"
#include "capture/procfs_evidence.h"
#include "cli/command_io.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "cli/capture_options.h"
#include "cli/capture_proc_root.h"
#include "capture/frames_capture.h"
#include "cli/outputs.h"
#include "cli/progress.h"
#include "core/checked.h"
#include "core/proc_parse.h"
#include "fs/interrupt.h"
#include "format/writer.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape {
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

std::string ErrnoName(int err) { return std::strerror(err); }

// The usage errors found before anything is opened; kExitOk when none.
int CheckOptions(const CaptureOptions& o, const ScanOptions& scan, std::uint64_t max_frames) {
  if (o.max_bytes < scan.WorstCaseProcessBytes()) {
    return Fail(kExitUsage, "--max-bytes " + std::to_string(o.max_bytes) +
                                " is less than one process can take (" +
                                std::to_string(scan.WorstCaseProcessBytes()) +
                                " bytes: the sum of the file bounds)");
  }
  if (o.until_exit && !o.has_root) {
    return Fail(kExitUsage, "--until-exit watches the process --root names: give --root PID");
  }
  if (o.has_interval && max_frames == 1) {
    return Fail(kExitUsage, "--interval " + std::to_string(o.interval_ms) +
                                ": one frame has no interval; give --frames N (N > 1) with it");
  }
  if (std::string why = ForceWithoutOutput(o.force, "-o", true, o.output); !why.empty()) {
    return Fail(kExitUsage, why);
  }
  return kExitOk;
}

// What a capture reads: live /proc, or (--proc-root) one frame of a
// directory read sealed inside it through its side files, whose
// proctape-frame (an export) gives the recorded frame's facts back.
struct Source {
  std::unique_ptr<ProcfsEvidence> proc;
  std::unique_ptr<ProcDirEvidence> dir;
  FrameSourceHooks hooks;
  v1::Header header;
  std::int64_t start_ns = 0;  // frames are spaced from it
};

int OpenLive(const CaptureOptions& o, const ScanOptions& scan, Source* s) {
  int exit_code = kExitOk;
  s->proc = OpenLiveProc(o.proc, &exit_code);
  if (!s->proc) return exit_code;
  // A copy of /proc (--proc-root) has no pid_max of this host to hold it to.
  if (o.has_root && !PidBelowPidMax("--root", o.root, o.proc, &exit_code)) return exit_code;
  ProcfsEvidence* proc = s->proc.get();
  s->hooks.evidence = proc;
  s->hooks.pid_ns = [proc](std::int64_t pid) { return proc->PidNamespace(pid); };
  // A --root scan of live /proc reads only the subtree, walked through the
  // children files (capture/frame_scanner.h, "Root mode").
  s->hooks.children = [proc](std::int64_t pid, std::uint64_t bound,
                             std::vector<std::int64_t>* children, bool* truncated) {
    return proc->ListChildren(pid, bound, children, truncated);
  };
  FillHeader(scan, o.proc, o.command_line, &s->header);
  s->start_ns = s->header.capture_start_mono_ns();
  return kExitOk;
}

int OpenImport(const CaptureOptions& o, ScanOptions* scan, Source* s) {
  if (int opened = OpenProcRoot(o.proc_root, &s->dir); opened != kExitOk) return opened;
  ProcDirEvidence* dir = s->dir.get();
  s->hooks.evidence = dir;
  s->hooks.pid_ns = [dir](std::int64_t pid) { return dir->PidNamespace(pid); };
  s->hooks.prepare = [dir](v1::ProcessRecord* r) {
    dir->AddLinkTexts(r);
    return dir->error().empty();
  };
  s->hooks.failed = [dir] { return dir->error(); };
  const FrameFacts* facts = dir->frame() ? &*dir->frame() : nullptr;
  if (facts) {
    if (scan->keep_environ && facts->environ == v1::RedactionPolicy::ENVIRON_REDACTED) {
      return Fail(kExitUsage, "--env keep: " + EscapeBytes(o.proc_root, 4096) +
                                  " holds redacted environ values: they cannot be kept");
    }
    scan->kept_entries = facts->kept_entries;
    s->hooks.recorded = true;
    s->hooks.recorded_begin_ns = facts->scan_start_mono_ns;
    s->hooks.recorded_end_ns = facts->scan_end_mono_ns;
    s->hooks.recorded_cut = facts->cut_reason;
  }
  // An import's header holds the recorded frame's times.
  s->header = ImportHeader(*scan, o.command_line, facts, &s->start_ns);
  return kExitOk;
}

// -o, or ./<hostname>-<UTC time>.ptape.
std::string OutputPath(const CaptureOptions& o, const v1::Header& header) {
  if (!o.output.empty()) return o.output;
  return "./" + FileNameSafe(header.host().hostname()) + "-" +
         UtcStamp(header.capture_start_realtime_ns()) + ".ptape";
}

void PrintReport(const CaptureOptions& o, const std::string& shown, FILE* out, const FrameTotals& t,
                 std::uint64_t bytes_written) {
  if (o.json) {
    v1::CaptureReport report;
    report.set_file(EscapedText(shown));
    report.set_frames(Count32(t.frames));
    report.set_processes(Count32(t.processes));
    report.set_bytes_read(static_cast<double>(t.bytes_read));
    report.set_bytes_written(static_cast<double>(bytes_written));
    report.set_elapsed_ns(static_cast<double>(t.elapsed_ns));
    report.set_frames_cut(Count32(t.frames_cut));
    report.set_cut_reason(Printable(t.last_cut));
    report.set_environ(o.env == "keep" ? "kept" : "redacted");
    std::fprintf(out, "%s\n", ToJson(report).c_str());
    return;
  }
  // The process records are summed over the frames.
  std::fprintf(out, "wrote %s: %s, %s, %s read, %s written, %.3f s\n",
               EscapeBytes(shown, 4096).c_str(), Plural(t.frames, "frame", "frames").c_str(),
               Plural(t.processes, "process record", "process records").c_str(),
               Plural(t.bytes_read, "byte", "bytes").c_str(),
               Plural(bytes_written, "byte", "bytes").c_str(),
               static_cast<double>(t.elapsed_ns) / 1e9);
  if (t.frames_cut > 0) {
    std::fprintf(out, "  %s cut by a bound (%s)\n", Plural(t.frames_cut, "frame", "frames").c_str(),
                 t.last_cut.c_str());
  }
}

// What the file has no place for (a frame's index is its position, so
// skipped slots are said here), why a watch ended, and a kept environment.
void PrintNotes(const CaptureOptions& o, const FrameTotals& t) {
  if (t.missed_slots > 0) {
    Note(Plural(t.missed_slots, "interval slot was", "interval slots were") +
         " skipped: a frame started only after its slot's successor had begun (--interval " +
         std::to_string(o.interval_ms) + " ms; " + Plural(t.frames, "frame", "frames") + " over " +
         std::to_string(t.slots) + " slots)");
  }
  // The root's exit, or the --frames ceiling with the root still running
  // (an interrupt says so itself).
  if (o.until_exit && t.root_exited) {
    Note("--until-exit: root " + std::to_string(o.root) +
         " exited (gone, a zombie, or its pid another process's): frame " +
         std::to_string(t.frames - 1) + ", the last, shows it");
  } else if (o.until_exit && t.signal == 0) {
    Note("--until-exit: stopped at --frames " + std::to_string(o.frames) + " with root " +
         std::to_string(o.root) + " still running");
  }
  if (o.env == "keep") {
    Warn("--env keep: environment values are stored as read; the file may hold secrets");
  }
}

// The exit status of a finished capture (docs/cli/commands.md): the file is
// kept in every case. `refused` is the file limit that ended it, if any.
int CaptureStatus(const CaptureOptions& o, const FrameTotals& t, const std::string& refused,
                  std::uint64_t max_frames, const std::string& shown) {
  const std::string where = EscapeBytes(o.proc_root.empty() ? o.proc : o.proc_root, 4096);
  const std::string file = EscapeBytes(shown, 4096);
  const std::string of_frames = max_frames == UINT64_MAX ? "" : " of " + std::to_string(max_frames);
  if (t.list_err != 0) {
    return Fail(kExitInternal, "cannot list " + where + ": " + ErrnoName(t.list_err) +
                                   " (frames without records were written)");
  }
  if (t.signal != 0) {  // under --json its error object, with the status
    return Fail(ExitInterrupted(t.signal), std::string("interrupted by ") + SignalName(t.signal) +
                                               " after " + Plural(t.frames, "frame", "frames") +
                                               of_frames + ": " + file + " holds those, complete");
  }
  // A cut frame does not hold every process (exit 8, "A capture cut by a
  // bound"); a root in no frame of a cut capture may lie past the cut.
  const bool cut = t.frames_cut > 0 || !refused.empty();
  // A --root in no frame selected nothing: not found, the file kept as
  // evidence of what /proc held.
  if (!cut && t.root_missing > 0 && t.root_missing == t.frames) {
    return Fail(kExitNotFound, "--root " + std::to_string(o.root) + " is in no frame: " + where +
                                   " holds no such process; " + file +
                                   " was written with 0 processes");
  }
  // --until-exit: a root missing from the last frame is how it ended.
  if (t.root_missing > (t.root_exited ? 1u : 0u)) {
    Warn("--root " + std::to_string(o.root) + " was not in " + where + " in " +
         std::to_string(t.root_missing) + " of " + Plural(t.frames, "frame", "frames") +
         " (it exited or had not started)");
  }
  if (!cut) return kExitOk;
  // The file's count limits may end a capture before a frame begins: then
  // no frame is cut, the capture is.
  const std::string what =
      t.frames_cut > 0 ? Plural(t.frames_cut, "frame", "frames") + " of " +
                             std::to_string(t.frames) + " cut by a bound (" + t.last_cut + ")"
                       : "stopped after " + Plural(t.frames, "frame", "frames") + of_frames;
  return Fail(kExitBound, (refused.empty() ? "" : refused + ": ") + what + ": " + file +
                              " holds what was read, complete and readable, not every process");
}

// The frames, with where they are on a terminal (a whole-host frame of
// thousands of processes takes a second): the frame and the processes read.
FramesEnd Capture(const FramePlan& plan, Source& source, SnapshotWriter& writer,
                  FrameTotals* totals) {
  Progress progress;
  const std::string slash_frames =
      plan.max_frames == UINT64_MAX ? "" : "/" + std::to_string(plan.max_frames);
  auto show = [&](std::uint64_t k, std::uint64_t records, bool done) {
    if (!progress.active()) return;
    const std::string text = "capture: frame " + std::to_string(k + 1) + slash_frames + ": " +
                             Plural(records, "process", "processes");
    done ? progress.Show(text) : progress.Update(text);
  };
  FramesEnd end = CaptureFrames(plan, source.hooks, writer, show, totals);
  progress.Done();
  return end;
}

// The output checked against --proc-root and its temporary made, then the
// jail (cli/command_io.h).
int EnterCapture(const CaptureOptions& o, const std::string& path,
                 std::unique_ptr<OutputFile>* output) {
  CommandIo io{"capture", {{"--proc-root", o.proc_root, false, true}}, OutputRequest{}};
  io.output->path = path;
  io.output->force = o.force;
  io.output->stdout_allowed = true;
  io.output->binary = true;
  return EnterCommand(io, output);
}

}  // namespace

int RunCapture(const CaptureOptions& o) {
  // A first Ctrl-C (SIGINT, SIGTERM, SIGHUP) ends the capture with the frames
  // complete; a second one ends it at once, leaving nothing.
  DeferInterrupts();
  FramePlan plan;
  plan.scan.max_processes = o.max_processes;
  plan.scan.max_bytes = o.max_bytes;
  plan.scan.keep_environ = o.env == "keep";
  if (o.has_root) plan.scan.root_pid = o.root;
  // --until-exit alone takes frames until the root exits; with --frames N, at most N.
  plan.max_frames = o.until_exit && !o.has_frames ? UINT64_MAX : o.frames;
  plan.until_exit = o.until_exit;
  plan.interval_ns = o.interval_ms * 1'000'000;
  if (int bad = CheckOptions(o, plan.scan, plan.max_frames); bad != kExitOk) return bad;
  // The output before anything is read (docs/cli/outputs.md, "The rule"):
  // a -o named is opened first; the name made from the host
  // (<hostname>-<UTC time>.ptape) is known once the source is open.
  std::unique_ptr<OutputFile> output;
  if (!o.output.empty()) {
    if (int entered = EnterCapture(o, o.output, &output); entered != kExitOk) return entered;
  }
  Source source;
  const int opened =
      o.proc_root.empty() ? OpenLive(o, plan.scan, &source) : OpenImport(o, &plan.scan, &source);
  if (opened != kExitOk) return opened;
  plan.start_ns = source.start_ns;
  const std::string path = OutputPath(o, source.header);
  if (!output) {
    if (int entered = EnterCapture(o, path, &output); entered != kExitOk) return entered;
  }
  // The last frame there can be keeps nothing for a next one (0: not known).
  SnapshotWriter::Options writer_options;
  writer_options.frames = plan.max_frames == UINT64_MAX ? 0 : plan.max_frames;
  auto writer = SnapshotWriter::Create(std::move(output), writer_options);
  if (!writer->WriteHeader(source.header)) {
    return FailAbout(kExitIo, "--output", path, writer->error());
  }
  if (source.proc) {
    source.hooks.workers =
        OpenScanWorkers(o.proc, o.threads == 0 ? DefaultScanThreads() : o.threads);
  }
  FrameTotals totals;
  const FramesEnd end = Capture(plan, source, *writer, &totals);
  if (end == FramesEnd::kSourceFailed) {
    return FailAbout(kExitCorrupt, "--proc-root", o.proc_root, source.hooks.failed());
  }
  if (end == FramesEnd::kWriteFailed) return FailAbout(kExitIo, "--output", path, writer->error());
  const std::string shown = path == "-" ? "standard output" : path;
  PrintReport(o, shown, path == "-" ? stderr : stdout, totals, writer->bytes_written());
  PrintNotes(o, totals);
  return CaptureStatus(o, totals, writer->refused(), plan.max_frames, shown);
}

}  // namespace proctape
