// SPDX-License-Identifier: Apache-2.0
// `proctape export --format proc-dir` from the file to its directory: the
// file read keeping only the frame asked for (the shells of the others and
// the resolutions, no observation), the directory kept to its owner when the
// file keeps environment values (fs/output_file.h, rule 2), the frame written
// by WriteProcDir (procdir/writer.h) and committed. The output is open
// already; what is said of the run is the caller's.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/failure.h"
#include "fs/output_file.h"
#include "procdir/writer.h"
#include "replay/token_mask.h"

namespace proctape {

struct ProcDirExportRequest {
  std::string file;  // the .ptape file ("-": standard input)
  std::uint64_t frame = 0;
  std::string frame_option = "--frame";  // the option that picked `frame`, for a refusal
  std::string out;                       // the directory as named
  // A step's line while it runs ("export: reading NAME", escaped), "" when
  // it is over (before any failure is said).
  std::function<void(const std::string& step)> progress;
};

struct ProcDirExport {
  TokenMask mask;      // the input's tokens: what names the input or output masks them
  ProcDirStats stats;  // what was written
  // Said before anything else: the directory holds environment values.
  std::vector<std::string> warnings;
  // At most one is set, and then nothing is left behind:
  MaybeFailure input_failure;   // the file does not read (10-16): about `file` as named
  MaybeFailure failure;         // no such frame (kUsage): said as it is
  MaybeFailure output_failure;  // the directory cannot be written: about `out`
};

// Exports frame `request.frame` of `request.file` into `output` (open, not
// committed: ProcDirRequest), committing it when whole.
ProcDirExport ExportProcDir(const ProcDirExportRequest& request,
                            std::unique_ptr<OutputFile> output);

}  // namespace proctape
