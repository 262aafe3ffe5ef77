// SPDX-License-Identifier: Apache-2.0
// What resolve, liveness and fingerprint share on the live host (cli/live_run.h).
#include "cli/live_run.h"

#include <utility>

#include "cli/errors.h"
#include "cli/exit_codes.h"
#include "cli/outputs.h"

namespace proctape {

// --force only with a --record FILE, and --record opened (checked, its
// temporary made) before anything else: the output before any work, never
// one of the command's `inputs` (OutputIsAnInput). Null
// (and no exit status) when there is no --record; *exit_code is set when it
// is refused.
bool AddRecordOutput(bool given, const std::string& record, bool force, CommandIo* io,
                     int* exit_code) {
  if (std::string why = ForceWithoutOutput(force, "--record", given, record); !why.empty()) {
    *exit_code = Fail(kExitUsage, why);
    return false;
  }
  if (!given) return true;
  io->output.emplace();
  io->output->path = record;
  io->output->force = force;
  io->output->stdout_allowed = true;
  io->output->binary = true;
  io->output_option = "--record";
  return true;
}

// The verdict goes to standard output, unless the recorded file does
// (`--record -`): then to standard error, so the file stays whole.
std::FILE* VerdictStream(const std::string& record) { return record == "-" ? stderr : stdout; }

int FailOption(const OptionFailure& refused) {
  if (refused.option.empty()) return Fail(refused.failure);
  return FailAbout(refused.option, refused.path, refused.failure);
}

}  // namespace proctape
