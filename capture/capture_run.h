// SPDX-License-Identifier: Apache-2.0
// `proctape capture` as one call (docs/cli/commands.md): the frames of an
// opened evidence source written into an opened output, and what the kept
// file's exit status and messages are. The command parses its options,
// opens the source (the live /proc here, LiveSource; a --proc-root
// directory in procdir/import.h, ImportSource) and the output (its jail entered),
// calls Run, and says what it returns; nothing here prints.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "capture/frames_capture.h"
#include "capture/procfs_evidence.h"
#include "core/failure.h"
#include "fs/output_file.h"
#include "proctape.pb.h"

namespace proctape::capture {

// What a capture reads, opened: the evidence the hooks read through (owned
// here), the header of the file, the time frames are spaced from, and the
// worker threads' own evidence, opened once the output is (none: the scan
// runs on the calling thread).
struct EvidenceSource {
  std::unique_ptr<Evidence> evidence;
  FrameSourceHooks hooks;
  v1::Header header;
  std::int64_t start_ns = 0;
  std::function<std::vector<ScanWorker>()> open_workers;
};

// The live /proc `proc` (opened from `proc_path`) as a source: the header of
// a live capture (FillHeader), a --root scan walking the children files
// (capture/frame_scanner.h, "Root mode"), and `threads` readers
// (0: DefaultScanThreads()).
EvidenceSource LiveSource(std::unique_ptr<ProcfsEvidence> proc, const ScanOptions& scan,
                          const std::string& proc_path,
                          const std::vector<std::string>& command_line, unsigned threads);

// The file a capture writes when none is named:
// ./<hostname>-<UTC time>.ptape, the hostname made a file name component
// ([A-Za-z0-9._-] kept, anything else '_').
std::string DefaultOutputPath(const v1::Header& header);

// What a capture takes, and the names its messages give.
struct Request {
  FramePlan plan;                  // its start_ns is the source's
  std::uint64_t frames_given = 1;  // --frames as given: where --until-exit stopped
  std::string source_name;         // the /proc or directory read, as given
  std::string output_name;         // the output, as given ("standard output" for '-')
};

// Why the file was not finished (nothing is left of it, nothing else is said).
enum class Unfinished {
  kNo,
  kOutput,  // unfinished->message: the writer's error, about the output
  kSource,  // unfinished->message: the source's error (a damaged side file)
};

// What a capture did. When `unfinished` is set the rest is not to be said;
// else, in this order: the report (totals, bytes_written), the notes, the
// warnings, then `failure` or `interrupted`, if any (the file is kept in
// every case).
struct Result {
  Unfinished stop = Unfinished::kNo;
  MaybeFailure unfinished;  // kIo (output) or kCorrupt (source)
  FrameTotals totals;
  std::uint64_t bytes_written = 0;
  std::vector<std::string> notes;     // skipped interval slots, how --until-exit ended
  std::vector<std::string> warnings;  // kept environ values, a --root missing from frames
  // kInternal: the source could not be listed; kNotFound: the --root is in
  // no frame; kBound: a frame (or the capture) was cut by a bound.
  MaybeFailure failure;
  // totals.signal != 0 (no failure before it): what the interrupt left, for
  // the status 128 + signal (no FailureKind holds it).
  std::string interrupted;
};

// The header written, then CaptureFrames on `source` into `output` with
// `progress`, then the file's status decided as docs/cli/commands.md says.
Result Run(const Request& request, EvidenceSource& source, std::unique_ptr<OutputFile> output,
           const FrameProgressFn& progress);

// The report as `capture --json` prints it (v1::CaptureReport): the output's
// name as text, the numbers of a finished Run, and the environ policy.
v1::CaptureReport JsonReport(const Request& request, const Result& result);

}  // namespace proctape::capture
