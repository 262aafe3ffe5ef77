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
#include "format/format_error.h"
#include "format/output_file.h"
#include "format/writer.h"
#include "proctape.pb.h"

namespace proctape {

struct LiveRecordOptions {
  std::string path;                        // output file, "-" for standard output: opened
  bool force = false;                      //   by the calls that take no OutputFile
  std::string proc_root = "/proc";
  std::vector<std::string> command_line;   // stored in the header
  std::vector<std::string> kept_entries;   // environ entries kept verbatim
  ScanOptions scan;                        // for the two frames
  unsigned threads = 0;                    // frame scan threads; 0: DefaultScanThreads()
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

// Runs `check` through a recorder between two frames and writes the file to
// `output`, opened (and so checked) before any work (format/output_file.h).
// `check` makes its calls through the Evidence it is given and fills the
// Resolution's request and outcome. Returns false with *error (one line) when
// the file cannot be written; the check itself has run by then or not at all.
// Nothing is left of the file then.
bool RecordLive(ProcfsEvidence& live, const LiveRecordOptions& options,
                std::unique_ptr<OutputFile> output,
                const std::function<void(Evidence&, v1::Resolution*)>& check, std::string* error);
// The same to options.path, opened here.
bool RecordLive(ProcfsEvidence& live, const LiveRecordOptions& options,
                const std::function<void(Evidence&, v1::Resolution*)>& check, std::string* error);

// One check of a multi-check recording and what is done to the host just
// before it (e.g. the lab ends the sleep, then checks liveness again).
struct LiveStep {
  std::function<bool(std::string* error)> before;  // optional; false stops the recording
  std::function<void(Evidence&, v1::Resolution*)> check;
};

// Several checks in one file: for each step, `before`, a whole-host frame,
// then the check through the recorder; one more frame after the last. Frame k
// is taken just before check k, so a frame model of check k sees the host as
// the action left it. The tape holds every check's calls, in order; each
// Resolution names its part. When a `before` fails, *error is its message and
// nothing is left of the file.
bool RecordLiveSteps(ProcfsEvidence& live, const LiveRecordOptions& options,
                     std::unique_ptr<OutputFile> output, const std::vector<LiveStep>& steps,
                     std::string* error);
// The same to options.path, opened here.
bool RecordLiveSteps(ProcfsEvidence& live, const LiveRecordOptions& options,
                     const std::vector<LiveStep>& steps, std::string* error);

}  // namespace proctape
