// SPDX-License-Identifier: Apache-2.0
// What resolve and liveness share on the live host (cli/live_run.h).
#include "cli/live_run.h"

#include <utility>

#include "capture/live_record.h"
#include "cli/errors.h"
#include "cli/exit_codes.h"

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

// Runs `check` on the live host, recorded into `output` when there is one.
// Returns false (after a one-line message) when the file could not be written.
bool RunMaybeRecorded(ProcfsEvidence& live, std::unique_ptr<OutputFile> output,
                      const std::string& proc, const std::vector<std::string>& command_line,
                      const std::vector<std::string>& kept_entries,
                      const std::function<void(Evidence&, v1::Resolution*)>& check) {
  v1::Resolution unused;
  if (!output) {
    check(live, &unused);
    return true;
  }
  const std::string record = output->path();
  LiveRecordOptions options;
  options.proc_root = proc;
  options.command_line = command_line;
  options.kept_entries = kept_entries;
  std::string error;
  if (RecordLive(live, options, std::move(output), check, &error)) return true;
  FailAbout(kExitIo, "--record", record, error);
  return false;
}

// The verdict goes to standard output, unless the recorded file does
// (`--record -`): then to standard error, so the file stays whole.
std::FILE* VerdictStream(const std::string& record) { return record == "-" ? stderr : stdout; }

}  // namespace proctape
