// SPDX-License-Identifier: Apache-2.0
// `proctape liveness` on the live host.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "capture/live_liveness.h"
#include "cli/commands.h"
#include "cli/errors.h"
#include "cli/options.h"
#include "cli/exit_codes.h"
#include "cli/live_proc.h"
#include "cli/live_run.h"
#include "cli/outputs.h"
#include "core/proc_parse.h"
#include "proto/convert.h"
#include "proto/summary.h"

namespace proctape {
namespace {

struct LivenessOptions {
  LivenessSource source;
  bool json = false;
  std::string record;
  bool has_record = false;
  bool force = false;
  std::vector<std::string> command_line;
};

// The verdict: on standard error when the recording is on standard output.
void PrintVerdict(const LivenessOptions& o, const LivenessVerdict& v) {
  std::FILE* out = VerdictStream(o.record);
  if (o.json) {
    std::fprintf(out, "%s\n", ToJson(ToSummary(ToProto(v))).c_str());
  } else if (v.status == LivenessStatus::kError) {
    std::fprintf(out, "ERROR %s: %s\n", std::string(StatusName(v.reason)).c_str(),
                 v.detail.c_str());
  } else {
    std::fprintf(out, "%s: %s\n", std::string(LivenessName(v.status)).c_str(), v.detail.c_str());
  }
}

int RunLiveness(const LivenessOptions& o) {
  const LivenessSource& from = o.source;
  // The output first, then --proc: a directory that is not a procfs root is
  // refused before anything is read from it.
  int exit_code = kExitOk;
  CommandIo io{"liveness",
               {{"--fingerprint", from.fingerprint}, {"--from-recording", from.from_recording}}};
  if (!AddRecordOutput(o.has_record, o.record, o.force, &io, &exit_code)) return exit_code;
  std::unique_ptr<OutputFile> record;
  if (int entered = EnterCommand(io, &record); entered != kExitOk) return entered;
  auto evidence = OpenLiveProc(from.proc, &exit_code);
  if (!evidence) return exit_code;
  // The identity and its boot, refused from another boot (exit 9).
  BootIdentity identity;
  if (auto refused = LivenessIdentity(from, &identity)) return FailOption(*refused);
  // The pid must be one this host can have (cli/live_proc.h).
  if (!PidBelowPidMax("--pid", identity.pid, from.proc, &exit_code)) return exit_code;
  LiveLiveness checked =
      CheckLivenessLive(*evidence, identity, from.proc, o.command_line, std::move(record));
  if (checked.record_failure) FailAbout("--record", o.record, *checked.record_failure);
  if (!checked.ran) return kExitIo;
  PrintVerdict(o, checked.verdict);
  for (const std::string& warning : checked.warnings) Warn(warning);
  if (checked.record_failure) return kExitIo;
  return ExitCodeFor(checked.verdict);
}

}  // namespace

// --boot-id's check: the form /proc/sys/kernel/random/boot_id has.
CLI::Validator BootIdValidator() {
  return CLI::Validator(
      [](std::string& text) {
        Failure failure;
        return ParseBootId(text, &failure).empty() ? failure.message : std::string();
      },
      "", "boot id");
}

// --pid and --start, required unless --from-recording names the identity:
// kExitOk, or the status after the line a missing required option gives
// (cli/parse_errors.h).
int IdentityGiven(const LivenessOptions& o, const CLI::Option& pid, const CLI::Option& start) {
  if (!o.source.from_recording.empty() || (pid.count() > 0 && start.count() > 0)) return kExitOk;
  return UsageError(pid.count() == 0 ? "missing --pid PID (host pid, as resolve printed it), or "
                                       "--from-recording FILE"
                                     : "missing --start TICKS (start tick, as resolve printed it)");
}

// What `--help` says of the command, above its options.
constexpr const char* kDescription =
    "Is the process identified by (--pid, --start) still alive? Re-reads its stat only:\n"
    "gone or state Z/X/x is DEAD, the same start time is ALIVE, another start time means\n"
    "the pid was reused (ERROR). Never signals anything.\n"
    "A start tick counts from its boot: the identity's boot comes from --fingerprint FILE\n"
    "(the fingerprint it was resolved against), --from-recording FILE (a 'resolve --record'\n"
    "file: its resolved identity and boot) or --boot-id ID, and another boot than this\n"
    "host's is refused (exit 9). Without one the check runs and says, on standard error,\n"
    "in the verdict (boot_unchecked) and in a recording, that the boot was not checked\n"
    "(docs/resolver.md, 'Liveness').";

constexpr const char* kExamples =
    "Examples:\n"
    "  proctape liveness --pid 48213 --start 1234567 --fingerprint root.ptape\n"
    "  proctape liveness --from-recording resolved.ptape\n"
    "  proctape liveness --pid 48213 --start 1234567   # boot unknown: warns\n\n";

void RegisterLiveness(CLI::App& app, int* exit_code, std::vector<std::string> command_line) {
  auto o = std::make_shared<LivenessOptions>();
  o->command_line = std::move(command_line);
  CLI::App* sub = app.add_subcommand("liveness", kDescription);
  // A value that cannot be a pid is a usage error, not a process that is gone:
  // 2..2147483647 (`docs/resolver.md`, "Liveness"), and below this host's
  // pid_max (checked when run).
  CLI::Option* pid = AddLivePid(sub, "--pid", o->source.pid,
                                "host pid, as resolve printed it (2 up to below pid_max)");
  CLI::Option* start = AddUnsigned(sub, "--start", o->source.start, 1, UINT64_MAX,
                                   "start tick, as resolve printed it (not 0)", "TICKS");
  CLI::Option* boot_id =
      sub->add_option("--boot-id", o->source.boot_id,
                      "the boot the start tick counts from "
                      "(/proc/sys/kernel/random/boot_id when it was resolved); refused when "
                      "it is not this host's (exit 9)")
          ->check(NonEmpty("an empty boot id names no boot"))
          ->check(BootIdValidator())
          ->type_name("ID")
          ->each([o](const std::string&) { o->source.has_boot_id = true; });
  CLI::Option* fingerprint =
      sub->add_option("--fingerprint", o->source.fingerprint,
                      "the fingerprint file the identity was resolved against ('resolve "
                      "--fingerprint FILE'): its boot; refused from another boot (exit 9)")
          ->check(NonEmptyPath())
          ->type_name("FILE")
          ->excludes(boot_id);
  sub->add_option("--from-recording", o->source.from_recording,
                  "a 'resolve --record' file: check the identity it resolved (its one RESOLVED "
                  "verdict), in the boot it was recorded in (exit 9: another boot)")
      ->check(NonEmptyPath())
      ->type_name("FILE")
      ->excludes(pid)
      ->excludes(start)
      ->excludes(boot_id)
      ->excludes(fingerprint);
  AddProcOption(sub, o->source.proc);
  sub->add_flag("--json", o->json, "print the verdict as one JSON object (LivenessSummary)");
  AddSideOutputOption(sub, "--record", o->record,
                      "also write FILE (.ptape): frames before and after, the stat read and "
                      "verdict; - writes it to standard output (the verdict then goes to "
                      "standard error)")
      ->each([o](const std::string&) { o->has_record = true; });
  AddForceOption(sub, o->force, "with --record FILE: replace an existing FILE");
  sub->footer(
      std::string(kExamples) +
      ExitStatusFooter(
          "0 ALIVE, 1 this host's boot id cannot be read, 2 usage error, 3 DEAD, 4 pid reused, 7 unreadable, 9 an identity of another boot, 10 --record refused or cannot be written, 10-16 a damaged --fingerprint or --from-recording"));
  sub->callback([o, exit_code, pid, start] {
    const int missing = IdentityGiven(*o, *pid, *start);
    *exit_code = missing != kExitOk ? missing : RunLiveness(*o);
  });
}

}  // namespace proctape
