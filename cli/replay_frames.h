// SPDX-License-Identifier: Apache-2.0
// `proctape replay`'s options, and its frame model (`--model frames`,
// docs/replay.md): every recorded resolution re-run on the captured frames,
// or a plain capture's request given by the options
// (cli/replay_command.cc parses and reads; this file runs and renders).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "format/reader.h"
#include "replay/replay.h"

namespace proctape {

struct ReplayOptions {
  std::string file;
  bool json = false;
  RequestOverrides overrides;
  std::int64_t root = 0;
  std::uint64_t root_start = 0;
  std::string token;
  std::string token_var;
  std::vector<std::string> argv;
  std::string exe_identity;  // DEV:INO
  std::string model = "tape";
  std::int64_t exe_like = 0;
  bool has_exe_like = false;
  bool has_root = false;
  bool has_token = false;
  std::string legacy_marker;
  bool has_legacy = false;
  std::string fingerprint;  // --fingerprint FILE
};

// --model frames on the read `snapshot` (`name`: how it is said): the runs,
// printed or as one ReplayReport (--json); the exit status.
int RunFrames(const ReplayOptions& o, const Snapshot& snapshot, const std::string& name);

}  // namespace proctape
