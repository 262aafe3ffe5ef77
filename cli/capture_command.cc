// SPDX-License-Identifier: Apache-2.0
// `proctape capture`: bounded /proc evidence of the live host (or of one
// subtree) into a .ptape snapshot file, one or more frames. The options are
// checked, the output and the source opened, capture::Run
// (capture/capture_run.h) takes the frames, and its report is said here.
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "capture/capture_run.h"
#include "cli/capture_options.h"
#include "cli/command_io.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "cli/outputs.h"
#include "cli/progress.h"
#include "core/proc_parse.h"
#include "fs/interrupt.h"
#include "procdir/import.h"
#include "proto/convert.h"

namespace proctape {
namespace {

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

capture::Request CaptureRequest(const CaptureOptions& o) {
  capture::Request request;
  FramePlan& plan = request.plan;
  plan.scan.max_processes = o.max_processes;
  plan.scan.max_bytes = o.max_bytes;
  plan.scan.keep_environ = o.env == "keep";
  if (o.has_root) plan.scan.root_pid = o.root;
  // --until-exit alone takes frames until the root exits; with --frames N, at most N.
  plan.max_frames = o.until_exit && !o.has_frames ? UINT64_MAX : o.frames;
  plan.until_exit = o.until_exit;
  plan.interval_ns = o.interval_ms * 1'000'000;
  request.frames_given = o.frames;
  request.source_name = o.proc_root.empty() ? o.proc : o.proc_root;
  return request;
}

int OpenLive(const CaptureOptions& o, const ScanOptions& scan, capture::EvidenceSource* source) {
  int exit_code = kExitOk;
  std::unique_ptr<ProcfsEvidence> proc = OpenLiveProc(o.proc, &exit_code);
  if (!proc) return exit_code;
  // A copy of /proc (--proc-root) has no pid_max of this host to hold it to.
  if (o.has_root && !PidBelowPidMax("--root", o.root, o.proc, &exit_code)) return exit_code;
  *source = capture::LiveSource(std::move(proc), scan, o.proc, o.command_line, o.threads);
  return kExitOk;
}

// --proc-root DIR, refused with the contract's status (docs/cli/commands.md):
// a procfs mount or a directory holding no process is a usage error (2), one
// that cannot be opened an input error (10), a damaged proctape-frame a
// damaged input (15), a host that cannot read it sealed proctape's own
// failure (1).
int OpenImport(const CaptureOptions& o, ScanOptions* scan, capture::EvidenceSource* source) {
  if (IsProcfs(o.proc_root)) {
    return FailAbout(kExitUsage, "--proc-root", o.proc_root,
                     "a procfs mount: capture a live /proc with --proc, and a copy of one (an "
                     "export, a fixture) with --proc-root");
  }
  Failure failure;
  std::unique_ptr<ProcDirEvidence> dir = OpenImportDir(o.proc_root, &failure);
  if (!dir) return FailAbout("--proc-root", o.proc_root, failure);
  if (MaybeFailure refused =
          ImportSource(std::move(dir), o.proc_root, o.command_line, scan, source)) {
    return Fail(*refused);
  }
  return kExitOk;
}

void PrintReport(const CaptureOptions& o, const capture::Request& request, FILE* out,
                 const capture::Result& r) {
  const FrameTotals& t = r.totals;
  if (o.json) {
    std::fprintf(out, "%s\n", ToJson(capture::JsonReport(request, r)).c_str());
    return;
  }
  // The process records are summed over the frames.
  std::fprintf(
      out, "wrote %s: %s, %s, %s read, %s written, %.3f s\n",
      EscapeBytes(request.output_name, 4096).c_str(), Plural(t.frames, "frame", "frames").c_str(),
      Plural(t.processes, "process record", "process records").c_str(),
      Plural(t.bytes_read, "byte", "bytes").c_str(),
      Plural(r.bytes_written, "byte", "bytes").c_str(), static_cast<double>(t.elapsed_ns) / 1e9);
  if (t.frames_cut > 0) {
    std::fprintf(out, "  %s cut by a bound (%s)\n", Plural(t.frames_cut, "frame", "frames").c_str(),
                 t.last_cut.c_str());
  }
}

// What Run returned, said: a file not finished about its output or source;
// else the report, the notes, the warnings, and the status.
int Render(const CaptureOptions& o, const capture::Request& request, const std::string& path,
           const capture::Result& r) {
  if (r.stop == capture::Unfinished::kSource) {
    return FailAbout("--proc-root", o.proc_root, *r.unfinished);
  }
  if (r.stop == capture::Unfinished::kOutput) return FailAbout("--output", path, *r.unfinished);
  PrintReport(o, request, path == "-" ? stderr : stdout, r);
  for (const std::string& note : r.notes) Note(note);
  for (const std::string& warning : r.warnings) Warn(warning);
  if (r.failure) return Fail(*r.failure);
  if (r.totals.signal != 0) return Fail(ExitInterrupted(r.totals.signal), r.interrupted);
  return kExitOk;
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
  capture::Request request = CaptureRequest(o);
  const FramePlan& plan = request.plan;
  if (int bad = CheckOptions(o, plan.scan, plan.max_frames); bad != kExitOk) return bad;
  // The output before anything is read (docs/cli/outputs.md, "The rule"):
  // a -o named is opened first; the name made from the host
  // (<hostname>-<UTC time>.ptape) is known once the source is open.
  std::unique_ptr<OutputFile> output;
  if (!o.output.empty()) {
    if (int entered = EnterCapture(o, o.output, &output); entered != kExitOk) return entered;
  }
  capture::EvidenceSource source;
  const int opened = o.proc_root.empty() ? OpenLive(o, plan.scan, &source)
                                         : OpenImport(o, &request.plan.scan, &source);
  if (opened != kExitOk) return opened;
  const std::string path = o.output.empty() ? capture::DefaultOutputPath(source.header) : o.output;
  if (!output) {
    if (int entered = EnterCapture(o, path, &output); entered != kExitOk) return entered;
  }
  request.output_name = path == "-" ? "standard output" : path;
  // Where the frames are on a terminal (a whole-host frame of thousands of
  // processes takes a second): the frame and the processes read.
  Progress progress;
  const std::string slash_frames =
      plan.max_frames == UINT64_MAX ? "" : "/" + std::to_string(plan.max_frames);
  auto show = [&](std::uint64_t k, std::uint64_t records, bool done) {
    if (!progress.active()) return;
    const std::string text = "capture: frame " + std::to_string(k + 1) + slash_frames + ": " +
                             Plural(records, "process", "processes");
    done ? progress.Show(text) : progress.Update(text);
  };
  const capture::Result result = capture::Run(request, source, std::move(output), show);
  progress.Done();
  return Render(o, request, path, result);
}

}  // namespace proctape
