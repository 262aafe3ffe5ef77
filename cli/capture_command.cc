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

#include "analyze/proc_dir_evidence.h"
#include "analyze/proc_dir_import.h"
#include "capture/frame_scanner.h"
#include "capture/host_facts.h"
#include "capture/live_record.h"
#include "capture/procfs_evidence.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/jail.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "cli/capture_options.h"
#include "cli/capture_proc_root.h"
#include "cli/capture_watch.h"
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

struct Totals {
  std::uint64_t frames = 0;
  std::uint64_t processes = 0;
  std::uint64_t bytes_read = 0;
  std::uint64_t frames_cut = 0;
  std::string last_cut;
  std::uint64_t root_missing = 0;  // frames whose listing did not hold --root
  bool root_exited = false;        // --until-exit: the last frame shows the root exited
  int list_err = 0;
};

}  // namespace

int RunCapture(const CaptureOptions& o) {
  // A first Ctrl-C (SIGINT, SIGTERM, SIGHUP) ends the capture with the frames
  // complete; a second one ends it at once, leaving nothing.
  DeferInterrupts();
  ScanOptions scan;
  scan.max_processes = o.max_processes;
  scan.max_bytes = o.max_bytes;
  scan.keep_environ = o.env == "keep";
  if (o.has_root) scan.root_pid = o.root;
  if (o.max_bytes < scan.WorstCaseProcessBytes()) {
    return Fail(kExitUsage, "--max-bytes " + std::to_string(o.max_bytes) +
                                " is less than one process can take (" +
                                std::to_string(scan.WorstCaseProcessBytes()) +
                                " bytes: the sum of the file bounds)");
  }
  if (o.until_exit && !o.has_root) {
    return Fail(kExitUsage, "--until-exit watches the process --root names: give --root PID");
  }
  // --until-exit alone takes frames until the root exits; with --frames N,
  // at most N.
  const std::uint64_t max_frames = o.until_exit && !o.has_frames ? UINT64_MAX : o.frames;
  const std::string of_frames =
      max_frames == UINT64_MAX ? "" : " of " + std::to_string(max_frames);
  if (o.has_interval && max_frames == 1) {
    return Fail(kExitUsage, "--interval " + std::to_string(o.interval_ms) +
                                ": one frame has no interval; give --frames N (N > 1) with it");
  }
  if (int refused = RefuseStandardStreams({{"--proc-root", o.proc_root, false, true}});
      refused != kExitOk) {
    return refused;
  }
  if (std::string why = ForceWithoutOutput(o.force, "-o", true, o.output); !why.empty()) {
    return Fail(kExitUsage, why);
  }

  std::string error;
  const std::string root = o.proc_root.empty() ? o.proc : o.proc_root;
  std::unique_ptr<ProcfsEvidence> proc;
  Evidence* ev = nullptr;
  PidNamespaceFn pid_ns;
  // --proc-root: one frame of the directory, read sealed inside it through
  // its side files; a proctape-frame (an export) gives the recorded frame's
  // facts back.
  std::unique_ptr<ProcDirEvidence> dir;
  const FrameFacts* facts = nullptr;
  if (o.proc_root.empty()) {
    int exit_code = kExitOk;
    proc = OpenLiveProc(root, &exit_code);
    if (!proc) return exit_code;
    // A copy of /proc (--proc-root) has no pid_max of this host to hold it to.
    if (o.has_root && !PidBelowPidMax("--root", o.root, root, &exit_code)) return exit_code;
    ev = proc.get();
    pid_ns = [&proc](std::int64_t pid) { return proc->PidNamespace(pid); };
  } else {
    if (int opened = OpenProcRoot(o.proc_root, &dir); opened != kExitOk) return opened;
    ev = dir.get();
    pid_ns = [&dir](std::int64_t pid) { return dir->PidNamespace(pid); };
    if (dir->frame()) {
      facts = &*dir->frame();
      if (scan.keep_environ && facts->environ == v1::RedactionPolicy::ENVIRON_REDACTED) {
        return Fail(kExitUsage, "--env keep: " + EscapeBytes(o.proc_root, 4096) +
                                    " holds redacted environ values: they cannot be kept");
      }
      scan.kept_entries = facts->kept_entries;
    }
  }

  // Frames are spaced from this capture's own start (an import's header
  // holds the recorded frame's times instead).
  std::int64_t start = 0;
  v1::Header header;
  if (dir) {
    header = ImportHeader(scan, o.command_line, facts, &start);
  } else {
    FillHeader(scan, root, o.command_line, &header);
    start = header.capture_start_mono_ns();
  }

  std::string path = o.output;
  if (path.empty()) {
    path = "./";
    path.append(FileNameSafe(header.host().hostname()));
    path.push_back('-');
    path.append(UtcStamp(header.capture_start_realtime_ns()));
    path.append(".ptape");
  }
  const bool to_stdout = path == "-";
  // Before the scan: the output checked and its temporary made.
  OutputRequest request;
  request.path = path;
  request.force = o.force;
  request.stdout_allowed = true;
  request.binary = true;
  int exit_code = kExitOk;
  std::unique_ptr<OutputFile> output = OpenOutput(request, "--output", {{"--proc-root", o.proc_root, false, true}}, &exit_code);
  if (!output) return exit_code;
  if (int jailed = Jail({"capture", {}, {}}); jailed != kExitOk) return jailed;
  // The most frames there will be (--until-exit may end sooner; without
  // --frames it has no ceiling): the last keeps nothing for a next one.
  SnapshotWriter::Options writer_options;
  writer_options.frames = max_frames == UINT64_MAX ? 0 : max_frames;  // 0: not known
  auto writer = SnapshotWriter::Create(std::move(output), writer_options);
  if (!writer->WriteHeader(header)) return FailAbout(kExitIo, "--output", path, writer->error());

  const std::int64_t interval_ns = o.interval_ms * 1'000'000;
  // Where the capture is, on a terminal: the frame and the processes read
  // so far (a whole-host frame of thousands of processes takes a second).
  Progress progress;
  const std::string slash_frames =
      max_frames == UINT64_MAX ? "" : "/" + std::to_string(max_frames);
  auto frame_text = [&slash_frames](std::uint64_t k, std::uint64_t processes) {
    return "capture: frame " + std::to_string(k + 1) + slash_frames + ": " +
           Plural(processes, "process", "processes");
  };
  // The frames' readers, one /proc descriptor each, kept for every frame.
  std::vector<ScanWorker> workers =
      dir ? std::vector<ScanWorker>{}
          : OpenScanWorkers(o.proc, o.threads == 0 ? DefaultScanThreads() : o.threads);
  Totals totals;
  // Frames start on slots start + k * interval; a frame that could not start
  // before its slot's successor began skips to the latest begun slot (the
  // skipped ones are counted and noted). An interrupt ends the wait, and
  // the capture.
  FrameSchedule schedule(start, interval_ns);
  RootWatch root_watch(o.root);
  for (std::uint64_t k = 0; k < max_frames && Interrupted() == 0; ++k) {
    if (k > 0 && !SleepUntilOrInterrupted(schedule.Next(ev->NowNs()))) break;
    // The file's count limits (format/file_format.h) end the capture: a
    // frame that cannot begin is not scanned, and the record that would pass
    // a limit cuts its frame there ("file-limit"), the last one written.
    if (!writer->refused().empty()) break;
    FrameCallbacks callbacks;
    callbacks.begin = [&writer, k, facts](std::int64_t t) {
      writer->BeginFrame(k, facts ? facts->scan_start_mono_ns : t);
    };
    // A --root scan of live /proc reads only the subtree, walked through the
    // children files (capture/frame_scanner.h, "Root mode").
    if (proc) {
      callbacks.children = [&proc](std::int64_t pid, std::uint64_t bound,
                                   std::vector<std::int64_t>* children, bool* truncated) {
        return proc->ListChildren(pid, bound, children, truncated);
      };
    }
    std::uint64_t read = 0;
    root_watch.BeginFrame();
    callbacks.record = [&writer, &dir, &progress, &frame_text, &read, &root_watch,
                        k](v1::ProcessRecord&& r) {
      if (!writer->refused().empty()) return false;
      root_watch.Observe(r);
      if (dir) dir->AddLinkTexts(&r);
      ++read;
      if (progress.active()) progress.Update(frame_text(k, read));
      return (!dir || dir->error().empty()) && writer->AddProcess(std::move(r));
    };
    ScanStats s = ScanFrameParallel(*ev, scan, pid_ns, workers, callbacks);
    if (dir && !dir->error().empty()) {
      progress.Done();
      return FailAbout(kExitCorrupt, "--proc-root", o.proc_root, dir->error());
    }
    if (!writer->refused().empty()) {
      if (!writer->frame_open()) break;  // refused at BeginFrame
      --s.processes;  // the refused record is not in the file
      s.cut_reason = kCutFileLimit;
    }
    if (facts && s.cut_reason.empty()) s.cut_reason = facts->cut_reason;
    if (!writer->EndFrame(facts ? facts->scan_end_mono_ns : s.scan_end_mono_ns, s.cut_reason,
                          s.bytes_read)) {
      progress.Done();
      return FailAbout(kExitIo, "--output", path, writer->error());
    }
    ++totals.frames;
    totals.processes += s.processes;
    totals.bytes_read += s.bytes_read;
    if (!s.cut_reason.empty()) {
      ++totals.frames_cut;
      totals.last_cut = s.cut_reason;
    }
    if (s.list_err != 0 && totals.list_err == 0) totals.list_err = s.list_err;
    if (scan.root_pid && s.list_err == 0 && !s.root_found) ++totals.root_missing;
    progress.Show(frame_text(k, s.processes));
    // The frame that shows the root exited is the last one.
    if (o.until_exit && s.list_err == 0 && root_watch.Exited(s.root_found)) {
      totals.root_exited = true;
      break;
    }
  }
  progress.Done();
  // Interrupted before the last frame: the file is finished with the frames
  // complete (the one being scanned when the signal came was completed: its
  // scan is bounded), and the status says so.
  const int signal = totals.frames < max_frames && !totals.root_exited ? Interrupted() : 0;

  v1::Footer footer;
  footer.set_capture_end_mono_ns(facts ? facts->scan_end_mono_ns : ev->NowNs());
  if (!writer->Finish(footer)) return FailAbout(kExitIo, "--output", path, writer->error());
  const std::int64_t elapsed_ns = SaturatingSub(ev->NowNs(), start);

  FILE* out = to_stdout ? stderr : stdout;
  const std::string shown = to_stdout ? "standard output" : path;
  if (o.json) {
    v1::CaptureReport report;
    report.set_file(EscapedText(shown));
    report.set_frames(Count32(totals.frames));
    report.set_processes(Count32(totals.processes));
    report.set_bytes_read(static_cast<double>(totals.bytes_read));
    report.set_bytes_written(static_cast<double>(writer->bytes_written()));
    report.set_elapsed_ns(static_cast<double>(elapsed_ns));
    report.set_frames_cut(Count32(totals.frames_cut));
    report.set_cut_reason(Printable(totals.last_cut));
    report.set_environ(scan.keep_environ ? "kept" : "redacted");
    std::fprintf(out, "%s\n", ToJson(report).c_str());
  } else {
    // The process records are summed over the frames.
    std::fprintf(out, "wrote %s: %s, %s, %s read, %s written, %.3f s\n",
                 EscapeBytes(shown, 4096).c_str(), Plural(totals.frames, "frame", "frames").c_str(),
                 Plural(totals.processes, "process record", "process records").c_str(),
                 Plural(totals.bytes_read, "byte", "bytes").c_str(),
                 Plural(writer->bytes_written(), "byte", "bytes").c_str(),
                 static_cast<double>(elapsed_ns) / 1e9);
    if (totals.frames_cut > 0) {
      std::fprintf(out, "  %s cut by a bound (%s)\n",
                   Plural(totals.frames_cut, "frame", "frames").c_str(), totals.last_cut.c_str());
    }
  }
  // The file has no place for them (a frame's index is its position), so
  // the skipped slots are said here.
  if (schedule.missed() > 0) {
    Note(Plural(schedule.missed(), "interval slot was", "interval slots were") +
         " skipped: a frame started only after its slot's successor had begun (--interval " +
         std::to_string(o.interval_ms) + " ms; " + Plural(totals.frames, "frame", "frames") +
         " over " + std::to_string(schedule.slot() + 1) + " slots)");
  }
  // Why a watch ended: the root's exit, or the --frames ceiling with the
  // root still running (an interrupt says so itself, below).
  if (o.until_exit && totals.root_exited) {
    Note("--until-exit: root " + std::to_string(o.root) +
         " exited (gone, a zombie, or its pid another process's): frame " +
         std::to_string(totals.frames - 1) + ", the last, shows it");
  } else if (o.until_exit && signal == 0) {
    Note("--until-exit: stopped at --frames " + std::to_string(o.frames) + " with root " +
         std::to_string(o.root) + " still running");
  }
  if (scan.keep_environ) {
    Warn("--env keep: environment values are stored as read; the file may hold secrets");
  }
  if (totals.list_err != 0) {
    return Fail(kExitInternal, "cannot list " + EscapeBytes(root, 4096) + ": " +
                                   ErrnoName(totals.list_err) +
                                   " (frames without records were written)");
  }
  // The interrupt is the failure (under --json its error object, with the
  // status): the file is finished all the same.
  if (signal != 0) {
    return Fail(ExitInterrupted(signal),
                std::string("interrupted by ") + SignalName(signal) + " after " +
                    Plural(totals.frames, "frame", "frames") + of_frames + ": " +
                    EscapeBytes(shown, 4096) + " holds those, complete");
  }
  // A frame cut by a bound does not hold every process: the file is kept,
  // whole and readable, and the status says it is incomplete (exit 8;
  // docs/cli/commands.md, "A capture cut by a bound"). A root in no frame of
  // a cut capture may lie past the cut: the cut is the status.
  const bool cut = totals.frames_cut > 0 || !writer->refused().empty();
  const std::string where = dir ? EscapeBytes(o.proc_root, 4096) : EscapeBytes(root, 4096);
  // An empty selection is not a success: a --root in no frame selected
  // nothing. The file is kept (it is evidence of what /proc held), the exit
  // status says "not found". A root that exited during a multi-frame capture
  // was found: a warning says in how many frames it was missing.
  if (!cut && totals.root_missing > 0 && totals.root_missing == totals.frames) {
    return Fail(kExitNotFound, "--root " + std::to_string(o.root) + " is in no frame: " + where +
                                   " holds no such process; " + EscapeBytes(shown, 4096) +
                                   " was written with 0 processes");
  }
  // --until-exit: a root missing from the last frame is how it ended.
  if (totals.root_missing > (totals.root_exited ? 1u : 0u)) {
    Warn("--root " + std::to_string(o.root) + " was not in " + where + " in " +
         std::to_string(totals.root_missing) + " of " + Plural(totals.frames, "frame", "frames") +
         " (it exited or had not started)");
  }
  if (cut) {
    // The file's count limits may end a capture before a frame begins: then
    // no frame is cut, the capture is.
    const std::string what =
        totals.frames_cut > 0
            ? Plural(totals.frames_cut, "frame", "frames") + " of " +
                  std::to_string(totals.frames) + " cut by a bound (" + totals.last_cut + ")"
            : "stopped after " + Plural(totals.frames, "frame", "frames") + of_frames;
    return Fail(kExitBound, (writer->refused().empty() ? "" : writer->refused() + ": ") + what +
                                ": " + EscapeBytes(shown, 4096) +
                                " holds what was read, complete and readable, not every process");
  }
  return kExitOk;
}

}  // namespace proctape
