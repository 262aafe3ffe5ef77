// SPDX-License-Identifier: Apache-2.0
// What resolve, liveness and fingerprint share on the live host: --record
// opened before any work, where the verdict goes, and a refusal of the
// library's said as every error about an option's path is.
#pragma once

#include <cstdio>
#include <string>

#include "capture/option_failure.h"
#include "cli/command_io.h"

namespace proctape {

// --force only with a --record FILE (else the usage error, said: false with
// *exit_code set), and --record, when given, as io's output, opened by
// EnterCommand before any work (cli/command_io.h).
bool AddRecordOutput(bool given, const std::string& record, bool force, CommandIo* io,
                     int* exit_code);

// The verdict goes to standard output, unless the recorded file does
// (`--record -`): then to standard error, so the file stays whole.
std::FILE* VerdictStream(const std::string& record);

// `refused` said (cli/errors.h): FailAbout its option's path, or Fail when
// it names none. Returns its exit status.
int FailOption(const OptionFailure& refused);

}  // namespace proctape
