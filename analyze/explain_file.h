// SPDX-License-Identifier: Apache-2.0
// `proctape explain FILE`: the file read (its tape as replay keeps it, no
// frame's processes), then each recorded check, or the one asked for,
// explained (analyze/explain.h). Whether a check no longer replays to its
// verdict is in the explanation (ExplainCheck.replay): its exit status is the
// caller's.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "core/failure.h"
#include "explain.pb.h"
#include "replay/token_mask.h"

namespace proctape {

struct ExplainFileRequest {
  std::string file;                      // the recording ("-": standard input)
  std::optional<std::size_t> check;      // only this recorded check (from 0)
  std::string check_option = "--check";  // the option that named `check`, for a refusal
};

struct ExplainedFile {
  TokenMask mask;  // the file's tokens: what names the file masks them
  v1::Explanation explanation;
  // At most one is set, and then nothing is explained:
  MaybeFailure input_failure;  // the file does not read (10-16): about the file, named masked
  MaybeFailure failure;        // no recorded check, or no check `check` (kUsage): said as it is
};

ExplainedFile ExplainFile(const ExplainFileRequest& request);

}  // namespace proctape
