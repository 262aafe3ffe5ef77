// SPDX-License-Identifier: Apache-2.0
// Recording of one live resolution or liveness check into a .ptape file, the
// forensic artifact of a failure on a CI host: the header, a whole-host frame
// taken just before, the tape (every call the check made through the evidence
// interface, in order, with its exact result and time), a whole-host frame
// taken just after, and the Resolution (request, verdict, where its tape
// lies).
//
// The check runs against a RecordingEvidence wrapped around the live source,
// which forwards every call unchanged: recording does not change what the
// check does. Environ values are redacted in frames and tape alike, except the
// entries in `kept_entries` (the token entry of the resolution), so a replay
// sees the same token evidence.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "capture/frame_scanner.h"
#include "capture/procfs_evidence.h"
#include "core/failure.h"
#include "format/format_error.h"
#include "fs/output_file.h"
#include "format/writer.h"
#include "proctape.pb.h"

namespace proctape {

struct LiveRecordOptions {
  std::string path;    // output file, "-" for standard output: opened
  bool force = false;  //   by the calls that take no OutputFile
  std::string proc_root = "/proc";
  std::vector<std::string> command_line;  // stored in the header
  std::vector<std::string> kept_entries;  // environ entries kept verbatim
  ScanOptions scan;                       // for the two frames
  unsigned threads = 0;                   // frame scan threads; 0: DefaultScanThreads()
};

// Threads a whole-host frame scan uses by default: the cores the host has
// (std::thread::hardware_concurrency), at most 4; at least 1.
unsigned DefaultScanThreads();

// `threads` readers for ScanFrameParallel, each with its own ProcfsEvidence
// of `proc_root` and the pid-namespace identity bound to it. None when
// threads <= 1 (the scan is then ScanFrame's, on the caller's thread); fewer
// when `proc_root` cannot be opened again (e.g. EMFILE): the scan does with
// what it has.
std::vector<ScanWorker> OpenScanWorkers(const std::string& proc_root, unsigned threads);

// Fills the header fields every capture shares that are facts of no host:
// tool version, the scan bounds, the redaction policy, the command line.
void FillScanHeader(const ScanOptions& scan, const std::vector<std::string>& command_line,
                    v1::Header* header);

// FillScanHeader, and the facts of this machine and of the capturer
// (capture/host_facts.h: FillCaptureHeader on `proc_root`): the header of a
// live capture. An import (capture --proc-root) takes neither: its host is
// not this machine.
void FillHeader(const ScanOptions& scan, const std::string& proc_root,
                const std::vector<std::string>& command_line, v1::Header* header);

// One whole-host (or, with scan.root_pid, one subtree) frame of `evidence`
// written to `writer` as frame `index`: ScanFrameParallel with `workers`
// (none: ScanFrame's scan, on this thread). False when the writer failed.
bool WriteScanFrame(Evidence& evidence, const ScanOptions& scan, const PidNamespaceFn& pid_ns,
                    std::vector<ScanWorker>& workers, std::uint64_t index, SnapshotWriter& writer);

// One check recorded between two frames (RecordLiveSteps of one step).
// `check` makes its calls through the Evidence it is given and fills the
// Resolution's request and outcome. Nothing, or a kIo failure (one line)
// when the file cannot be written; nothing is left of the file then.
MaybeFailure RecordLive(ProcfsEvidence& live, const LiveRecordOptions& options,
                        std::unique_ptr<OutputFile> output,
                        const std::function<void(Evidence&, v1::Resolution*)>& check);
// The same to options.path, opened here (a refused path: OutputFile::Open's
// failure).
MaybeFailure RecordLive(ProcfsEvidence& live, const LiveRecordOptions& options,
                        const std::function<void(Evidence&, v1::Resolution*)>& check);

// `check` run on `live`, recorded into `output` when there is one
// (RecordLive; options.path and force are not used): what `resolve
// --record` and `liveness --record` run. Nothing, or a kIo failure whose
// message is why the file could not be begun or written (nothing is left of
// it then; the check ran unless it could not be begun).
MaybeFailure RunLiveCheck(ProcfsEvidence& live, const LiveRecordOptions& options,
                          std::unique_ptr<OutputFile> output,
                          const std::function<void(Evidence&, v1::Resolution*)>& check);

// One check of a multi-check recording and what is done to the host just
// before it (e.g. the lab ends the sleep, then checks liveness again).
struct LiveStep {
  std::function<MaybeFailure()> before;  // optional; a failure stops the recording
  std::function<void(Evidence&, v1::Resolution*)> check;
};

// Where a recording's frames come from: `pid_ns` of the checked evidence, and
// the worker threads' own evidence, opened when the first frame is taken
// (none: the scan runs on the calling thread).
struct FrameSource {
  PidNamespaceFn pid_ns;
  std::function<std::vector<ScanWorker>()> open_workers;
};

// What RecordChecks writes around the checks.
struct RecordPlan {
  v1::Header header;  // written first, as given (FillHeader)
  ScanOptions scan;   // the frames' bounds; its keep_environ and kept_entries
                      //   are the recorder's too
  FrameSource frames;
  // false: no frame before the first check (the library's Record::kOnFailure).
  bool frame_before_first = true;
  // Asked once the checks have run; false: nothing is written after them and
  // the temporary goes (the library's kOnFailure on RESOLVED). Null: kept.
  std::function<bool()> keep;
};

enum class RecordOutcome {
  kWritten,    // the whole file, renamed into place
  kDiscarded,  // plan.keep said no: nothing is left, and that is no failure
  kFailed,     // *failure says why; nothing is left of the file
};

// The one record pipeline (`resolve --record`, `liveness --record`, the lab,
// the library's record policy): the header; for each step, `before`, a frame
// (but the first when !frame_before_first), then the check through a
// RecordingEvidence (its calls unchanged) with its Resolution's part of the
// tape; then plan.keep, one more frame, the Resolutions and the footer. Frame
// k is taken just before check k, so a frame model of check k sees the host
// as the step left it; observation indexes run on across checks. A check
// whose file has failed still runs, so its verdict stands; no later step
// begins; a file plan.keep does not keep is kDiscarded even then. `output`
// is opened (and so checked) before any work (fs/output_file.h). kFailed
// fills *failure: a `before`'s failure as it was given, or the writer's
// (kIo).
RecordOutcome RecordChecks(Evidence& evidence, const RecordPlan& plan,
                           std::unique_ptr<OutputFile> output, const std::vector<LiveStep>& steps,
                           Failure* failure);

// RecordChecks on the live host, as `options` says: the header of a live
// capture (FillHeader), frames from `live` and options.threads readers.
// Nothing, or a failure (one line): the file cannot be written (kIo), or a
// `before` failed (its failure as given); nothing is left of the file then.
MaybeFailure RecordLiveSteps(ProcfsEvidence& live, const LiveRecordOptions& options,
                             std::unique_ptr<OutputFile> output,
                             const std::vector<LiveStep>& steps);
// The same to options.path, opened here (a refused path: OutputFile::Open's
// failure).
MaybeFailure RecordLiveSteps(ProcfsEvidence& live, const LiveRecordOptions& options,
                             const std::vector<LiveStep>& steps);

}  // namespace proctape
