// SPDX-License-Identifier: Apache-2.0
// `proctape export --format json|dot` from the file to its output: the file
// read (json: checked whole, then streamed from further reads, a copy when it
// cannot be read twice: analyze/export_json.h; dot: the one frame it draws,
// the shells of the others and the resolutions, no observation), the output
// kept to its owner when the file keeps environment values (fs/output_file.h,
// rule 2), the document written and committed. The output is open already;
// what is said of the run is the caller's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/failure.h"
#include "fs/output_file.h"
#include "replay/token_mask.h"

namespace proctape {

struct FileExportRequest {
  std::string file;  // the .ptape file ("-": standard input)
  bool json = true;  // json: the whole file; else the dot of `frame`
  std::uint64_t frame = 0;
  std::string frame_option = "--frame";  // the option that picked `frame`, for a refusal
  std::string out;                       // the output as named ("-": standard output)
  // A step's line while it runs ("export: reading NAME", escaped), "" when
  // it is over (before any failure is said).
  std::function<void(const std::string& step)> progress;
};

struct FileExport {
  TokenMask mask;               // the input's tokens: what names the input or output masks them
  std::uint64_t processes = 0;  // json: the process records of every frame; dot: those drawn
  std::uint64_t bytes = 0;      // the document's size
  // Said before anything else: the output keeps environment values.
  std::vector<std::string> warnings;
  // At most one is set, and then nothing is written:
  MaybeFailure input_failure;   // the file does not read (10-16): about `file` as named
  MaybeFailure failure;         // no such frame, a document past 2 GiB: said as it is
  MaybeFailure output_failure;  // the output cannot be written: about `out`
};

// Exports `request.file` into `output` (open, not committed), committing it
// when the document is whole.
FileExport ExportFile(const FileExportRequest& request, OutputFile& output);

}  // namespace proctape
