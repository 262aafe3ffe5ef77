// SPDX-License-Identifier: Apache-2.0
// What resolve and liveness share on the live host: --record opened before
// any work, and a check run on the live /proc, recorded when asked.
#pragma once

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "capture/procfs_evidence.h"
#include "cli/command_io.h"
#include "cli/outputs.h"
#include "core/evidence.h"
#include "proctape.pb.h"

namespace proctape {

// --force only with a --record FILE (else the usage error, said: false with
// *exit_code set), and --record, when given, as io's output, opened by
// EnterCommand before any work (cli/command_io.h).
bool AddRecordOutput(bool given, const std::string& record, bool force, CommandIo* io,
                     int* exit_code);

// Runs `check` on the live host, recorded into `output` when there is one.
// Returns false (after a one-line message) when the file could not be written.
bool RunMaybeRecorded(ProcfsEvidence& live, std::unique_ptr<OutputFile> output,
                      const std::string& proc, const std::vector<std::string>& command_line,
                      const std::vector<std::string>& kept_entries,
                      const std::function<void(Evidence&, v1::Resolution*)>& check);

// The verdict goes to standard output, unless the recorded file does
// (`--record -`): then to standard error, so the file stays whole.
std::FILE* VerdictStream(const std::string& record);

}  // namespace proctape
