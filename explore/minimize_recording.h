// SPDX-License-Identifier: Apache-2.0
// The pipeline of `proctape minimize FILE -o OUT` (docs/explore.md,
// "Minimize"): one recorded check of a recording, read whole by the caller,
// set up on the host model of its frame, reduced under the kernel events of a
// file explore derived (explore/minimize.h) within the run's bound
// (explore/bound.h), and written through the caller's writer as a recording
// derived by minimize (explore/counterexample.h). Its report (MinimizeReport,
// proto/explore.proto) and text name the file and OUT masked with the file's
// tokens. Never reads the live /proc.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "core/failure.h"
#include "explore.pb.h"
#include "explore/bound.h"
#include "explore/check.h"
#include "explore/minimize.h"
#include "format/reader.h"
#include "format/writer.h"
#include "replay/token_mask.h"

namespace proctape::explore {

struct MinimizeRequest {
  std::string file;    // as named on the command line ("-": standard input)
  std::string output;  // the path `writer` writes, as named
  std::uint64_t check = 0;
  RunLimits limits;  // the run's bound
};

struct MinimizedRecording {
  MinimizeRequest request;
  TokenMask mask;  // the file's tokens
  std::unique_ptr<CheckSetup> setup;
  std::unique_ptr<Minimized> done;
  v1::MinimizeReport report;  // what --json prints
};

// Why MinimizeRecording gave nothing: a derived file whose events do not
// parse (kCorrupt), a check that cannot be set up (kUsage), a check that does
// not reach its recorded verdict on its frame (kVerdictChanged): each "FILE:
// ..." with the name masked; or the output not written (kIo, the writer's
// words: `output` is set, the failure concerns request.output).
struct MinimizeFailure {
  Failure failure;
  bool output = false;
};

// Minimizes check `request.check` of `snapshot` and writes the result through
// `writer` (finished on success). `progress` is called as each run starts.
std::optional<MinimizedRecording> MinimizeRecording(
    const Snapshot& snapshot, const MinimizeRequest& request, SnapshotWriter& writer,
    const std::function<void(std::uint64_t runs)>& progress, MinimizeFailure* failure);

// The text `proctape minimize` prints (ends in a newline).
std::string MinimizeText(const MinimizedRecording& minimized);
// The --json document: the MinimizeReport and a newline.
std::string MinimizeJson(const MinimizedRecording& minimized);

}  // namespace proctape::explore
